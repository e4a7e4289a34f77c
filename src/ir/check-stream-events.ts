/**
 * The well-formedness rule every stream decoder must satisfy: one `message-start` first; blocks
 * opened before their deltas and closed once; no block left open at `finish`; exactly one
 * `message-end` or `error`, last. Returns the problems found (empty when well-formed).
 */
import type { StreamEvent } from './stream-event.ts';

export function checkStreamEvents(events: readonly StreamEvent[]): string[] {
  const problems: string[] = [];
  const open = new Map<string, 'text' | 'tool' | 'reasoning'>();
  const closed = new Set<string>();
  const finished = new Set<number>();
  if (events[0]?.type !== 'message-start') problems.push('first event is not message-start');
  events.forEach((event, position) => {
    const at = `event ${position} (${event.type})`;
    if (position > 0 && event.type === 'message-start') problems.push(`${at}: second message-start`);
    const isLast = position === events.length - 1;
    if ((event.type === 'message-end' || event.type === 'error') && !isLast) {
      problems.push(`${at}: not last`);
    }
    if (!('choice' in event)) return;
    if (finished.has(event.choice) && event.type !== 'finish')
      problems.push(`${at}: after its choice finished`);
    if (event.type === 'finish') {
      for (const key of open.keys())
        if (key.startsWith(`${event.choice}:`)) problems.push(`${at}: ${key} open`);
      finished.add(event.choice);
      return;
    }
    const key = `${event.choice}:${event.index}`;
    const kind = event.type.startsWith('text')
      ? 'text'
      : event.type.startsWith('reasoning')
        ? 'reasoning'
        : 'tool';
    if (event.type.endsWith('-start')) {
      if (open.has(key) || closed.has(key)) problems.push(`${at}: block ${key} started twice`);
      open.set(key, kind);
    } else if (open.get(key) !== kind) {
      problems.push(`${at}: block ${key} is not an open ${kind} block`);
    } else if (event.type.endsWith('-end')) {
      open.delete(key);
      closed.add(key);
    }
  });
  const last = events.at(-1);
  if (last?.type !== 'message-end' && last?.type !== 'error')
    problems.push('last event is not message-end or error');
  return problems;
}
