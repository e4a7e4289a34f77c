import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/load-config.ts';
import type { ChatRequest } from '../ir/index.ts';
import { ModelResolver } from './resolve-model.ts';
import { checkContextWindow, fitOutputCap, validateAgainstCatalog } from './validate-request.ts';

const resolver = new ModelResolver(loadConfig({}));

function request(text: string, maxOutputTokens?: number): ChatRequest {
  return {
    model: 'A-1',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    sampling: maxOutputTokens === undefined ? {} : { maxOutputTokens },
    stream: false,
    includeUsage: false,
    extensions: {},
  };
}

test('max output above the model limit is a 400 naming both numbers', () => {
  const entry = resolver.resolve('A-1');
  assert.ok(entry);
  assert.throws(
    () => validateAgainstCatalog(request('hi', 5000), entry),
    (error: Error) => {
      assert.match(error.message, /5000/);
      assert.match(error.message, /4096/);
      return true;
    },
  );
  validateAgainstCatalog(request('hi', 4096), entry);
});

test('a prompt that cannot fit the context window is counted and refused', async () => {
  const entry = resolver.resolve('A-1');
  assert.ok(entry);
  const long = 'hello world '.repeat(5000); // 10,001 tokens (the last space is one) > 8192
  await assert.rejects(
    checkContextWindow(request(long), entry),
    /context window of 8192 tokens, but the prompt has 10001 tokens/,
  );
  const medium = 'hello world '.repeat(2400); // 4,800 tokens: fits alone, not with 4096 more
  await checkContextWindow(request(medium), entry);
  await assert.rejects(checkContextWindow(request(medium, 4096), entry), /4096 output tokens were requested/);
});

test('a prompt far beyond the window is refused from its bytes, without counting it', async () => {
  const entry = resolver.resolve('C-3'); // 32,760 tokens
  assert.ok(entry);
  const huge = 'x'.repeat(15 * 1024 * 1024); // at least 15 MiB / 128 bytes a token = 122,880 tokens
  const started = performance.now();
  await assert.rejects(
    checkContextWindow(request(huge), { ...entry, name: 'C-3' }),
    /more than 122879 tokens/,
  );
  assert.ok(performance.now() - started < 500, 'decided from the bytes');
});

test('images to a model without vision are refused', () => {
  const entry = resolver.resolve('A-1');
  assert.ok(entry);
  const withImage = request('look');
  withImage.messages = [
    { role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] },
  ];
  assert.throws(() => validateAgainstCatalog(withImage, entry), /does not accept image input/);
});

test('fitOutputCap lowers a cap above the maximum (with a note), keeps one within, and leaves strict mode to refuse', () => {
  const entry = resolver.resolve('A-1');
  assert.ok(entry);
  const above = request('hi', 32000);
  assert.equal(
    fitOutputCap(above, entry, false),
    'max output lowered from 32000 to 4096, the most A-1 allows',
  );
  assert.equal(above.sampling.maxOutputTokens, 4096);
  validateAgainstCatalog(above, entry);
  const within = request('hi', 100);
  assert.equal(fitOutputCap(within, entry, false), undefined);
  assert.equal(within.sampling.maxOutputTokens, 100);
  assert.equal(fitOutputCap(request('hi'), entry, false), undefined);
  const strict = request('hi', 32000);
  assert.equal(fitOutputCap(strict, entry, true), undefined);
  assert.throws(() => validateAgainstCatalog(strict, entry), /32000/);
});
