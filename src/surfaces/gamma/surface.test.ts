import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gammaCodec } from './index.ts';

test('matchRoute: both API versions, both methods, model from the path', () => {
  assert.deepEqual(gammaCodec.matchRoute('/v1/models/m-1:generateContent'), { model: 'm-1', stream: false });
  assert.deepEqual(gammaCodec.matchRoute('/v1beta/models/m-1:streamGenerateContent'), {
    model: 'm-1',
    stream: true,
  });
  assert.deepEqual(gammaCodec.matchRoute('/v1beta/models/m-1:generateContent'), {
    model: 'm-1',
    stream: false,
  });
});

test('matchRoute: the model is URL-decoded, may hold "/" and ":", the method follows the last ":"', () => {
  assert.deepEqual(gammaCodec.matchRoute('/v1/models/alpha/some-id:generateContent'), {
    model: 'alpha/some-id',
    stream: false,
  });
  assert.deepEqual(gammaCodec.matchRoute('/v1/models/alpha%2Fsome-id:streamGenerateContent'), {
    model: 'alpha/some-id',
    stream: true,
  });
  assert.deepEqual(gammaCodec.matchRoute('/v1/models/llama3%3A8b:generateContent'), {
    model: 'llama3:8b',
    stream: false,
  });
  assert.deepEqual(gammaCodec.matchRoute('/v1/models/a:b:generateContent'), { model: 'a:b', stream: false });
});

test('matchRoute: countTokens is a count route with the path model', () => {
  assert.deepEqual(gammaCodec.matchRoute('/v1beta/models/C-1:countTokens'), {
    model: 'C-1',
    countTokens: true,
  });
});

test('matchRoute: rejects other paths, other methods, an empty or malformed model', () => {
  for (const path of [
    '/v1/models/:generateContent',
    '/v1/models/m:embedContent',
    '/v1/models/m',
    '/v1/chat/completions',
    '/v1/messages',
    '/v2/models/m:generateContent',
    '/v1/models/%E0%A4%A:generateContent',
  ]) {
    assert.equal(gammaCodec.matchRoute(path), undefined, path);
  }
});

test('readClientKey: x-gamma-api-key, x-goog-api-key, Authorization: Bearer, then ?key=', () => {
  const query = new URLSearchParams('key=from-query&alt=sse');
  const none = new URLSearchParams();
  assert.equal(gammaCodec.readClientKey({ 'x-gamma-api-key': 'from-header' }, query), 'from-header');
  assert.equal(gammaCodec.readClientKey({ 'x-gamma-api-key': ['first', 'second'] }, query), 'first');
  assert.equal(gammaCodec.readClientKey({ 'x-goog-api-key': 'vendor' }, query), 'vendor');
  assert.equal(
    gammaCodec.readClientKey({ 'x-gamma-api-key': 'spec', 'x-goog-api-key': 'vendor' }, none),
    'spec',
  );
  assert.equal(gammaCodec.readClientKey({ authorization: 'Bearer tok' }, query), 'tok');
  assert.equal(gammaCodec.readClientKey({ authorization: 'bearer  tok ' }, none), 'tok');
  assert.equal(gammaCodec.readClientKey({ authorization: 'Basic abc' }, none), undefined);
  assert.equal(gammaCodec.readClientKey({}, query), 'from-query');
  assert.equal(gammaCodec.readClientKey({}, new URLSearchParams('key=')), undefined);
  assert.deepEqual(gammaCodec.credentialHeaders, ['x-gamma-api-key', 'x-goog-api-key', 'authorization']);
});

test('checkHeaders: the family requires nothing besides the key', () => {
  assert.equal(gammaCodec.checkHeaders({}), undefined);
});

test('capabilities: several candidates per call, no required output cap, a permission error', () => {
  assert.deepEqual(gammaCodec.capabilities, {
    multipleCandidates: true,
    requiresMaxOutputTokens: false,
    permissionError: true,
    imageUrls: false,
    imageTokens: 258,
  });
  assert.equal(gammaCodec.id, 'gamma');
});
