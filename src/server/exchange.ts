/** One request being answered, as every route sees it, and the state the routes share. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminDependencies } from '../admin/admin-request.ts';
import type { Dashboard } from '../dashboard/dashboard-route.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import type { InFlight } from '../http/in-flight.ts';
import type { LoginThrottle } from '../keys/login-throttle.ts';
import type { RequestContext } from '../usage/request-context.ts';
import type { RequestTimeline } from '../usage/request-timeline.ts';
import type { AppDependencies } from './app-dependencies.ts';
import type { Answer } from './answers.ts';
import type { ChatEnding } from './chat-end.ts';
import type { ModelsRoute } from './models-route.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';

/** A path's parameters as the route table matched them, as written (not decoded); `*` is the rest. */
export type PathParams = Readonly<Record<string, string | undefined>>;

export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  requestId: string;
  timeline: RequestTimeline;
  /** The URL's path, query string cut off (not decoded). */
  pathname: string;
  search: URLSearchParams;
  /** The parameters of the row that matched (set by the route table's lookup). */
  params: PathParams;
  /** What every answer carries (`x-request-id`, `connection: close` while draining). */
  baseHeaders: ResponseHeaders;
  /** A whole JSON answer, timed. */
  answer: Answer;
  /** A chat request's context once the chat route made it (its trace id goes on the log line). */
  context?: RequestContext;
  /** How a chat request ended (key, delivery): its log line's fields. */
  ending?: ChatEnding;
}

/**
 * The answer will be in `surface`'s shape: every answer from here on (errors before the body is
 * read included) also carries the request id in the header that surface's SDK reads, if any.
 */
export function answerAs(exchange: Exchange, surface: SurfaceCodec): void {
  if (surface.requestIdHeader !== undefined)
    exchange.baseHeaders[surface.requestIdHeader] = exchange.requestId;
}

export interface ServerState {
  dependencies: AppDependencies;
  admin: AdminDependencies | undefined;
  /** Admin-key guesses per client address (`/admin`, `/dashboard` sign-in, a protected `/metrics`). */
  throttle: LoginThrottle;
  dashboard: Dashboard | undefined;
  clock: () => number;
  /** Every chat request's abort controller, for a drain that times out. */
  controllers: InFlight<AbortController>;
  modelsRoute: ModelsRoute;
  /** A shutdown began (`/readyz` answers 503). */
  draining: () => boolean;
}
