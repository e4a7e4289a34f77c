/**
 * Client keys. Only SHA-256 hashes are kept (in memory and in the store); a presented key is
 * hashed and looked up by hash, so no comparison ever touches key material.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../store/database.ts';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(): string {
  return `mg-${randomBytes(24).toString('base64url')}`;
}

export interface StoredKey {
  id: string;
  hash: string;
}

export class ClientKeys {
  /** key hash → key id. */
  readonly #idsByHash = new Map<string, string>();

  constructor(staticKeys: readonly string[], stored: readonly StoredKey[]) {
    staticKeys.forEach((key, index) => this.#idsByHash.set(hashKey(key), `static-${index + 1}`));
    for (const key of stored) this.#idsByHash.set(key.hash, key.id);
  }

  /** The id of the key, or undefined when it is not a valid key. */
  identify(key: string | undefined): string | undefined {
    // Keys longer than any we issue are refused before hashing (hostile 64 KiB headers).
    if (key === undefined || key.length === 0 || key.length > 512) return undefined;
    return this.#idsByHash.get(hashKey(key));
  }

  accepts(key: string | undefined): boolean {
    return this.identify(key) !== undefined;
  }

  get size(): number {
    return this.#idsByHash.size;
  }
}

export interface KeyBootstrap {
  keys: ClientKeys;
  /** A key generated at this start, to print once; undefined when none was generated. */
  generatedKey: string | undefined;
}

/**
 * Static keys from MODELGATE_KEYS plus the store's active keys. With neither, one key is generated,
 * its hash stored, and the key returned so the caller can print it once.
 */
export function bootstrapClientKeys(
  database: Database,
  staticKeys: readonly string[],
  now: number,
): KeyBootstrap {
  const rows = database
    .prepare('SELECT id, key_hash FROM client_keys WHERE revoked_at IS NULL')
    .all() as Array<{
    id: string;
    key_hash: string;
  }>;
  const stored = rows.map((row) => ({ id: row.id, hash: row.key_hash }));
  if (staticKeys.length > 0 || stored.length > 0) {
    return { keys: new ClientKeys(staticKeys, stored), generatedKey: undefined };
  }
  const generatedKey = generateKey();
  const id = randomUUID();
  database
    .prepare('INSERT INTO client_keys (id, name, key_hash, created_at) VALUES (?, ?, ?, ?)')
    .run(id, 'default', hashKey(generatedKey), now);
  return { keys: new ClientKeys([], [{ id, hash: hashKey(generatedKey) }]), generatedKey };
}
