/**
 * Where a model can be served: its route (its deployments, built by `upstream-deployments.ts`) and
 * its fallback chain. Built once from the config; hosts come from configuration only, never from a
 * request. Also the source of `GET /admin/health` (deployments, breakers, in-flight calls).
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { Config, RetryConfig } from '../config/config.ts';
import { missingUpstream } from '../config/upstream-presence.ts';
import type { JsonObject } from '../ir/index.ts';
import { systemClock, type RoutingClock } from '../routing/clock.ts';
import type { CircuitBreaker } from '../routing/breaker.ts';
import type { ModelRoute } from '../routing/deployment.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import { DeploymentBuilder, type HttpTransportFactory } from './upstream-deployments.ts';

export type { HttpTransportFactory };

export class UpstreamRouter {
  readonly retry: RetryConfig;
  readonly clock: RoutingClock;
  readonly #config: Config;
  readonly #deployments: DeploymentBuilder;
  readonly #routes = new Map<string, ModelRoute>();
  /** Routes of uncatalogued `family/id` names, as long as the resolver keeps their entry. */
  readonly #adHoc = new WeakMap<ModelEntry, ModelRoute>();

  constructor(
    config: Config,
    http: HttpTransportFactory,
    simulator: UpstreamTransport,
    clock: RoutingClock = systemClock,
  ) {
    this.#config = config;
    this.retry = config.retry;
    this.clock = clock;
    this.#deployments = new DeploymentBuilder(config, http, simulator, clock);
    // A model nothing serves (the simulator off) has no route: no fallback, no health entry.
    for (const entry of config.models)
      if (missingUpstream(config, entry) === undefined)
        this.#routes.set(entry.name, this.#deployments.route(entry));
    for (const route of this.#routes.values()) route.chain = this.#chain(route);
  }

  /** The route for a resolved model entry (catalog or `family/id`). */
  route(entry: ModelEntry): ModelRoute {
    const route = this.#routes.get(entry.name);
    if (route !== undefined && route.entry === entry) return route;
    let adHoc = this.#adHoc.get(entry);
    if (adHoc === undefined) {
      adHoc = this.#deployments.route(entry);
      this.#adHoc.set(entry, adHoc);
    }
    return adHoc;
  }

  /** Deployments, breaker states and misconfigured deployments of every catalog model. */
  health(): JsonObject {
    const now = this.clock.now();
    const models: JsonObject[] = [];
    let open = 0;
    let misconfigured = 0;
    for (const route of this.#routes.values()) {
      const deployments = route.deployments.map((deployment) => deployment.health(now));
      for (const deployment of route.deployments) {
        open += deployment.breaker.state(now) === 'closed' ? 0 : 1;
        misconfigured += deployment.misconfigured ? 1 : 0;
      }
      models.push({
        model: route.entry.name,
        family: route.entry.family,
        fallbacks: route.chain.slice(1).map((next) => next.entry.name),
        deployments,
      });
    }
    const status = open === 0 && misconfigured === 0 ? 'ok' : 'degraded';
    return { status, open_circuits: open, misconfigured_deployments: misconfigured, models };
  }

  /** Every catalog model's deployments with their breakers (read by the metrics when scraped). */
  *breakers(): Iterable<{
    deployment: string;
    model: string;
    breaker: CircuitBreaker;
    misconfigured: boolean;
  }> {
    for (const route of this.#routes.values())
      for (const deployment of route.deployments)
        yield {
          deployment: deployment.id,
          model: route.entry.name,
          breaker: deployment.breaker,
          misconfigured: deployment.misconfigured,
        };
  }

  async close(): Promise<void> {
    await this.#deployments.close();
  }

  /**
   * The model, then its own fallbacks in order, then theirs (breadth-first), each model once
   * (cycles are refused at config load).
   */
  #chain(route: ModelRoute): ModelRoute[] {
    const chain: ModelRoute[] = [route];
    for (let index = 0; index < chain.length; index++) {
      const name = (chain[index] as ModelRoute).entry.name;
      for (const fallbackName of this.#config.routing[name]?.fallbacks ?? []) {
        const fallback = this.#routes.get(fallbackName);
        if (fallback !== undefined && !chain.includes(fallback)) chain.push(fallback);
      }
    }
    return chain;
  }
}
