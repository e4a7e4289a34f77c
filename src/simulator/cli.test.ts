import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseSimulateArgs } from '../cli/simulate.ts';

test('flags win over environment variables, which win over defaults', () => {
  assert.deepEqual(parseSimulateArgs([], {}), {
    host: '127.0.0.1',
    port: 8081,
    timeToFirstTokenMs: 0,
    interTokenDelayMs: 0,
  });
  const env = { SIMULATOR_PORT: '9000', SIMULATOR_TTFT_MS: '100', SIMULATOR_TOKEN_DELAY_MS: '5' };
  assert.deepEqual(parseSimulateArgs([], env), {
    host: '127.0.0.1',
    port: 9000,
    timeToFirstTokenMs: 100,
    interTokenDelayMs: 5,
  });
  assert.deepEqual(
    parseSimulateArgs(['--port', '0', '--host', '0.0.0.0', '--ttft-ms', '7', '--token-delay-ms=3'], env),
    {
      host: '0.0.0.0',
      port: 0,
      timeToFirstTokenMs: 7,
      interTokenDelayMs: 3,
    },
  );
  assert.throws(() => parseSimulateArgs(['--port', 'x'], {}), /--port/);
  assert.throws(() => parseSimulateArgs(['--port', '70000'], {}), /--port/);
  assert.throws(() => parseSimulateArgs(['--ttft-ms', '-1'], {}), /--ttft-ms/);
  assert.throws(() => parseSimulateArgs(['--bogus'], {}));
});

test('runSimulate serves until SIGTERM and prints its URL', async () => {
  const cli = fileURLToPath(new URL('../cli/simulate.ts', import.meta.url));
  const script = `const { runSimulate } = await import(${JSON.stringify(cli)}); await runSimulate(process.argv.slice(1));`;
  const child = spawn(process.execPath, ['--input-type=module', '--eval', script, '--', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: child.stdout });
    const [line] = (await once(lines, 'line')) as [string];
    const url = /(http:\/\/\S+)/.exec(line)?.[1];
    assert.ok(url !== undefined, line);
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { object: string }).object, 'chat.completion');
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
