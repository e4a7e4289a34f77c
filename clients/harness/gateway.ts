/**
 * `modelgate serve` as a user starts it: the repo's CLI under Node 24, the simulator behind every
 * family, a fresh database in a temp folder, a fixed client key, a free loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';

export const repoRoot = resolve(import.meta.dirname, '..', '..');
/** The one client key every client is given. */
export const clientKey = 'mg-clients-suite-key-0001';

export interface RunningGateway {
  url: string;
  databasePath: string;
  logPath: string;
  stop: () => Promise<void>;
}

/** `config` is the config file's content (JSON is YAML), as a user would write it. */
export async function startGateway(config?: object): Promise<RunningGateway> {
  const folder = mkdtempSync(join(tmpdir(), 'modelgate-clients-gw-'));
  const databasePath = join(folder, 'modelgate.db');
  const logPath = join(folder, 'gateway.log');
  const configEnv: Record<string, string> = {};
  if (config !== undefined) {
    configEnv['MODELGATE_CONFIG'] = join(folder, 'modelgate.json');
    writeFileSync(configEnv['MODELGATE_CONFIG'], JSON.stringify(config, null, 2));
  }
  const child = spawn(process.execPath, [join(repoRoot, 'src/cli/main.ts'), 'serve'], {
    cwd: folder,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      MODELGATE_DB: databasePath,
      MODELGATE_KEYS: clientKey,
      // Agent clients send large prompts and output caps: the suite is about the wire, not the
      // limits, and the key says so explicitly (static keys are rate-limited by default).
      MODELGATE_UNLIMITED_KEYS: 'static-1',
      LOG_LEVEL: 'info',
      ...configEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logPath);
  child.stderr.pipe(log);
  const url = await listeningUrl(child);
  return {
    url,
    databasePath,
    logPath,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      log.end();
    },
  };
}

/** Reads the `modelgate listening on URL` line; fails if the process exits or takes over 30 s. */
async function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`modelgate did not start within 30 s; it printed: ${seen}`));
    }, 30_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening on (http:\/\/[^\s"]+)/.exec(seen);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`modelgate exited (${String(code)}) before listening; it printed: ${seen}`));
    });
  });
}
