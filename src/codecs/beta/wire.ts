/**
 * The Family B ("beta", messages style) wire shapes this codec reads and writes. Only the fields
 * the codec touches are typed; everything else passes through as JSON. Type aliases (not
 * interfaces) so the shapes are assignable to `JsonObject`.
 */
import type { JsonObject } from '../../ir/index.ts';

export type BetaCacheControl = {
  type: 'ephemeral';
  ttl?: string;
};

export type BetaTextBlock = {
  type: 'text';
  text: string;
  cache_control?: BetaCacheControl;
};

export type BetaImageSource =
  { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type BetaImageBlock = {
  type: 'image';
  source: BetaImageSource;
  cache_control?: BetaCacheControl;
};

export type BetaToolUseBlock = {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonObject;
  cache_control?: BetaCacheControl;
};

export type BetaToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<BetaTextBlock | BetaImageBlock>;
  is_error?: boolean;
  cache_control?: BetaCacheControl;
};

export type BetaUserBlock = BetaTextBlock | BetaImageBlock | BetaToolResultBlock;
export type BetaAssistantBlock = BetaTextBlock | BetaToolUseBlock;

/** A thought in an answer; B clients send it back unchanged with their history. */
export type BetaThinkingBlock = { type: 'thinking'; thinking: string; signature: string };

export type BetaMessageParam =
  | { role: 'user'; content: string | BetaUserBlock[] }
  | { role: 'assistant'; content: string | BetaAssistantBlock[] };

export type BetaTool = {
  name: string;
  description?: string;
  input_schema: JsonObject;
  cache_control?: BetaCacheControl;
  strict?: boolean;
};

export type BetaToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** The request body fields this codec sets; extension fields are merged in beside them. */
export type BetaRequestBody = {
  model: string;
  max_tokens: number;
  system?: string | BetaTextBlock[];
  messages: BetaMessageParam[];
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: BetaTool[];
  tool_choice?: BetaToolChoice;
  stream?: true;
  /** Structured output (`format`) and B-only options such as `effort`. */
  output_config?: JsonObject;
  /** Extended thinking: `{type:"enabled", budget_tokens}` or `{type:"disabled"}` (others via extensions). */
  thinking?: JsonObject;
};

/** `Usage` of a response / `message_start`, and the cumulative `MessageDeltaUsage` of `message_delta`. */
export type BetaUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** SDK 1.x: thinking tokens, part of `output_tokens`. */
  output_tokens_details?: { thinking_tokens: number };
};

export type BetaStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export type BetaMessage = {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<BetaThinkingBlock | BetaAssistantBlock>;
  stop_reason: BetaStopReason | null;
  stop_sequence: string | null;
  usage: BetaUsage;
};

/** `error.type` values of the `{"type":"error","error":{…}}` body. */
export type BetaErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

/** The version this codec speaks upstream; the only value the spec states. */
export const betaVersion = '2023-06-01';
export const messagesPath = '/v1/messages';
export const countTokensPath = '/v1/messages/count_tokens';
