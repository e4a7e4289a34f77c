/**
 * Canonical stream events (noun-verb, start/delta/end with an index). A well-formed sequence is:
 * one `message-start`; per choice, blocks opened and closed by index; one `finish` per choice;
 * then exactly one `message-end` or `error` last. `checkStreamEvents` enforces this in tests.
 */
import type { FinishReason } from './finish-reason.ts';
import type { GatewayError } from './gateway-error.ts';
import type { Usage } from './usage.ts';

export type StreamEvent =
  | { type: 'message-start'; id: string; model: string; created: number; usage?: Usage }
  /** `index` numbers content blocks within one choice, in order of appearance. */
  | { type: 'text-start'; choice: number; index: number }
  | { type: 'text-delta'; choice: number; index: number; text: string }
  | { type: 'text-end'; choice: number; index: number }
  /** A thought (`ReasoningPart`); its signature, when the family gives one, comes with its end. */
  | { type: 'reasoning-start'; choice: number; index: number }
  | { type: 'reasoning-delta'; choice: number; index: number; text: string }
  | { type: 'reasoning-end'; choice: number; index: number; signature?: string }
  | { type: 'tool-call-start'; choice: number; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; choice: number; index: number; argumentsDelta: string }
  | { type: 'tool-call-end'; choice: number; index: number }
  | { type: 'finish'; choice: number; finishReason: FinishReason }
  /** Running totals so far (not increments): the last one wins. */
  | { type: 'usage'; usage: Usage }
  | { type: 'message-end'; usage: Usage }
  | { type: 'error'; error: GatewayError };

export type StreamEventType = StreamEvent['type'];
