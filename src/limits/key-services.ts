/**
 * The per-client services of a running gateway, composed in one place: client keys over the
 * store, the admin key, rate limits, budgets, the usage ledger and the admission policy tying
 * them together. `start-gateway.ts` wires the result in.
 */
import { isSpecModel, type ModelPricing } from '../config/catalog.ts';
import type { Config } from '../config/config.ts';
import { AdminKey } from '../keys/admin-key.ts';
import { bootstrapClientKeys, type ClientKeys } from '../keys/client-keys.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { Logger } from '../log/logger.ts';
import type { Stores } from '../store/stores.ts';
import type { Ledger, LedgerRow, LedgerSink } from '../usage/ledger.ts';
import type { AdmissionControl } from './admission-control.ts';
import { createAdmissionPolicy } from './admission-policy.ts';
import { MemoryBudgets } from './budgets.ts';
import { createHeaderScreen } from './header-screen.ts';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import { RateLimiter } from './rate-limiter.ts';
import { startingSpend } from './starting-spend.ts';
import { createRequestMeter } from './request-meter.ts';
import type { SharedStores } from './redis/shared-stores.ts';

export interface KeyServices {
  keys: ClientKeys;
  store: KeyStore;
  /** A key generated at this start (no keys anywhere), to print once. */
  generatedKey: string | undefined;
  adminKey: AdminKey;
  admission: AdmissionControl;
  ledger: Ledger;
  /** Connects the shared store (when configured) and subscribes to key changes. */
  start(): Promise<void>;
  /** Closes the shared store's connections. */
  close(): Promise<void>;
  /** Resolves when the shared store (Redis) answers; undefined when none is configured. */
  pingSharedStore: (() => Promise<void>) | undefined;
}

export async function createKeyServices(
  config: Config,
  stores: Stores,
  logger: Logger,
  clock: () => number = Date.now,
  /** Told about every ledger row as it is appended (the metrics: their token and cost counters). */
  observeRow?: (row: LedgerRow) => void,
): Promise<KeyServices> {
  const store = stores.keys;
  const { keys, generatedKey } = await bootstrapClientKeys(
    store,
    stores.keySource,
    config.staticKeys,
    clock(),
    config.unlimited,
  );
  const ledger = stores.ledger({
    onError: (error) =>
      logger.error('usage ledger write failed; rows kept for the next batch', {
        cause: error instanceof Error ? error.message : 'unknown',
      }),
  });
  const rows: LedgerSink =
    observeRow === undefined
      ? ledger
      : {
          append(row) {
            ledger.append(row);
            observeRow(row);
          },
        };
  // Catalog and configured models have known prices; `family/<id>` pass-through models do not.
  const priced = new Set(config.models.map((entry) => entry.name));
  const ceilings = priceCeilings(config);
  const pricing = new Map(config.models.map((entry) => [entry.name, entry.pricing]));
  const shared = await sharedStores(
    config,
    await startingSpend(store, stores.dashboard, clock()),
    logger,
    clock,
  );
  const limiter = new RateLimiter(shared.limits, config.rateLimits);
  const budgets = shared.budgets;
  const families = new Map(config.models.map((entry) => [entry.name, entry.family]));
  const policy = createAdmissionPolicy({
    keys,
    limiter,
    budgets,
    ledger: rows,
    isPriced: (entry) => priced.has(entry.name),
    pricingFor: (entry) => ceilings.get(entry.name) ?? entry.pricing,
    limitsTokens: (key, entry) =>
      key.tpm !== undefined ||
      config.tokenLimitedFamilies.includes(entry.family) ||
      (config.catalog.spec && isSpecModel(entry.name)),
    pricingOf: (model) => pricing.get(model),
    clock,
    logger,
  });
  // The checks that need no body run before it is read (and before `100 Continue`).
  const admission: AdmissionControl = {
    ...policy,
    screen: createHeaderScreen({
      keys,
      limiter,
      budgets,
      ledger: rows,
      clock,
      familyOf: (model) => families.get(model),
    }),
    meter: createRequestMeter({ keys, limiter, budgets, clock }),
  };
  const redis = shared.redis;
  const channel = `${config.sharedStore.prefix}keys`;
  return {
    keys,
    store,
    generatedKey,
    adminKey: new AdminKey(config.adminKey),
    admission,
    ledger,
    async start() {
      if (redis === undefined) return;
      // Redis not reachable at start: serve anyway (requests meet `onStoreFailure`); key changes
      // then reach this instance through the store's 250 ms recheck only.
      if (!(await redis.connect())) return;
      // A key created, changed or revoked on one instance applies on all at once (the store's
      // generation is also rechecked every 250 ms, should a message be lost).
      await redis.subscribe(channel, () => {
        keys.refresh().catch((error: unknown) =>
          logger.warn('key change pushed by another instance not read yet (the recheck will)', {
            cause: error instanceof Error ? error.message : 'unknown',
          }),
        );
      });
      keys.onChange = () => {
        redis.publish(channel, 'changed').catch((error: unknown) =>
          logger.warn('key change not pushed to the other instances', {
            cause: error instanceof Error ? error.message : 'unknown',
          }),
        );
      };
    },
    async close() {
      await shared.release?.();
      await redis?.close();
    },
    pingSharedStore: redis === undefined ? undefined : () => redis.ping(),
  };
}

/** In memory for one process; in Redis (loaded only then) when several processes share the numbers. */
async function sharedStores(
  config: Config,
  spend: ReadonlyMap<string, number>,
  logger: Logger,
  clock: () => number,
): Promise<SharedStores> {
  if (config.sharedStore.redisUrl === undefined)
    return { limits: new MemoryRateLimitStore(), budgets: new MemoryBudgets(spend, clock), redis: undefined };
  return (await import('./redis/shared-stores.ts')).redisStores(
    config,
    config.sharedStore.redisUrl,
    spend,
    logger,
  );
}

/** Per model, the dearest price of each kind among the model and every fallback it can reach. */
export function priceCeilings(config: Pick<Config, 'models' | 'routing'>): Map<string, ModelPricing> {
  const byName = new Map(config.models.map((entry) => [entry.name, entry]));
  const ceilings = new Map<string, ModelPricing>();
  for (const entry of config.models) {
    const ceiling = { ...entry.pricing };
    const seen = new Set([entry.name]);
    const queue = [...(config.routing[entry.name]?.fallbacks ?? [])];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      if (seen.has(name)) continue;
      seen.add(name);
      const pricing = byName.get(name)?.pricing;
      if (pricing === undefined) continue;
      ceiling.inputPerMillion = Math.max(ceiling.inputPerMillion, pricing.inputPerMillion);
      ceiling.outputPerMillion = Math.max(ceiling.outputPerMillion, pricing.outputPerMillion);
      ceiling.cacheReadPerMillion = Math.max(ceiling.cacheReadPerMillion, pricing.cacheReadPerMillion);
      ceiling.cacheWritePerMillion = Math.max(ceiling.cacheWritePerMillion, pricing.cacheWritePerMillion);
      queue.push(...(config.routing[name]?.fallbacks ?? []));
    }
    ceilings.set(entry.name, ceiling);
  }
  return ceilings;
}
