import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkHeaders, matchRoute, readClientKey } from './surface.ts';

const noParams = new URLSearchParams();

test('the surface owns POST /v1/messages only', () => {
  assert.deepEqual(matchRoute('/v1/messages'), {});
  assert.equal(matchRoute('/v1/messages/count_tokens'), undefined);
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
  assert.match(error.message, /beta-version: header is required/);
  assert.equal(checkHeaders({ 'beta-version': '' })?.kind, 'invalid_request');
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
