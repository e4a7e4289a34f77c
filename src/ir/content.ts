/** Content parts shared by requests and responses. */

/** B's `cache_control` marker, carried through the IR so B upstreams get it unchanged. */
export interface CacheControl {
  type: 'ephemeral';
  /** `5m` or `1h`; absent means the family default. */
  ttl?: string;
}

export interface TextPart {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
}

/** An image given inline (base64) or by URL. */
export interface ImagePart {
  type: 'image';
  source:
    { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string; mediaType?: string };
  /** A's `detail` hint (`auto` | `low` | `high`); other families have none. */
  detail?: string;
  cacheControl?: CacheControl;
}

/**
 * A call the assistant made. `arguments` is the JSON text exactly as produced: A sends a string
 * (possibly invalid JSON), B and C send objects that decoders stringify. Encoders that need an
 * object parse it and raise `invalid_request` when it is not a JSON object.
 */
export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  arguments: string;
  cacheControl?: CacheControl;
}

/** The result of a tool call, sent back by the client. */
export interface ToolResultPart {
  type: 'tool-result';
  /** Id of the call this answers (synthesized for C, which has none). */
  callId: string;
  /** Name of the called tool; recovered from the matching call when the source family omits it. */
  name: string;
  content: Array<TextPart | ImagePart>;
  isError: boolean;
  cacheControl?: CacheControl;
}

/**
 * What a model thought before it answered, as its family shows it (B `thinking` blocks, C
 * `thought: true` parts, the Responses API's reasoning items; A chat shows none). Only in answers:
 * a replayed thought is the model's own state, which no other family can take back.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** The family's proof of the thought (B `signature`, C `thoughtSignature`), opaque. */
  signature?: string;
}

export type UserPart = TextPart | ImagePart;
export type AssistantPart = TextPart | ToolCallPart;
/** A part of an answer: what an assistant message holds, and what the model thought first. */
export type AnswerPart = ReasoningPart | AssistantPart;
