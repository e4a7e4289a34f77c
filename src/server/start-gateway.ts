/** Composition root: config → store → keys → upstreams → HTTP server. Returns a handle to stop it. */
import { ImageFetcher } from '../gateway/fetch-images.ts';
import type { Server } from 'node:http';
import { createServer } from '../http/node-http.ts';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.ts';
import { simulatorNotice } from '../config/upstream-presence.ts';
import { ModelResolver } from '../gateway/resolve-model.ts';
import { UpstreamRouter } from '../gateway/upstreams.ts';
import { createKeyServices } from '../limits/key-services.ts';
import { createLogger, type Logger } from '../log/logger.ts';
import { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { processRegistry } from '../metrics/process-metrics.ts';
import { metricsThroughPrimary } from '../metrics/worker-scrape.ts';
import { AdminKey } from '../keys/admin-key.ts';
import { startTracing, type TracingOptions } from '../tracing/tracing.ts';
import { createSimulator } from '../simulator/simulator.ts';
import { createSimulatorTransport } from '../simulator/transport.ts';
import { urlPassword } from '../store/database-url.ts';
import { openStores } from '../store/stores.ts';
import { loadTokenizer } from '../tokenizer/count-tokens.ts';
import { createHttpTransport } from '../upstream/http-transport.ts';
import { createRequestHandler } from './app.ts';
import { guardInFlight } from './overload.ts';

export interface RunningGateway {
  url: string;
  server: Server;
  /** Printed once by the caller: only set when this start generated the first client key. */
  generatedKey: string | undefined;
  /** The metrics (current values for the dashboard: `metrics.snapshot()`); undefined when turned off. */
  metrics: GatewayMetrics | undefined;
  /** The gateway's logger (secrets redacted): start, shutdown and exit lines. */
  logger: Logger;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Writes the ledger's pending rows now, synchronously: for a process exiting without `close`. */
  flushLedger(): void;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** Spans go here instead of OTLP (tests: an in-memory exporter); turns tracing on. */
  spanExporter?: TracingOptions['exporter'];
  /** A worker of `serve --workers N`: `/metrics` is every worker's, merged by the primary. */
  metricsThroughPrimary?: boolean;
  /** The clock admission reads (Unix ms; tests move it across a budget period's end). */
  clock?: () => number;
}

export async function startGateway(
  config: Config,
  logger?: Logger,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const secrets = [
    ...config.staticKeys,
    ...Object.values(config.upstreams).flatMap((upstream) =>
      upstream.apiKey === undefined ? [] : [upstream.apiKey],
    ),
    ...config.models.flatMap((entry) => (entry.apiKey === undefined ? [] : [entry.apiKey])),
    ...Object.values(config.routing).flatMap((routing) =>
      routing.deployments.flatMap((deployment) =>
        deployment.apiKey === undefined ? [] : [deployment.apiKey],
      ),
    ),
    // Named providers' keys and credentials (`providers:`).
    ...Object.values(config.providers).flatMap((provider) =>
      [provider.apiKey, ...Object.values(provider.credentials ?? {})].filter(
        (secret): secret is string => secret !== undefined,
      ),
    ),
    ...(config.adminKey === undefined ? [] : [config.adminKey]),
    ...(config.databaseUrl === undefined ? [] : [config.databaseUrl, urlPassword(config.databaseUrl) ?? '']),
    ...(config.metrics.token === undefined ? [] : [config.metrics.token]),
  ];
  const log = logger ?? createLogger(config.logLevel, secrets);
  const stores = await openStores(config, log);
  const metrics = config.metrics.enabled
    ? new GatewayMetrics({
        models: config.models.map((entry) => entry.name),
        perKeyLabels: config.metrics.perKeyLabels,
        maxSeries: config.metrics.maxSeriesPerMetric,
      })
    : undefined;
  // The event-loop monitor runs from the start, so the first scrape has something to say.
  if (metrics !== undefined) await processRegistry();
  // The OpenTelemetry SDK is loaded only when traces are exported.
  const tracer = await startTracing(
    config.tracing,
    options.spanExporter === undefined ? {} : { exporter: options.spanExporter },
  );
  const services = await createKeyServices(
    config,
    stores,
    log,
    options.clock ?? Date.now,
    metrics?.ledgerRow,
  );
  const { keys, store, generatedKey, adminKey, admission, ledger } = services;
  stores.start();
  await services.start();
  const simulator = createSimulator({
    timeToFirstTokenMs: config.simulator.timeToFirstTokenMs,
    interTokenDelayMs: config.simulator.interTokenDelayMs,
  });
  const responses = stores.responses(config.responses.retentionMs);
  // Expired answers are purged at start and hourly (off the request path; the timer never holds the process).
  const purge = (): void => {
    responses.purge().catch((error: unknown) => {
      log.warn('purging expired responses failed', {
        cause: error instanceof Error ? error.message : 'unknown',
      });
    });
  };
  purge();
  const purgeTimer = setInterval(purge, 3_600_000).unref();
  const upstreams = new UpstreamRouter(config, createHttpTransport, createSimulatorTransport(simulator));
  // The tokenizer's vocabulary (4.2 MB, read in 50–340 ms) before listening: counting stays synchronous
  // and no request pays for it.
  loadTokenizer();
  const handler = createRequestHandler({
    admission,
    admin: { adminKey, store, usage: stores.usage },
    // The dashboard reads either store (rollups, sessions); its live tail watches this process's ledger.
    ...(ledger.watch === undefined
      ? {}
      : { dashboard: { store: stores.dashboard, ledger: { watch: ledger.watch } } }),
    config,
    keys,
    logger: log,
    models: new ModelResolver(config),
    upstreams,
    images: new ImageFetcher(config.images),
    responses,
    strictOutputTokens: config.strictOutputTokens,
    health: () => ({ ...upstreams.health(), in_flight: guard.inFlight, shed: guard.shed }),
    reachability: { store: () => stores.ping(), sharedStore: services.pingSharedStore },
    metrics,
    tracer,
    metricsEndpoint:
      metrics === undefined
        ? undefined
        : {
            metrics,
            credentials: [adminKey, new AdminKey(config.metrics.token)],
            open: config.metrics.open,
            ...(options.metricsThroughPrimary === true ? { render: metricsThroughPrimary(metrics) } : {}),
          },
  });
  // Beyond maxInFlight chat requests, new ones are shed at once in the surface's error shape.
  const guard = guardInFlight(handler, config.maxInFlight);
  metrics?.collectFrom({
    inFlight: () => guard.inFlight,
    shed: () => guard.shed,
    ledgerQueue: () => ledger.pending,
    ledgerThread: () => ledger.threadEvents?.(),
    breakers: function* () {
      const now = upstreams.clock.now();
      for (const { deployment, model, breaker, misconfigured } of upstreams.breakers())
        yield {
          deployment,
          model,
          state: breaker.state(now),
          transitions: breaker.transitions,
          misconfigured,
        };
    },
  });
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      // Slow-header and slow-body protection; a streamed answer itself has no time limit.
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
      maxHeaderSize: config.maxHeaderBytes,
    },
    guard.handler,
  );
  // `Expect: 100-continue` requests come here instead of 'request', and node:http does not send
  // `100 Continue` by itself: the router sends it once the headers passed (auth, limits).
  server.on('checkContinue', guard.handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Said once the gateway serves (a start that fails, a port in use, says only why).
  const notice = simulatorNotice(config);
  if (notice !== undefined) log.info(notice);
  let closing: Promise<void> | undefined;
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    server,
    generatedKey,
    metrics,
    logger: log,
    get inFlight() {
      return handler.inFlight;
    },
    flushLedger: () => {
      ledger.flush();
    },
    // Idempotent (SIGINT then SIGTERM): stop accepting, let the requests in flight finish, then
    // write the ledger's last batch.
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        });
        server.closeIdleConnections();
        handler.closeStreams();
        await handler.drain(config.drainTimeoutMs);
        server.closeAllConnections();
        await closed;
        clearInterval(purgeTimer);
        await ledger.close();
        await tracer?.shutdown();
        await services.close();
        await upstreams.close();
        await stores.close();
      })()),
  };
}
