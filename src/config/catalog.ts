/** The model catalog: the spec's table, with cached-input prices the spec leaves open (see README). */
import { familyCodec } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';

export interface ModelPricing {
  /** USD per 1M uncached input tokens. */
  inputPerMillion: number;
  /** USD per 1M output tokens. */
  outputPerMillion: number;
  /** USD per 1M input tokens read from a cache. */
  cacheReadPerMillion: number;
  /** USD per 1M input tokens written to a cache. */
  cacheWritePerMillion: number;
}

export interface ModelCapabilities {
  streaming: boolean;
  tools: boolean;
  vision: boolean;
  /** A reasoning model (the vendor catalog says; OpenAI's take `max_completion_tokens`). */
  reasoning?: boolean;
  /** The upstream caches prompts (cache read/write prices apply). */
  promptCaching?: boolean;
}

export interface ModelEntry {
  /** The name clients use. */
  name: string;
  family: FamilyId;
  /** The id sent upstream. */
  upstreamModel: string;
  contextWindow: number;
  maxOutputTokens: number;
  pricing: ModelPricing;
  capabilities: ModelCapabilities;
  /** Per-model upstream overrides (else the family's). */
  baseUrl?: string;
  apiKey?: string;
  /** A `providers:` name the model's default deployment goes through (instead of the family's upstream). */
  provider?: string;
}

/**
 * A model's prices from its input and output prices: cached input at the family's own factors
 * (its descriptor's; the spec does not show them, README "Model catalog and routing" gives them).
 */
export function defaultPricing(family: FamilyId, input: number, output: number): ModelPricing {
  const factors = familyCodec(family).descriptor.cachePriceFactors;
  return {
    inputPerMillion: input,
    outputPerMillion: output,
    cacheReadPerMillion: round(input * factors.read),
    cacheWritePerMillion: round(input * factors.write),
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

type Row = [
  name: string,
  family: FamilyId,
  context: number,
  maxOutput: number,
  input: number,
  output: number,
  vision: boolean,
];

// The spec's "Models" table, verbatim.
const rows: Row[] = [
  ['A-1', 'alpha', 8192, 4096, 30, 60, false],
  ['A-2', 'alpha', 128000, 4096, 10, 30, true],
  ['A-3', 'alpha', 16385, 4096, 0.5, 1.5, false],
  ['B-1', 'beta', 200000, 8192, 3, 15, true],
  ['B-2', 'beta', 200000, 4096, 15, 75, true],
  ['B-3', 'beta', 200000, 4096, 3, 15, true],
  ['B-4', 'beta', 200000, 4096, 0.25, 1.25, true],
  ['C-1', 'gamma', 1000000, 8192, 1.25, 5, true],
  ['C-2', 'gamma', 1000000, 8192, 0.075, 0.3, true],
  ['C-3', 'gamma', 32760, 2048, 0.5, 1.5, false],
];

const specModelNames: ReadonlySet<string> = new Set(rows.map(([name]) => name));

/** One of the spec's own models (A-1…C-3), whose default limits are the spec's table. */
export function isSpecModel(name: string): boolean {
  return specModelNames.has(name);
}

export function defaultCatalog(): ModelEntry[] {
  return rows.map(([name, family, contextWindow, maxOutputTokens, input, output, vision]) => ({
    name,
    family,
    upstreamModel: name,
    contextWindow,
    maxOutputTokens,
    pricing: defaultPricing(family, input, output),
    capabilities: { streaming: true, tools: true, vision },
  }));
}
