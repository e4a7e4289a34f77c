/**
 * The built-in upstream simulator: a fake provider for all three families. It is family-agnostic:
 * the path picks a codec (its surface `matchRoute`), the body is decoded with that codec's surface
 * decoder, a deterministic canonical reply is generated, and the same codec encodes it. So the
 * simulator speaks exactly the official shapes the codecs speak, errors and streams included.
 */
import { randomUUID } from 'node:crypto';
import type { HeaderMap, PromptCaching, ResponseContext, SurfaceRoute } from '../codecs/codec.ts';
import type { FamilyCodec } from '../surfaces/surface.ts';
import { defaultSurface, familySurfaces } from '../surfaces/registry.ts';
import { countCacheMarkers } from '../codecs/shared/cache-markers.ts';
import { GatewayError, type ChatRequest } from '../ir/index.ts';
import type { UpstreamResponse } from '../upstream/transport.ts';
import { readFaults, type Faults } from './faults.ts';
import { planReply, promptBlocks, type ReplyPlan } from './plan.ts';
import { minimumCachedTokens, PromptCache } from './prompt-cache.ts';
import { toChatResponse, toStreamEvents, type ReplyMeta } from './reply-events.ts';
import { pause, streamBody, type StreamCounters, type StreamPacing } from './stream-body.ts';
import { loadTokenizer } from '../tokenizer/count-tokens.ts';
import { TokenCountCache, type TokenCounter } from './token-cache.ts';
import { streamedResponse, wholeResponse } from './upstream-response.ts';

export interface SimulatorOptions {
  /** Delay before the first streamed token (and added to non-streamed replies). Default 0. */
  timeToFirstTokenMs?: number;
  /** Delay between streamed tokens (and per token for non-streamed replies). Default 0. */
  interTokenDelayMs?: number;
  /** Unix milliseconds; injected for deterministic tests. */
  now?: () => number;
  /** Ids for responses and tool calls; injected for deterministic tests. */
  generateId?: (prefix: string) => string;
  /** The families to speak; defaults to every registered codec. */
  codecs?: readonly FamilyCodec[];
}

export interface SimulatorInput {
  method: string;
  /** Path including the query string. */
  path: string;
  /** Lower-case header names. */
  headers: HeaderMap;
  body: string;
}

export interface SimulatorStats extends StreamCounters {
  requests: number;
}

export interface Simulator {
  handle(input: SimulatorInput, signal: AbortSignal): Promise<UpstreamResponse>;
  /** Live counters (for tests and benchmarks). */
  readonly stats: Readonly<SimulatorStats>;
}

const jsonHeaders: HeaderMap = Object.freeze({ 'content-type': 'application/json' });
const streamHeaders: HeaderMap = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
});

function defaultGenerateId(prefix: string): string {
  return prefix + randomUUID().replaceAll('-', '').slice(0, 24);
}

interface Matched {
  codec: FamilyCodec;
  route: SurfaceRoute;
  query: string;
}

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  // Replies are counted and cut into tokens synchronously: the vocabulary loads now, not in the
  // first request's time to first byte.
  loadTokenizer();
  const engine = new SimulatorEngine(options);
  return { handle: (input, signal) => engine.handle(input, signal), stats: engine.stats };
}

/** Per-simulator state: the codecs, injected clock and ids, pacing, the token-count memo, counters. */
class SimulatorEngine {
  readonly stats: SimulatorStats = { requests: 0, activeStreams: 0, tokensGenerated: 0 };
  readonly #codecs: readonly FamilyCodec[];
  readonly #now: () => number;
  readonly #generateId: (prefix: string) => string;
  readonly #pacing: StreamPacing;
  readonly #counter = new TokenCountCache();
  readonly #cache: PromptCache;

  constructor(options: SimulatorOptions) {
    this.#codecs = options.codecs ?? familySurfaces();
    this.#now = options.now ?? Date.now;
    this.#generateId = options.generateId ?? defaultGenerateId;
    this.#cache = new PromptCache(this.#now);
    this.#pacing = {
      timeToFirstTokenMs: Math.max(0, options.timeToFirstTokenMs ?? 0),
      interTokenDelayMs: Math.max(0, options.interTokenDelayMs ?? 0),
    };
  }

  async handle(input: SimulatorInput, signal: AbortSignal): Promise<UpstreamResponse> {
    this.stats.requests++;
    const matched = this.#match(input.method, input.path);
    if (matched === undefined) return this.#notFound(input);
    const faults = readFaults(input.headers);
    if (faults.latencyMs > 0 && !(await pause(faults.latencyMs, signal))) throw abortReason(signal);
    const { codec } = matched;
    if (faults.error !== undefined) return errorResponse(codec, faults.error);
    const refusal = checkCredentials(matched, input.headers);
    if (refusal !== undefined) return errorResponse(codec, refusal);
    try {
      const request = codec.decodeRequest({ body: parseJson(input.body), route: matched.route });
      return await this.#reply(codec, request, faults, signal);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      return errorResponse(codec, asGatewayError(error));
    }
  }

  #match(method: string, path: string): Matched | undefined {
    if (method.toUpperCase() !== 'POST') return undefined;
    const queryAt = path.indexOf('?');
    const pathname = queryAt === -1 ? path : path.slice(0, queryAt);
    const query = queryAt === -1 ? '' : path.slice(queryAt + 1);
    for (const codec of this.#codecs) {
      const route = codec.matchRoute(pathname);
      if (route !== undefined) return { codec, route, query };
    }
    return undefined;
  }

  /** Unknown paths answer in the default surface's shape (A, the most common client), or the first codec's. */
  #notFound(input: SimulatorInput): UpstreamResponse {
    const codec = this.#codecs.find((candidate) => candidate.id === defaultSurface.id) ?? this.#codecs[0];
    if (codec === undefined) throw new GatewayError('internal', 'the simulator has no codecs');
    const message = `simulator: no route for ${input.method} ${pathOnly(input.path)}`;
    return errorResponse(codec, new GatewayError('not_found', message));
  }

  async #reply(
    codec: FamilyCodec,
    request: ChatRequest,
    faults: Faults,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    const { idPrefixes, promptCaching } = codec.descriptor;
    // The family's own marker rule, enforced as its upstream does (B: a 5th cache breakpoint is a 400).
    promptCaching.checkMarkers?.(request);
    const callPrefix = idPrefixes.toolCall;
    // The prompt's texts, as promptBlocks counts them, counted first without holding the event loop.
    const texts: string[] = [];
    promptBlocks(request, {
      count: (text) => {
        texts.push(text);
        return 0;
      },
    });
    const counter = await this.#counter.primed(texts);
    if (signal.aborted) throw abortReason(signal);
    const plan = planReply(request, {
      counter,
      newToolCallId: () => this.#generateId(callPrefix),
    });
    this.#applyCache(promptCaching, request, plan, counter);
    const meta: ReplyMeta = {
      id: this.#generateId(idPrefixes.response),
      model: request.model,
      created: Math.floor(this.#now() / 1000),
    };
    const context: ResponseContext = {
      model: request.model,
      includeUsage: request.includeUsage,
      legacyFunctions: request.legacyFunctions ?? false,
    };
    if (!request.stream) {
      if (!(await pause(this.#generationMs(plan), signal))) throw abortReason(signal);
      const body = JSON.stringify(codec.encodeResponse(toChatResponse(plan, meta), context));
      return wholeResponse(200, jsonHeaders, body);
    }
    const controller = new AbortController();
    const chunks = streamBody(toStreamEvents(plan, meta), codec.createStreamEncoder(context), {
      pacing: this.#pacing,
      // A limit beyond the reply still fails: right after its last token, before any finish.
      faults: {
        errorAfter: atMost(faults.streamErrorAfter, plan.chunkCount),
        cutAfter: atMost(faults.streamCutAfter, plan.chunkCount),
      },
      counters: this.stats,
      signal,
      cancelSignal: controller.signal,
    });
    return streamedResponse(200, streamHeaders, chunks, () => {
      controller.abort();
    });
  }

  /**
   * Prompt caching as the family does it (see prompt-cache.ts). Skipped without a marker when the
   * prompt is too short to cache, so short prompts (benchmarks) pay nothing for it.
   */
  #applyCache(caching: PromptCaching, request: ChatRequest, plan: ReplyPlan, counter: TokenCounter): void {
    const { explicit } = caching;
    const automatic = caching.automaticTtl?.(request);
    const blocks =
      plan.usage.inputTokens >= minimumCachedTokens ||
      (explicit && (automatic !== undefined || countCacheMarkers(request) > 0))
        ? promptBlocks(request, counter)
        : undefined;
    if (blocks === undefined) return;
    const figures = this.#cache.measure(request.model, blocks, {
      explicit,
      granularity: caching.granularity,
      automaticTtl: automatic,
    });
    plan.usage.cacheReadTokens = figures.readTokens;
    plan.usage.cacheWriteTokens = figures.writeTokens;
  }

  /** A non-streamed reply arrives when the whole stream would have finished. */
  #generationMs(plan: ReplyPlan): number {
    if (plan.chunkCount === 0) return 0;
    return this.#pacing.timeToFirstTokenMs + this.#pacing.interTokenDelayMs * (plan.chunkCount - 1);
  }
}

/** Any key is accepted, but one must be there, where the family carries it (plus B's version header). */
function checkCredentials(matched: Matched, headers: HeaderMap): GatewayError | undefined {
  const { codec, query } = matched;
  const key = codec.readClientKey(headers, new URLSearchParams(query));
  if (key === undefined || key === '') {
    return new GatewayError('authentication', 'simulator: no API key was sent (any value is accepted)');
  }
  return codec.checkHeaders(headers);
}

function errorResponse(codec: FamilyCodec, error: GatewayError): UpstreamResponse {
  const wire = codec.encodeError(error);
  const headers: Record<string, string> = { ...wire.headers, 'content-type': 'application/json' };
  if (error.retryAfterSeconds !== undefined && headers['retry-after'] === undefined) {
    headers['retry-after'] = String(error.retryAfterSeconds);
  }
  return wholeResponse(wire.status, headers, JSON.stringify(wire.body));
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new GatewayError('invalid_request', 'the request body is not valid JSON');
  }
}

function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError('internal', 'simulator: the request could not be handled', { cause: error });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

function atMost(limit: number | undefined, cap: number): number | undefined {
  return limit === undefined ? undefined : Math.min(limit, cap);
}

function pathOnly(path: string): string {
  const queryAt = path.indexOf('?');
  return queryAt === -1 ? path : path.slice(0, queryAt);
}
