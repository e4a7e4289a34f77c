/** Why a choice stopped: the unified value plus the family's raw one (kept for same-family output). */
export type UnifiedFinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface FinishReason {
  unified: UnifiedFinishReason;
  /** The source family's own value, e.g. `end_turn`, `MAX_TOKENS`. */
  raw?: string;
  /** The stop sequence that matched, when the source family says which (B `stop_sequence`). */
  stopSequence?: string;
}
