import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type GatewayErrorKind } from '../../ir/index.ts';
import { readUpstreamError, retryAfterMs, upstreamErrorKind } from './upstream-errors.ts';
import { specCodecs } from '../../../test/kit/spec-families.ts';

/** What every family's upstream status means; statuses not listed: other 4xx invalid_request, else upstream. */
const expected: ReadonlyArray<[number, GatewayErrorKind]> = [
  [301, 'upstream'],
  [400, 'invalid_request'],
  [401, 'upstream'],
  [402, 'quota'],
  [403, 'upstream'],
  [404, 'not_found'],
  [405, 'invalid_request'],
  [408, 'timeout'],
  [409, 'invalid_request'],
  [413, 'payload_too_large'],
  [418, 'invalid_request'],
  [422, 'invalid_request'],
  [429, 'rate_limited'],
  [500, 'internal'],
  [501, 'upstream'],
  [502, 'upstream'],
  [503, 'overloaded'],
  [504, 'timeout'],
  [507, 'upstream'],
  [520, 'upstream'],
  [529, 'overloaded'],
];

/** The bodies an upstream of each family may send with any status: its own shape, a proxy's page, nothing. */
function bodiesOf(codecIndex: number, status: number): string[] {
  const codec = specCodecs[codecIndex];
  assert.ok(codec);
  const own = codec.encodeError(new GatewayError(upstreamErrorKind(status), 'the field x is bad')).body;
  return [JSON.stringify(own), '<html>bad gateway</html>', ''];
}

test('the same upstream status means the same error from every family', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const headers = { 'retry-after': '3' };
  for (const [status, kind] of expected) {
    assert.equal(upstreamErrorKind(status), kind, String(status));
    for (let shape = 0; shape < 3; shape++) {
      const seen = specCodecs.map((codec, index) => {
        const text = bodiesOf(index, status)[shape] ?? '';
        const { error, retryAfterMs: wait } = readUpstreamError(
          status,
          headers,
          codec.decodeErrorBody(text),
          now,
        );
        return { family: codec.id, kind: error.kind, message: error.message, wait, param: error.param };
      });
      for (const reading of seen) {
        const first = seen[0];
        assert.ok(first);
        assert.deepEqual(
          { ...reading, family: first.family },
          first,
          `${status} body ${shape}: ${reading.family} differs from ${first.family}`,
        );
        assert.equal(reading.kind, kind, `${status} from ${reading.family}`);
        assert.equal(reading.wait, 3000);
      }
    }
  }
});

test('messages: the request-describing kinds keep the upstream text; credentials, limits and failures never', () => {
  for (const codec of specCodecs) {
    const body = (status: number): string =>
      JSON.stringify(
        codec.encodeError(new GatewayError(upstreamErrorKind(status), 'sk-upstream-key org-123 said no'))
          .body,
      );
    const message = (status: number): string =>
      readUpstreamError(status, {}, codec.decodeErrorBody(body(status)), 0).error.message;
    assert.equal(message(400), 'upstream: sk-upstream-key org-123 said no', codec.id);
    assert.equal(message(404), 'upstream: sk-upstream-key org-123 said no', codec.id);
    assert.equal(message(401), "the upstream rejected the gateway's credentials", codec.id);
    assert.equal(message(403), "the upstream rejected the gateway's credentials", codec.id);
    assert.equal(message(429), 'upstream: rate limit reached, retry later', codec.id);
    assert.equal(message(402), 'upstream: quota exhausted', codec.id);
    assert.equal(message(500), 'upstream: internal error', codec.id);
    assert.equal(message(507), 'upstream: the upstream failed (HTTP 507)', codec.id);
  }
});

test('retry-after: ms header first, then seconds or an HTTP date against the injected clock', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, 0), 250);
  assert.equal(retryAfterMs({ 'retry-after-ms': '-5', 'retry-after': '9' }, 0), 9000);
  assert.equal(retryAfterMs({ 'retry-after': '2' }, 0), 2000);
  assert.equal(retryAfterMs({ 'retry-after': '0.5' }, 0), 500);
  assert.equal(retryAfterMs({ 'retry-after': ['4', '9'] }, 0), 4000);
  assert.equal(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now), 3000);
  assert.equal(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now + 10_000), 0);
  assert.equal(retryAfterMs({ 'retry-after': '-1' }, 0), undefined);
  assert.equal(retryAfterMs({ 'retry-after': 'soon' }, 0), undefined);
  assert.equal(retryAfterMs({ 'retry-after': ' ' }, 0), undefined);
  assert.equal(retryAfterMs({}, 0), undefined);
});

test('the wait: headers win over a body wait; the client sees it in whole seconds, rounded up', () => {
  const reading = readUpstreamError(503, { 'retry-after-ms': '1200' }, { retryAfterMs: 30_000 }, 0);
  assert.equal(reading.retryAfterMs, 1200);
  assert.equal(reading.error.retryAfterSeconds, 2);
  const fromBody = readUpstreamError(429, {}, { retryAfterMs: 21_500 }, 0);
  assert.equal(fromBody.retryAfterMs, 21_500);
  assert.equal(fromBody.error.retryAfterSeconds, 22);
  assert.equal(readUpstreamError(429, {}, {}, 0).error.retryAfterSeconds, undefined);
});

test('body marks refine the kind: a quota on a 429, a refused key on any status', () => {
  assert.equal(readUpstreamError(429, {}, { quota: true }, 0).error.kind, 'quota');
  assert.equal(readUpstreamError(400, {}, { quota: true }, 0).error.kind, 'invalid_request');
  const refused = readUpstreamError(
    400,
    {},
    { credentialsRejected: true, message: 'key AIza-x bad' },
    0,
  ).error;
  assert.deepEqual(
    [refused.kind, refused.message],
    ['upstream', "the upstream rejected the gateway's credentials"],
  );
  assert.equal(readUpstreamError(400, {}, { param: 'messages' }, 0).error.param, 'messages');
  assert.equal(readUpstreamError(500, {}, { param: 'messages' }, 0).error.param, undefined);
});
