import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../ir/index.ts';
import fc from 'fast-check';
import { createUpstreamErrorScrubber, maxScannedChars } from './upstream-error-text.ts';

const key = 'sk-proj-AbCdEf0123456789GhIjKl';
const scrubber = createUpstreamErrorScrubber(
  [key, 'sk-ant-api03-ZyXwVu9876543210', 'AIzaSyQwErTy1234567890'],
  ['https://llm.internal.example:8443/v1', 'http://10.1.2.3:9000'],
);

function scrubbed(message: string, kind: GatewayError['kind'] = 'invalid_request', status = 400): string {
  return scrubber.scrub(new GatewayError(kind, message), status).message;
}

test('a key in any case, without its prefix or in part, never survives', () => {
  for (const variant of [
    key,
    key.toUpperCase(),
    key.toLowerCase(),
    'AbCdEf0123456789GhIjKl', // no prefix
    'ZyXwVu9876543210', // sk-ant- key without its prefix
    'SyQwErTy1234567890', // AIza key without AIza
    '0123456789GhIj', // a piece of 14 characters
  ]) {
    const text = scrubbed(`Incorrect API key provided: ${variant}. Check it.`);
    assert.ok(!text.toLowerCase().includes(variant.toLowerCase()), `${variant}: ${text}`);
    assert.match(text, /^Incorrect API key provided: \[redacted\]/);
  }
});

test('upstream base URLs, hosts, internal URLs and private addresses are replaced', () => {
  const text = scrubbed(
    'see https://llm.internal.example:8443/v1/chat or http://metadata.google.internal/computeMetadata, ' +
      'host llm.internal.example:8443 and llm.internal.example, 10.1.2.3:9000, 192.168.0.7, 172.20.1.1, ' +
      '127.0.0.1:8080, 169.254.169.254, localhost:3000, [::1]:80, fd12:3456::1',
  );
  for (const leak of [
    'internal.example',
    '10.1.2.3',
    '192.168',
    '172.20',
    '127.0.0.1',
    '169.254',
    'localhost',
    '::1',
    'fd12',
    'metadata.google',
  ])
    assert.ok(!text.includes(leak), `${leak} in ${text}`);
  assert.match(text, /^see \[url\] or \[url\], host \[upstream\]/);
});

test('credential-shaped words and Bearer values are replaced; ordinary words stay', () => {
  const text = scrubbed(
    'Authorization: Bearer abc.def token 9f8e7d6c5b4a39281706f5e4d3c2b1a0 for max_tokens too large',
  );
  assert.equal(text, 'Authorization: [redacted] token [redacted] for max_tokens too large');
});

test('5xx and server-side kinds show no upstream text, only the status class', () => {
  assert.equal(scrubbed('db at 10.0.0.5 exploded', 'internal', 500), 'the upstream failed (HTTP 5xx)');
  assert.equal(scrubbed('upstream: Overloaded', 'overloaded', 529), 'the upstream is overloaded (HTTP 5xx)');
  assert.equal(
    scrubbed('odd 4xx mapped to a server kind', 'upstream', 418),
    'the upstream failed (HTTP 4xx)',
  );
  // In-stream errors have no status: the kind decides.
  assert.equal(scrubber.scrub(new GatewayError('internal', 'stack trace …')).message, 'the upstream failed');
});

test('long text is cut; the kind, param and retry-after are kept', () => {
  const error = scrubber.scrub(
    new GatewayError('rate_limited', `slow down ${'please '.repeat(200)}`, {
      retryAfterSeconds: 7,
      param: 'x',
    }),
    429,
  );
  assert.ok(error.message.length <= 401);
  assert.equal(error.kind, 'rate_limited');
  assert.equal(error.retryAfterSeconds, 7);
  assert.equal(error.param, 'x');
  const plain = new GatewayError('invalid_request', 'max_tokens: must be at most 4096');
  assert.equal(scrubber.scrub(plain, 400), plain);
});

test('a long message is cut before any pattern sees it, and what is shown stays scrubbed', () => {
  // Every regular expression the scrubber runs is recorded with the length it was handed.
  const replace = RegExp.prototype[Symbol.replace];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with its `this` and restored
  const exec = RegExp.prototype.exec;
  let longest = 0;
  RegExp.prototype[Symbol.replace] = function (this: RegExp, text: string, replacer: never) {
    longest = Math.max(longest, text.length);
    return replace.call(this, text, replacer);
  } as typeof replace;
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    longest = Math.max(longest, text.length);
    return exec.call(this, text);
  };
  try {
    const adversarial = [
      'a.'.repeat(60_000),
      'a'.repeat(120_000),
      'a1-'.repeat(40_000),
      '1.'.repeat(60_000),
      'fc00:'.repeat(24_000),
      '[fe80:'.repeat(20_000),
      'http://'.repeat(17_000),
      'bearer '.repeat(17_000),
      `${'x'.repeat(1_590)} ${key} tail`,
    ];
    for (const field of adversarial) {
      const text = scrubbed(`Extra inputs are not permitted, input: ${field}`);
      assert.ok(text.length <= 401, `${field.slice(0, 12)}: ${text.length}`);
      assert.ok(text.endsWith('…'), text.slice(-20));
      assert.ok(text.startsWith('Extra inputs are not permitted, input: '), text.slice(0, 60));
      assert.ok(!text.toLowerCase().includes('0123456789ghij'), text);
    }
  } finally {
    RegExp.prototype[Symbol.replace] = replace;
    RegExp.prototype.exec = exec;
  }
  assert.ok(longest > 0 && longest <= maxScannedChars, `a pattern saw ${longest} characters`);
});

test('property: for any text, the shown message is bounded and carries no key, URL or address', () => {
  const piece = fc.constantFrom(
    'a.',
    'a',
    '1',
    '.',
    ':',
    '//',
    'http://',
    'fc00:',
    '[',
    ']',
    ' ',
    '-',
    'bearer ',
  );
  // Standing as words: the patterns keep their word boundaries (`1localhost` is not an address).
  const hazard = fc
    .constantFrom(key, key.toUpperCase(), 'https://evil.example/x', '10.1.2.3', 'localhost:80')
    .map((word) => ` ${word} `);
  fc.assert(
    fc.property(
      fc.array(fc.oneof({ weight: 9, arbitrary: piece }, { weight: 1, arbitrary: hazard }), {
        maxLength: 3_000,
        size: 'max',
      }),
      (parts) => {
        const message = parts.join('');
        const text = scrubbed(message);
        assert.ok(text.length <= 401);
        const lower = text.toLowerCase();
        for (const secret of ['abcdef0123456789', 'evil.example', '10.1.2.3', 'localhost'])
          assert.ok(!lower.includes(secret), `${secret} in ${text}`);
      },
    ),
    { numRuns: 200 },
  );
});
