/**
 * The deployments of a model, built from the configuration: each configured deployment (on a
 * named provider, a family upstream, or the simulator), else one default (the family's base URL
 * through the HTTP client, or the built-in simulator in process when none is configured). Owns
 * what deployments share: one HTTP client per connect timeout, each named provider's transport
 * built once, and the one error scrubber that knows every configured key and host.
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { Config, DeploymentConfig, TimeoutConfig, UpstreamConfig } from '../config/config.ts';
import { reachesRealUpstream } from '../config/upstream-presence.ts';
import { familyCodec } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';
import type { UpstreamTarget } from '../codecs/codec.ts';
import type { RoutingClock } from '../routing/clock.ts';
import { CircuitBreaker } from '../routing/breaker.ts';
import { Deployment, ModelRoute, type DeploymentSpec } from '../routing/deployment.ts';
import type { HttpTransportOptions } from '../upstream/http-transport.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import type { UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { ConfigError } from '../config/config-error.ts';
import type { Provider } from '../providers/provider.ts';
import { familyUpstreamTransport, namedProviders, scrubberFor } from './upstream-providers.ts';

/** The simulator needs a credential present (as a real upstream would); it accepts any. */
const simulatorKey = 'simulator';
const simulatorBaseUrl = 'http://simulator.internal';

export type HttpTransportFactory = (options: HttpTransportOptions) => UpstreamTransport;

export class DeploymentBuilder {
  readonly #config: Config;
  readonly #clock: RoutingClock;
  readonly #httpFactory: HttpTransportFactory;
  readonly #simulator: UpstreamTransport;
  /** One HTTP client per connect timeout (usually one). */
  readonly #http = new Map<number, UpstreamTransport>();
  /** The configuration's named providers. */
  readonly #providers: ReadonlyMap<string, Provider>;
  /** Each named provider's transport, per connect timeout. */
  readonly #providerTransports = new Map<string, UpstreamTransport>();
  /** One for every deployment: it knows every configured upstream key and base URL. */
  readonly #scrubber: UpstreamErrorScrubber;

  constructor(config: Config, http: HttpTransportFactory, simulator: UpstreamTransport, clock: RoutingClock) {
    this.#config = config;
    this.#clock = clock;
    this.#httpFactory = http;
    this.#simulator = simulator;
    this.#providers = namedProviders(config);
    this.#scrubber = scrubberFor(config, this.#providers);
  }

  /** Closes the HTTP clients (the provider transports wrap them) and the simulator. */
  async close(): Promise<void> {
    await Promise.all([...[...this.#http.values()].map((http) => http.close()), this.#simulator.close()]);
  }

  /** The model's deployments, in configuration order, as one route. */
  route(entry: ModelEntry): ModelRoute {
    const routing = this.#config.routing[entry.name];
    const timeouts = routing?.timeouts ?? this.#config.timeouts;
    const configured = withoutSimulated(this.#config, routing?.deployments ?? []);
    const deployments =
      configured.length === 0
        ? [this.#defaultDeployment(entry, timeouts)]
        : configured.map((deployment) => this.#deployment(entry, deployment, timeouts));
    return new ModelRoute(entry, deployments, this.#config.retry, this.#clock);
  }

  /** The family's upstream settings; the configuration has one for every registered family. */
  #familyUpstream(id: FamilyId): UpstreamConfig {
    const upstream = this.#config.upstreams[id];
    if (upstream === undefined) throw new Error(`the configuration has no upstream for family ${id}`);
    return upstream;
  }

  #defaultDeployment(entry: ModelEntry, timeouts: TimeoutConfig): Deployment {
    if (entry.provider !== undefined)
      return this.#onProvider(
        entry,
        entry.name,
        entry.family,
        entry.provider,
        1,
        timeouts,
        entry.upstreamModel,
      );
    const family = this.#familyUpstream(entry.family);
    const baseUrl = entry.baseUrl ?? family.baseUrl;
    return this.#make(entry, entry.name, entry.family, 1, timeouts, {
      baseUrl,
      apiKey: entry.apiKey ?? family.apiKey,
      model: entry.upstreamModel,
      faultHeaders: entry.baseUrl === undefined && family.faultHeaders,
    });
  }

  #deployment(entry: ModelEntry, spec: DeploymentConfig, timeouts: TimeoutConfig): Deployment {
    if (spec.provider !== undefined)
      return this.#onProvider(
        entry,
        spec.id,
        spec.family,
        spec.provider,
        spec.weight,
        timeouts,
        spec.upstreamModel,
      );
    const family = this.#familyUpstream(spec.family);
    // The family's key goes only to the family's own host.
    const apiKey = spec.baseUrl === undefined ? (spec.apiKey ?? family.apiKey) : spec.apiKey;
    return this.#make(entry, spec.id, spec.family, spec.weight, timeouts, {
      baseUrl: spec.baseUrl ?? family.baseUrl,
      apiKey,
      model: spec.upstreamModel,
      faultHeaders: spec.baseUrl === undefined && family.faultHeaders,
    });
  }

  /** A deployment on a named provider: its wire, its transport, its base URL; its credentials stay in it. */
  #onProvider(
    entry: ModelEntry,
    id: string,
    family: FamilyId,
    name: string,
    weight: number,
    timeouts: TimeoutConfig,
    model: string,
  ): Deployment {
    const provider = this.#providers.get(name);
    // Checked at load (config/providers-schema.ts); a programmatic config may still get it wrong.
    if (provider === undefined)
      throw new ConfigError(`model ${entry.name}: no provider ${JSON.stringify(name)}`);
    const key = `${name}\u0000${timeouts.connectMs}`;
    let transport = this.#providerTransports.get(key);
    if (transport === undefined) {
      transport = provider.transport(this.#httpFor(timeouts.connectMs));
      this.#providerTransports.set(key, transport);
    }
    return this.#deploymentOf(entry, id, weight, timeouts, {
      codec: familyCodec(provider.wireFor(family, model)),
      transport,
      target: targetOf(entry, family, { baseUrl: provider.baseUrl, apiKey: undefined, model }),
      simulated: false,
      faultHeaders: false,
    });
  }

  #make(
    entry: ModelEntry,
    id: string,
    family: FamilyId,
    weight: number,
    timeouts: TimeoutConfig,
    target: { baseUrl: string | undefined; apiKey: string | undefined; model: string; faultHeaders: boolean },
  ): Deployment {
    const baseUrl = target.baseUrl;
    if (baseUrl === undefined)
      return this.#deploymentOf(entry, id, weight, timeouts, {
        codec: familyCodec(family),
        transport: this.#simulator,
        target: { baseUrl: simulatorBaseUrl, apiKey: simulatorKey, model: target.model },
        simulated: true,
        faultHeaders: true,
      });
    const http = this.#httpFor(timeouts.connectMs);
    return this.#deploymentOf(entry, id, weight, timeouts, {
      codec: familyCodec(family),
      transport: familyUpstreamTransport(family, { baseUrl, apiKey: target.apiKey }, http),
      target: targetOf(entry, family, { baseUrl, apiKey: target.apiKey, model: target.model }),
      simulated: false,
      faultHeaders: target.faultHeaders,
    });
  }

  #deploymentOf(
    entry: ModelEntry,
    id: string,
    weight: number,
    timeouts: TimeoutConfig,
    parts: Pick<DeploymentSpec, 'codec' | 'transport' | 'target' | 'simulated' | 'faultHeaders'>,
  ): Deployment {
    return new Deployment({
      id,
      model: entry.name,
      weight,
      timeouts,
      limits: this.#config.upstreamLimits,
      scrubber: this.#scrubber,
      breaker: new CircuitBreaker(this.#config.breaker),
      ...parts,
    });
  }

  #httpFor(connectMs: number): UpstreamTransport {
    let http = this.#http.get(connectMs);
    if (http === undefined) {
      http = this.#httpFactory({
        connectMs,
        connections: this.#config.upstreamConnections,
        maxResponseBytes: this.#config.upstreamLimits.maxResponseBytes,
      });
      this.#http.set(connectMs, http);
    }
    return http;
  }
}

/** The target, with the catalog's reasoning flag for a deployment speaking the model's own family. */
function targetOf(entry: ModelEntry, family: FamilyId, target: UpstreamTarget): UpstreamTarget {
  return entry.family === family && entry.capabilities.reasoning === true
    ? { ...target, reasoning: true }
    : target;
}

/**
 * With the simulator off, a model's deployments that have no real upstream are left out (the
 * others serve it); when none has one, the model is refused before delivery (`ModelResolver.unserved`).
 */
function withoutSimulated(config: Config, deployments: DeploymentConfig[]): DeploymentConfig[] {
  if (config.simulator.enabled) return deployments;
  const real = deployments.filter((spec) =>
    reachesRealUpstream(config, spec.family, spec.baseUrl, spec.provider),
  );
  return real.length === 0 ? deployments : real;
}
