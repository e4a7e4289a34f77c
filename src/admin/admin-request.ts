/** What an admin endpoint is given (the request, the gateway's parts) and what it answers. */
import type { ModelResolver } from '../gateway/resolve-model.ts';
import type { JsonObject } from '../ir/index.ts';
import type { AdminKey } from '../keys/admin-key.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { LoginThrottle } from '../keys/login-throttle.ts';
import type { UsageReports } from '../usage/report.ts';

export interface AdminDependencies {
  adminKey: AdminKey;
  /** Admin-key guesses per client address (shared with the dashboard's sign-in and `/metrics`). */
  throttle: LoginThrottle;
  store: KeyStore;
  /** Reloaded after every change, so a change applies to the next request. */
  keys: ClientKeys;
  usage: UsageReports;
  models: ModelResolver;
  health?: (() => JsonObject) | undefined;
  /** Unix milliseconds. */
  clock: () => number;
}

export interface AdminRequest {
  method: string;
  pathname: string;
  /** The path's parameters as the route table matched them, as written (not decoded). */
  params: Readonly<Record<string, string | undefined>>;
  search: URLSearchParams;
  /** The bearer credential presented, if any. */
  credential: string | undefined;
  /** The client's address (the connection's), for the guessing throttle. */
  address?: string | undefined;
  /** Reads and parses the JSON body (only called for POST and PATCH). */
  body: () => Promise<unknown>;
}

export interface AdminAnswer {
  status: number;
  body: JsonObject;
}
