/**
 * `modelgate serve` as a child process, as a user runs it: for suites that measure the gateway's
 * own event loop (a gateway in the test's process would share it with the test's clients) or
 * send it signals.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** SIGKILL if still running, and the temp directory removed. */
  close(): Promise<void>;
}

export async function startGatewayProcess(
  environment: Record<string, string>,
  /** After `serve`: `--workers 2`, say. */
  args: readonly string[] = [],
): Promise<GatewayProcess> {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-process-'));
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(MODELGATE_|ALPHA_|BETA_|GAMMA_|SIMULATOR_|HOST$|PORT$|LOG_LEVEL$|NODE_TEST)/.test(name)) continue;
    clean[name] = value;
  }
  const child = spawn(process.execPath, [join(root, 'src/cli/main.ts'), 'serve', ...args], {
    cwd: root,
    env: {
      ...clean,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      MODELGATE_DB: join(directory, 'gateway.db'),
      // As in test-gateway.ts: one family on a test upstream, the others simulated, asked for.
      MODELGATE_SIMULATOR: '1',
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then(({ code }) => reject(new Error(`gateway exited (${code}):\n${stdout}\n${stderr}`)));
  });
  return {
    url,
    child,
    exited,
    stderr: () => stderr,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
