/**
 * Bedrock's CountTokens (`POST /model/{modelId}/count-tokens`) as the mock answers it: the body is
 * `{"input": {...}}` with exactly one of `invokeModel` (`body`: the InvokeModel body, base64 as a
 * blob of AWS's JSON protocol, held to InvokeModel's own rules) or `converse` (`messages`,
 * `system`, `toolConfig`, `additionalModelRequestFields`, held to Converse's rules), and the answer
 * is `{"inputTokens": N}`. Only the foundation models AWS's user guide lists are counted, by their
 * bare id or foundation-model ARN; any other id (another vendor's model, an inference profile) is
 * refused as the real API refuses it.
 */
import { countInputTokens } from '../anthropic/answers.ts';
import type { MessagesRequest } from '../anthropic/validate.ts';
import { countTokens } from '../kit/text.ts';
import { converseProblem } from './converse.ts';
import { invokeProblem } from './invoke-rules.ts';

/** The models "Supported models and Regions for token counting" lists (Amazon Bedrock user guide). */
export const countableModels: readonly string[] = [
  'anthropic.claude-3-5-haiku-20241022-v1:0',
  'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'anthropic.claude-opus-4-20250514-v1:0',
  'anthropic.claude-sonnet-4-20250514-v1:0',
];

export const unsupportedModelMessage = "The provided model doesn't support counting tokens.";

const converseCountFields = new Set(['messages', 'system', 'toolConfig', 'additionalModelRequestFields']);
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const malformed = 'Malformed input request, please reformat your input and try again.';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function foundationModel(model: string): string {
  return model.replace(/^arn:aws[a-z-]*:bedrock:[^:]*::foundation-model\//, '');
}

function countInvoke(invoke: Json, model: string): { problem: string } | { inputTokens: number } {
  const encoded = invoke.body;
  if (typeof encoded !== 'string' || encoded === '' || !base64.test(encoded))
    return {
      problem:
        "1 validation error detected: Value at 'input.invokeModel.body' failed to satisfy constraint: Member must be a base64-encoded blob",
    };
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return { problem: malformed };
  }
  const problem = invokeProblem(body, model);
  if (problem !== undefined) return { problem };
  return { inputTokens: countInputTokens({ ...(body as MessagesRequest), model }) };
}

function countConverse(converse: Json): { problem: string } | { inputTokens: number } {
  for (const key of Object.keys(converse))
    if (!converseCountFields.has(key)) return { problem: `Unknown parameter: input.converse.${key}` };
  const problem = converseProblem(converse);
  if (problem !== undefined) return { problem };
  const parts = [converse.system, converse.messages, converse.toolConfig].filter(
    (part) => part !== undefined,
  );
  return { inputTokens: parts.reduce<number>((sum, part) => sum + countTokens(JSON.stringify(part)), 0) };
}

/** The count, or the ValidationException message the real API answers the request with. */
export function countTokensAnswer(
  body: unknown,
  model: string,
): { problem: string } | { inputTokens: number } {
  if (!countableModels.includes(foundationModel(model))) return { problem: unsupportedModelMessage };
  if (!isRecord(body)) return { problem: malformed };
  for (const key of Object.keys(body)) if (key !== 'input') return { problem: `Unknown parameter: ${key}` };
  const input = body.input;
  if (!isRecord(input))
    return {
      problem:
        "1 validation error detected: Value null at 'input' failed to satisfy constraint: Member must not be null",
    };
  const members = Object.keys(input);
  if (members.length !== 1 || !['invokeModel', 'converse'].includes(members[0] ?? ''))
    return { problem: 'input must set exactly one of invokeModel or converse.' };
  if (isRecord(input.invokeModel)) return countInvoke(input.invokeModel, model);
  if (isRecord(input.converse)) return countConverse(input.converse);
  return { problem: malformed };
}
