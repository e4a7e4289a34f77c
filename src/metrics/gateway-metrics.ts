/**
 * The gateway's metrics, named after the OpenTelemetry GenAI conventions mapped to Prometheus
 * (dots → `_`, base units, `_total` on counters; label names are the attributes' names). Two
 * feeds, both after the fact and never on the way to the upstream:
 * - `ledgerRow`: every usage-ledger row (one per upstream attempt) — tokens, cost, time to first
 *   token, time per output token. The same rows the ledger writes, so the token and cost counters
 *   equal the ledger's sums.
 * - `chatEnded`: every chat request once answered, from its timeline — requests, duration,
 *   gateway overhead, each upstream attempt (primary, retry or fallback), retries, fallbacks and
 *   refusals.
 * In flight, ledger queue depth and breakers are read when scraped.
 */
import type { BreakerState } from '../routing/breaker.ts';
import type { LedgerRow, LedgerThreadEvents } from '../usage/ledger.ts';
import type { RequestTimeline } from '../usage/request-timeline.ts';
import {
  durationBounds,
  overheadBounds,
  timePerOutputTokenBounds,
  timeToFirstTokenBounds,
} from './buckets.ts';
import { errorType, ModelLabels, statusClass } from './labels.ts';
import { MetricsRegistry, type Counter, type MetricSnapshot } from './registry.ts';
import { RequestSeries } from './request-series.ts';

export interface GatewayMetricsOptions {
  /** Catalog and configured model names: the only model label values. */
  models: Iterable<string>;
  /** A `modelgate_key_id` label on the token and cost counters (off by default: one series per key). */
  perKeyLabels: boolean;
  /** Series per metric before the overflow series. */
  maxSeries: number;
}

/** A chat request as it ended (the gateway's `RequestContext` is one). */
export interface EndedRequest {
  surface: string;
  /** The catalog model the client asked for; undefined when the request never named a valid one. */
  model?: string | undefined;
  timeline: RequestTimeline;
}

export interface BreakerView {
  deployment: string;
  model: string;
  state: BreakerState;
  /** Times the circuit moved to each state since start. */
  transitions: Readonly<Record<BreakerState, number>>;
  /** The upstream refused the gateway's credential (401/403) and has not answered since. */
  misconfigured: boolean;
}

/** What is read when scraped. */
export interface ScrapeSources {
  inFlight(): number;
  shed(): number;
  ledgerQueue(): number;
  ledgerThread?(): LedgerThreadEvents | undefined;
  breakers(): Iterable<BreakerView>;
}

export type AttemptKind = 'primary' | 'retry' | 'fallback';

const breakerStates: readonly BreakerState[] = ['closed', 'open', 'half-open'];

export class GatewayMetrics {
  readonly registry: MetricsRegistry;
  readonly #models: ModelLabels;
  readonly #perKey: boolean;
  /** What each answered request and ledger row observes, bound once per label tuple. */
  readonly #series: RequestSeries;
  readonly #fallbacks: Counter;
  readonly #refusals: Counter;
  #sources: ScrapeSources | undefined;

  constructor(options: GatewayMetricsOptions) {
    const registry = new MetricsRegistry({ maxSeries: options.maxSeries });
    this.registry = registry;
    this.#models = new ModelLabels(options.models);
    this.#perKey = options.perKeyLabels;
    const keyLabel = options.perKeyLabels ? ['modelgate_key_id'] : [];
    const requests = registry.counter(
      'modelgate_requests_total',
      'Chat requests answered, by surface, requested model, status class and error type.',
      ['modelgate_surface', 'gen_ai_request_model', 'http_response_status_class', 'error_type'],
    );
    const requestDuration = registry.histogram(
      'gen_ai_server_request_duration_seconds',
      'Chat request duration, arrival to the last byte of the answer.',
      ['modelgate_surface', 'gen_ai_request_model', 'http_response_status_class'],
      durationBounds,
    );
    const timeToFirstToken = registry.histogram(
      'gen_ai_server_time_to_first_token_seconds',
      'Streamed answers: arrival to the first byte of the answer, successful requests.',
      ['modelgate_surface', 'gen_ai_response_model'],
      timeToFirstTokenBounds,
    );
    const timePerOutputToken = registry.histogram(
      'gen_ai_server_time_per_output_token_seconds',
      'Streamed answers: time per output token after the first, successful requests.',
      ['gen_ai_response_model'],
      timePerOutputTokenBounds,
    );
    const overhead = registry.histogram(
      'modelgate_gateway_overhead_seconds',
      'Time the gateway itself spent on a request until its answer started (upstream waits excluded).',
      ['modelgate_surface'],
      overheadBounds,
    );
    const attemptDuration = registry.histogram(
      'gen_ai_client_operation_duration_seconds',
      'Upstream calls: sent to the end of the answer (or the failure), by provider family, model, attempt kind and error type.',
      ['gen_ai_provider_name', 'gen_ai_request_model', 'modelgate_attempt', 'error_type'],
      durationBounds,
    );
    const retries = registry.counter(
      'modelgate_retries_total',
      'Upstream calls that retried a model after one of its calls failed.',
      ['gen_ai_request_model'],
    );
    this.#fallbacks = registry.counter(
      'modelgate_fallbacks_total',
      'Moves from a model to one of its fallbacks within a request.',
      ['gen_ai_request_model', 'modelgate_fallback_model'],
    );
    this.#refusals = registry.counter(
      'modelgate_refusals_total',
      'Requests the gateway refused before any upstream call: rate limits and budgets.',
      ['modelgate_surface', 'reason'],
    );
    const tokens = registry.counter(
      'modelgate_tokens_total',
      'Tokens as the usage ledger records them, by type (input includes cache reads and writes; output includes reasoning).',
      ['gen_ai_token_type', 'gen_ai_provider_name', 'gen_ai_response_model', ...keyLabel],
    );
    const cost = registry.counter(
      'modelgate_cost_usd_total',
      'Cost in US dollars as the usage ledger records it.',
      ['gen_ai_provider_name', 'gen_ai_response_model', ...keyLabel],
    );
    const bound = { tokens, cost, timePerOutputToken, timeToFirstToken, requests, requestDuration, overhead };
    this.#series = new RequestSeries({ ...bound, attemptDuration, retries }, options.maxSeries);
    registry.gauge(
      'modelgate_requests_in_flight',
      'POST requests being answered now (what server.maxInFlight caps).',
      [],
      () => [[[], this.#sources?.inFlight() ?? 0]],
    );
    registry.gauge(
      'modelgate_requests_shed_total',
      'Chat requests shed at once because the gateway was at its in-flight cap.',
      [],
      () => [[[], this.#sources?.shed() ?? 0]],
      'counter',
    );
    registry.gauge('modelgate_ledger_queue_rows', 'Usage-ledger rows waiting to be written.', [], () => [
      [[], this.#sources?.ledgerQueue() ?? 0],
    ]);
    registry.gauge(
      'modelgate_ledger_thread_events_total',
      "The ledger's writer thread: restarts after it died, hand-offs that waited on a full queue or kept their rows for later, rows written on the main thread instead.",
      ['event'],
      () => this.#ledgerThreadEvents(),
      'counter',
    );
    registry.gauge(
      'modelgate_breaker_state',
      'Circuit breaker of each deployment: 1 for its current state.',
      ['modelgate_deployment', 'gen_ai_request_model', 'state'],
      () => this.#breakerStates(),
    );
    registry.gauge(
      'modelgate_breaker_transitions_total',
      'Circuit breaker moves into each state since start.',
      ['modelgate_deployment', 'gen_ai_request_model', 'state'],
      () => this.#breakerTransitions(),
      'counter',
    );
    registry.gauge(
      'modelgate_deployment_misconfigured',
      "1 while the deployment's upstream refuses the gateway's credential (401/403), cleared by a success.",
      ['modelgate_deployment', 'gen_ai_request_model'],
      () => this.#misconfigured(),
    );
  }

  /** What is read when scraped (set once the gateway is composed). */
  collectFrom(sources: ScrapeSources): void {
    this.#sources = sources;
  }

  /** One usage-ledger row, as the ledger gets it. */
  readonly ledgerRow = (row: LedgerRow): void => {
    if (row.outcome === 'rejected') return;
    const model = this.#models.of(row.model);
    const series = this.#series.row(row.family, model, this.#perKey ? row.keyId : undefined);
    series.input.add(row.promptTokens);
    series.output.add(row.outputTokens);
    series.cacheRead.add(row.cachedTokens);
    series.cacheCreation.add(row.cacheWriteTokens);
    series.reasoning.add(row.reasoningTokens);
    series.cost.add(row.costUsd);
    if (!row.final || row.outcome !== 'ok' || !row.stream || row.ttftMs === undefined) return;
    this.#series.firstToken(row.surface, model).observe(row.ttftMs / 1000);
    if (row.outputTokens > 1 && row.latencyMs !== undefined)
      series.timePerOutputToken.observe((row.latencyMs - row.ttftMs) / 1000 / (row.outputTokens - 1));
  };

  /** A chat request was answered (`errorKind`: why it failed, in full or after its answer started). */
  chatEnded(request: EndedRequest, status: number, errorKind: string | undefined): void {
    const { timeline } = request;
    const now = performance.now();
    const requested = this.#models.of(request.model);
    const statusLabel = statusClass(status);
    const error = errorType(errorKind);
    const ended = this.#series.ended(request.surface, requested, statusLabel, error);
    ended.requests.add();
    ended.duration.observe(((timeline.endedAt ?? now) - timeline.receivedAt) / 1000);
    if (timeline.overheadMs !== undefined)
      this.#series.overhead(request.surface).observe(timeline.overheadMs / 1000);
    const attempts = timeline.attempts;
    if (attempts.length === 0) {
      if (errorKind === 'rate_limited') this.#refusals.add([request.surface, 'rate_limit']);
      else if (errorKind === 'quota') this.#refusals.add([request.surface, 'budget']);
      return;
    }
    let previousModel = request.model;
    for (let index = 0; index < attempts.length; index++) {
      const attempt = attempts[index];
      if (attempt === undefined) continue;
      const { record } = attempt;
      const model = this.#models.of(record.model);
      const kind = attemptKind(timeline, index, request.model);
      if (kind === 'retry') this.#series.retry(model).add();
      else if (kind === 'fallback' && record.model !== previousModel) this.#fallbacks.add([requested, model]);
      previousModel = record.model;
      const end = record.answered ? (timeline.endedAt ?? now) : attempt.endedAt;
      this.#series
        .attempt(record.family, model, kind, errorType(record.error))
        .observe(Math.max(0, end - attempt.sentAt) / 1000);
    }
  }

  /** The Prometheus text of these metrics. */
  render(): string {
    return this.registry.render();
  }

  /** Current values as plain data (the dashboard reads these). */
  snapshot(): MetricSnapshot[] {
    return this.registry.snapshot();
  }

  *#ledgerThreadEvents(): Iterable<readonly [readonly string[], number]> {
    const events = this.#sources?.ledgerThread?.();
    if (events === undefined) return;
    yield [['restart'], events.restarts];
    yield [['queue_full_wait'], events.queueFullWaits];
    yield [['held_back'], events.heldBack];
    yield [['written_on_main_thread'], events.writtenHere];
  }

  *#breakerStates(): Iterable<readonly [readonly string[], number]> {
    for (const breaker of this.#sources?.breakers() ?? [])
      for (const state of breakerStates)
        yield [[breaker.deployment, this.#models.of(breaker.model), state], breaker.state === state ? 1 : 0];
  }

  *#misconfigured(): Iterable<readonly [readonly string[], number]> {
    for (const breaker of this.#sources?.breakers() ?? [])
      yield [[breaker.deployment, this.#models.of(breaker.model)], breaker.misconfigured ? 1 : 0];
  }

  *#breakerTransitions(): Iterable<readonly [readonly string[], number]> {
    for (const breaker of this.#sources?.breakers() ?? [])
      for (const state of breakerStates)
        yield [[breaker.deployment, this.#models.of(breaker.model), state], breaker.transitions[state]];
  }
}

/**
 * What an upstream call was for the request: a call on another model than the one asked for is a
 * fallback; a call on the asked model after one of its calls failed is a retry; else the primary
 * (each call of an `n` fan-out is primary).
 */
export function attemptKind(
  timeline: RequestTimeline,
  index: number,
  requested: string | undefined,
): AttemptKind {
  const attempts = timeline.attempts;
  const record = attempts[index]?.record;
  if (record === undefined || record.model !== requested) return 'fallback';
  for (let earlier = 0; earlier < index; earlier++) {
    const before = attempts[earlier]?.record;
    if (before !== undefined && before.model === record.model && before.error !== undefined) return 'retry';
  }
  return 'primary';
}
