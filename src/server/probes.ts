/**
 * The health endpoints, for load balancers and Kubernetes probes:
 * - `/livez`: the process answers (200 while it serves; a liveness probe restarts it otherwise).
 * - `/readyz`: 200 only when what requests need answers now — the store (the embedded file or
 *   PostgreSQL) and Redis when configured — else 503 naming the one that is down; 503 while a
 *   shutdown drains, so no new traffic is sent to a process about to exit.
 * - `/healthz`: always 200 (its contract since the first release); its body says `degraded` and
 *   which part is down when the store or Redis does not answer.
 * Each check is bounded: a server that does not answer within `checkTimeoutMs` counts as down.
 */
import type { JsonObject } from '../ir/index.ts';
import { defaultSurface } from '../surfaces/registry.ts';
import { methodNotAllowed } from './answers.ts';
import type { Reachability } from './app-dependencies.ts';
import type { Exchange, ServerState } from './exchange.ts';

const checkTimeoutMs = 2_000;

type Probe = (exchange: Exchange, state: ServerState) => Promise<void> | void;

/** GET only (as `/healthz` always was); anything else is a 405 in the default surface's shape. */
function getOnly(exchange: Exchange): boolean {
  const { request, pathname, answer, baseHeaders } = exchange;
  if (request.method === 'GET') return true;
  methodNotAllowed(defaultSurface, request.method, pathname, 'GET', answer, baseHeaders);
  return false;
}

export const livez: Probe = (exchange) => {
  if (getOnly(exchange)) exchange.answer(200, { status: 'ok' });
};

export const readyz: Probe = async (exchange, state) => {
  if (!getOnly(exchange)) return;
  if (state.draining()) {
    exchange.answer(503, { status: 'draining' });
    return;
  }
  const checks = await checkAll(state.dependencies.reachability);
  const down = Object.keys(checks).filter((part) => checks[part] !== 'ok');
  if (down.length === 0) exchange.answer(200, { status: 'ready', checks });
  else exchange.answer(503, { status: 'unavailable', down, checks });
};

export const healthz: Probe = async (exchange, state) => {
  if (!getOnly(exchange)) return;
  const reachability = state.dependencies.reachability;
  if (reachability === undefined) {
    exchange.answer(200, { status: 'ok' });
    return;
  }
  const checks = await checkAll(reachability);
  const down = Object.keys(checks).filter((part) => checks[part] !== 'ok');
  exchange.answer(200, down.length === 0 ? { status: 'ok' } : { status: 'degraded', down, checks });
};

/** Every configured part's state: `ok`, or `unreachable`. */
async function checkAll(reachability: Reachability | undefined): Promise<JsonObject> {
  if (reachability === undefined) return {};
  const parts: [string, () => Promise<void>][] = [['store', reachability.store]];
  if (reachability.sharedStore !== undefined) parts.push(['redis', reachability.sharedStore]);
  const results = await Promise.all(parts.map(([, check]) => answersWithin(check, checkTimeoutMs)));
  const checks: JsonObject = {};
  parts.forEach(([name], index) => {
    checks[name] = results[index] === true ? 'ok' : 'unreachable';
  });
  return checks;
}

async function answersWithin(check: () => Promise<void>, milliseconds: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), milliseconds);
  });
  const answered = (async () => {
    await check();
    return true;
  })().catch(() => false);
  const result = await Promise.race([answered, late]);
  clearTimeout(timer);
  return result;
}
