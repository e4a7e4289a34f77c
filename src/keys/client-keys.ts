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

export class ClientKeys {
  readonly #hashes = new Set<string>();

  constructor(staticKeys: readonly string[], storedHashes: readonly string[]) {
    for (const key of staticKeys) this.#hashes.add(hashKey(key));
    for (const hash of storedHashes) this.#hashes.add(hash);
  }

  /** Keys longer than any we issue are refused before hashing (hostile 64 KiB headers). */
  accepts(key: string | undefined): boolean {
    if (key === undefined || key.length === 0 || key.length > 512) return false;
    return this.#hashes.has(hashKey(key));
  }

  get size(): number {
    return this.#hashes.size;
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
  const rows = database.prepare('SELECT key_hash FROM client_keys WHERE revoked_at IS NULL').all() as Array<{
    key_hash: string;
  }>;
  const storedHashes = rows.map((row) => row.key_hash);
  if (staticKeys.length > 0 || storedHashes.length > 0) {
    return { keys: new ClientKeys(staticKeys, storedHashes), generatedKey: undefined };
  }
  const generatedKey = generateKey();
  database
    .prepare('INSERT INTO client_keys (id, name, key_hash, created_at) VALUES (?, ?, ?, ?)')
    .run(randomUUID(), 'default', hashKey(generatedKey), now);
  return { keys: new ClientKeys([], [hashKey(generatedKey)]), generatedKey };
}
