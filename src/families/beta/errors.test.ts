import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type GatewayErrorKind } from '../../ir/index.ts';
import { decodeError, encodeError } from './errors.ts';
import { fixtureText } from './test-helpers.ts';

test('encodeError gives the beta body, status and type for every kind', () => {
  const expected: Record<GatewayErrorKind, [number, string]> = {
    invalid_request: [400, 'invalid_request_error'],
    authentication: [401, 'authentication_error'],
    permission: [403, 'permission_error'],
    not_found: [404, 'not_found_error'],
    unknown_route: [404, 'not_found_error'],
    method_not_allowed: [405, 'invalid_request_error'],
    request_timeout: [408, 'timeout_error'],
    payload_too_large: [413, 'request_too_large'],
    unsupported_media_type: [415, 'invalid_request_error'],
    rate_limited: [429, 'rate_limit_error'],
    quota: [429, 'rate_limit_error'],
    overloaded: [529, 'overloaded_error'],
    unavailable: [529, 'overloaded_error'],
    timeout: [504, 'timeout_error'],
    upstream: [502, 'api_error'],
    internal: [500, 'api_error'],
  };
  for (const [kind, [status, type]] of Object.entries(expected)) {
    const wire = encodeError(new GatewayError(kind as GatewayErrorKind, `m-${kind}`));
    assert.deepEqual(wire, {
      status,
      body: { type: 'error', error: { type, message: `m-${kind}` }, request_id: null },
      headers: {},
    });
  }
});

test('encodeError adds retry-after when the error says when to retry', () => {
  const wire = encodeError(new GatewayError('rate_limited', 'slow down', { retryAfterSeconds: 2.2 }));
  assert.deepEqual(wire.headers, { 'retry-after': '3' });
});

test('529 overloaded → overloaded, upstream text kept, retry-after read', () => {
  const error = decodeError(529, fixtureText('error-529-overloaded.json'), { 'retry-after': '7' });
  assert.equal(error.kind, 'overloaded');
  assert.equal(error.message, 'upstream: Overloaded');
  assert.equal(error.retryAfterSeconds, 7);
  assert.equal(encodeError(error).status, 529);
});

test('429 → rate_limited with retry-after-ms preferred; spend limit → quota', () => {
  const limited = decodeError(429, fixtureText('error-429-rate-limit.json'), {
    'retry-after': '30',
    'retry-after-ms': '1500',
  });
  assert.equal(limited.kind, 'rate_limited');
  assert.equal(limited.retryAfterSeconds, 2);
  assert.match(limited.message, /^upstream: This request would exceed the rate limit/);
  const quota = decodeError(429, fixtureText('error-429-spend-limit.json'), {});
  assert.equal(quota.kind, 'quota');
  assert.equal(quota.retryAfterSeconds, undefined);
});

test('400 keeps the upstream message, prefixed', () => {
  const error = decodeError(400, fixtureText('error-400-invalid.json'), {});
  assert.equal(error.kind, 'invalid_request');
  assert.equal(error.message, 'upstream: messages: text content blocks must be non-empty');
});

test('401/403 never pass on the upstream text (it may quote our key)', () => {
  for (const status of [401, 403]) {
    const error = decodeError(status, fixtureText('error-401-auth.json'), {});
    assert.equal(error.kind, 'upstream');
    assert.equal(error.message, "the upstream rejected the gateway's credentials");
    assert.doesNotMatch(JSON.stringify(encodeError(error).body), /sk-upstream/);
  }
});

test('status mapping, including bodies that are not beta JSON', () => {
  const cases: Array<[number, GatewayErrorKind]> = [
    [404, 'not_found'],
    [413, 'payload_too_large'],
    [422, 'invalid_request'],
    [500, 'internal'],
    [502, 'upstream'],
    [503, 'overloaded'],
    [504, 'timeout'],
    [520, 'upstream'],
  ];
  for (const [status, kind] of cases) {
    const error = decodeError(status, '<html>bad gateway</html>', {});
    assert.equal(error.kind, kind, String(status));
    assert.equal(error.message, `upstream: the beta upstream answered HTTP ${status}`);
  }
  assert.equal(decodeError(500, '', {}).kind, 'internal');
  assert.equal(
    decodeError(500, 'null', { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }).retryAfterSeconds,
    undefined,
  );
});
