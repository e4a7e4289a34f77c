import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { GatewayError, type GatewayErrorKind } from '../../ir/index.ts';
import { gammaCodec } from './index.ts';
import { loadJson } from './test-support.ts';

test('encodeError: every kind → status and google.rpc status name', () => {
  const expected: Array<[GatewayErrorKind, number, string]> = [
    ['invalid_request', 400, 'INVALID_ARGUMENT'],
    ['authentication', 403, 'PERMISSION_DENIED'],
    ['permission', 403, 'PERMISSION_DENIED'],
    ['not_found', 404, 'NOT_FOUND'],
    ['unknown_route', 404, 'NOT_FOUND'],
    ['method_not_allowed', 405, 'UNIMPLEMENTED'],
    ['request_timeout', 408, 'DEADLINE_EXCEEDED'],
    ['payload_too_large', 413, 'INVALID_ARGUMENT'],
    ['unsupported_media_type', 415, 'INVALID_ARGUMENT'],
    ['rate_limited', 429, 'RESOURCE_EXHAUSTED'],
    ['quota', 429, 'RESOURCE_EXHAUSTED'],
    ['overloaded', 503, 'UNAVAILABLE'],
    ['unavailable', 503, 'UNAVAILABLE'],
    ['timeout', 504, 'DEADLINE_EXCEEDED'],
    ['upstream', 502, 'UNAVAILABLE'],
    ['internal', 500, 'INTERNAL'],
  ];
  for (const [kind, status, rpc] of expected) {
    assert.deepEqual(gammaCodec.encodeError(new GatewayError(kind, `m-${kind}`)), {
      status,
      body: { error: { code: status, message: `m-${kind}`, status: rpc } },
      headers: {},
    });
  }
});

test('encodeError: 429 with a wait adds RetryInfo and retry-after; other kinds only the header', () => {
  assert.deepEqual(
    gammaCodec.encodeError(new GatewayError('rate_limited', 'slow', { retryAfterSeconds: 22 })),
    {
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'slow',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '22s' }],
        },
      },
      headers: { 'retry-after': '22' },
    },
  );
  assert.deepEqual(gammaCodec.encodeError(new GatewayError('overloaded', 'busy', { retryAfterSeconds: 5 })), {
    status: 503,
    body: { error: { code: 503, message: 'busy', status: 'UNAVAILABLE' } },
    headers: { 'retry-after': '5' },
  });
});

test('decodeError: the reference 429 → rate_limited, retry from RetryInfo (ceil), upstream text kept', () => {
  const error = gammaCodec.decodeError(429, JSON.stringify(loadJson('error-429.json')), {});
  assert.equal(error.kind, 'rate_limited');
  assert.equal(error.retryAfterSeconds, 22);
  assert.equal(error.message, 'You exceeded your current quota, please check your plan and billing details.');
});

test('decodeError: retry-after-ms and retry-after headers win over the body', () => {
  const body = JSON.stringify(loadJson('error-429.json'));
  assert.equal(gammaCodec.decodeError(429, body, { 'retry-after-ms': '1500' }).retryAfterSeconds, 2);
  assert.equal(gammaCodec.decodeError(429, body, { 'retry-after': '7' }).retryAfterSeconds, 7);
  assert.equal(gammaCodec.decodeError(429, '', {}).retryAfterSeconds, undefined);
});

test('decodeError: statuses map to kinds; 400 text is prefixed; credential problems never echo upstream text', () => {
  const body = (status: number, message: string, details: unknown[] = []): string =>
    JSON.stringify({ error: { code: status, message, status: 'X', details } });
  const bad = gammaCodec.decodeError(400, body(400, 'contents is required'), {});
  assert.deepEqual([bad.kind, bad.message], ['invalid_request', 'upstream: contents is required']);
  for (const status of [401, 403]) {
    const error = gammaCodec.decodeError(status, body(status, 'key sk-secret-123 is bad'), {});
    assert.deepEqual(
      [error.kind, error.message],
      ['upstream', "the upstream rejected the gateway's credentials"],
    );
  }
  const keyInvalid = gammaCodec.decodeError(
    400,
    body(400, 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
      },
    ]),
    {},
  );
  assert.deepEqual(
    [keyInvalid.kind, keyInvalid.message],
    ['upstream', "the upstream rejected the gateway's credentials"],
  );
  const cases: Array<[number, GatewayErrorKind]> = [
    [402, 'quota'],
    [404, 'not_found'],
    [413, 'payload_too_large'],
    [422, 'invalid_request'],
    [500, 'internal'],
    [502, 'upstream'],
    [503, 'overloaded'],
    [504, 'timeout'],
    [529, 'overloaded'],
    [599, 'upstream'],
  ];
  for (const [status, kind] of cases)
    assert.equal(gammaCodec.decodeError(status, body(status, 'x'), {}).kind, kind, String(status));
  assert.equal(
    gammaCodec.decodeError(404, body(404, 'models/zzz is not found'), {}).message,
    'models/zzz is not found',
  );
});

test('decodeError: bodies that are not the family shape get the same mapping with a generic message', () => {
  const error = gammaCodec.decodeError(503, '<html>Service Unavailable</html>', {});
  assert.deepEqual([error.kind, error.message], ['overloaded', 'the upstream answered HTTP 503']);
  assert.equal(
    gammaCodec.decodeError(400, '{"message":"flat"}', {}).message,
    'upstream: the upstream answered HTTP 400',
  );
});

test('decodeError never throws', () => {
  fc.assert(
    fc.property(fc.integer({ min: 100, max: 999 }), fc.oneof(fc.string(), fc.json()), (status, text) => {
      assert.ok(gammaCodec.decodeError(status, text, { 'retry-after': text }) instanceof GatewayError);
    }),
  );
});
