/**
 * `__proto__` and `constructor` keys anywhere in a body change no object prototype: not in the
 * gateway (same process here, so checked directly), not in what goes upstream.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, betaAuth, gammaAuth, post } from '../kit/e2e.ts';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';

let setup: HostileSetup;
const prototypeNames = (): string[] => Object.getOwnPropertyNames(Object.prototype).sort();
let baseline: string[];
before(async () => {
  setup = await startHostileSetup();
  baseline = prototypeNames();
});
after(async () => {
  await setup.close();
});

/** `__proto__` as an own key, as JSON.parse makes it (an object literal would set the prototype). */
const poison =
  '{"__proto__":{"polluted":"yes","model":"evil"},"constructor":{"prototype":{"polluted":"yes"}}}';

function withPoison(json: Record<string, unknown>, at: (body: Record<string, unknown>) => unknown): string {
  // Mark the spot with a placeholder, then swap in the raw poison text.
  at(json);
  return JSON.stringify(json).replaceAll('"@@POISON@@"', poison);
}

function assertClean(label: string): void {
  const probe: Record<string, unknown> = {};
  assert.equal(probe.polluted, undefined, `${label}: Object.prototype polluted`);
  assert.equal(({} as Record<string, unknown>).model, undefined, `${label}: model on Object.prototype`);
  assert.deepEqual(prototypeNames(), baseline, `${label}: Object.prototype changed`);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
}

const places: [string, (body: Record<string, unknown>) => void][] = [
  ['top level', (body) => (body.extra = '@@POISON@@')],
  ['metadata', (body) => (body.metadata = '@@POISON@@')],
  [
    'a message',
    (body) => {
      const messages = body.messages as Record<string, unknown>[] | undefined;
      if (messages?.[0] !== undefined) messages[0].extra = '@@POISON@@';
      const contents = body.contents as Record<string, unknown>[] | undefined;
      if (contents?.[0] !== undefined) contents[0].extra = '@@POISON@@';
    },
  ],
  [
    'tool parameters',
    (body) => {
      const parameters = { type: 'object', properties: '@@POISON@@' };
      if (body.contents !== undefined) {
        body.tools = [{ functionDeclarations: [{ name: 'f', description: 'd', parameters }] }];
      } else if (
        body.max_tokens !== undefined &&
        body.stream_options === undefined &&
        body.system !== undefined
      ) {
        body.tools = [{ name: 'f', description: 'd', input_schema: parameters }];
      } else {
        body.tools = [{ type: 'function', function: { name: 'f', parameters } }];
      }
    },
  ],
  ['sampling settings', (body) => (body.generationConfig = '@@POISON@@')],
];

type Surface = 'alpha' | 'beta' | 'gamma';

function request(
  surface: Surface,
  model: string,
): { path: string; headers: Record<string, string>; body: Record<string, unknown> } {
  const key = setup.gateway.key;
  if (surface === 'alpha')
    return {
      path: '/v1/chat/completions',
      headers: alphaAuth(key),
      body: { model, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] },
    };
  if (surface === 'beta')
    return {
      path: '/v1/messages',
      headers: betaAuth(key),
      body: { model, max_tokens: 20, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] },
    };
  return {
    path: `/v1/models/${model}:generateContent`,
    headers: gammaAuth(key),
    body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
  };
}

for (const [place, at] of places) {
  test(`__proto__ / constructor in ${place}: no prototype changes, every surface to every family`, async () => {
    for (const surface of ['alpha', 'beta', 'gamma'] as const) {
      for (const model of ['A-2', 'B-1', 'C-1']) {
        const built = request(surface, model);
        const from = setup.upstream.requests.length;
        const answer = await post(setup.gateway.url, built.path, built.headers, withPoison(built.body, at));
        const label = `${place}, ${surface} → ${model}`;
        assert.ok(
          answer.status === 200 || (answer.status >= 400 && answer.status < 500),
          `${label}: ${answer.status} ${answer.text}`,
        );
        assertClean(label);
        for (const sent of setup.upstream.requests.slice(from)) {
          // Whatever went upstream parses without touching prototypes, and names the configured model.
          const parsed = JSON.parse(sent.body) as Record<string, unknown>;
          assert.equal(Object.getPrototypeOf(parsed), Object.prototype, label);
          if (typeof parsed.model === 'string') assert.notEqual(parsed.model, 'evil', label);
          assert.doesNotMatch(sent.path, /evil/, label);
        }
      }
    }
  });
}
