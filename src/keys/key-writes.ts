/**
 * What both key stores (store/sqlite/, store/postgres/) do the same way around their statements:
 * a new key's row, an update's checked columns and the errors a caller sees, so the two cannot
 * drift apart in what they accept or say. Only the statements and their placeholders differ.
 */
import { randomUUID } from 'node:crypto';
import {
  changedColumns,
  checkChanges,
  checkName,
  checkPolicy,
  generateKey,
  hashKey,
  KeyStoreError,
  type KeyChanges,
  type KeyPolicy,
  type KeyRecord,
} from './key-store.ts';

/** The columns of a new key, in the order `newKeyRow` gives their values. */
export const newKeyColumns =
  'id, name, key_hash, created_at, models, budget_usd, rpm, tpm, expires_at, budget_period, period_budget_usd';

/** A key to create, checked: the key itself (shown once) and its row's values (only the hash kept). */
export function newKeyRow(
  name: string,
  policy: KeyPolicy,
  now: number,
): { id: string; name: string; key: string; values: (string | number | null)[] } {
  const checkedName = checkName(name);
  checkPolicy(policy);
  const key = generateKey();
  const id = randomUUID();
  const values = [
    id,
    checkedName,
    hashKey(key),
    now,
    policy.models === undefined ? null : JSON.stringify(policy.models),
    policy.budgetUsd ?? null,
    policy.rpm ?? null,
    policy.tpm ?? null,
    policy.expiresAt ?? null,
    policy.periodBudget?.period ?? null,
    policy.periodBudget?.usd ?? null,
  ];
  return { id, name: checkedName, key, values };
}

/**
 * An update's columns and values (names from `changedColumns`' fixed list, then `updated_at`),
 * every change checked; `claimName` runs on a new name before the other changes are checked.
 */
export function keyUpdateColumns(
  record: KeyRecord,
  changes: KeyChanges,
  now: number,
  claimName: (name: string) => void = () => undefined,
): { name: string | undefined; columns: [string, string | number | null][] } {
  if (record.revokedAt !== undefined) throw new KeyStoreError('conflict', `key "${record.name}" is revoked`);
  const columns: [string, string | number | null][] = [];
  const name = changes.name === undefined ? undefined : checkName(changes.name);
  if (name !== undefined) {
    claimName(name);
    columns.push(['name', name]);
  }
  checkChanges(changes);
  columns.push(...changedColumns(changes), ['updated_at', now]);
  return { name, columns };
}

/** Another active key holds the name. */
export function nameTaken(name: string): KeyStoreError {
  return new KeyStoreError('conflict', `an active key named "${name}" already exists`);
}

/** A key read back by id after a write is gone. */
export function noSuchKey(): KeyStoreError {
  return new KeyStoreError('not_found', 'no such key');
}

/** A name or id the caller gave matches no key. */
export function noKeyByReference(): KeyStoreError {
  return new KeyStoreError('not_found', 'no key with that name or id');
}
