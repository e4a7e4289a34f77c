/**
 * C's structured output (`responseMimeType: "application/json"` + `responseSchema` or
 * `responseJsonSchema`) and thinking budget (`thinkingConfig.thinkingBudget`) ↔ the canonical
 * `responseFormat` and `reasoning`.
 *
 * The encoder writes `responseSchema` through the same JSON Schema → C rewrite as tool parameters
 * (schema.ts), which every C model takes. An effort becomes a budget that is a share of the output
 * cap (thoughts count toward `maxOutputTokens`), or of 32,768 tokens when the request sets no cap;
 * effort `none` is a budget of 0 (thinking off).
 */
import { isJsonObject, type ChatRequest, type JsonObject } from '../../ir/index.ts';
import { budgetForEffort, referenceOutputCap } from '../shared/reasoning-budget.ts';
import { optionalInteger, requireObject } from '../shared/validate.ts';
import { normaliseGammaSchema, sanitiseParameters } from './schema.ts';

const jsonMime = 'application/json';

/**
 * Reads the structured-output and budget fields out of `config` (the generationConfig fields
 * without a sampling meaning, which otherwise stay C-only), into the request.
 */
export function decodeOutputOptions(config: JsonObject, request: ChatRequest): void {
  if (config.responseMimeType === jsonMime) {
    const { responseJsonSchema, responseSchema } = config;
    if (isJsonObject(responseJsonSchema))
      request.responseFormat = { type: 'json-schema', schema: responseJsonSchema };
    else if (isJsonObject(responseSchema))
      request.responseFormat = {
        type: 'json-schema',
        schema: requireObject(normaliseGammaSchema(responseSchema), 'generationConfig.responseSchema'),
      };
    else request.responseFormat = { type: 'json' };
    delete config.responseMimeType;
    delete config.responseJsonSchema;
    delete config.responseSchema;
  }
  const thinking = config.thinkingConfig;
  if (!isJsonObject(thinking) || thinking.thinkingBudget === -1) return;
  const budget = optionalInteger(
    thinking.thinkingBudget,
    'generationConfig.thinkingConfig.thinkingBudget',
    0,
    Number.MAX_SAFE_INTEGER,
  );
  if (budget === undefined) return;
  request.reasoning = { budgetTokens: budget };
  const { thinkingBudget: _budget, ...others } = thinking;
  if (Object.keys(others).length > 0) config.thinkingConfig = others;
  else delete config.thinkingConfig;
}

/** Writes the response format and thinking budget into `config` (the request's generationConfig). */
export function encodeOutputOptions(request: ChatRequest, config: JsonObject): void {
  const format = request.responseFormat;
  if (format !== undefined) {
    config.responseMimeType = jsonMime;
    if (format.type === 'json-schema') {
      const schema = sanitiseParameters(format.schema, 'response_format.schema');
      if (schema !== undefined) config.responseSchema = schema;
    }
  }
  const budget = thinkingBudget(request);
  if (budget === undefined) return;
  // The client's other C thinking options (includeThoughts…) stay beside the budget.
  const own = request.extensions.gamma?.generationConfig;
  const ownThinking = isJsonObject(own) && isJsonObject(own.thinkingConfig) ? own.thinkingConfig : {};
  config.thinkingConfig = { ...ownThinking, thinkingBudget: budget };
}

function thinkingBudget(request: ChatRequest): number | undefined {
  const { effort, budgetTokens } = request.reasoning ?? {};
  if (budgetTokens !== undefined) return budgetTokens;
  if (effort === undefined) return undefined;
  if (effort === 'none') return 0;
  return budgetForEffort(effort, request.sampling.maxOutputTokens ?? referenceOutputCap);
}
