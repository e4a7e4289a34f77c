/**
 * What the in-process benches (`request-path.ts`, `request-alloc.ts`, `pass-through-json.ts`,
 * `translated-chat.ts`) share: the rig's chat request (bench.mjs `oaBody`) and a checkout's gateway
 * started in this process, from its own `src/`, on the rig's mock upstream and `bench-limits.yaml`,
 * and a client in a process of its own (outside the measure) that sends it requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The rig's client request, as the client sends it. */
export function rigChatBody(model: string, stream = false): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
      {
        role: 'user',
        content:
          'Summarise in one sentence why HTTP keep-alive matters for API gateways that proxy LLM requests.',
      },
    ],
    max_tokens: 64,
    temperature: 0.2,
    ...(stream ? { stream: true } : {}),
  });
}

export interface InProcessGateway {
  url: string;
  close(): Promise<void>;
}

export interface GatewaySetting {
  /** The rig's folder (`mock-upstream.mjs`, `bench-limits.yaml`). */
  rig: string;
  mockPort: number;
  clientKey: string;
  /** The gateway's store file. */
  storeFile: string;
}

/** A checkout's gateway in this process: its own modules, store file and ledger thread. */
export async function startInProcess(checkout: string, setting: GatewaySetting): Promise<InProcessGateway> {
  const source = join(resolve(checkout), 'src');
  const { loadConfig } = (await import(join(source, 'config/load-config.ts'))) as {
    loadConfig: (environment: Record<string, string>) => unknown;
  };
  const { createLogger } = (await import(join(source, 'log/logger.ts'))) as {
    createLogger: (level: string, secrets: string[], write: (line: string) => void) => unknown;
  };
  const { startGateway } = (await import(join(source, 'server/start-gateway.ts'))) as {
    startGateway: (config: unknown, logger: unknown) => Promise<InProcessGateway>;
  };
  const upstream = `http://127.0.0.1:${setting.mockPort}`;
  const config = loadConfig({
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    MODELGATE_KEYS: setting.clientKey,
    MODELGATE_DB: setting.storeFile,
    MODELGATE_CONFIG: join(setting.rig, 'bench-limits.yaml'),
    LOG_LEVEL: 'info',
    ALPHA_BASE_URL: upstream,
    ALPHA_API_KEY: 'sk-mock',
    BETA_BASE_URL: upstream,
    BETA_API_KEY: 'sk-ant-mock',
  });
  // Every log line built and redacted as in production; written nowhere (stderr is not the measure).
  return startGateway(
    config,
    createLogger('info', [setting.clientKey, 'sk-mock', 'sk-ant-mock'], () => undefined),
  );
}

const rig = fileURLToPath(new URL('../../../shared/bench-rig/', import.meta.url));
const clientKey = 'sk-bench-client-key-0000000000';

/** The client: `concurrency` loops sending the body until `total` requests were answered. */
const clientScript = `
const [url, total, concurrency, body, key] = process.argv.slice(1);
let left = Number(total);
async function loop() {
  while (left-- > 0) {
    const answer = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body });
    await answer.arrayBuffer();
    if (answer.status !== 200) { console.error('status', answer.status); process.exit(1); }
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, loop));
`;

/** The rig's mock upstream on a port of this process's own, store files in a scratch folder. */
export class RigBench {
  readonly #mockPort = 19_000 + (process.pid % 1000);
  readonly #scratch: string;
  readonly #mock: ChildProcess;

  private constructor(name: string) {
    this.#scratch = mkdtempSync(join(tmpdir(), `${name}-`));
    this.#mock = spawn(process.execPath, [join(rig, 'mock-upstream.mjs')], {
      env: { ...process.env, MOCK_PORT: String(this.#mockPort) },
      stdio: 'ignore',
    });
  }

  static async open(name: string): Promise<RigBench> {
    const bench = new RigBench(name);
    await sleep(500);
    return bench;
  }

  /** A checkout's gateway with its own store file (`storeName`.db). */
  start(checkout: string, storeName: string): Promise<InProcessGateway> {
    const storeFile = join(this.#scratch, `${storeName}.db`);
    return startInProcess(checkout, { rig, mockPort: this.#mockPort, clientKey, storeFile });
  }

  /** `count` chat requests with this body, `concurrency` at a time, from a client process. */
  drive(gateway: InProcessGateway, count: number, body: string, concurrency = 16): Promise<void> {
    const url = `${gateway.url}/v1/chat/completions`;
    const args = [
      '--input-type=module',
      '-e',
      clientScript,
      url,
      String(count),
      String(concurrency),
      body,
      clientKey,
    ];
    return new Promise((done, fail) => {
      const client = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
      client.on('exit', (code) => (code === 0 ? done() : fail(new Error(`client exited ${code}`))));
    });
  }

  close(): void {
    this.#mock.kill();
    rmSync(this.#scratch, { recursive: true, force: true });
  }
}
