/**
 * Header values built from client input stay valid: a body field name that is non-ASCII or holds
 * CR/LF ends up (percent-encoded) in the `warning` header of a translated answer, never in a 500
 * after the upstream was called; thousands of such fields give a bounded head.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post } from '../kit/e2e.ts';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';

let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup();
});
after(async () => {
  await setup.close();
});

const oddNames = ['中', 'a\r\nx-injected: yes', 'tab\there', 'nul\u0000', '\ud800lone', 'é', '"quoted\\"'];

function oddFields(): Record<string, number> {
  return Object.fromEntries(oddNames.map((name, index) => [name, index]));
}

/** Every value is visible ASCII (or space/tab), and no header was injected. */
function assertSafeWarnings(headers: Headers, label: string): string {
  const warning = headers.get('warning') ?? '';
  assert.notEqual(warning, '', `${label}: a warning names the dropped fields`);
  assert.match(warning, /^[\t\x20-\x7e]*$/, label);
  assert.equal(headers.get('x-injected'), null, label);
  return warning;
}

test('odd field names on the A surface to a B model: 200 with an encoded warning, one upstream call', async () => {
  for (const stream of [false, true]) {
    const before = setup.upstream.requests.length;
    const answer = await post(setup.gateway.url, '/v1/chat/completions', alphaAuth(setup.gateway.key), {
      model: 'B-1',
      max_tokens: 20,
      stream,
      messages: [{ role: 'user', content: 'Hi' }],
      ...oddFields(),
    });
    assert.equal(answer.status, 200, `stream ${stream}: ${answer.text.slice(0, 300)}`);
    const warning = assertSafeWarnings(answer.headers, `stream ${stream}`);
    assert.match(warning, /%E4%B8%AD has no equivalent/);
    assert.match(warning, /a%0D%0Ax-injected: yes has no equivalent/);
    assert.equal(setup.upstream.requests.length - before, 1);
  }
});

test('odd field names on the B and C surfaces to an A model: 200, encoded warnings', async () => {
  const beta = await post(setup.gateway.url, '/v1/messages', betaAuth(setup.gateway.key), {
    model: 'A-2',
    max_tokens: 20,
    messages: [{ role: 'user', content: 'Hi' }],
    ...oddFields(),
  });
  assert.equal(beta.status, 200, beta.text.slice(0, 300));
  assertSafeWarnings(beta.headers, 'beta');
  const gamma = await post(setup.gateway.url, gammaPath('A-2', false), gammaAuth(setup.gateway.key), {
    contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    ...oddFields(),
  });
  // C's surface may refuse unknown fields; whatever it answers, it is never a 500.
  assert.ok(gamma.status < 500, gamma.text.slice(0, 300));
  if (gamma.status === 200 && gamma.headers.get('warning') !== null)
    assertSafeWarnings(gamma.headers, 'gamma');
});

test('5,000 unknown fields with long names: the warnings are bounded, the answer arrives', async () => {
  const fields = Object.fromEntries(
    Array.from({ length: 5_000 }, (_, index) => [`field_${index}_${'x'.repeat(1_000)}`, index]),
  );
  const answer = await post(setup.gateway.url, '/v1/chat/completions', alphaAuth(setup.gateway.key), {
    model: 'B-1',
    max_tokens: 20,
    messages: [{ role: 'user', content: 'Hi' }],
    ...fields,
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  const warning = answer.headers.get('warning') ?? '';
  assert.ok(warning.length < 8_000, `warning header of ${warning.length} characters`);
  assert.match(warning, /4985 more warnings/);
});
