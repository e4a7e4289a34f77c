/**
 * The Responses API's official shapes (`openai` package, resources/responses/responses.d.ts), as
 * far as modelgate writes them. Type aliases, not interfaces, so they stay assignable to JSON.
 */
import type { JsonObject } from '../../ir/index.ts';

export const responsesPath = '/v1/responses';

export type ResponsesUsage = {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
};

export type OutputText = {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
};

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type MessageItem = {
  id: string;
  type: 'message';
  status: ItemStatus;
  role: 'assistant';
  content: OutputText[];
};

export type FunctionCallItem = {
  id: string;
  type: 'function_call';
  status: ItemStatus;
  call_id: string;
  name: string;
  /** Set when the function belongs to a `namespace` tool. */
  namespace?: string;
  arguments: string;
};

/** What the model thought, as the family showed it (`reasoning_text`; no summary of it is made). */
export type ReasoningItem = {
  id: string;
  type: 'reasoning';
  status: ItemStatus;
  summary: never[];
  content: Array<{ type: 'reasoning_text'; text: string }>;
};

export type OutputItem = MessageItem | FunctionCallItem | ReasoningItem;

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** Why a response stopped short (`incomplete_details.reason`). */
export type IncompleteReason = 'max_output_tokens' | 'content_filter';

export type ResponseError = { code: string; message: string };

/** The `response` object: these fields, then the request's parameters echoed (see echo.ts). */
export type ResponseObject = JsonObject & {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  model: string;
  output: OutputItem[];
  usage: ResponsesUsage | null;
};
