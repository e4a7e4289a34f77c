/**
 * Operator-enabled image fetching is wired into the gateway: with `images.fetch` on, an image URL
 * for a C model goes to the fetcher, whose SSRF rules refuse loopback and plain http; with it off,
 * the gateway never fetches and asks for base64.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let fetching: TestGateway;
let plain: TestGateway;

before(async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-images-')), 'config.yaml');
  writeFileSync(path, 'images: { fetch: true }\n');
  fetching = await startTestGateway({}, path);
  plain = await startTestGateway();
});

after(async () => {
  await fetching.close();
  await plain.close();
});

async function askWithImage(gateway: TestGateway, url: string): Promise<{ status: number; message: string }> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'C-1',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    }),
  });
  const body = (await response.json()) as { error: { message: string } };
  return { status: response.status, message: body.error.message };
}

test('fetching on: loopback addresses are refused by the SSRF rules, plain http is never fetched', async () => {
  const loopback = await askWithImage(fetching, 'https://127.0.0.1:1/cat.png');
  assert.equal(loopback.status, 400);
  assert.match(loopback.message, /could not be fetched/);
  assert.match(loopback.message, /send the image as base64/);
  // Plain http is never a fetch candidate: the request is refused with the ask for base64.
  const http = await askWithImage(fetching, 'http://example.com/cat.png');
  assert.equal(http.status, 400);
  assert.match(http.message, /base64/);
});

test('fetching off (the default): the gateway asks for base64 instead', async () => {
  const result = await askWithImage(plain, 'https://example.com/cat.png');
  assert.equal(result.status, 400);
  assert.match(result.message, /base64/);
  assert.doesNotMatch(result.message, /could not be fetched/);
});
