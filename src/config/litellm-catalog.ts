/**
 * LiteLLM's `model_prices_and_context_window.json` (BerriAI/litellm, MIT) → the vendor catalog:
 * the chat models of OpenAI, Anthropic and Google and their Azure, Bedrock and Vertex ids, with
 * limits, prices per million tokens and capabilities. Pure: `scripts/refresh-catalog.ts` does the I/O.
 * The output depends only on the input (keys sorted, fields pinned), so a regeneration from the same
 * file is byte-identical and a diff shows only what the source changed.
 */
import type {
  VendorCatalogFile,
  VendorCatalogSource,
  VendorModelData,
  VendorName,
  VendorPlatform,
} from './vendor-catalog-schema.ts';

export const litellmSourceUrl =
  'https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json';

/** One LiteLLM entry, only the fields read here (the file has many more). */
interface LitellmEntry {
  litellm_provider?: unknown;
  mode?: unknown;
  max_input_tokens?: unknown;
  max_output_tokens?: unknown;
  max_tokens?: unknown;
  input_cost_per_token?: unknown;
  output_cost_per_token?: unknown;
  cache_read_input_token_cost?: unknown;
  cache_creation_input_token_cost?: unknown;
  supports_native_streaming?: unknown;
  supports_function_calling?: unknown;
  supports_vision?: unknown;
  supports_reasoning?: unknown;
  supports_prompt_caching?: unknown;
}

/** Where an entry goes: its platform, the name clients use and the id sent upstream. */
interface Placement {
  platform: VendorPlatform;
  name: string;
  upstreamModel: string;
}

/** Who makes the models each platform serves here, and which API family's wire they speak. */
const makerOf = {
  openai: { vendor: 'openai', family: 'alpha' },
  azure: { vendor: 'openai', family: 'alpha' },
  anthropic: { vendor: 'anthropic', family: 'beta' },
  bedrock: { vendor: 'anthropic', family: 'beta' },
  gemini: { vendor: 'google', family: 'gamma' },
} as const satisfies Record<Exclude<VendorPlatform, 'vertex'>, { vendor: VendorName; family: string }>;

// Vertex serves two makers: Claude speaks Anthropic's messages wire there, Gemini its own.
function makerOfPlacement(place: Placement): { vendor: VendorName; family: string } {
  if (place.platform !== 'vertex') return makerOf[place.platform];
  return place.upstreamModel.startsWith('claude-') ? makerOf.anthropic : makerOf.gemini;
}

// The chat families asked for: gpt-4o, 4.1, 4.5, 5.x and the o-series reasoning models.
const openaiChat = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4-mini)([-.]|$)/;
// Variants that are not plain chat over chat completions (audio, search, Responses-only tools).
const openaiNotChat = /(audio|search|realtime|transcribe|tts|image|deep-research|codex|computer-use)/;
// Claude 3.5 and later; Claude 3.0, 2.x and Instant are retired.
const claudeModel = /^claude-(?!3-(opus|sonnet|haiku)[-@]|instant|v1|v2|2)/;
const bedrockClaude = /^((us|eu|apac|au|jp|global|us-gov)\.)?anthropic\.(claude-.*)$/;
const geminiChat = /^gemini-(\d+(\.\d+)?-(pro|flash)|(pro|flash|flash-lite)-latest$)/;
const geminiNotChat = /(native-audio|live|tts|computer-use|robotics|image|embedding|omni|customtools)/;

/** Where a LiteLLM key belongs in the catalog, or undefined when it is not one of ours. */
export function placeLitellmKey(key: string, provider: string): Placement | undefined {
  switch (provider) {
    case 'openai':
      return openaiChat.test(key) && !openaiNotChat.test(key)
        ? { platform: 'openai', name: key, upstreamModel: key }
        : undefined;
    case 'azure': {
      // `azure/eu/…`, `azure/global/…`: LiteLLM's data-zone price rows, not deployable ids.
      const id = key.startsWith('azure/') ? key.slice('azure/'.length) : '';
      return openaiChat.test(id) && !openaiNotChat.test(id) && !id.includes('/')
        ? { platform: 'azure', name: key, upstreamModel: id }
        : undefined;
    }
    case 'anthropic':
      return claudeModel.test(key) ? { platform: 'anthropic', name: key, upstreamModel: key } : undefined;
    case 'bedrock':
    case 'bedrock_converse': {
      const claude = bedrockClaude.exec(key)?.[3];
      return claude !== undefined && claudeModel.test(claude) && !key.includes('@')
        ? { platform: 'bedrock', name: `bedrock/${key}`, upstreamModel: key }
        : undefined;
    }
    case 'vertex_ai-anthropic_models': {
      // Only versioned ids (`claude-sonnet-4-5@20250929`); `@default` is LiteLLM's mark for a model
      // Vertex names without a version.
      const id = key.startsWith('vertex_ai/') ? key.slice('vertex_ai/'.length) : '';
      if (!claudeModel.test(id) || !id.includes('@')) return undefined;
      const upstreamModel = id.endsWith('@default') ? id.slice(0, -'@default'.length) : id;
      return { platform: 'vertex', name: `vertex/${upstreamModel}`, upstreamModel };
    }
    case 'gemini': {
      const id = key.startsWith('gemini/') ? key.slice('gemini/'.length) : '';
      return geminiChat.test(id) && !geminiNotChat.test(id)
        ? { platform: 'gemini', name: id, upstreamModel: id }
        : undefined;
    }
    case 'vertex_ai-language-models': {
      const id = key.startsWith('vertex_ai/') ? key.slice('vertex_ai/'.length) : key;
      return geminiChat.test(id) && !geminiNotChat.test(id)
        ? { platform: 'vertex', name: `vertex/${id}`, upstreamModel: id }
        : undefined;
    }
    default:
      return undefined;
  }
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** USD per token → USD per million tokens, without float noise (2.5e-6 × 1e6 is 2.4999999999999996). */
function perMillion(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  return Number((value * 1_000_000).toPrecision(12));
}

function toVendorModel(key: string, entry: LitellmEntry, place: Placement): VendorModelData | undefined {
  const contextWindow = positiveInteger(entry.max_input_tokens) ?? positiveInteger(entry.max_tokens);
  const maxOutputTokens = positiveInteger(entry.max_output_tokens) ?? positiveInteger(entry.max_tokens);
  const input = perMillion(entry.input_cost_per_token);
  const output = perMillion(entry.output_cost_per_token);
  if (contextWindow === undefined || maxOutputTokens === undefined) return undefined;
  if (input === undefined || output === undefined) return undefined;
  const maker = makerOfPlacement(place);
  return {
    vendor: maker.vendor,
    platform: place.platform,
    family: maker.family,
    upstreamModel: place.upstreamModel,
    contextWindow,
    maxOutputTokens,
    pricing: {
      inputPerMillion: input,
      outputPerMillion: output,
      cacheReadPerMillion: perMillion(entry.cache_read_input_token_cost) ?? null,
      cacheWritePerMillion: perMillion(entry.cache_creation_input_token_cost) ?? null,
    },
    capabilities: {
      // LiteLLM marks only the exceptions; a chat model streams unless it says otherwise.
      streaming: entry.supports_native_streaming !== false,
      tools: entry.supports_function_calling === true,
      vision: entry.supports_vision === true,
      reasoning: entry.supports_reasoning === true,
      promptCaching: entry.supports_prompt_caching === true,
    },
    sourceKey: key,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The catalog from a parsed LiteLLM file. Chat-mode entries only; an entry without limits or prices
 * is left out. Two keys naming one model (LiteLLM lists some Vertex ids with and without its
 * `vertex_ai/` prefix): the first key in sorted order wins.
 */
export function catalogFromLitellm(source: unknown, provenance: VendorCatalogSource): VendorCatalogFile {
  if (!isRecord(source)) throw new Error('the LiteLLM file is not a JSON object of models');
  const models: Record<string, VendorModelData> = {};
  for (const key of Object.keys(source).sort()) {
    const entry = source[key];
    if (!isRecord(entry) || entry.mode !== 'chat' || typeof entry.litellm_provider !== 'string') continue;
    const place = placeLitellmKey(key, entry.litellm_provider);
    if (place === undefined || place.name in models) continue;
    const model = toVendorModel(key, entry, place);
    if (model !== undefined) models[place.name] = model;
  }
  const sorted = Object.fromEntries(Object.entries(models).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  if (Object.keys(sorted).length === 0)
    throw new Error('the LiteLLM file has none of the expected chat models');
  return { source: provenance, models: sorted };
}
