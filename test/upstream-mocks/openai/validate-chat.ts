/**
 * What the real `POST /v1/chat/completions` refuses, with its status and text. The field set is
 * `ChatCompletionCreateParamsBase` of the official `openai` package 6.49
 * (resources/chat/completions/completions.d.ts); anything else is "Unrecognized request argument".
 */
import { isPlainObject } from '../kit/server.ts';
import { invalidRequest, type Refusal } from './errors.ts';

export const chatCompletionFields: ReadonlySet<string> = new Set([
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'moderation',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);

export const unparsableJson = invalidRequest(
  400,
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library " +
    'correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble ' +
    'figuring out how to fix this, please contact us through our help center at help.openai.com.)',
);

export function validateChatRequest(
  body: Record<string, unknown>,
  reasoning: boolean,
  extraFields: ReadonlySet<string> = new Set(),
): Refusal | undefined {
  for (const field of Object.keys(body)) {
    if (!chatCompletionFields.has(field) && !extraFields.has(field))
      return invalidRequest(400, `Unrecognized request argument supplied: ${field}`);
  }
  const messages = body['messages'];
  if (messages === undefined) {
    return invalidRequest(
      400,
      "Missing required parameter: 'messages'.",
      'messages',
      'missing_required_parameter',
    );
  }
  if (!Array.isArray(messages)) {
    return invalidRequest(
      400,
      "Invalid type for 'messages': expected an array, but got an object instead.",
      'messages',
      'invalid_type',
    );
  }
  if (messages.length === 0) {
    return invalidRequest(
      400,
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  const messageRefusal = validateMessages(messages);
  if (messageRefusal) return messageRefusal;
  if (body['stream_options'] !== undefined && body['stream_options'] !== null && body['stream'] !== true) {
    return invalidRequest(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'stream_options',
    );
  }
  const tools = body['tools'];
  if (body['tool_choice'] !== undefined && (!Array.isArray(tools) || tools.length === 0)) {
    return invalidRequest(
      400,
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    );
  }
  if (reasoning) return validateReasoningRequest(body);
  return undefined;
}

function validateReasoningRequest(body: Record<string, unknown>): Refusal | undefined {
  if (body['max_tokens'] !== undefined && body['max_tokens'] !== null) {
    return invalidRequest(
      400,
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
  }
  for (const field of ['temperature', 'top_p']) {
    const value = body[field];
    if (value !== undefined && value !== null && value !== 1) {
      return invalidRequest(
        400,
        `Unsupported value: '${field}' does not support ${JSON.stringify(value)} with this model. Only the default (1) value is supported.`,
        field,
        'unsupported_value',
      );
    }
  }
  return undefined;
}

const roles = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const imageDataUrl = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/;

function validateMessages(messages: unknown[]): Refusal | undefined {
  for (const [index, message] of messages.entries()) {
    if (!isPlainObject(message) || typeof message['role'] !== 'string' || !roles.has(message['role'])) {
      const got = isPlainObject(message) ? JSON.stringify(message['role'] ?? null) : 'a non-object';
      return invalidRequest(
        400,
        `Invalid value: ${got}. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${index}].role`,
        'invalid_value',
      );
    }
    const content = message['content'];
    if (!Array.isArray(content)) continue;
    for (const [partIndex, part] of content.entries()) {
      if (!isPlainObject(part) || part['type'] !== 'image_url') continue;
      const imageUrl = part['image_url'];
      const url = isPlainObject(imageUrl) ? imageUrl['url'] : undefined;
      if (typeof url !== 'string' || !(imageDataUrl.test(url) || /^https?:\/\//.test(url))) {
        return invalidRequest(
          400,
          `Invalid 'messages[${index}].content[${partIndex}].image_url.url'. Expected a base64-encoded data URL with ` +
            "an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid value.",
          `messages[${index}].content[${partIndex}].image_url.url`,
          'invalid_value',
        );
      }
    }
  }
  return undefined;
}
