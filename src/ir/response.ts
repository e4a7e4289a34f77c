/** The canonical non-streamed response. */
import type { AnswerPart } from './content.ts';
import type { FinishReason } from './finish-reason.ts';
import type { Usage } from './usage.ts';

export interface Choice {
  index: number;
  content: AnswerPart[];
  finishReason: FinishReason;
}

export interface ChatResponse {
  id: string;
  /** Model name to show the client (the gateway sets it to the name the client asked for). */
  model: string;
  /** Unix seconds. */
  created: number;
  choices: Choice[];
  usage: Usage;
}
