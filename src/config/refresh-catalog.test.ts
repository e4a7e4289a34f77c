// scripts/refresh-catalog.ts run as a maintainer runs it: from a local file and from a URL.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { vendorCatalogFileSchema } from './vendor-catalog-schema.ts';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/refresh-catalog.ts', import.meta.url));
const samplePath = fileURLToPath(new URL('./__fixtures__/litellm-sample.json', import.meta.url));

function outPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'modelgate-catalog-')), 'catalog.json');
}

test('a local file regenerates the same bytes every time, with the source recorded in the header', async () => {
  const [first, second] = [outPath(), outPath()];
  const args = ['--ref', 'litellm@abc123', '--date', '2026-07-24'];
  await run(process.execPath, [script, samplePath, ...args, '--out', first]);
  await run(process.execPath, [script, samplePath, ...args, '--out', second]);
  const text = readFileSync(first, 'utf8');
  assert.equal(readFileSync(second, 'utf8'), text);
  const catalog = vendorCatalogFileSchema.parse(JSON.parse(text));
  assert.equal(catalog.source.ref, 'litellm@abc123');
  assert.equal(catalog.source.date, '2026-07-24T00:00:00.000Z');
  assert.equal(catalog.source.readFrom, 'a local copy (litellm-sample.json)');
  assert.equal(catalog.source.repository, 'https://github.com/BerriAI/litellm');
  assert.match(catalog.source.sha256, /^[0-9a-f]{64}$/);
  assert.equal(Object.keys(catalog.models).length, 11);
});

test('a URL is read over HTTP and dated by its Last-Modified header', async () => {
  const body = readFileSync(samplePath);
  const server = createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'last-modified': 'Fri, 24 Jul 2026 18:23:43 GMT',
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/model_prices.json`;
    const out = outPath();
    await run(process.execPath, [script, url, '--out', out]);
    const catalog = vendorCatalogFileSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    assert.equal(catalog.source.readFrom, url);
    assert.equal(catalog.source.date, '2026-07-24T18:23:43.000Z');
    assert.ok(catalog.models['gpt-4o']);
  } finally {
    server.close();
  }
});

test('a source that cannot be read fails with a message and a non-zero exit, writing nothing', async () => {
  const out = outPath();
  await assert.rejects(
    run(process.execPath, [script, join(tmpdir(), 'no-such-litellm.json'), '--out', out]),
    {
      code: 1,
      stderr: /refresh-catalog: .*no-such-litellm\.json/,
    },
  );
  assert.throws(() => readFileSync(out), { code: 'ENOENT' });
});
