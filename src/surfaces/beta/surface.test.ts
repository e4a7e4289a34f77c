import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkHeaders, matchRoute, readClientKey } from './surface.ts';
import { clientVersion } from '../../codecs/beta/version-headers.ts';

const noParams = new URLSearchParams();

test('the surface owns POST /v1/messages and its count_tokens', () => {
  assert.deepEqual(matchRoute('/v1/messages'), {});
  assert.deepEqual(matchRoute('/v1/messages/count_tokens'), { countTokens: true });
  assert.equal(matchRoute('/v1/messages/batches'), undefined);
  assert.equal(matchRoute('/v1/chat/completions'), undefined);
  assert.equal(matchRoute('/v1/messages/'), undefined);
});

test('the client key comes from x-api-key or a bearer token', () => {
  assert.equal(readClientKey({ 'x-api-key': 'K1' }, noParams), 'K1');
  assert.equal(readClientKey({ authorization: 'Bearer K2' }, noParams), 'K2');
  assert.equal(readClientKey({ authorization: 'bearer  K3 ' }, noParams), 'K3');
  assert.equal(readClientKey({ 'x-api-key': 'K1', authorization: 'Bearer K2' }, noParams), 'K1');
  assert.equal(readClientKey({ authorization: 'Basic abc' }, noParams), undefined);
  assert.equal(readClientKey({ authorization: 'Bearer ' }, noParams), undefined);
  assert.equal(readClientKey({}, new URLSearchParams('key=K4')), undefined);
});

test('beta-version is required', () => {
  const error = checkHeaders({});
  assert.equal(error?.kind, 'invalid_request');
  assert.equal(error.status, 400);
  assert.match(error.message, /beta-version \(or anthropic-version\): header is required/);
  assert.equal(error.param, 'beta-version');
  const empty = checkHeaders({ 'beta-version': '' });
  assert.equal(empty?.kind, 'invalid_request');
  assert.match(empty.message, /^beta-version: header is required/);
});

test("anthropic-version (the vendor SDKs' name) is accepted where beta-version is absent, same rules", () => {
  assert.equal(checkHeaders({ 'anthropic-version': '2023-06-01' }), undefined);
  assert.equal(checkHeaders({ 'anthropic-version': '2026-10-21' }), undefined);
  const bad = checkHeaders({ 'anthropic-version': 'latest' });
  assert.equal(bad?.kind, 'invalid_request');
  // The message and param name the header the client sent.
  assert.match(bad.message, /^anthropic-version: "latest" is not a valid version/);
  assert.equal(bad.param, 'anthropic-version');
  assert.match(
    checkHeaders({ 'anthropic-version': '' })?.message ?? '',
    /^anthropic-version: header is required/,
  );
});

test('with both version headers, beta-version decides', () => {
  assert.equal(checkHeaders({ 'beta-version': '2023-06-01', 'anthropic-version': 'junk' }), undefined);
  const error = checkHeaders({ 'beta-version': 'junk', 'anthropic-version': '2023-06-01' });
  assert.match(error?.message ?? '', /^beta-version: "junk"/);
  assert.deepEqual(clientVersion({ 'beta-version': '2024-01-01', 'anthropic-version': '2023-06-01' }), {
    name: 'beta-version',
    value: '2024-01-01',
  });
});

test('beta-version accepts real dates on or after 2023-01-01', () => {
  for (const version of ['2023-06-01', '2023-01-01', '2024-02-29', '2026-11-30']) {
    assert.equal(checkHeaders({ 'beta-version': version }), undefined, version);
  }
});

test('beta-version rejects malformed, impossible and too-old dates with a clear 400', () => {
  for (const version of [
    '2023-6-1',
    'latest',
    '2023-02-30',
    '2023-13-01',
    '2022-12-31',
    '2023-06-01, 2023-06-01',
  ]) {
    const error = checkHeaders({ 'beta-version': version });
    assert.equal(error?.kind, 'invalid_request', version);
    assert.match(error.message, /is not a valid version; send a date such as 2023-06-01/);
    assert.equal(error.param, 'beta-version');
  }
});
