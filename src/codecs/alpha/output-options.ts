/**
 * A's `response_format` and `reasoning_effort` ↔ the canonical `responseFormat` and `reasoning`,
 * so structured output and reasoning reach every family (and come from every family).
 */
import { invalidRequest, type ChatRequest, type JsonObject, type ResponseFormat } from '../../ir/index.ts';
import { readEffort } from '../shared/reasoning-budget.ts';
import { optionalBoolean, optionalString, requireObject, requireString } from '../shared/validate.ts';

/** `response_format` → canonical; `{type:"text"}` (the default) is no format. */
export function decodeResponseFormat(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const format = requireObject(value, 'response_format');
  switch (typeof format.type === 'string' ? format.type : '') {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      const spec = requireObject(format.json_schema, 'response_format.json_schema');
      const name = requireString(spec.name, 'response_format.json_schema.name');
      if (spec.schema === undefined || spec.schema === null) return { type: 'json' };
      const decoded: ResponseFormat = {
        type: 'json-schema',
        name,
        schema: requireObject(spec.schema, 'response_format.json_schema.schema'),
      };
      const description = optionalString(spec.description, 'response_format.json_schema.description');
      if (description !== undefined) decoded.description = description;
      const strict = optionalBoolean(spec.strict, 'response_format.json_schema.strict');
      if (strict !== undefined) decoded.strict = strict;
      return decoded;
    }
    default:
      throw invalidRequest(
        `response_format.type: expected "text", "json_object" or "json_schema", not ${JSON.stringify(format.type ?? null)}`,
        'response_format.type',
      );
  }
}

/** `reasoning_effort` → `request.reasoning`. */
export function decodeReasoningEffort(body: JsonObject, request: ChatRequest): void {
  const effort = readEffort(body.reasoning_effort, 'reasoning_effort');
  if (effort !== undefined) request.reasoning = { effort };
}

/** A requires a name on a JSON schema; other families have none, so one is made up. */
const defaultSchemaName = 'response';

export function encodeResponseFormat(format: ResponseFormat): JsonObject {
  if (format.type === 'json') return { type: 'json_object' };
  const spec: JsonObject = { name: format.name ?? defaultSchemaName, schema: format.schema };
  if (format.description !== undefined) spec.description = format.description;
  if (format.strict !== undefined) spec.strict = format.strict;
  return { type: 'json_schema', json_schema: spec };
}

/**
 * An effort goes as `reasoning_effort`. A budget alone (a B or C client's thinking budget) is not
 * turned into an effort: those clients send one by default, and `reasoning_effort` is a 400 on A
 * models that do not reason, so it is dropped with a warning instead.
 */
export function encodeReasoning(request: ChatRequest, body: JsonObject, warnings: string[]): void {
  const reasoning = request.reasoning;
  if (reasoning === undefined) return;
  if (reasoning.effort !== undefined) body.reasoning_effort = reasoning.effort;
  else if (reasoning.budgetTokens !== undefined && reasoning.budgetTokens > 0)
    warnings.push('a thinking budget has no equivalent for alpha models and was dropped');
}
