/** Warnings for fields a target family cannot express: dropped or clamped, never silently. */
import type { ChatRequest, FamilyId, Message } from '../../ir/index.ts';

/** One warning per family-only field that came from another family and cannot reach `target`. */
export function droppedExtensionWarnings(request: ChatRequest, target: FamilyId): string[] {
  const warnings: string[] = [];
  // Extensions are keyed by the family whose surface read them: every other family's are dropped.
  // `for…in` over own plain objects: no entries array per request (they are usually empty).
  const extensions = request.extensions;
  for (const family in extensions) {
    const fields = extensions[family];
    if (family === target || fields === undefined) continue;
    for (const field in fields) {
      warnings.push(`${field} has no equivalent for ${target} models and was dropped`);
    }
  }
  return warnings;
}

/** A's image `detail` hint has no equivalent elsewhere: one warning when any image carries it. */
export function imageDetailWarning(request: ChatRequest, target: FamilyId): string[] {
  for (const message of request.messages) {
    for (const part of message.content) {
      if (hasImageDetail(part) || (part.type === 'tool-result' && part.content.some(hasImageDetail)))
        return [`image detail has no equivalent for ${target} models and was dropped`];
    }
  }
  return [];
}

function hasImageDetail(part: Message['content'][number]): boolean {
  return part.type === 'image' && part.detail !== undefined;
}
