/**
 * B's structured output (`output_config.format`) and extended thinking (`thinking`) ↔ the
 * canonical `responseFormat` and `reasoning`.
 *
 * Thinking tokens count toward `max_tokens`, and B wants `1024 ≤ budget_tokens < max_tokens`: an
 * effort becomes a share of the request's output cap (shared/reasoning-budget.ts), a budget from
 * another family is kept inside those bounds, and a cap of 1024 or less leaves thinking off with a
 * warning. With thinking on B refuses a changed temperature, `top_k`, a `top_p` below 0.95 and a
 * forced tool choice, so those are dropped (or thinking is, for a forced tool) with a warning.
 */
import { isJsonObject, type ChatRequest, type JsonObject, type ResponseFormat } from '../../ir/index.ts';
import { budgetForEffort, minThinkingBudget } from '../shared/reasoning-budget.ts';
import { optionalInteger, requireObject } from '../shared/validate.ts';
import type { BetaRequestBody } from './wire.ts';

/**
 * `output_config.format` → `responseFormat`; `thinking` enabled (only a budget) or disabled →
 * `reasoning.budgetTokens`. What else the two objects hold stays in `rest` (the B extensions).
 */
export function decodeOutputOptions(body: JsonObject, request: ChatRequest, rest: JsonObject): void {
  if (isJsonObject(body.output_config)) {
    const { format, ...others } = body.output_config;
    if (isJsonObject(format) && format.type === 'json_schema') {
      request.responseFormat = {
        type: 'json-schema',
        schema: requireObject(format.schema, 'output_config.format.schema'),
      };
      if (Object.keys(others).length > 0) rest.output_config = others;
      else delete rest.output_config;
    }
  }
  const thinking = body.thinking;
  if (
    !isJsonObject(thinking) ||
    !Object.keys(thinking).every((key) => key === 'type' || key === 'budget_tokens')
  )
    return;
  if (thinking.type === 'disabled') request.reasoning = { budgetTokens: 0 };
  else if (thinking.type === 'enabled') {
    const budget = optionalInteger(
      thinking.budget_tokens,
      'thinking.budget_tokens',
      1,
      Number.MAX_SAFE_INTEGER,
    );
    if (budget === undefined) return;
    request.reasoning = { budgetTokens: budget };
  } else return;
  delete rest.thinking;
}

/** B structured output takes a schema: "any JSON object" is the schema of any object. */
function formatSchema(format: ResponseFormat): JsonObject {
  return format.type === 'json' ? { type: 'object' } : format.schema;
}

/** Writes `output_config` and `thinking` into `body` (a B request being built). */
export function encodeOutputOptions(request: ChatRequest, body: BetaRequestBody, warnings: string[]): void {
  if (request.responseFormat !== undefined) {
    const own = request.extensions.beta?.output_config;
    body.output_config = {
      ...(isJsonObject(own) ? own : {}),
      format: { type: 'json_schema', schema: formatSchema(request.responseFormat) },
    };
  }
  const thinking = encodeThinking(request, warnings);
  if (thinking === undefined) return;
  body.thinking = thinking;
  if (thinking.type === 'enabled') dropSamplingThinkingRefuses(body, warnings);
}

function encodeThinking(request: ChatRequest, warnings: string[]): JsonObject | undefined {
  const { effort, budgetTokens } = request.reasoning ?? {};
  if (budgetTokens === 0) return { type: 'disabled' };
  if (budgetTokens === undefined && (effort === undefined || effort === 'none')) return undefined;
  const maxTokens = request.sampling.maxOutputTokens ?? 0;
  const budget = budgetTokens ?? (effort === undefined ? undefined : budgetForEffort(effort, maxTokens));
  if (budget === undefined || maxTokens <= minThinkingBudget) {
    warnings.push(
      `reasoning needs max_tokens above ${minThinkingBudget} on beta models (thinking counts toward it); thinking stays off`,
    );
    return undefined;
  }
  const choice = request.toolChoice?.type;
  if (choice === 'required' || choice === 'tool') {
    warnings.push('beta models cannot think while a tool choice forces a call; thinking stays off');
    return undefined;
  }
  return { type: 'enabled', budget_tokens: Math.min(Math.max(budget, minThinkingBudget), maxTokens - 1) };
}

function dropSamplingThinkingRefuses(body: BetaRequestBody, warnings: string[]): void {
  if (body.temperature !== undefined && body.temperature !== 1) {
    delete body.temperature;
    warnings.push('temperature cannot be changed while beta models think and was dropped');
  }
  if (body.top_k !== undefined) {
    delete body.top_k;
    warnings.push('top_k cannot be set while beta models think and was dropped');
  }
  if (typeof body.top_p === 'number' && body.top_p < 0.95) {
    delete body.top_p;
    warnings.push('top_p below 0.95 cannot be set while beta models think and was dropped');
  }
}
