/** The hand runner starts a mock, prints where it listens, and that URL answers. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { defaultOpenAIMockKey } from './openai/mock.ts';

test('serve.ts openai prints a URL that serves the mock', async () => {
  const child = spawn(
    process.execPath,
    [new URL('serve.ts', import.meta.url).pathname, 'openai', '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const lines = createInterface({ input: child.stdout });
    const [firstLine] = (await once(lines, 'line')) as [string];
    const url = /listening on (http:\/\/[^\s"]+)/.exec(firstLine)?.[1];
    assert.ok(url, firstLine);
    const answer = await fetch(`${url}/v1/models`, {
      headers: { authorization: `Bearer ${defaultOpenAIMockKey}` },
    });
    assert.equal(answer.status, 200);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

test('serve.ts runs every vendor’s mock: each prints a URL that answers in its vendor’s terms', async () => {
  for (const vendor of ['azure-openai', 'anthropic', 'gemini', 'vertex', 'bedrock']) {
    const child = spawn(process.execPath, [new URL('serve.ts', import.meta.url).pathname, vendor], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const [firstLine] = (await once(lines, 'line')) as [string];
      const url = /^(\S+) mock listening on (http:\/\/[^\s"]+)/.exec(firstLine);
      assert.ok(url, firstLine);
      assert.equal(url[1], vendor, firstLine);
      // No credential: each refuses as its vendor does (401, 403 or 404), never a mock failure.
      const answer = await fetch(`${url[2] ?? ''}/`, { method: 'POST', body: '{}' });
      assert.ok([401, 403, 404].includes(answer.status), `${vendor}: ${answer.status}`);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
});

test('serve.ts refuses an unknown vendor with its usage', async () => {
  const child = spawn(process.execPath, [new URL('serve.ts', import.meta.url).pathname, 'nobody'], {
    stdio: 'pipe',
  });
  const [code] = (await once(child, 'exit')) as [number];
  assert.equal(code, 2);
});
