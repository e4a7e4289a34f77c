/**
 * Runtime deployments and the per-model choice among them: smooth weighted round-robin over the
 * deployments that may take a call, with the fewest in-flight calls breaking ties. Deterministic
 * (no randomness), so the shares are exact over any window of `sum(weights)` picks.
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { RetryConfig, TimeoutConfig, UpstreamLimits } from '../config/config.ts';
import type { UpstreamTarget, WireCodec } from '../codecs/codec.ts';
import type { FamilyId, JsonObject } from '../ir/index.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import type { RoutingClock } from './clock.ts';
import { CircuitBreaker } from './breaker.ts';
import type { UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';

export interface DeploymentSpec {
  id: string;
  model: string;
  codec: WireCodec;
  transport: UpstreamTransport;
  target: UpstreamTarget;
  weight: number;
  timeouts: TimeoutConfig;
  /** What one answer may make the gateway hold. */
  limits: UpstreamLimits;
  /** What of an upstream's error text a client may read. */
  scrubber: UpstreamErrorScrubber;
  breaker: CircuitBreaker;
  /** Served by the built-in simulator. */
  simulated: boolean;
  /**
   * The client's `x-simulate-*` fault headers reach it: the built-in simulator, or an upstream
   * the operator declared a modelgate simulator (`faultHeaders`). Never a real upstream.
   */
  faultHeaders: boolean;
}

export class Deployment {
  readonly id: string;
  /** Catalog name of the model it serves. */
  readonly model: string;
  readonly family: FamilyId;
  readonly codec: WireCodec;
  readonly transport: UpstreamTransport;
  readonly target: UpstreamTarget;
  readonly weight: number;
  readonly timeouts: TimeoutConfig;
  readonly limits: UpstreamLimits;
  readonly scrubber: UpstreamErrorScrubber;
  readonly breaker: CircuitBreaker;
  readonly simulated: boolean;
  readonly faultHeaders: boolean;
  /** Calls under way. */
  inFlight = 0;
  /** Unix ms before which its last `retry-after` asked not to be called. */
  coolingUntil = 0;
  calls = 0;
  failures = 0;
  /** The upstream's last HTTP status (0 before any answer): what an operator checks first. */
  lastStatus = 0;
  /**
   * The upstream refused the gateway's credential (401/403, or a body saying so): a configuration
   * fault no retry cures, beside the breaker's state; cleared by the next answer that succeeds.
   */
  misconfigured = false;

  constructor(spec: DeploymentSpec) {
    this.id = spec.id;
    this.model = spec.model;
    this.family = spec.codec.id;
    this.codec = spec.codec;
    this.transport = spec.transport;
    this.target = spec.target;
    this.weight = spec.weight;
    this.timeouts = spec.timeouts;
    this.limits = spec.limits;
    this.scrubber = spec.scrubber;
    this.breaker = spec.breaker;
    this.simulated = spec.simulated;
    this.faultHeaders = spec.faultHeaders;
  }

  health(now: number): JsonObject {
    return {
      id: this.id,
      family: this.family,
      upstream_model: this.target.model,
      upstream: this.simulated ? 'simulator' : 'http',
      weight: this.weight,
      in_flight: this.inFlight,
      calls: this.calls,
      failures: this.failures,
      last_status: this.lastStatus,
      misconfigured: this.misconfigured,
      cooling_ms: Math.max(0, this.coolingUntil - now),
      breaker: this.breaker.snapshot(now),
    };
  }
}

/** How `pick` treats deployments. */
export interface PickFilter {
  /** Deployments to leave out (tried already in this request), or undefined. */
  exclude: readonly Deployment[] | undefined;
  /** Only these (retries), or undefined for all. */
  only: readonly Deployment[] | undefined;
  /** Leave out deployments still cooling from a `retry-after`. */
  avoidCooling: boolean;
  /** Take open circuits too (every deployment of the chain has one open). */
  ignoreBreaker: boolean;
}

/** A catalog model and where it can be served: its deployments, then its fallback chain. */
export class ModelRoute {
  readonly entry: ModelEntry;
  readonly deployments: readonly Deployment[];
  /** This model first, then its fallbacks (its own in order, then theirs), each model once. */
  chain: readonly ModelRoute[] = [this];
  readonly retry: RetryConfig;
  readonly clock: RoutingClock;
  readonly #current: number[];

  constructor(
    entry: ModelEntry,
    deployments: readonly Deployment[],
    retry: RetryConfig,
    clock: RoutingClock,
  ) {
    this.entry = entry;
    this.deployments = deployments;
    this.retry = retry;
    this.clock = clock;
    this.#current = deployments.map(() => 0);
  }

  /** The next deployment for a call, or undefined when none may take one. */
  pick(now: number, filter: PickFilter): Deployment | undefined {
    const list = this.deployments;
    if (list.length === 1) {
      const only = list[0] as Deployment;
      return eligible(only, now, filter) ? only : undefined;
    }
    const current = this.#current;
    let best = -1;
    let total = 0;
    for (let index = 0; index < list.length; index++) {
      const deployment = list[index] as Deployment;
      if (!eligible(deployment, now, filter)) continue;
      const weight = (current[index] as number) + deployment.weight;
      current[index] = weight;
      total += deployment.weight;
      if (best === -1) {
        best = index;
        continue;
      }
      const bestWeight = current[best] as number;
      if (
        weight > bestWeight ||
        (weight === bestWeight && deployment.inFlight < (list[best] as Deployment).inFlight)
      ) {
        best = index;
      }
    }
    if (best === -1) return undefined;
    current[best] = (current[best] as number) - total;
    return list[best];
  }
}

function eligible(deployment: Deployment, now: number, filter: PickFilter): boolean {
  if (!filter.ignoreBreaker && !deployment.breaker.allows(now)) return false;
  if (filter.avoidCooling && deployment.coolingUntil > now) return false;
  if (filter.exclude !== undefined && filter.exclude.includes(deployment)) return false;
  return filter.only === undefined || filter.only.includes(deployment);
}
