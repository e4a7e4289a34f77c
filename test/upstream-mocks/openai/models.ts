/** The model ids the mock knows, and which of them follow the reasoning-model rules. */

export const defaultOpenAIModels: readonly string[] = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'o1',
  'o3',
  'o3-mini',
  'o4-mini',
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
];

/** o-series and gpt-5 models refuse `max_tokens` and non-default sampling, as the real API does. */
export function isReasoningModel(model: string): boolean {
  return /^(o1|o3|o4|gpt-5)/.test(model);
}

/** `created` timestamps as `GET /v1/models` reports them; the exact values are not meaningful. */
export function modelListEntry(id: string): {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
} {
  return { id, object: 'model', created: 1715367049, owned_by: 'system' };
}
