/**
 * `modelgate serve --workers N|auto`: one primary process that forks N workers sharing the
 * listening port (node:cluster: processes, each with its own event loop and heap). Limits stay
 * exact whatever the count because the workers share them in Redis; without MODELGATE_REDIS_URL
 * more than one worker is refused at start (each would keep its own limits and budgets: N× each).
 * The primary prepares the store once (migrations, the first key; PostgreSQL too), restarts a worker that dies,
 * and on SIGTERM/SIGINT tells every worker to drain and flush its ledger, then exits. It also
 * merges the workers' metrics for `/metrics` (`metrics/primary-scrape.ts`).
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/load-config.ts';
import { bootstrapClientKeys } from '../keys/client-keys.ts';
import { PrimaryMetrics } from '../metrics/primary-scrape.ts';
import { openStores } from '../store/stores.ts';
import { startBanner } from './banner.ts';

export function parseWorkers(value: string | undefined, config: Config): number {
  if (value === undefined) return 1;
  const count = value === 'auto' ? availableParallelism() : Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 256)
    throw new ConfigError(`--workers takes a whole number from 1 to 256 or "auto", not ${value}`);
  if (count > 1 && config.sharedStore.redisUrl === undefined)
    throw new ConfigError(
      `--workers ${value} needs MODELGATE_REDIS_URL: without a shared store each of the ${count} workers would keep its own rate limits and budgets (${count}× every limit). Run one worker, or set MODELGATE_REDIS_URL.`,
    );
  return count;
}

interface ListeningMessage {
  modelgate: 'listening';
  url: string;
}

/** In a worker: tells the primary where it listens. */
export function workerListening(url: string): void {
  const message: ListeningMessage = { modelgate: 'listening', url };
  process.send?.(message);
}

export async function runPrimary(config: Config, count: number): Promise<void> {
  // Migrations and the first key happen once, here, before any worker opens the store.
  const stores = await openStores(config);
  let generatedKey: string | undefined;
  try {
    ({ generatedKey } = await bootstrapClientKeys(
      stores.keys,
      stores.keySource,
      config.staticKeys,
      Date.now(),
      config.unlimited,
    ));
  } finally {
    await stores.close();
  }
  let stopping = false;
  let announced = false;
  // A scrape of any worker answers with every worker's metrics, merged here.
  const metrics = config.metrics.enabled ? new PrimaryMetrics(config.metrics.maxSeriesPerMetric) : undefined;
  // Structured clone on the IPC channel: metric values may be NaN or ±Infinity, which JSON loses.
  cluster.setupPrimary({ serialization: 'advanced' });
  const fork = (): Worker => {
    const worker = cluster.fork();
    metrics?.add(worker);
    worker.on('message', (message: Partial<ListeningMessage>) => {
      if (message.modelgate !== 'listening' || announced) return;
      announced = true;
      process.stdout.write(startBanner(config, message.url ?? '', process.stdout.isTTY, count));
      if (generatedKey !== undefined)
        process.stdout.write(
          `No client keys were configured, so one was generated. It is shown only this once; only its hash is stored:\n\n  ${generatedKey}\n\nUse it as: Authorization: Bearer <key>\n`,
        );
    });
    return worker;
  };
  for (let index = 0; index < count; index++) fork();
  let running = count;
  cluster.on('exit', (worker, code, signal) => {
    running--;
    metrics?.remove(worker);
    if (stopping) {
      if (running === 0) process.exit(0);
      return;
    }
    process.stderr.write(
      `modelgate: worker ${worker.process.pid ?? '?'} exited (code ${code}, signal ${signal}); starting another\n`,
    );
    running++;
    fork();
  });
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    if (running === 0) process.exit(0);
    // Each worker drains its requests and writes its last ledger batch, then exits.
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
