/** Warnings for fields a target family cannot express: dropped or clamped, never silently. */
import type { ChatRequest, FamilyId } from '../../ir/index.ts';

/** One warning per family-only field that came from another family and cannot reach `target`. */
export function droppedExtensionWarnings(request: ChatRequest, target: FamilyId): string[] {
  const warnings: string[] = [];
  // Extensions are keyed by the family whose surface read them: every other family's are dropped.
  for (const [family, fields] of Object.entries(request.extensions)) {
    if (family === target || fields === undefined) continue;
    for (const field of Object.keys(fields)) {
      warnings.push(`${field} has no equivalent for ${target} models and was dropped`);
    }
  }
  return warnings;
}

/** A's image `detail` hint has no equivalent elsewhere: one warning when any image carries it. */
export function imageDetailWarning(request: ChatRequest, target: FamilyId): string[] {
  for (const message of request.messages) {
    for (const part of message.content) {
      const images = part.type === 'tool-result' ? part.content : [part];
      for (const image of images) {
        if (image.type === 'image' && image.detail !== undefined)
          return [`image detail has no equivalent for ${target} models and was dropped`];
      }
    }
  }
  return [];
}
