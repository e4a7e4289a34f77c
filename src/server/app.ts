/**
 * The HTTP front: routes, client and admin authentication, body reading, and error encoding in
 * the shape of the surface the client called. node:http directly: the hot path has no framework
 * layers. Every answer carries `x-request-id` and `x-modelgate-overhead-ms`; chat answers also
 * carry the surface family's rate-limit headers. The handler counts the requests in flight so a
 * shutdown can drain them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminDependencies } from '../admin/admin-api.ts';
import type { Config } from '../config/config.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import { defaultSurface, matchSurface, resembledSurface } from '../surfaces/registry.ts';
import { createDashboard, type Dashboard } from '../dashboard/dashboard-route.ts';
import type { WatchedLedger } from '../dashboard/live-tail.ts';
import { countTokens } from '../gateway/count-tokens.ts';
import { AdmissionRefusal } from '../gateway/admission.ts';
import { handleChat, type ChatCall, type ChatDependencies } from '../gateway/handle-chat.ts';
import { generateId } from '../gateway/ids.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError, invalidRequest, isJsonObject, type FamilyId, type JsonObject } from '../ir/index.ts';
import type { AdminKey } from '../keys/admin-key.ts';
import type { ClientKey, ClientKeys } from '../keys/client-keys.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { Logger } from '../log/logger.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { AdmissionControl } from '../limits/admission-control.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import type { ResponseStore } from '../store/response-store.ts';
import type { RequestContext } from '../usage/request-context.ts';
import type { UsageReports } from '../usage/report.ts';
import { RequestTimeline, timedSink } from '../usage/request-timeline.ts';
import { adminRoute } from './admin-route.ts';
import { methodNotAllowed, notAllowed, pathOf, safePath, sendError, sendJson } from './answers.ts';
import { createModelsRoute, matchModelsPath, type ModelsRoute } from './models-route.ts';
import { createNodeSink } from './node-sink.ts';
import { beforeBody, expectsContinue, type BeforeBodyGuards } from './before-body.ts';
import { BodyGuard, type BodyWatch } from '../http/body-guard.ts';
import { KeySlots } from './key-slots.ts';
import { isJsonContentType, parseJsonBody, readBody } from '../http/read-body.ts';
import { storedResponsesRoute, isStoredResponsePath } from './responses-route.ts';
import { beginResponsesTurn } from './responses-turn.ts';
import { repeatedHeader } from './repeated-header.ts';
import { metricsPath, metricsRoute, type MetricsEndpoint } from './metrics-route.ts';
import { traceIdOf } from '../tracing/traceparent.ts';
import type { RequestTracer } from '../tracing/tracing.ts';

export interface AppDependencies extends ChatDependencies<RequestContext> {
  admission: AdmissionControl;
  config: Config;
  keys: ClientKeys;
  logger: Logger;
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
  /** Ends the dashboard's live-tail streams (shutdown). */
  closeStreams(): void;
  /**
   * Lets the requests in flight finish (new answers say `connection: close`); after `timeoutMs`
   * the rest are aborted (streams end with the family's error event, their usage is recorded).
   */
  drain(timeoutMs: number): Promise<void>;
}

/** Shared by every request without a query string (nothing writes to it). */
const noQuery = new URLSearchParams();

/** After aborting the stragglers, how long to wait for them to settle. */
const abortGraceMs = 5_000;

export function createRequestHandler(dependencies: AppDependencies): RequestHandler {
  const controllers = new Set<AbortController>();
  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | undefined;
  const clock = dependencies.clock ?? Date.now;
  const admin: AdminDependencies | undefined =
    dependencies.admin === undefined
      ? undefined
      : {
          ...dependencies.admin,
          keys: dependencies.keys,
          models: dependencies.models,
          health: dependencies.health,
          clock,
        };
  const board = dependencies.dashboard;
  const dashboard =
    admin === undefined || board === undefined
      ? undefined
      : createDashboard(admin, board.store, board.ledger, dependencies.logger);
  const modelsRoute = createModelsRoute({
    keys: dependencies.keys,
    models: dependencies.models,
    aliases: dependencies.config.aliases,
    clock,
  });
  const { config } = dependencies;
  const state: RouteState = {
    dependencies,
    admin,
    dashboard,
    clock,
    controllers,
    draining: () => draining,
    modelsRoute,
    guards: {
      slots: new KeySlots(config.maxInFlightPerKey),
      bodies: new BodyGuard({
        maxBytesReading: config.maxBodyBytesReading,
        readTimeoutMs: config.bodyReadTimeoutMs,
        minBytesPerSecond: config.minBodyBytesPerSecond,
      }),
      admission: dependencies.admission,
      bodyLimitBytes: config.bodyLimitBytes,
    },
  };

  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const timeline = new RequestTimeline();
    const requestId = generateId('req_');
    inFlight++;
    let traceId: string | undefined;
    void route(request, response, requestId, timeline, state)
      .then((id) => {
        traceId = id;
      })
      .catch((error: unknown) => {
        // Last resort: a bug must cost one request, never the process.
        dependencies.logger.error('unhandled', {
          requestId,
          cause: error instanceof Error ? error.name : 'unknown',
        });
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json', 'x-request-id': requestId });
          response.end(
            '{"error":{"message":"internal error","type":"server_error","param":null,"code":"server_error"}}',
          );
        } else response.end();
      })
      .finally(() => {
        inFlight--;
        if (inFlight === 0) idle?.();
        if (!dependencies.logger.enabled('info')) return;
        dependencies.logger.info('request', {
          requestId,
          method: request.method,
          path: pathOf(request.url),
          status: response.statusCode,
          ms: Math.round(timeline.elapsed() * 100) / 100,
          ...(traceId === undefined ? {} : { traceId }),
        });
      });
  };

  return Object.assign(handler, {
    get inFlight() {
      return inFlight;
    },
    closeStreams: () => dashboard?.close(),
    async drain(timeoutMs: number): Promise<void> {
      draining = true;
      const settled = (): Promise<void> =>
        inFlight === 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              idle = resolve;
            });
      const waitAtMost = async (milliseconds: number): Promise<boolean> => {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), milliseconds);
        });
        const done = await Promise.race([settled().then(() => true), timedOut]);
        clearTimeout(timer);
        return done;
      };
      if (await waitAtMost(timeoutMs)) return;
      dependencies.logger.warn('drain timed out: aborting requests in flight', { inFlight });
      for (const controller of controllers) controller.abort('shutdown');
      await waitAtMost(abortGraceMs);
    },
  });
}

interface RouteState {
  dependencies: AppDependencies;
  admin: AdminDependencies | undefined;
  dashboard: Dashboard | undefined;
  clock: () => number;
  controllers: Set<AbortController>;
  draining: () => boolean;
  modelsRoute: ModelsRoute;
  /** What a chat request must pass before its body is read. */
  guards: BeforeBodyGuards;
}

/** Answers one request; returns its W3C trace id when it has one (for the log line). */
async function route(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  timeline: RequestTimeline,
  state: RouteState,
): Promise<string | undefined> {
  const { dependencies } = state;
  const url = request.url ?? '';
  const queryStart = url.indexOf('?');
  const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
  const search = queryStart === -1 ? noQuery : new URLSearchParams(url.slice(queryStart + 1));
  const baseHeaders: ResponseHeaders = { 'x-request-id': requestId };
  if (state.draining()) baseHeaders.connection = 'close';
  const answer = (status: number, body: unknown, headers: ResponseHeaders = baseHeaders): void => {
    timeline.answerStarting(headers);
    sendJson(response, status, headers, body);
  };
  if (pathname === '/healthz') {
    if (request.method === 'GET') answer(200, { status: 'ok' });
    else methodNotAllowed(defaultSurface, request.method, pathname, 'GET', answer, baseHeaders);
    return;
  }
  if (isStoredResponsePath(pathname)) {
    const stored = { keys: dependencies.keys, store: dependencies.responses, clock: state.clock };
    await storedResponsesRoute(request, pathname, search, stored, answer, baseHeaders);
    return;
  }
  if (pathname === metricsPath) {
    await metricsRoute(request, response, dependencies.metricsEndpoint, baseHeaders);
    return;
  }
  if (pathname === '/admin' || pathname.startsWith('/admin/')) {
    await adminRoute(request, pathname, search, state.admin, dependencies.logger, answer, () => {
      if (expectsContinue(request)) response.writeContinue();
    });
    return;
  }
  if (pathname === '/dashboard' || pathname.startsWith('/dashboard/')) {
    if (state.dashboard === undefined) answer(404, { error: { message: 'The dashboard is not available' } });
    else await state.dashboard.handle(request, response, pathname, search);
    return;
  }
  // Created first so that every answer, errors included, carries the same headers.
  const sink = timedSink(createNodeSink(response, baseHeaders), timeline);
  const match = matchSurface(pathname);
  // Model lists and single models, in the shape of the family the client speaks.
  const modelsPath = match === undefined ? matchModelsPath(pathname, request, search) : undefined;
  if (modelsPath !== undefined) {
    state.modelsRoute(request, modelsPath, search, answer, baseHeaders);
    return;
  }
  const surface = match?.codec ?? resembledSurface(pathname);
  const context: RequestContext = {
    requestId,
    surface: pathname.startsWith('/api/') ? 'unified' : surface.id,
    timeline,
  };
  const tracer = dependencies.tracer;
  if (tracer !== undefined) tracer.begin(context, request.headers);
  else {
    const traceId = traceIdOf(request.headers.traceparent);
    if (traceId !== undefined) context.traceId = traceId;
  }
  let key: ClientKey | undefined;
  let body: unknown;
  let watch: BodyWatch | undefined;
  let admitted = false;
  try {
    if (match === undefined)
      throw new GatewayError('unknown_route', `No route for ${request.method ?? ''} ${safePath(pathname)}`);
    if (request.method !== 'POST') {
      sink.headers.allow = 'POST';
      throw notAllowed(request.method, pathname, 'POST');
    }
    const repeated = repeatedHeader(request.rawHeaders, surface.credentialHeaders);
    if (repeated !== undefined) throw invalidRequest(`${repeated}: send this header once`, repeated);
    key = dependencies.keys.authenticate(surface.readClientKey(request.headers, search), state.clock());
    if (key === undefined) throw new GatewayError('authentication', 'Invalid or missing API key');
    const headerError = surface.checkHeaders(request.headers);
    if (headerError !== undefined) throw headerError;
    if (!isJsonContentType(request.headers['content-type'])) {
      throw new GatewayError('unsupported_media_type', 'Content-Type must be application/json');
    }
    const pathModel = match.route.model;
    watch = await beforeBody(
      request,
      response,
      {
        keyId: key.id,
        surface,
        entry: pathModel === undefined ? undefined : dependencies.models.resolve(pathModel),
        stream: match.route.stream ?? false,
        countTokens: match.route.countTokens === true,
        context,
      },
      state.guards,
    );
    body = parseJsonBody(await readBody(request, dependencies.config.bodyLimitBytes, watch));
    const controller = new AbortController();
    state.controllers.add(controller);
    response.once('close', () => {
      state.controllers.delete(controller);
      if (!response.writableFinished) controller.abort('client_abort');
    });
    // The client may have left while its body was read: that 'close' has already fired.
    if (response.destroyed) {
      state.controllers.delete(controller);
      controller.abort('client_abort');
    }
    if (match.route.countTokens === true) {
      await countTokens(
        {
          surface,
          route: match.route,
          body,
          headers: request.headers,
          sink,
          signal: controller.signal,
          allowedModels: key.models,
        },
        dependencies,
      );
      tracer?.end(context, {
        status: response.statusCode,
        errorKind: undefined,
        delivery: undefined,
        keyId: key.id,
        body,
      });
      return context.traceId;
    }
    // The Responses API answers with its own ids and keeps what it answered (responses-turn.ts).
    const turn =
      surface.id === 'responses'
        ? await beginResponsesTurn(
            body,
            key.id,
            dependencies.responses,
            state.clock(),
            dependencies.logger,
            dependencies.config.responses.builtInTools,
          )
        : undefined;
    const call: ChatCall = {
      surface,
      route: match.route,
      body: turn?.body ?? body,
      headers: request.headers,
      sink,
      signal: controller.signal,
      clientId: key.id,
      onAttempt: timeline.recordAttempt,
      onSending:
        tracer === undefined
          ? undefined
          : (record, headers) => tracer.attemptSending(context, record, headers),
    };
    if (turn !== undefined) call.turn = turn.turn;
    const result = await handleChat(call, dependencies, context);
    // Admitted: the answer carries admission's rate-limit headers, whatever happens next.
    admitted = true;
    if (!result.delivered) throw result.error;
    const delivery = result;
    await turn?.finish();
    const errorKind = delivery.completed
      ? undefined
      : (abortReason(call.signal) ?? delivery.error?.kind ?? 'upstream');
    dependencies.metrics?.chatEnded(context, response.statusCode, errorKind);
    tracer?.end(context, { status: response.statusCode, errorKind, delivery, keyId: key.id, body });
  } catch (error) {
    // Refused before the whole request arrived (from its headers, or cut while reading it): the
    // rest of the upload is not read, the connection closes after the answer.
    if (!request.complete) sink.headers.connection = 'close';
    watch?.finish();
    if (error instanceof AdmissionRefusal) Object.assign(sink.headers, error.headers);
    // Not admitted: the limits are described, unless a store was unreachable (the limits store
    // would only fail again, and log once more per request for the whole outage).
    else if (key !== undefined && !admitted && !response.headersSent && !storeDown(error)) {
      await describeLimits(
        state,
        key,
        surface,
        familyOf(match?.route.model, body, surface, dependencies),
        sink.headers,
        context,
      );
    }
    sendError(response, surface, error, sink.headers, requestId, dependencies.logger, timeline);
    const errorKind = error instanceof GatewayError ? error.kind : 'internal';
    if (match?.route.countTokens !== true)
      dependencies.metrics?.chatEnded(context, response.statusCode, errorKind);
    tracer?.end(context, {
      status: response.statusCode,
      errorKind,
      delivery: undefined,
      keyId: key?.id,
      body,
    });
  }
  return context.traceId;
}

/** Why a request's signal was aborted (`client_abort`, `shutdown`), undefined while it was not. */
function abortReason(signal: AbortSignal): string | undefined {
  if (!signal.aborted) return undefined;
  return typeof signal.reason === 'string' ? signal.reason : 'client_abort';
}

/** A store could not answer (limits, budgets, stored responses): a 503 before admission. */
function storeDown(error: unknown): boolean {
  return error instanceof GatewayError && error.kind === 'unavailable';
}

/** Rate-limit headers for an answer that never reached admission; a store failure only loses them. */
async function describeLimits(
  state: RouteState,
  key: ClientKey,
  surface: SurfaceCodec,
  family: FamilyId,
  headers: ResponseHeaders,
  context: RequestContext,
): Promise<void> {
  try {
    const limits = await state.dependencies.admission.describe({ clientId: key.id, surface, family });
    if (limits !== undefined) Object.assign(headers, limits);
  } catch (error) {
    state.dependencies.logger.warn('rate-limit headers unavailable', {
      requestId: context.requestId,
      cause: error instanceof Error ? error.message : 'unknown',
    });
  }
}

/** The family whose limits an early error reports: the named model's, else the surface's own. */
function familyOf(
  pathModel: string | undefined,
  body: unknown,
  surface: SurfaceCodec,
  dependencies: AppDependencies,
): FamilyId {
  const named = pathModel ?? (isJsonObject(body) && typeof body.model === 'string' ? body.model : undefined);
  return (named === undefined ? undefined : dependencies.models.resolve(named))?.family ?? surface.family;
}
