/**
 * The admin API's key endpoints (`/admin/keys`, `/admin/keys/{id or name}`), also the dashboard's
 * keys page through the same functions, and how a key is shown (never key material or a hash).
 */
import type { JsonObject } from '../ir/index.ts';
import { KeyStoreError, type KeyRecord } from '../keys/key-store.ts';
import type { AdminAnswer, AdminDependencies, AdminRequest } from './admin-request.ts';
import { AdminError, noAdminRoute } from './admin-error.ts';
import {
  halfAPeriodBudget,
  parseInput,
  toChanges,
  toPolicy,
  createSchema,
  updateSchema,
} from './key-input.ts';

/** `GET /admin/keys[?all=true]`: the stored keys, revoked and expired ones with `all`. */
export function listKeys(request: AdminRequest, dependencies: AdminDependencies): Promise<AdminAnswer> {
  return keyStoreAnswer(async () => {
    const { store, clock } = dependencies;
    const all = request.search.get('all') === 'true';
    const data = (await store.list(all)).map((record) => keyView(record, clock()));
    return { status: 200, body: { object: 'list', data } };
  });
}

/** `POST /admin/keys`: a new key, its material shown this once. */
export function createKey(request: AdminRequest, dependencies: AdminDependencies): Promise<AdminAnswer> {
  return keyStoreAnswer(async () => {
    const { store, keys, clock } = dependencies;
    const input = parseInput(createSchema, await request.body());
    const created = await store.create(input.name, toPolicy(input, dependencies), clock());
    await keys.changed();
    return { status: 201, body: { ...keyView(created.record, clock()), key: created.key } };
  });
}

/** `GET /admin/keys/{key}`. */
export function showKey(request: AdminRequest, dependencies: AdminDependencies): Promise<AdminAnswer> {
  return keyStoreAnswer(async () => {
    const record = await dependencies.store.find(keyReference(request));
    if (record === undefined) throw new KeyStoreError('not_found', 'no key with that name or id');
    return { status: 200, body: keyView(record, dependencies.clock()) };
  });
}

/** `PATCH /admin/keys/{key}`: null clears a field. */
export function updateKey(request: AdminRequest, dependencies: AdminDependencies): Promise<AdminAnswer> {
  return keyStoreAnswer(async () => {
    const { store, keys, clock } = dependencies;
    const reference = keyReference(request);
    const input = parseInput(updateSchema, await request.body());
    const current = halfAPeriodBudget(input) ? await store.find(reference) : undefined;
    const record = await store.update(reference, toChanges(input, dependencies, current), clock());
    await keys.changed();
    return { status: 200, body: keyView(record, clock()) };
  });
}

/** `DELETE /admin/keys/{key}`: revoked, refused from the next request on. */
export function revokeKey(request: AdminRequest, dependencies: AdminDependencies): Promise<AdminAnswer> {
  return keyStoreAnswer(async () => {
    const record = await dependencies.store.revoke(keyReference(request), dependencies.clock());
    await dependencies.keys.changed();
    return { status: 200, body: keyView(record, dependencies.clock()) };
  });
}

/** The key's id or name from the path, decoded (a malformed escape is taken as written). */
function keyReference(request: AdminRequest): string {
  const text = request.params.key ?? '';
  // `/admin/keys/` names no key: it is no route (the table matched an empty parameter).
  if (text === '') throw noAdminRoute(request.method, request.pathname);
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The key store's refusals as admin errors: unknown 404, taken name 409, else 400. */
async function keyStoreAnswer(answer: () => Promise<AdminAnswer>): Promise<AdminAnswer> {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof KeyStoreError) {
      const status = error.kind === 'not_found' ? 404 : error.kind === 'conflict' ? 409 : 400;
      throw new AdminError(status, error.kind, error.message);
    }
    throw error;
  }
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
