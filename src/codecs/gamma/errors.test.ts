import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { GatewayError, type GatewayErrorKind } from '../../ir/index.ts';
import { readUpstreamError } from '../shared/upstream-errors.ts';
import { decodeErrorBody } from './errors.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';
import { loadJson } from './test-kit.ts';

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

/** An upstream answer through C's body reader and the shared rules, as the gateway reads it. */
function decodeError(status: number, body: string, headers: Record<string, string> = {}): GatewayError {
  return readUpstreamError(status, headers, decodeErrorBody(body), 0).error;
}

test('the body reader: message, RetryInfo in ms, the API_KEY_INVALID mark; other shapes read as nothing', () => {
  assert.deepEqual(decodeErrorBody(JSON.stringify(loadJson('error-429.json'))), {
    message: 'You exceeded your current quota, please check your plan and billing details.',
    credentialsRejected: false,
    retryAfterMs: 21_500,
  });
  assert.deepEqual(decodeErrorBody('<html>Service Unavailable</html>'), {});
  assert.deepEqual(decodeErrorBody('{"message":"flat"}'), {});
});

test('decodeError: the reference 429 → rate_limited, retry from RetryInfo (ceil), account text not passed on', () => {
  const error = decodeError(429, JSON.stringify(loadJson('error-429.json')));
  assert.equal(error.kind, 'rate_limited');
  assert.equal(error.retryAfterSeconds, 22);
  assert.equal(error.message, 'upstream: rate limit reached, retry later');
});

test('decodeError: retry-after-ms and retry-after headers win over the body', () => {
  const body = JSON.stringify(loadJson('error-429.json'));
  assert.equal(decodeError(429, body, { 'retry-after-ms': '1500' }).retryAfterSeconds, 2);
  assert.equal(decodeError(429, body, { 'retry-after': '7' }).retryAfterSeconds, 7);
  assert.equal(decodeError(429, '', {}).retryAfterSeconds, undefined);
  const reading = readUpstreamError(429, {}, decodeErrorBody(body), 0);
  assert.equal(reading.retryAfterMs, 21_500, 'routing gets the body wait too');
});

test('decodeError: statuses map to kinds; 400 text is prefixed; credential problems never echo upstream text', () => {
  const body = (status: number, message: string, details: unknown[] = []): string =>
    JSON.stringify({ error: { code: status, message, status: 'X', details } });
  const bad = decodeError(400, body(400, 'contents is required'));
  assert.deepEqual([bad.kind, bad.message], ['invalid_request', 'upstream: contents is required']);
  for (const status of [401, 403]) {
    const error = decodeError(status, body(status, 'key sk-secret-123 is bad'));
    assert.deepEqual(
      [error.kind, error.message],
      ['upstream', "the upstream rejected the gateway's credentials"],
    );
  }
  const keyInvalid = decodeError(
    400,
    body(400, 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
      },
    ]),
  );
  assert.deepEqual(
    [keyInvalid.kind, keyInvalid.message],
    ['upstream', "the upstream rejected the gateway's credentials"],
  );
  assert.equal(
    decodeError(404, body(404, 'models/zzz is not found')).message,
    'upstream: models/zzz is not found',
  );
});

test('decodeError: bodies that are not the family shape get the same mapping with a generic message', () => {
  const error = decodeError(503, '<html>Service Unavailable</html>');
  assert.deepEqual([error.kind, error.message], ['overloaded', 'upstream: overloaded, retry later']);
  assert.equal(decodeError(400, '{"message":"flat"}').message, 'upstream: the request was rejected');
});

test('the body reader and the rules never throw', () => {
  fc.assert(
    fc.property(fc.integer({ min: 100, max: 999 }), fc.oneof(fc.string(), fc.json()), (status, text) => {
      assert.ok(decodeError(status, text, { 'retry-after': text }) instanceof GatewayError);
    }),
  );
});
