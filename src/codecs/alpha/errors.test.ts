import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type GatewayErrorKind } from '../../ir/index.ts';
import { readUpstreamError } from '../shared/upstream-errors.ts';
import { decodeErrorBody, encodeError, streamError } from './errors.ts';
import { fixtureText } from './test-kit.ts';

test('every kind has its A status, type and code; param and retry-after are carried', () => {
  const expected: Array<[GatewayErrorKind, number, string, string | null]> = [
    ['invalid_request', 400, 'invalid_request_error', null],
    ['authentication', 401, 'invalid_request_error', 'invalid_api_key'],
    ['permission', 403, 'invalid_request_error', 'permission_denied'],
    ['not_found', 404, 'invalid_request_error', 'model_not_found'],
    ['unknown_route', 404, 'invalid_request_error', 'unknown_url'],
    ['method_not_allowed', 405, 'invalid_request_error', 'method_not_allowed'],
    ['request_timeout', 408, 'invalid_request_error', 'request_timeout'],
    ['payload_too_large', 413, 'invalid_request_error', 'request_too_large'],
    ['unsupported_media_type', 415, 'invalid_request_error', null],
    ['rate_limited', 429, 'requests', 'rate_limit_exceeded'],
    ['quota', 429, 'insufficient_quota', 'insufficient_quota'],
    ['overloaded', 503, 'server_error', 'overloaded'],
    ['unavailable', 503, 'server_error', 'overloaded'],
    ['timeout', 504, 'server_error', 'timeout'],
    ['upstream', 502, 'server_error', 'upstream_error'],
    ['internal', 500, 'server_error', 'server_error'],
  ];
  for (const [kind, status, type, code] of expected) {
    assert.deepEqual(encodeError(new GatewayError(kind, 'm')), {
      status,
      body: { error: { message: 'm', type, param: null, code } },
      headers: {},
    });
  }
  assert.deepEqual(
    encodeError(new GatewayError('rate_limited', 'slow down', { param: 'x', retryAfterSeconds: 1.2 })),
    {
      status: 429,
      body: { error: { message: 'slow down', type: 'requests', param: 'x', code: 'rate_limit_exceeded' } },
      headers: { 'retry-after': '2' },
    },
  );
});

/** An upstream answer through A's body reader and the shared rules, as the gateway reads it. */
function decodeError(status: number, body: string, headers: Record<string, string> = {}): GatewayError {
  return readUpstreamError(status, headers, decodeErrorBody(body), 0).error;
}

function decoded(status: number, body: string, headers: Record<string, string> = {}): object {
  const error = decodeError(status, body, headers);
  return {
    kind: error.kind,
    message: error.message,
    param: error.param,
    retryAfterSeconds: error.retryAfterSeconds,
  };
}

test("the body reader: the compatible servers' variants, garbage read as nothing", () => {
  assert.deepEqual(decodeErrorBody(fixtureText('error-context-length.json')), {
    message:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
    param: 'messages',
    quota: false,
  });
  assert.equal(decodeErrorBody(fixtureText('error-insufficient-quota.json')).quota, true);
  assert.equal(decodeErrorBody(fixtureText('error-rate-limit.json')).quota, false);
  assert.deepEqual(decodeErrorBody('{"error":"model \\"x\\" not found"}'), {
    message: 'model "x" not found',
    param: undefined,
    quota: false,
  });
  assert.deepEqual(decodeErrorBody('<html>502</html>'), {
    message: undefined,
    param: undefined,
    quota: false,
  });
});

test('400 keeps the upstream text and param, prefixed', () => {
  assert.deepEqual(decoded(400, fixtureText('error-context-length.json')), {
    kind: 'invalid_request',
    message:
      "upstream: This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
    param: 'messages',
    retryAfterSeconds: undefined,
  });
});

test('401 never echoes the upstream text (it quotes our key)', () => {
  const error = decoded(401, fixtureText('error-invalid-key.json'));
  assert.deepEqual(error, {
    kind: 'upstream',
    message: "the upstream rejected the gateway's credentials",
    param: undefined,
    retryAfterSeconds: undefined,
  });
  assert.equal(decodeError(403, '{}', {}).kind, 'upstream');
});

test('429: rate limit with retry-after-ms (org id not leaked), quota by code', () => {
  assert.deepEqual(
    decoded(429, fixtureText('error-rate-limit.json'), { 'retry-after-ms': '1500', 'retry-after': '9' }),
    {
      kind: 'rate_limited',
      message: 'upstream: rate limit reached, retry later',
      param: undefined,
      retryAfterSeconds: 2,
    },
  );
  assert.equal(decodeError(429, fixtureText('error-insufficient-quota.json'), {}).kind, 'quota');
  assert.equal(decodeError(429, '', { 'retry-after': '7' }).retryAfterSeconds, 7);
});

test('bodies that are not A-shaped keep the status mapping', () => {
  assert.equal(decodeError(404, 'not json').kind, 'not_found');
  assert.equal(
    decodeError(400, '{"object":"error","message":"bad top_k","type":"BadRequestError","code":400}', {})
      .message,
    'upstream: bad top_k',
  );
  assert.equal(decodeError(507, '', {}).message, 'upstream: the upstream failed (HTTP 507)');
});

test('in-stream errors: the status the code, type or numeric code describes', () => {
  const kinds = [
    { error: { message: 'm', type: 'server_error', code: 'overloaded' } },
    { error: { message: 'm', type: 'tokens', code: null } },
    { error: { message: 'bad', type: 'invalid_request_error', code: 'context_length_exceeded' } },
    { error: { message: 'm', type: 'BadRequestError', code: 413 } },
    { error: { message: 'm', type: 'x', code: 'insufficient_quota' } },
    { error: 'text only' },
  ].map((body) => streamError(body).kind);
  assert.deepEqual(kinds, [
    'overloaded',
    'rate_limited',
    'invalid_request',
    'payload_too_large',
    'quota',
    'upstream',
  ]);
});
