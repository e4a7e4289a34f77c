/**
 * The HTTP front, composed: the route table (`routes.ts`) picks the route, the route answers —
 * the chat route through its stages (`chat-route.ts`). node:http directly: the hot path has no
 * framework layers. Every answer carries `x-request-id` and `x-modelgate-overhead-ms`. The
 * handler counts the requests in flight so a shutdown can drain them, and logs one line each.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminDependencies } from '../admin/admin-request.ts';
import { createDashboard } from '../dashboard/dashboard-route.ts';
import { generateId } from '../gateway/ids.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { BodyGuard } from '../http/body-guard.ts';
import { InFlight } from '../http/in-flight.ts';
import { RequestTimeline } from '../usage/request-timeline.ts';
import type { AppDependencies, RequestHandler } from './app-dependencies.ts';
import { sendJson } from './answers.ts';
import type { ChatRouteState } from './chat-route.ts';
import type { Exchange } from './exchange.ts';
import { KeySlots } from './key-slots.ts';
import { createModelsRoute } from './models-route.ts';
import { RequestAdmission } from './request-admission.ts';
import { requestLogFields } from './request-log.ts';
import { createRouteTable } from './routes.ts';
import { LoginThrottle } from '../keys/login-throttle.ts';

export type { AppDependencies, RequestHandler } from './app-dependencies.ts';

/** Shared by every request without a query string (nothing writes to it). */
const noQuery = new URLSearchParams();
/** Until the route table matched a row. */
const noParams = {};

/** After aborting the stragglers, how long to wait for them to settle. */
const abortGraceMs = 5_000;

export function createRequestHandler(dependencies: AppDependencies): RequestHandler {
  const controllers = new InFlight<AbortController>();
  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | undefined;
  const state = routeState(dependencies, controllers, () => draining);
  const routes = createRouteTable();

  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const timeline = new RequestTimeline();
    const requestId = generateId('req_');
    inFlight++;
    const url = request.url ?? '';
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    const baseHeaders: ResponseHeaders = { 'x-request-id': requestId };
    if (draining) baseHeaders.connection = 'close';
    const exchange: Exchange = {
      request,
      response,
      requestId,
      timeline,
      pathname,
      search: queryStart === -1 ? noQuery : new URLSearchParams(url.slice(queryStart + 1)),
      params: noParams,
      baseHeaders,
      answer: (status, body, headers = baseHeaders) => {
        timeline.answerStarting(headers);
        sendJson(response, status, headers, body);
      },
    };
    void serveAndLog(exchange);
  };

  /**
   * The route the table picks answers, then the request is counted out and logged: one async
   * function (a `.catch().finally()` chain cost two more promises and their closures per request).
   */
  const serveAndLog = async (exchange: Exchange): Promise<void> => {
    const { request, response, requestId } = exchange;
    try {
      const { route, params } = routes.lookup(request.method ?? 'GET', exchange.pathname);
      exchange.params = params;
      await route(exchange, state);
    } catch (error) {
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
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
      if (dependencies.logger.enabled('info'))
        dependencies.logger.info('request', requestLogFields(exchange));
    }
  };

  return Object.assign(handler, {
    get inFlight() {
      return inFlight;
    },
    closeStreams: () => state.dashboard?.close(),
    get draining() {
      return draining;
    },
    async drain(timeoutMs: number): Promise<void> {
      draining = true;
      const { logger } = dependencies;
      logger.info('drain started', { inFlight, timeoutMs });
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
      if (await waitAtMost(timeoutMs)) {
        logger.info('drain finished', { inFlight });
        return;
      }
      logger.warn('drain timed out: aborting requests in flight', { inFlight });
      for (const controller of controllers) controller.abort('shutdown');
      await waitAtMost(abortGraceMs);
      logger.info('drain finished', { inFlight });
    },
  });
}

/** What the routes share: built once from the dependencies. */
function routeState(
  dependencies: AppDependencies,
  controllers: InFlight<AbortController>,
  draining: () => boolean,
): ChatRouteState {
  const { config } = dependencies;
  const clock = dependencies.clock ?? Date.now;
  // Admin-key guesses, one count per address for the admin API, the dashboard and `/metrics`.
  const throttle = new LoginThrottle(clock);
  const admin: AdminDependencies | undefined =
    dependencies.admin === undefined
      ? undefined
      : {
          ...dependencies.admin,
          throttle,
          keys: dependencies.keys,
          models: dependencies.models,
          health: dependencies.health,
          clock,
        };
  const board = dependencies.dashboard;
  return {
    dependencies,
    admin,
    throttle,
    dashboard:
      admin === undefined || board === undefined
        ? undefined
        : createDashboard(admin, board.store, board.ledger, dependencies.logger),
    clock,
    controllers,
    draining,
    modelsRoute: createModelsRoute({
      keys: dependencies.keys,
      models: dependencies.models,
      aliases: dependencies.config.aliases,
      clock,
    }),
    guards: {
      slots: new KeySlots(config.maxInFlightPerKey),
      bodies: new BodyGuard({
        maxBytesReading: config.maxBodyBytesReading,
        readTimeoutMs: config.bodyReadTimeoutMs,
        minBytesPerSecond: config.minBodyBytesPerSecond,
      }),
      admission: new RequestAdmission(dependencies.admission, dependencies.models, dependencies.logger),
      bodyLimitBytes: config.bodyLimitBytes,
    },
  };
}
