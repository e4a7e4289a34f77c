/**
 * The attempts of one client request. Order: the model's deployments, each once (weighted choice
 * among the healthy ones); once they are exhausted, the next fallback in chain order the same way.
 * A deployment already tried is tried again only when no later model can serve (a fallback beats
 * waiting), after an exponential backoff with jitter and at least what its `retry-after` asked (a
 * longer wait than `maxRetryAfterMs` ends the retries on it); at most `retry.attempts` calls per
 * model. Nothing starts
 * past `maxAttempts` calls or `budgetMs`. Open circuits are skipped while any deployment of the
 * chain can take a call; when none can, the request ignores the breakers (Envoy's "panic" rule):
 * failing every request for a whole cool-down would turn a short upstream blip into an outage.
 * A request carrying fault-injection headers (a rehearsal)
 * calls each deployment at most once and leaves the breakers and cooling of the deployments its
 * headers reach (simulators) untouched: the fault is the client's, not the upstream's. The headers
 * never reach a real upstream, so a real deployment's failures count as always.
 */
import type { RetryConfig } from '../config/config.ts';
import { GatewayError } from '../ir/index.ts';
import type { RoutingClock } from './clock.ts';
import type { Deployment, ModelRoute, PickFilter } from './deployment.ts';
import { backoffMs } from './retry-policy.ts';

export interface Step {
  route: ModelRoute;
  deployment: Deployment;
  /** Wait this long before calling (backoff or the deployment's retry-after). */
  waitMs: number;
  /** The call ended (failed, finished or abandoned): its in-flight count was given back. */
  settled: boolean;
}

/** Why an attempt gave no answer. */
export interface AttemptFailure {
  error: GatewayError;
  /** Another attempt may follow (connect error, first-byte timeout, 429/500/503/529). */
  retryable: boolean;
  /** Counts toward the deployment's circuit breaker (5xx, connect errors, timeouts). */
  unhealthy: boolean;
  /** The upstream's `retry-after`, in ms. */
  retryAfterMs: number | undefined;
  /** The upstream refused the gateway's credential: the deployment is misconfigured. */
  credentialsRejected?: boolean;
}

export class AttemptPlan {
  readonly #chain: readonly ModelRoute[];
  readonly #policy: RetryConfig;
  readonly #clock: RoutingClock;
  readonly #rehearsal: boolean;
  readonly #deadline: number;
  #index = 0;
  #onModel = 0;
  #total = 0;
  /** Deployments that failed in this request, and when each may be called again. */
  #failed: Deployment[] | undefined;
  #notBefore: number[] | undefined;
  #lastError: GatewayError | undefined;
  readonly #filter: PickFilter = {
    exclude: undefined,
    only: undefined,
    avoidCooling: true,
    ignoreBreaker: false,
  };

  constructor(primary: ModelRoute, policy: RetryConfig, clock: RoutingClock, rehearsal: boolean) {
    this.#chain = primary.chain;
    this.#policy = policy;
    this.#clock = clock;
    this.#rehearsal = rehearsal;
    this.#deadline = clock.now() + policy.budgetMs;
  }

  /** Upstream calls started so far. */
  get attempts(): number {
    return this.#total;
  }

  /** The next call to make, or undefined when the request has no attempt left. */
  next(): Step | undefined {
    if (this.#total >= this.#policy.maxAttempts) return undefined;
    const now = this.#clock.now();
    if (this.#total > 0 && now >= this.#deadline) return undefined;
    this.#filter.ignoreBreaker = !this.#anyAllows(now);
    while (this.#index < this.#chain.length) {
      const route = this.#chain[this.#index] as ModelRoute;
      if (this.#onModel < this.#policy.attempts) {
        const step = this.#pickOn(route, now);
        if (step !== undefined) return step;
      }
      this.#advance();
    }
    return undefined;
  }

  /** Some deployment of the chain may take a call now (its circuit is not open). */
  #anyAllows(now: number): boolean {
    for (let index = this.#index; index < this.#chain.length; index++) {
      for (const deployment of (this.#chain[index] as ModelRoute).deployments) {
        if (deployment.breaker.allows(now)) return true;
      }
    }
    return false;
  }

  /** A model after the current one has a deployment that may take a call now. */
  #laterCanServe(now: number): boolean {
    for (let index = this.#index + 1; index < this.#chain.length; index++) {
      for (const deployment of (this.#chain[index] as ModelRoute).deployments) {
        if (this.#filter.ignoreBreaker || deployment.breaker.allows(now)) return true;
      }
    }
    return false;
  }

  #pickOn(route: ModelRoute, now: number): Step | undefined {
    const filter = this.#filter;
    filter.exclude = this.#failed;
    filter.only = undefined;
    // A healthy deployment not tried yet, preferring those not cooling from another request's retry-after.
    filter.avoidCooling = true;
    let deployment = route.pick(now, filter);
    if (deployment === undefined) {
      // Cooling is a preference across requests: with no other choice, the deployment is called.
      filter.avoidCooling = false;
      deployment = route.pick(now, filter);
    }
    if (deployment !== undefined) return { route, deployment, waitMs: 0, settled: false };
    if (this.#rehearsal || this.#failed === undefined || this.#laterCanServe(now)) return undefined;
    // Every deployment that may take a call failed in this request already: retry one after a wait.
    const retryable = this.#retryCandidates(route, now);
    if (retryable.length === 0) return undefined;
    filter.exclude = undefined;
    filter.only = retryable;
    deployment = route.pick(now, filter);
    if (deployment === undefined) return undefined;
    const backoff = backoffMs(this.#onModel, this.#policy, () => this.#clock.random());
    const waitMs = Math.max(backoff, this.#notBeforeOf(deployment) - now);
    if (now + waitMs > this.#deadline) return undefined;
    return { route, deployment, waitMs, settled: false };
  }

  #retryCandidates(route: ModelRoute, now: number): Deployment[] {
    const failed = this.#failed ?? [];
    const candidates: Deployment[] = [];
    for (const deployment of route.deployments) {
      const at = failed.indexOf(deployment);
      if (at === -1) continue;
      const wait = (this.#notBefore?.[at] ?? 0) - now;
      if (wait <= this.#policy.maxRetryAfterMs) candidates.push(deployment);
    }
    return candidates;
  }

  #notBeforeOf(deployment: Deployment): number {
    const at = this.#failed?.indexOf(deployment) ?? -1;
    return at === -1 ? 0 : (this.#notBefore?.[at] ?? 0);
  }

  #advance(): void {
    this.#index++;
    this.#onModel = 0;
  }

  /** The current model cannot take this request (it does not fit the model): go on to the next. */
  skipModel(error: GatewayError): void {
    this.#lastError ??= error;
    this.#advance();
  }

  /** A call starts on `step`. */
  begin(step: Step): void {
    this.#total++;
    this.#onModel++;
    const deployment = step.deployment;
    deployment.inFlight++;
    deployment.calls++;
    deployment.breaker.begin(this.#clock.now());
  }

  /** The call gave no answer; the plan learns why (and so does the deployment's breaker). */
  fail(step: Step, failure: AttemptFailure): void {
    if (!this.#settle(step)) return;
    const deployment = step.deployment;
    this.#lastError = failure.error;
    const now = this.#clock.now();
    const notBefore = failure.retryAfterMs === undefined ? 0 : now + failure.retryAfterMs;
    if (this.#rehearses(deployment)) {
      deployment.breaker.release();
    } else {
      // A refused credential is a failure in the deployment's counts (not a breaker trip: it is no outage).
      const rejected = failure.credentialsRejected === true;
      if (rejected) deployment.misconfigured = true;
      deployment.failures += failure.unhealthy || rejected ? 1 : 0;
      if (failure.unhealthy) deployment.breaker.fail(now);
      else if (failure.retryable) deployment.breaker.release();
      else deployment.breaker.succeed();
      if (notBefore > deployment.coolingUntil) deployment.coolingUntil = notBefore;
    }
    this.#failed ??= [];
    this.#notBefore ??= [];
    const at = this.#failed.indexOf(deployment);
    if (at === -1) {
      this.#failed.push(deployment);
      this.#notBefore.push(notBefore);
    } else {
      this.#notBefore[at] = notBefore;
    }
  }

  /** The call's answer started reaching the client: no more attempts, the deployment is healthy. */
  answered(step: Step): void {
    if (this.#rehearses(step.deployment)) step.deployment.breaker.release();
    else {
      step.deployment.breaker.succeed();
      step.deployment.misconfigured = false;
    }
  }

  /** The answered call is over; `upstreamFailed` when the upstream broke it (not the client). */
  finish(step: Step, upstreamFailed: boolean): void {
    if (!this.#settle(step)) return;
    const deployment = step.deployment;
    if (upstreamFailed && !this.#rehearses(deployment)) {
      deployment.failures++;
      deployment.breaker.fail(this.#clock.now());
    }
  }

  /** The client left during the call: no verdict on the deployment. */
  abandon(step: Step): void {
    if (!this.#settle(step)) return;
    step.deployment.breaker.release();
  }

  /** The client's fault headers reach this deployment (only simulators get them). */
  #rehearses(deployment: Deployment): boolean {
    return this.#rehearsal && deployment.faultHeaders;
  }

  /** Gives the call's in-flight slot back, once; false when it was already. */
  #settle(step: Step): boolean {
    if (step.settled) return false;
    step.settled = true;
    step.deployment.inFlight--;
    return true;
  }

  /** What the client is told when `next()` has nothing left. */
  finalError(): GatewayError {
    if (this.#lastError !== undefined) return this.#lastError;
    const now = this.#clock.now();
    let waitMs = Number.POSITIVE_INFINITY;
    for (const route of this.#chain) {
      for (const deployment of route.deployments) waitMs = Math.min(waitMs, deployment.breaker.waitMs(now));
    }
    const name = this.#chain[0]?.entry.name ?? 'the model';
    return new GatewayError('unavailable', `no healthy upstream can serve ${name} right now; retry later`, {
      retryAfterSeconds: Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs / 1000)) : 1,
    });
  }
}
