/**
 * The two parts of undici the gateway uses, its `Pool` and its error classes, loaded from their own
 * files. undici's entry point also loads fetch, WebSocket, EventSource, the cache, cookies and the
 * mock agents (109 modules against 21), which an idle gateway held as ~3 MiB of RSS
 * (bench/README.md, "Memory"). undici publishes no `exports` map, so these paths are part of what
 * it ships; the types are the entry point's own. The pools are driven by `dispatch` only
 * (upstream-call.ts): the entry point's `request()`/`stream()` methods are not needed.
 */
import { createRequire } from 'node:module';
import type { errors as UndiciErrors, Pool as UndiciPool } from 'undici';

const requireUndiciFile = createRequire(import.meta.url);

export const Pool = requireUndiciFile('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;

export const undiciErrors = requireUndiciFile('undici/lib/core/errors.js') as typeof UndiciErrors;
