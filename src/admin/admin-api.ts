/**
 * The admin HTTP API under `/admin/…`, authenticated by the admin key (MODELGATE_ADMIN_KEY, as
 * `Authorization: Bearer …`). Client keys are refused here; the admin key is refused on the model
 * surfaces (it is not a client key). Framework-free: a request in, a status and a JSON body out.
 *
 *   GET    /admin/keys[?all=true]     list keys (never key material or hashes)
 *   POST   /admin/keys                create: {name, models?, budget_usd?, period_budget_usd?, budget_period?,
 *                                      rpm?, tpm?, expires?} → the key, once
 *   GET    /admin/keys/{id|name}      one key
 *   PATCH  /admin/keys/{id|name}      update (null clears a field)
 *   DELETE /admin/keys/{id|name}      revoke
 *   GET    /admin/usage?key=&since=24h&until=&by=model|key|day
 *   GET    /admin/health              upstream health, when the gateway provides it
 */
import { z } from 'zod';
import type { ModelResolver } from '../gateway/resolve-model.ts';
import type { JsonObject } from '../ir/index.ts';
import type { AdminKey } from '../keys/admin-key.ts';
import type { ClientKeys } from '../keys/client-keys.ts';
import type { LoginThrottle } from '../keys/login-throttle.ts';
import {
  KeyStoreError,
  type KeyChanges,
  type KeyPolicy,
  type KeyRecord,
  type KeyStore,
} from '../keys/key-store.ts';
import { budgetPeriods, type PeriodBudget } from '../keys/budget-period.ts';
import { parseDuration, parseMoment } from '../limits/durations.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { isUsageGrouping, type UsageReport, type UsageReports } from '../usage/report.ts';

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

export class AdminError extends Error {
  override name = 'AdminError';
  readonly status: number;
  readonly code: string;
  /** Seconds to wait before trying again (a 429), sent as `retry-after`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, code: string, message: string, retryAfterSeconds?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Too many wrong admin keys from one address: a 429 until its minute is over. */
export function tooManyGuesses(lockedForMs: number): AdminError {
  const seconds = Math.ceil(lockedForMs / 1000);
  return new AdminError(
    429,
    'rate_limited',
    `Too many wrong admin keys from this address: try again in ${seconds} s.`,
    seconds,
  );
}

/** A-shaped error body (the admin API speaks JSON like the A surface). */
export function adminErrorBody(error: AdminError): JsonObject {
  const type =
    error.status === 401
      ? 'authentication_error'
      : error.status >= 500
        ? 'server_error'
        : 'invalid_request_error';
  return { error: { message: error.message, type, param: null, code: error.code } };
}

export async function handleAdmin(
  request: AdminRequest,
  dependencies: AdminDependencies,
): Promise<AdminAnswer> {
  if (!dependencies.adminKey.enabled)
    throw new AdminError(
      401,
      'admin_disabled',
      'The admin API is disabled: set MODELGATE_ADMIN_KEY to enable it',
    );
  const address = request.address ?? '';
  const lockedFor = dependencies.throttle.reserve(address);
  if (lockedFor > 0) throw tooManyGuesses(lockedFor);
  if (!dependencies.adminKey.verify(request.credential))
    throw new AdminError(401, 'invalid_admin_key', 'Invalid or missing admin key');
  dependencies.throttle.succeeded(address);
  return routeAdmin(request, dependencies);
}

/**
 * The admin routes for a caller already known to be the admin: the admin key (above) or a
 * dashboard session signed in with it (dashboard/dashboard-route.ts), one logic for both.
 */
export async function routeAdmin(
  request: AdminRequest,
  dependencies: AdminDependencies,
): Promise<AdminAnswer> {
  try {
    return await route(request, dependencies);
  } catch (error) {
    if (error instanceof StoreUnavailableError)
      throw new AdminError(503, 'store_unavailable', `${error.message}; retry shortly`);
    throw error;
  }
}

async function route(request: AdminRequest, dependencies: AdminDependencies): Promise<AdminAnswer> {
  const parts = request.pathname.split('/').filter((part) => part.length > 0);
  const [, resource, reference, extra] = parts;
  if (extra !== undefined) throw notFound(request);
  if (resource === 'keys')
    return keysRoute(request, reference === undefined ? undefined : decode(reference), dependencies);
  if (resource === 'usage' && reference === undefined && request.method === 'GET')
    return { status: 200, body: usageBody(await usage(request.search, dependencies)) };
  if (resource === 'health' && reference === undefined && request.method === 'GET') {
    if (dependencies.health === undefined)
      throw new AdminError(404, 'not_found', 'Upstream health is not available');
    return { status: 200, body: dependencies.health() };
  }
  throw notFound(request);
}

async function keysRoute(
  request: AdminRequest,
  reference: string | undefined,
  dependencies: AdminDependencies,
): Promise<AdminAnswer> {
  const { store, keys, clock } = dependencies;
  try {
    if (reference === undefined) {
      if (request.method === 'GET') {
        const all = request.search.get('all') === 'true';
        return {
          status: 200,
          body: { object: 'list', data: (await store.list(all)).map((record) => keyView(record, clock())) },
        };
      }
      if (request.method === 'POST') {
        const input = parseInput(createSchema, await request.body());
        const policy = toPolicy(input, dependencies);
        const created = await store.create(input.name, policy, clock());
        await keys.changed();
        return { status: 201, body: { ...keyView(created.record, clock()), key: created.key } };
      }
    } else {
      if (request.method === 'GET') {
        const record = await store.find(reference);
        if (record === undefined) throw new KeyStoreError('not_found', 'no key with that name or id');
        return { status: 200, body: keyView(record, clock()) };
      }
      if (request.method === 'PATCH') {
        const input = parseInput(updateSchema, await request.body());
        const current = halfAPeriodBudget(input) ? await store.find(reference) : undefined;
        const record = await store.update(reference, toChanges(input, dependencies, current), clock());
        await keys.changed();
        return { status: 200, body: keyView(record, clock()) };
      }
      if (request.method === 'DELETE') {
        const record = await store.revoke(reference, clock());
        await keys.changed();
        return { status: 200, body: keyView(record, clock()) };
      }
    }
  } catch (error) {
    if (error instanceof KeyStoreError) {
      const status = error.kind === 'not_found' ? 404 : error.kind === 'conflict' ? 409 : 400;
      throw new AdminError(status, error.kind, error.message);
    }
    throw error;
  }
  throw notFound(request);
}

const nullableCount = z.number().int().min(1).max(1_000_000_000).nullable();

const createSchema = z.strictObject({
  name: z.string().min(1).max(100),
  models: z.array(z.string().min(1).max(256)).max(1000).nullable().optional(),
  budget_usd: z.number().min(0).max(1e9).nullable().optional(),
  period_budget_usd: z.number().min(0).max(1e9).nullable().optional(),
  budget_period: z.enum(budgetPeriods).optional(),
  rpm: nullableCount.optional(),
  tpm: nullableCount.optional(),
  expires: z.string().min(1).max(64).nullable().optional(),
});

const updateSchema = createSchema.partial();

type CreateInput = z.infer<typeof createSchema>;
type UpdateInput = z.infer<typeof updateSchema>;

function parseInput<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new AdminError(400, 'invalid_request', z.prettifyError(parsed.error).replace(/\n/g, ' '));
  return parsed.data;
}

function toPolicy(input: CreateInput, dependencies: AdminDependencies): KeyPolicy {
  return {
    models: input.models == null ? undefined : resolveModels(input.models, dependencies.models),
    budgetUsd: input.budget_usd ?? undefined,
    periodBudget: periodBudgetOf(input, undefined) ?? undefined,
    rpm: input.rpm ?? undefined,
    tpm: input.tpm ?? undefined,
    expiresAt: input.expires == null ? undefined : expiry(input.expires, dependencies.clock()),
  };
}

/**
 * A periodic budget from `period_budget_usd` and `budget_period`: both are needed, save that an
 * update may change one and keep the key's other (`current`); null clears it.
 */
function periodBudgetOf(input: UpdateInput, current: KeyRecord | undefined): PeriodBudget | null | undefined {
  const usd = input.period_budget_usd;
  if (usd === null) return null;
  if (usd === undefined && input.budget_period === undefined) return undefined;
  const amount = usd ?? current?.periodBudget?.usd;
  const period = input.budget_period ?? current?.periodBudget?.period;
  if (amount === undefined || period === undefined)
    throw new AdminError(
      400,
      'invalid_request',
      'a periodic budget needs period_budget_usd and budget_period',
    );
  return { period, usd: amount };
}

/** An update naming one half of a periodic budget: the other comes from the key as it is. */
function halfAPeriodBudget(input: UpdateInput): boolean {
  return (input.period_budget_usd === undefined) !== (input.budget_period === undefined);
}

function toChanges(input: UpdateInput, dependencies: AdminDependencies, current?: KeyRecord): KeyChanges {
  const changes: KeyChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.models !== undefined)
    changes.models = input.models === null ? null : resolveModels(input.models, dependencies.models);
  if (input.budget_usd !== undefined) changes.budgetUsd = input.budget_usd;
  const periodBudget = periodBudgetOf(input, current);
  if (periodBudget !== undefined) changes.periodBudget = periodBudget;
  if (input.rpm !== undefined) changes.rpm = input.rpm;
  if (input.tpm !== undefined) changes.tpm = input.tpm;
  if (input.expires !== undefined)
    changes.expiresAt = input.expires === null ? null : expiry(input.expires, dependencies.clock());
  return changes;
}

/** Model names as the catalog knows them (aliases resolved); unknown names are refused. */
export function resolveModels(names: readonly string[], models: ModelResolver): string[] {
  const resolved = new Set<string>();
  for (const name of names) {
    const entry = models.resolve(name.trim());
    if (entry === undefined)
      throw new AdminError(400, 'unknown_model', `unknown model "${name.slice(0, 100)}"`);
    resolved.add(entry.name);
  }
  return [...resolved];
}

function expiry(text: string, now: number): number {
  const at = parseMoment(text, now);
  if (at === undefined)
    throw new AdminError(
      400,
      'invalid_request',
      'expires is a duration (30d, 12h) or a date (2026-12-31T00:00:00Z)',
    );
  return at;
}

export function keyStatus(record: KeyRecord, now: number): 'active' | 'revoked' | 'expired' {
  if (record.revokedAt !== undefined) return 'revoked';
  return record.expiresAt !== undefined && now >= record.expiresAt ? 'expired' : 'active';
}

export function keyView(record: KeyRecord, now: number): JsonObject {
  const status = keyStatus(record, now);
  return {
    id: record.id,
    object: 'key',
    name: record.name,
    status,
    models: record.models === undefined ? null : [...record.models],
    budget_usd: record.budgetUsd ?? null,
    budget_period: record.periodBudget?.period ?? null,
    period_budget_usd: record.periodBudget?.usd ?? null,
    spent_usd: Math.round(record.spentUsd * 1e10) / 1e10,
    rpm: record.rpm ?? null,
    tpm: record.tpm ?? null,
    expires_at: isoOrNull(record.expiresAt),
    created_at: isoOrNull(record.createdAt),
    updated_at: isoOrNull(record.updatedAt),
    revoked_at: isoOrNull(record.revokedAt),
  };
}

function isoOrNull(time: number | undefined): string | null {
  return time === undefined ? null : new Date(time).toISOString();
}

/** Shared with the CLI: `key` (name or id), `since` (duration or date), `until`, `by`. */
export async function usage(
  search: URLSearchParams,
  dependencies: Pick<AdminDependencies, 'store' | 'usage' | 'clock'>,
): Promise<UsageReport> {
  const now = dependencies.clock();
  const by = search.get('by') ?? 'model';
  if (!isUsageGrouping(by)) throw new AdminError(400, 'invalid_request', 'by is one of model, key, day');
  const since = pastMoment(search.get('since') ?? '24h', now, 'since');
  const untilText = search.get('until');
  const until = untilText === null ? undefined : pastMoment(untilText, now, 'until');
  // An empty table would look like "no usage": a reversed range is a mistake to name.
  if (until !== undefined && until < since)
    throw new AdminError(
      400,
      'invalid_request',
      `until (${new Date(until).toISOString()}) is before since (${new Date(since).toISOString()})`,
    );
  const names = await dependencies.store.names();
  const keyText = search.get('key');
  let keyIds: string[] | undefined;
  if (keyText !== null) {
    keyIds = [...names].filter(([id, name]) => name === keyText || id === keyText).map(([id]) => id);
    if (keyIds.length === 0 && staticIdPattern.test(keyText)) keyIds = [keyText];
    if (keyIds.length === 0) throw new AdminError(404, 'not_found', 'no key with that name or id');
  }
  return dependencies.usage.report(
    { by, since, ...(until === undefined ? {} : { until }), ...(keyIds === undefined ? {} : { keyIds }) },
    names,
  );
}

/** A static key's id (`keys/client-keys.ts`, `staticKeyId`): its usage is found by it. */
const staticIdPattern = /^static-[0-9a-f]{12}$/;

/** `24h` means 24 hours ago; a date is taken as is. */
function pastMoment(text: string, now: number, name: string): number {
  const duration = parseDuration(text);
  if (duration !== undefined) return now - duration;
  const at = parseMoment(text, now);
  if (at === undefined)
    throw new AdminError(400, 'invalid_request', `${name} is a duration (24h, 7d) or a date`);
  return at;
}

export function usageBody(report: UsageReport): JsonObject {
  const line = (value: UsageReport['total']): JsonObject => ({
    [report.by]: value.group,
    requests: value.requests,
    errors: value.errors,
    prompt_tokens: value.promptTokens,
    cached_tokens: value.cachedTokens,
    cache_write_tokens: value.cacheWriteTokens,
    output_tokens: value.outputTokens,
    cost_usd: value.costUsd,
  });
  return {
    object: 'usage',
    by: report.by,
    since: new Date(report.since).toISOString(),
    until: isoOrNull(report.until),
    data: report.lines.map(line),
    total: { ...line(report.total), [report.by]: null },
  };
}

function notFound(request: AdminRequest): AdminError {
  return new AdminError(
    404,
    'not_found',
    `No admin route for ${request.method} ${request.pathname.slice(0, 100).replace(/[^\x21-\x7e]/g, '?')}`,
  );
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
