/**
 * The provider contract: how one upstream vendor (or a cloud that resells it) is reached. A codec
 * says what the wire looks like; a provider says where it goes, as whom, and how its stream is
 * framed. Everything a provider does sits behind one seam the delivery path already has, the
 * `UpstreamTransport`: a provider wraps the HTTP transport (as undici's dispatchers wrap each
 * other), so the attempt loop, the stream pump and the codecs' decoders stay as they are.
 *
 * Only what a provider must know lives here; presets (`openai`, `anthropic`, `gemini`,
 * `azure-openai`, `bedrock`, `vertex`) are one folder each under `providers/` and one line in
 * `providers/registry.ts`.
 */
import type { FamilyId } from '../ir/index.ts';
// What each call is (model id, streamed, chat or count) travels on the request: `UpstreamRequest.call`.
import type { UpstreamTransport } from '../upstream/transport.ts';

/** The settings of one named provider, as the configuration's `providers:` section gives them. */
export interface ProviderSettings {
  /** The name models and deployments refer to. */
  readonly name: string;
  /** Which preset (`providers/registry.ts`) builds it. */
  readonly preset: string;
  /** Overrides the preset's public endpoint (a proxy, a regional host, a loopback mock). */
  readonly baseUrl?: string | undefined;
  /** A static credential: API key, Azure `api-key`, Bedrock API key (bearer). */
  readonly apiKey?: string | undefined;
  /** Cloud placement: AWS region; Vertex project and location; Azure API version. */
  readonly region?: string | undefined;
  readonly project?: string | undefined;
  readonly location?: string | undefined;
  readonly apiVersion?: string | undefined;
  /** Preset-specific credentials (a service-account key file, an AWS profile, Entra ID options). */
  readonly credentials?: Readonly<Record<string, string>> | undefined;
  /**
   * Azure OpenAI: deployment name → the OpenAI model it serves (`reasoner: o4-mini`). A deployment's
   * name need not say its model; the model decides OpenAI's rules (reasoning models take
   * `max_completion_tokens` and only default sampling).
   */
  readonly deployments?: Readonly<Record<string, string>> | undefined;
  /**
   * The spec's family upstream (`{PREFIX}_BASE_URL`, `upstreams:`), served by its vendor's preset:
   * the codec's own paths and header names stay (a spec upstream reads them) and the vendor's are
   * added beside them (so the vendor reads its own).
   */
  readonly familyUpstream?: boolean | undefined;
}

export interface Provider {
  readonly name: string;
  readonly preset: string;
  /** The base URL deployments on this provider are given (scrubbed from every client-visible text). */
  readonly baseUrl: string;
  /** Every secret the provider holds, for the error scrubber and log redaction. */
  readonly secrets: readonly string[];
  /**
   * The wire codec (a `codecs/registry.ts` id) this provider speaks for a model the catalog puts in
   * `family`: its own family for the vendors' APIs; on Bedrock, `beta` for Anthropic models and the
   * Converse codec for every other model.
   */
  wireFor(family: FamilyId, model: string): FamilyId;
  /**
   * The transport its deployments use: `http` wrapped with the provider's URL building,
   * authentication (static keys at once; cloud tokens and signatures from the vendors' own
   * libraries, loaded only by the presets that need them), vendor headers and body fields, and a
   * stream framing other than SSE re-framed as SSE for the codecs' decoders.
   */
  transport(http: UpstreamTransport): UpstreamTransport;
}

/** Builds a provider from its settings; throws a message naming the missing or bad setting. */
export type ProviderPreset = (settings: ProviderSettings) => Provider;
