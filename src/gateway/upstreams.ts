/**
 * Which transport and target serve a model: the family's configured base URL through the HTTP
 * client, or — when none is configured — the built-in simulator in process.
 */
import type { Config } from '../config/config.ts';
import type { ModelEntry } from '../config/catalog.ts';
import type { UpstreamTarget } from '../families/codec.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';

/** The simulator needs a credential present (as a real upstream would); it accepts any. */
const simulatorKey = 'simulator';
const simulatorBaseUrl = 'http://simulator.internal';

export interface UpstreamRoute {
  entry: ModelEntry;
  transport: UpstreamTransport;
  baseUrl: string;
  target: UpstreamTarget;
}

export class UpstreamRouter {
  readonly #config: Config;
  readonly #http: UpstreamTransport;
  readonly #simulator: UpstreamTransport;

  constructor(config: Config, http: UpstreamTransport, simulator: UpstreamTransport) {
    this.#config = config;
    this.#http = http;
    this.#simulator = simulator;
  }

  route(entry: ModelEntry): UpstreamRoute {
    const family = this.#config.upstreams[entry.family];
    const baseUrl = entry.baseUrl ?? family.baseUrl;
    if (baseUrl === undefined) {
      return {
        entry,
        transport: this.#simulator,
        baseUrl: simulatorBaseUrl,
        target: { baseUrl: simulatorBaseUrl, apiKey: simulatorKey, model: entry.upstreamModel },
      };
    }
    return {
      entry,
      transport: this.#http,
      baseUrl,
      target: { baseUrl, apiKey: entry.apiKey ?? family.apiKey, model: entry.upstreamModel },
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.#http.close(), this.#simulator.close()]);
  }
}
