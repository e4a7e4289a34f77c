/** A row of the route table: the methods and path it answers, and the route that answers. */
import type { HTTPMethod } from 'find-my-way';
import type { ChatRouteState } from './chat-route.ts';
import type { Exchange } from './exchange.ts';

/** Answers one request (its promise settles when the answer was given). */
export type Route = (exchange: Exchange, state: ChatRouteState) => Promise<void> | void;

export interface RouteRow {
  /** Named methods, or any: the route answers a wrong one itself, in its own shape (405). */
  readonly methods: 'any' | readonly HTTPMethod[];
  /** find-my-way's syntax: `:name` one segment, a final `*` the rest of the path. */
  readonly path: string;
  readonly route: Route;
}
