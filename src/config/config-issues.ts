/**
 * What a refused configuration says: the file's mistakes together, each at its field (`config
 * file x.yaml is invalid: … → at server.port`); a variable's refused value by the variable's name
 * (`PORT must be 0–65535, got 70000`), never its value when it may be a secret; a cross-field
 * check's own sentence.
 */
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { isCompleteMessage } from './cross-field.ts';
import type { EnvironmentOverlay } from './environment.ts';

export function configErrorOf(
  error: z.ZodError,
  environment: EnvironmentOverlay,
  filePath: string | undefined,
): ConfigError {
  const fileIssues: z.core.$ZodIssue[] = [];
  const mergedIssues: z.core.$ZodIssue[] = [];
  const refusals: string[] = [];
  for (const issue of error.issues) {
    const [branch, ...path] = issue.path;
    const refusal = isCompleteMessage(issue) ? issue.message : environment.refusalAt(issue.path);
    if (refusal !== undefined) refusals.push(refusal);
    else if (branch === 'file') fileIssues.push({ ...issue, path });
    // The file's own mistakes show twice (alone and under the variables): said once, from the file.
    else mergedIssues.push({ ...issue, path });
  }
  if (fileIssues.length === 0) fileIssues.push(...mergedIssues);
  if (fileIssues.length > 0) {
    const where = filePath === undefined ? 'the configuration' : `config file ${filePath}`;
    return new ConfigError(`${where} is invalid:\n${z.prettifyError(new z.ZodError(fileIssues))}`);
  }
  return new ConfigError(refusals[0] ?? z.prettifyError(error));
}
