/**
 * `modelgate serve` (the default command): start the gateway and stop it cleanly on SIGINT/SIGTERM.
 * `--workers N|auto` runs N worker processes on the one port (node:cluster); see `workers.ts`.
 */
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { simulatorNotice } from '../config/upstream-presence.ts';
import { startGateway } from '../server/start-gateway.ts';
import { StoreUnavailableError } from '../store/store-errors.ts';
import { startBanner } from './banner.ts';
import { parseWorkers, runPrimary, workerListening } from './workers.ts';
import { endStartUp } from './start-up-v8.ts';

export async function runServe(argv: string[]): Promise<void> {
  let config: Config;
  let workers: number;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, workers: { type: 'string' } },
      strict: true,
    });
    config = loadConfig(process.env, values.config);
    workers = cluster.isPrimary ? parseWorkers(values.workers, config) : 1;
  } catch (error) {
    // A wrong flag (parseArgs' ERR_PARSE_ARGS_* errors) is a start-up mistake like a bad config file.
    if (error instanceof ConfigError || isCommandLineMistake(error)) {
      process.stderr.write(`modelgate: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  try {
    if (cluster.isPrimary && workers > 1) {
      // The primary serves no request; it merges the workers' metrics, with its compilers back.
      endStartUp();
      await runPrimary(config, workers);
      return;
    }
    await serve(config);
  } catch (error) {
    // The store could not be reached at start (PostgreSQL down, wrong URL): say so and exit 1.
    if (error instanceof StoreUnavailableError) {
      process.stderr.write(`modelgate: ${error.message}\n`);
      process.exit(1);
    }
    // Another process holds the port: one line, not Node's EADDRINUSE stack.
    if ((error as { code?: unknown } | undefined)?.code === 'EADDRINUSE') {
      process.stderr.write(`modelgate: port ${config.port} is in use (set PORT or server.port)\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function serve(config: Config): Promise<void> {
  // A worker's `/metrics` serves the whole group's, merged by the primary.
  const gateway = await startGateway(config, undefined, { metricsThroughPrimary: cluster.isWorker });
  // Start-up is over: from here on the young generation sizes itself to the traffic and the
  // optimizing compilers run (start-up-v8.ts).
  endStartUp();
  // A process made to exit without `close`: above all a worker whose primary died (`kill -9`),
  // which node:cluster ends at once with process.exit. Its last ledger rows are a synchronous
  // local write away: written on the way out rather than lost.
  process.once('exit', () => {
    gateway.flushLedger();
  });
  if (cluster.isWorker) workerListening(gateway.url);
  else {
    process.stdout.write(startBanner(config, gateway.url, process.stdout.isTTY));
    const notice = simulatorNotice(config);
    if (notice !== undefined) process.stdout.write(`${notice}\n`);
  }
  if (gateway.generatedKey !== undefined) {
    process.stdout.write(
      `No client keys were configured, so one was generated. It is shown only this once; only its hash is stored:\n\n  ${gateway.generatedKey}\n\nUse it as: Authorization: Bearer <key>\n`,
    );
  }
  const stop = (signal: NodeJS.Signals): void => {
    gateway.logger.info(`${signal} received: shutting down`, {
      inFlight: gateway.inFlight,
      pid: process.pid,
    });
    void gateway.close().then(() => {
      gateway.logger.info('exiting', { code: 0, inFlight: gateway.inFlight, pid: process.pid });
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function isCommandLineMistake(error: unknown): error is Error {
  return (
    error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
  );
}
