/**
 * Bedrock's rules for Anthropic's Messages on InvokeModel (also the body CountTokens counts for an
 * InvokeModel input), in its own words: `anthropic_version: "bedrock-2023-05-31"`, no `model`, no
 * `stream`, then the Messages API's own rules.
 */
import { messagesFields, messagesRequestProblem } from '../anthropic/validate.ts';

export const anthropicModel = /^(?:[a-z]{2,6}\.)?anthropic\.claude-[a-z0-9.:-]+$/;

/** Bedrock's body rules for Anthropic's Messages on InvokeModel, in its own words. */
export function invokeProblem(body: unknown, model: string): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'Malformed input request, please reformat your input and try again.';
  const fields = body as Record<string, unknown>;
  for (const key of ['model', 'stream'])
    if (key in fields)
      return `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`;
  for (const key of ['anthropic_version', 'max_tokens', 'messages'])
    if (!(key in fields))
      return `Malformed input request: #: required key [${key}] not found, please reformat your input and try again.`;
  if (fields.anthropic_version !== 'bedrock-2023-05-31')
    return 'Invalid API version: anthropic_version must be bedrock-2023-05-31.';
  const { anthropic_version: _version, anthropic_beta: _beta, ...messages } = fields;
  return messagesRequestProblem(
    { ...messages, model },
    { fields: messagesFields, vertex: false, needsMaxTokens: true },
  );
}
