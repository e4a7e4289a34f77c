import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type GatewayErrorKind } from '../../ir/index.ts';
import { readUpstreamError } from '../shared/upstream-errors.ts';
import { decodeErrorBody, decodeStreamError, encodeError } from './errors.ts';
import { fixtureText } from './test-kit.ts';

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
    not_configured: [503, 'api_error'],
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

test("encodeError fills the body's request_id with the answer's id when it is known", () => {
  const wire = encodeError(new GatewayError('not_found', 'no such model'), 'req_abc123');
  assert.deepEqual(wire.body, {
    type: 'error',
    error: { type: 'not_found_error', message: 'no such model' },
    request_id: 'req_abc123',
  });
});

/** An upstream answer through B's body reader and the shared rules, as the gateway reads it. */
function decodeError(status: number, body: string, headers: Record<string, string> = {}): GatewayError {
  return readUpstreamError(status, headers, decodeErrorBody(body), Date.parse('2026-01-01T00:00:00Z')).error;
}

test('the body reader: message and the spend-limit mark; other shapes read as nothing', () => {
  assert.deepEqual(decodeErrorBody(fixtureText('error-400-invalid.json')), {
    message: 'messages: text content blocks must be non-empty',
    quota: false,
  });
  assert.equal(decodeErrorBody(fixtureText('error-429-spend-limit.json')).quota, true);
  assert.deepEqual(decodeErrorBody('<html>bad gateway</html>'), {});
  assert.deepEqual(decodeErrorBody('{"error":"flat"}'), {});
});

test('529 overloaded → overloaded (generic text), retry-after read', () => {
  const error = decodeError(529, fixtureText('error-529-overloaded.json'), { 'retry-after': '7' });
  assert.equal(error.kind, 'overloaded');
  assert.equal(error.message, 'upstream: overloaded, retry later');
  assert.equal(error.retryAfterSeconds, 7);
  assert.equal(encodeError(error).status, 529);
});

test('429 → rate_limited with retry-after-ms preferred (account text not passed on); spend limit → quota', () => {
  const limited = decodeError(429, fixtureText('error-429-rate-limit.json'), {
    'retry-after': '30',
    'retry-after-ms': '1500',
  });
  assert.equal(limited.kind, 'rate_limited');
  assert.equal(limited.retryAfterSeconds, 2);
  assert.equal(limited.message, 'upstream: rate limit reached, retry later');
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

test('bodies that are not beta JSON keep the status mapping; a past HTTP date is no wait', () => {
  const error = decodeError(404, '<html>not here</html>');
  assert.deepEqual([error.kind, error.message], ['not_found', 'upstream: the model was not found']);
  assert.equal(decodeError(500, '', {}).kind, 'internal');
  assert.equal(
    decodeError(500, 'null', { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }).retryAfterSeconds,
    0,
  );
});

test('in-stream errors: each type is the status it stands for', () => {
  const cases: Array<[string, GatewayErrorKind]> = [
    ['invalid_request_error', 'invalid_request'],
    ['authentication_error', 'upstream'],
    ['billing_error', 'quota'],
    ['permission_error', 'upstream'],
    ['not_found_error', 'not_found'],
    ['request_too_large', 'payload_too_large'],
    ['rate_limit_error', 'rate_limited'],
    ['api_error', 'internal'],
    ['timeout_error', 'timeout'],
    ['overloaded_error', 'overloaded'],
    ['something_new', 'upstream'],
  ];
  for (const [type, kind] of cases)
    assert.equal(decodeStreamError({ type, message: 'key sk-upstream-1' }).kind, kind, type);
  assert.equal(
    decodeStreamError({ type: 'authentication_error', message: 'key sk-upstream-1' }).message,
    "the upstream rejected the gateway's credentials",
  );
});
