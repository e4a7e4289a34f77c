/**
 * The gateway's view of client keys: static keys from MODELGATE_KEYS plus the store's active
 * keys, held in memory by SHA-256 hash. A presented key is hashed and looked up by hash, so no
 * comparison ever touches key material. The store is the source of truth: at most every
 * `recheckMs` a request checks the source's key generation (one indexed row of the embedded
 * store, or the PostgreSQL store's copy in memory, refreshed in the background) and reloads the
 * keys when anything changed, so a revoke made by another process applies within that time.
 */
import {
  emptyPolicy,
  hashKey,
  KeyStoreError,
  type KeyPolicy,
  type KeySource,
  type KeyStore,
} from './key-store.ts';
import type { FamilyId } from '../ir/index.ts';

export { generateKey, hashKey } from './key-store.ts';

export interface ClientKey extends Omit<KeyPolicy, 'models'> {
  id: string;
  name: string;
  /** From MODELGATE_KEYS: every model, no budget, no expiry; rate-limited like any key unless `unlimited` says otherwise. */
  static: boolean;
  /** Families on which the key is metered for the headers but never refused (config says so explicitly). */
  unlimited: ReadonlySet<FamilyId>;
  /** Catalog names the key may call; undefined: every model. */
  models: ReadonlySet<string> | undefined;
}

/**
 * A static key's id: `static-` and the first 12 hex digits of its SHA-256, so that its identity
 * (ledger, spend, stored responses) is the key's own, not its place in `MODELGATE_KEYS` (which
 * a reorder, an insertion or a removal would hand to another key).
 */
export function staticKeyId(key: string): string {
  return `static-${hashKey(key).slice(0, 12)}`;
}

/** The id a static key had before ids were derived from keys (and the config's name for it). */
function positionalId(index: number): string {
  return `static-${index + 1}`;
}

/** Each static key's former positional id → its id now (for the store's one-time rename). */
export function positionalRenames(staticKeys: readonly string[]): Map<string, string> {
  return new Map(staticKeys.map((key, index) => [positionalId(index), staticKeyId(key)]));
}

/** Longer than any key we issue: refused before hashing (hostile 64 KiB headers). */
const maxKeyLength = 512;
/** How stale the cache may be (a change must reach every request within one second). */
export const keyRecheckMs = 250;

export class ClientKeys {
  readonly #static = new Map<string, ClientKey>();
  #byHash = new Map<string, ClientKey>();
  #byId = new Map<string, ClientKey>();
  readonly #store: KeySource | undefined;
  #generation = Number.NaN;
  #checkedAt = Number.NEGATIVE_INFINITY;

  /** Families every key is unlimited on (from config). */
  readonly #unlimitedFamilies: ReadonlySet<FamilyId>;

  constructor(staticKeys: readonly string[], store?: KeySource, unlimited: Partial<Unlimited> = {}) {
    this.#unlimitedFamilies = new Set(unlimited.families ?? []);
    staticKeys.forEach((key, index) => {
      const id = staticKeyId(key);
      // The config names a static key by its place in the list (`static-1`…).
      const configured = unlimited.staticKeys?.[positionalId(index)] ?? [];
      this.#static.set(hashKey(key), {
        id,
        name: id,
        static: true,
        unlimited: new Set([...this.#unlimitedFamilies, ...configured]),
        models: undefined,
        budgetUsd: undefined,
        periodBudget: undefined,
        rpm: undefined,
        tpm: undefined,
        expiresAt: undefined,
      });
    });
    this.#store = store;
    this.reload();
  }

  /** The key's record when it is a valid, unexpired, unrevoked key; else undefined. */
  authenticate(key: string | undefined, now: number): ClientKey | undefined {
    if (key === undefined || key.length === 0 || key.length > maxKeyLength) return undefined;
    if (now - this.#checkedAt >= keyRecheckMs) this.#recheck(now);
    const found = this.#byHash.get(hashKey(key));
    if (found === undefined) return undefined;
    return found.expiresAt !== undefined && now >= found.expiresAt ? undefined : found;
  }

  byId(id: string): ClientKey | undefined {
    return this.#byId.get(id);
  }

  /** The keys from MODELGATE_KEYS (listed by the dashboard, changed only in the environment). */
  staticKeys(): ClientKey[] {
    return [...this.#static.values()];
  }

  /** Told when a key was changed through this process (to push the change to the others). */
  onChange: (() => void) | undefined;

  /** A key was created, changed or revoked through this process: reload now and tell the others. */
  async changed(): Promise<void> {
    try {
      await this.refresh();
    } catch {
      // The change is stored; this process's background recheck reads it once the store answers.
    }
    this.onChange?.();
  }

  /** Brings the source up to date (a store over the network reads it now), then reloads. */
  async refresh(): Promise<void> {
    await this.#store?.refresh?.();
    this.reload();
  }

  /** Loads the active keys from the store now (on a change here or pushed from another process). */
  reload(): void {
    const byHash = new Map(this.#static);
    if (this.#store !== undefined) {
      this.#generation = this.#store.generation();
      for (const row of this.#store.activeKeys()) {
        byHash.set(row.hash, {
          id: row.id,
          name: row.name,
          static: false,
          unlimited: this.#unlimitedFamilies,
          models: row.models === undefined ? undefined : new Set(row.models),
          budgetUsd: row.budgetUsd,
          periodBudget: row.periodBudget,
          rpm: row.rpm,
          tpm: row.tpm,
          expiresAt: row.expiresAt,
        });
      }
    }
    this.#byHash = byHash;
    this.#byId = new Map([...byHash.values()].map((key) => [key.id, key]));
  }

  get size(): number {
    return this.#byHash.size;
  }

  #recheck(now: number): void {
    this.#checkedAt = now;
    if (this.#store !== undefined && this.#store.generation() !== this.#generation) this.reload();
  }
}

/** Who is metered but never refused (see `Config.unlimited`). */
export interface Unlimited {
  families: readonly FamilyId[];
  /** Static key id → families. */
  staticKeys: Readonly<Record<string, readonly FamilyId[]>>;
}

export interface KeyBootstrap {
  keys: ClientKeys;
  /** A key generated at this start, to print once; undefined when none was generated. */
  generatedKey: string | undefined;
}

/**
 * Static keys from MODELGATE_KEYS plus the store's active keys. With neither, one key is generated,
 * its hash stored, and the key returned so the caller can print it once. Instances starting at
 * once on one shared store race for it: the one whose `default` key was created prints it.
 */
export async function bootstrapClientKeys(
  store: KeyStore,
  source: KeySource,
  staticKeys: readonly string[],
  now: number,
  unlimited: Partial<Unlimited> = {},
): Promise<KeyBootstrap> {
  let generatedKey: string | undefined;
  // What was kept under the static keys' positional ids moves to their ids (idempotent).
  await store.renameKeyIds(positionalRenames(staticKeys));
  if (staticKeys.length === 0 && source.activeKeys().length === 0) {
    try {
      generatedKey = (await store.create('default', emptyPolicy, now)).key;
      await source.refresh?.();
    } catch (error) {
      if (!(error instanceof KeyStoreError && error.kind === 'conflict')) throw error;
      await source.refresh?.();
    }
  }
  return { keys: new ClientKeys(staticKeys, source, unlimited), generatedKey };
}
