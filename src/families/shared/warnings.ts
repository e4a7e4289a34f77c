/** Warnings for fields a target family cannot express: dropped or clamped, never silently. */
import type { ChatRequest, FamilyId } from '../../ir/index.ts';
import { familyIds } from '../../ir/index.ts';

/** One warning per family-only field that came from another family and cannot reach `target`. */
export function droppedExtensionWarnings(request: ChatRequest, target: FamilyId): string[] {
  const warnings: string[] = [];
  for (const family of familyIds) {
    if (family === target) continue;
    const fields = request.extensions[family];
    if (fields === undefined) continue;
    for (const field of Object.keys(fields)) {
      warnings.push(`${field} has no equivalent for ${target} models and was dropped`);
    }
  }
  return warnings;
}
