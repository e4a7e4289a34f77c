/**
 * A cross-field check's refusal: its message is the whole error (it names its fields or variables
 * itself), not one line of the file's list (config-issues.ts tells them apart).
 */
import type { z } from 'zod';

export function refuse(context: z.RefinementCtx, message: string): void {
  context.addIssue({ code: 'custom', message, params: { complete: true }, path: [] });
}

export function isCompleteMessage(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && issue.params?.complete === true;
}
