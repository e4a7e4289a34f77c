/** What the request handler is built from, and what it offers the server that runs it. */
import type { AdminKey } from '../keys/admin-key.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/config.ts';
import type { WatchedLedger } from '../dashboard/live-tail.ts';
import type { ChatDependencies } from '../gateway/handle-chat.ts';
import type { JsonObject } from '../ir/index.ts';
import type { AdmissionControl } from '../limits/admission-control.ts';
import type { Logger } from '../log/logger.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import type { ResponseStore } from '../store/response-store.ts';
import type { RequestTracer } from '../tracing/tracing.ts';
import type { RequestContext } from '../usage/request-context.ts';
import type { UsageReports } from '../usage/report.ts';
import type { MetricsEndpoint } from './metrics-route.ts';

/** What `/readyz` checks: each resolves when its part answers, rejects when it cannot. */
export interface Reachability {
  store: () => Promise<void>;
  /** Redis; undefined when none is configured. */
  sharedStore: (() => Promise<void>) | undefined;
}

export interface AppDependencies extends ChatDependencies<RequestContext> {
  admission: AdmissionControl;
  config: Config;
  keys: ClientKeys;
  logger: Logger;
  /** What `/readyz` checks (the store, Redis); without it the process is ready while it serves. */
  reachability?: Reachability;
  /** Upstream health (deployments, circuit breakers) for `GET /admin/health`. */
  health?: () => JsonObject;
  /** The admin API; without it `/admin/…` answers 404. */
  admin?: {
    adminKey: AdminKey;
    store: KeyStore;
    usage: UsageReports;
  };
  /**
   * The store's dashboard data (rollups, ledger pages, sessions: either store) and the ledger its
   * live tail watches (this process's rows); without it `/dashboard` answers 404.
   */
  dashboard?: { store: DashboardStore; ledger: WatchedLedger };
  /** Unix milliseconds (key expiry, limits); injectable for tests. */
  clock?: () => number;
  /** Stored Responses API answers; without it nothing is kept and continuations are not found. */
  responses?: ResponseStore;
  /** Told about every chat request once answered; undefined when metrics are off. */
  metrics?: GatewayMetrics | undefined;
  /** `GET /metrics`; without it the path answers 404. */
  metricsEndpoint?: MetricsEndpoint | undefined;
  /** Spans of every chat request and upstream call; undefined unless trace export is on. */
  tracer?: RequestTracer | undefined;
}

export interface RequestHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** A shutdown began: `/readyz` answers 503 so load balancers stop sending. */
  readonly draining: boolean;
  /** Ends the dashboard's live-tail streams (shutdown). */
  closeStreams(): void;
  /**
   * Lets the requests in flight finish (new answers say `connection: close`); after `timeoutMs`
   * the rest are aborted (streams end with the family's error event, their usage is recorded).
   */
  drain(timeoutMs: number): Promise<void>;
}
