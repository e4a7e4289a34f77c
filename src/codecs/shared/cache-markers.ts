/** B prompt-cache markers (`cache_control`) carried by a canonical request. */
import type { ChatRequest } from '../../ir/index.ts';

/** How many parts carry a marker: tools, system parts, message parts and tool-result contents. */
export function countCacheMarkers(request: ChatRequest): number {
  let count = 0;
  for (const tool of request.tools) if (tool.cacheControl !== undefined) count++;
  for (const part of request.system) if (part.cacheControl !== undefined) count++;
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.cacheControl !== undefined) count++;
      if (part.type === 'tool-result')
        for (const inner of part.content) if (inner.cacheControl !== undefined) count++;
    }
  }
  return count;
}

/** The warning for families that cache on their own and have no marker (A, C). */
export function cacheMarkerWarning(request: ChatRequest, target: string): string[] {
  if (countCacheMarkers(request) === 0) return [];
  return [
    `cache_control markers have no equivalent for ${target} models (they cache repeated prompt prefixes automatically) and were dropped`,
  ];
}
