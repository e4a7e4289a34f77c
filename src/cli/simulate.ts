/**
 * `modelgate simulate`: run the upstream simulator as a standalone server speaking the three
 * official API families, for testing apps offline. Resolves once the server has shut down
 * (SIGINT / SIGTERM).
 */
import { parseArgs } from 'node:util';
import { startSimulatorServer } from '../simulator/server.ts';

export const simulateUsage = `usage: modelgate simulate [--port N] [--host H] [--ttft-ms N] [--token-delay-ms N]
  --port            port to listen on (env SIMULATOR_PORT, default 8081; 0 = any free port)
  --host            interface to bind (default 127.0.0.1)
  --ttft-ms         delay before the first streamed token (env SIMULATOR_TTFT_MS, default 0)
  --token-delay-ms  delay between streamed tokens (env SIMULATOR_TOKEN_DELAY_MS, default 0)`;

export interface SimulateSettings {
  host: string;
  port: number;
  timeToFirstTokenMs: number;
  interTokenDelayMs: number;
}

/** Flags win over environment variables, which win over defaults. Throws on bad values. */
export function parseSimulateArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): SimulateSettings {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'ttft-ms': { type: 'string' },
      'token-delay-ms': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = wholeNumber('--port', values.port ?? env['SIMULATOR_PORT'] ?? '8081');
  if (port > 65535) throw new Error(`--port: ${port} is not a port number`);
  return {
    host: values.host ?? '127.0.0.1',
    port,
    timeToFirstTokenMs: wholeNumber('--ttft-ms', values['ttft-ms'] ?? env['SIMULATOR_TTFT_MS'] ?? '0'),
    interTokenDelayMs: wholeNumber(
      '--token-delay-ms',
      values['token-delay-ms'] ?? env['SIMULATOR_TOKEN_DELAY_MS'] ?? '0',
    ),
  };
}

function wholeNumber(flag: string, text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${flag}: expected a whole number >= 0, got "${text}"`);
  }
  return value;
}

export async function runSimulate(argv: string[]): Promise<void> {
  let settings: SimulateSettings;
  try {
    settings = parseSimulateArgs(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${simulateUsage}\n`);
    process.exitCode = 2;
    return;
  }
  const server = await startSimulatorServer(settings);
  process.stdout.write(`modelgate simulator listening on ${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
}
