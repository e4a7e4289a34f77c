/** The canonical chat request every surface decodes into and every upstream encodes from. */
import type { AssistantPart, CacheControl, TextPart, ToolResultPart, UserPart } from './content.ts';
import type { FamilyId } from './family.ts';
import type { JsonObject } from './json.ts';

export type Message =
  | { role: 'user'; content: UserPart[] }
  | { role: 'assistant'; content: AssistantPart[] }
  /** Results of the previous assistant turn's tool calls, in call order. */
  | { role: 'tool'; content: ToolResultPart[] };

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object (lower-case types; C decoders normalise `OBJECT` etc.). */
  parameters: JsonObject;
  /** A `strict: true`. */
  strict?: boolean;
  cacheControl?: CacheControl;
}

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  /** The model must call some tool (A `required`, B `any`, C `ANY`). */
  | { type: 'required' }
  /** The model must call this tool (A named function, B `tool`, C `ANY` + one allowed name). */
  | { type: 'tool'; name: string };

export interface Sampling {
  /** Requested output cap; undefined means the model's own maximum. */
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  /** A `n`, C `candidateCount`; undefined means one. */
  candidateCount?: number;
}

/**
 * Structured output: the answer's text is JSON (A `response_format`, Responses `text.format`,
 * B `output_config.format`, C `responseMimeType: "application/json"` + a schema).
 */
export type ResponseFormat =
  /** Any JSON object (A `json_object`). */
  | { type: 'json' }
  /** JSON matching `schema` (a JSON Schema, lower-case types). */
  | { type: 'json-schema'; schema: JsonObject; name?: string; description?: string; strict?: boolean };

/** A's and the Responses API's reasoning efforts, weakest first. */
export const reasoningEfforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ReasoningEffort = (typeof reasoningEfforts)[number];

/**
 * How much the model should think before answering. An effort comes from A-style clients
 * (`reasoning_effort`, Responses `reasoning.effort`); a budget from B (`thinking.budget_tokens`)
 * and C (`thinkingConfig.thinkingBudget`). Each upstream encoder turns what it gets into its own
 * knob, deriving a budget from an effort (codecs/shared/reasoning-budget.ts) where it needs one.
 */
export interface Reasoning {
  effort?: ReasoningEffort;
  /** Thinking tokens allowed; 0 turns thinking off. */
  budgetTokens?: number;
}

export interface ChatRequest {
  /** The model name as the client wrote it (surface side) or the upstream id (upstream side). */
  model: string;
  /** All system / developer text, in order (A system messages, B `system`, C `systemInstruction`). */
  system: TextPart[];
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** A legacy `functions` was used: answers come back as `function_call`. */
  legacyFunctions?: boolean;
  /** A `parallel_tool_calls: false` / B `disable_parallel_tool_use: true`. */
  parallelToolCalls?: boolean;
  sampling: Sampling;
  responseFormat?: ResponseFormat;
  reasoning?: Reasoning;
  stream: boolean;
  /** The client asked for a usage chunk at the end of an A-shaped stream. */
  includeUsage: boolean;
  /**
   * Family-only fields with no canonical meaning (C `safetySettings`, B `metadata`, A `user`…),
   * keyed by the family they came from. An encoder uses only its own family's entry.
   */
  extensions: Partial<Record<FamilyId, JsonObject>>;
  /**
   * What the surface accepted but no upstream will receive (Responses API fields without a chat
   * equivalent): the answer carries them as `warning` headers, so nothing is dropped silently.
   */
  notes?: string[];
}
