import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alphaCodec } from './index.ts';

const noQuery = new URLSearchParams();

test('routes: the official path and the unified path; nothing else', () => {
  assert.deepEqual(alphaCodec.matchRoute('/v1/chat/completions'), {});
  assert.deepEqual(alphaCodec.matchRoute('/api/alpha/v1/chat/completions'), {});
  assert.equal(alphaCodec.matchRoute('/v1/messages'), undefined);
  assert.equal(alphaCodec.matchRoute('/v1/chat/completions/'), undefined);
});

test('client key: Bearer with any scheme case, trimmed; anything else is no key', () => {
  assert.equal(alphaCodec.readClientKey({ authorization: 'Bearer sk-1' }, noQuery), 'sk-1');
  assert.equal(alphaCodec.readClientKey({ authorization: '  bearer   sk-2 ' }, noQuery), 'sk-2');
  assert.equal(alphaCodec.readClientKey({ authorization: ['BEARER sk-3'] }, noQuery), 'sk-3');
  assert.equal(alphaCodec.readClientKey({ authorization: 'Basic abc' }, noQuery), undefined);
  assert.equal(alphaCodec.readClientKey({ authorization: 'Bearer ' }, noQuery), undefined);
  assert.equal(alphaCodec.readClientKey({ 'x-api-key': 'sk-4' }, new URLSearchParams('key=sk-5')), undefined);
  assert.equal(alphaCodec.checkHeaders({}), undefined);
});

test('the codec declares A: several candidates per call, no required output cap, no permission error', () => {
  assert.equal(alphaCodec.id, 'alpha');
  assert.deepEqual(alphaCodec.capabilities, {
    multipleCandidates: true,
    requiresMaxOutputTokens: false,
    permissionError: false,
    imageUrls: true,
    imageTokens: 765,
  });
});
