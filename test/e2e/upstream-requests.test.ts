/**
 * What goes upstream, exactly: every surface × family pair, streaming and not, with the three
 * families' upstreams pointed at a recording upstream (keys up-a, up-b, up-c). Method, path,
 * credential header, version header, body; the client key never leaves the gateway.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  alphaAuth,
  betaAuth,
  gammaAuth,
  gammaPath,
  post,
  sseJson,
  writeTempConfig,
  type AlphaChunk,
  type AlphaCompletion,
  type BetaMessage,
  type GammaResponse,
  type HttpAnswer,
} from '../kit/e2e.ts';
import {
  startRecordingUpstream,
  type RecordedRequest,
  type RecordingUpstream,
} from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const upstreamKeys = { alpha: 'up-a', beta: 'up-b', gamma: 'up-c' } as const;
type Family = keyof typeof upstreamKeys;

let upstream: RecordingUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    ALPHA_BASE_URL: upstream.url,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ALPHA_API_KEY: upstreamKeys.alpha,
    BETA_API_KEY: upstreamKeys.beta,
    GAMMA_API_KEY: upstreamKeys.gamma,
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

/** Runs `call` and returns its answer with the upstream requests it caused. */
async function capture(
  call: () => Promise<HttpAnswer>,
): Promise<{ answer: HttpAnswer; sent: RecordedRequest[] }> {
  const before = upstream.requests.length;
  const answer = await call();
  return { answer, sent: upstream.requests.slice(before) };
}

/** Header names the gateway may send upstream besides the family's credential headers. */
const transportHeaders = ['connection', 'content-length', 'content-type', 'host'];

const credentialHeaders: Record<Family, Record<string, string>> = {
  alpha: { authorization: `Bearer ${upstreamKeys.alpha}` },
  // The vendor's names beside the spec's (providers/anthropic, providers/gemini): a family
  // upstream pointed at the vendor's own API works too.
  beta: { 'x-api-key': upstreamKeys.beta, 'beta-version': '2023-06-01', 'anthropic-version': '2023-06-01' },
  gamma: { 'x-gamma-api-key': upstreamKeys.gamma, 'x-goog-api-key': upstreamKeys.gamma },
};

/** Method, path, the exact header set, the family's credential, JSON content type, no client key anywhere. */
function assertUpstreamEnvelope(request: RecordedRequest, family: Family, path: string): void {
  assert.equal(request.method, 'POST');
  assert.equal(request.path, path);
  const expected = credentialHeaders[family];
  assert.deepEqual(
    Object.keys(request.headers).sort(),
    [...transportHeaders, ...Object.keys(expected)].sort(),
    'exactly the transport headers and the family credential',
  );
  for (const [name, value] of Object.entries(expected)) assert.equal(request.headers[name], value, name);
  assert.match(String(request.headers['content-type']), /^application\/json/);
  const everything = JSON.stringify(request.headers) + request.path + request.body;
  assert.ok(!everything.includes(gateway.key), 'the client key never goes upstream');
  for (const [other, key] of Object.entries(upstreamKeys)) {
    if (other !== family) assert.ok(!everything.includes(key), `no ${other} key to the ${family} upstream`);
  }
  assert.ok(!request.path.includes('key='), 'no key in the upstream URL');
}

const modelOf: Record<Family, string> = { alpha: 'A-2', beta: 'B-1', gamma: 'C-1' };

function upstreamPathFor(family: Family, stream: boolean): string {
  if (family === 'alpha') return '/v1/chat/completions';
  if (family === 'beta') return '/v1/messages';
  return gammaPath('C-1', stream);
}

// The same conversation in each surface's shape: a system prompt, three turns, sampling, stop, limit.
type Surface = 'alpha' | 'unified' | 'beta' | 'gamma';
const surfaces: Surface[] = ['alpha', 'unified', 'beta', 'gamma'];

function clientCall(surface: Surface, model: string, stream: boolean): Promise<HttpAnswer> {
  if (surface === 'alpha' || surface === 'unified') {
    const path = surface === 'alpha' ? '/v1/chat/completions' : '/api/alpha/v1/chat/completions';
    return post(gateway.url, path, alphaAuth(gateway.key), {
      model,
      stream,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'More' },
      ],
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      max_tokens: 100,
    });
  }
  if (surface === 'beta') {
    return post(gateway.url, '/v1/messages', betaAuth(gateway.key), {
      model,
      stream,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'More' },
      ],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 5,
      stop_sequences: ['END'],
      max_tokens: 100,
    });
  }
  return post(gateway.url, gammaPath(model, stream), gammaAuth(gateway.key), {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hello' }] },
      { role: 'user', parts: [{ text: 'More' }] },
    ],
    generationConfig: { temperature: 0.5, topP: 0.9, topK: 5, stopSequences: ['END'], maxOutputTokens: 100 },
  });
}

/** The upstream body the gateway must send for this pair (translated, or the client's own body). */
function expectedUpstreamBody(surface: Surface, family: Family, stream: boolean): unknown {
  const sameFamily = (surface === 'alpha' || surface === 'unified' ? 'alpha' : surface) === family;
  const topK = surface === 'beta' || surface === 'gamma';
  if (family === 'alpha') {
    const body: Record<string, unknown> = {
      model: 'A-2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'More' },
      ],
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      max_tokens: 100,
    };
    if (sameFamily) body.stream = stream;
    if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    return body;
  }
  if (family === 'beta') {
    if (sameFamily) {
      return {
        model: 'B-1',
        stream,
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello' },
          { role: 'user', content: 'More' },
        ],
        temperature: 0.5,
        top_p: 0.9,
        top_k: 5,
        stop_sequences: ['END'],
        max_tokens: 100,
      };
    }
    const text = (value: string): { type: string; text: string }[] => [{ type: 'text', text: value }];
    return {
      model: 'B-1',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: text('Hi') },
        { role: 'assistant', content: text('Hello') },
        { role: 'user', content: text('More') },
      ],
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      ...(topK ? { top_k: 5 } : {}),
      ...(stream ? { stream: true } : {}),
    };
  }
  return {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hello' }] },
      { role: 'user', parts: [{ text: 'More' }] },
    ],
    generationConfig: {
      temperature: 0.5,
      topP: 0.9,
      ...(topK ? { topK: 5 } : {}),
      stopSequences: ['END'],
      maxOutputTokens: 100,
    },
  };
}

/** The answer is a success in the surface's shape naming the requested model. */
function assertClientAnswer(surface: Surface, answer: HttpAnswer, model: string, stream: boolean): void {
  assert.equal(answer.status, 200, answer.text);
  if (stream) {
    assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
    const chunks = sseJson(answer.text);
    assert.ok(chunks.length > 1);
    if (surface === 'alpha' || surface === 'unified') {
      for (const chunk of chunks as AlphaChunk[]) assert.equal(chunk.model, model);
    } else if (surface === 'gamma') {
      for (const chunk of chunks as GammaResponse[]) assert.ok(!('error' in chunk), JSON.stringify(chunk));
    } else {
      const start = chunks[0] as { type: string; message: BetaMessage };
      assert.equal(start.type, 'message_start');
      assert.equal(start.message.model, model);
    }
    return;
  }
  if (surface === 'alpha' || surface === 'unified')
    assert.equal((answer.json as AlphaCompletion).model, model);
  else if (surface === 'beta') assert.equal((answer.json as BetaMessage).model, model);
  else assert.ok(((answer.json as GammaResponse).candidates?.length ?? 0) > 0);
}

describe('every surface × family pair sends the exact upstream request', () => {
  for (const surface of surfaces) {
    for (const family of ['alpha', 'beta', 'gamma'] as const) {
      for (const stream of [false, true]) {
        test(`${surface} surface → ${modelOf[family]} (${stream ? 'stream' : 'non-stream'})`, async () => {
          const { answer, sent } = await capture(() => clientCall(surface, modelOf[family], stream));
          assertClientAnswer(surface, answer, modelOf[family], stream);
          assert.equal(sent.length, 1, 'one upstream call');
          const request = sent[0]!;
          assertUpstreamEnvelope(request, family, upstreamPathFor(family, stream));
          assert.deepEqual(request.json, expectedUpstreamBody(surface, family, stream));
          const warning = answer.headers.get('warning') ?? '';
          if (family === 'alpha' && (surface === 'beta' || surface === 'gamma')) {
            assert.match(warning, /^299 modelgate ".*top_k.*dropped/, 'top_k dropped with a warning');
          } else {
            assert.equal(warning, '', 'nothing dropped, no warning');
          }
        });
      }
    }
  }
});

describe('translation decisions seen upstream', () => {
  test('B requires max_tokens: filled with the model max when the client omitted it', async () => {
    const cases = [
      { surface: 'alpha', model: 'B-1', max: 8192 },
      { surface: 'alpha', model: 'B-2', max: 4096 },
      { surface: 'gamma', model: 'B-1', max: 8192 },
      { surface: 'gamma', model: 'B-4', max: 4096 },
    ] as const;
    for (const { surface, model, max } of cases) {
      for (const stream of [false, true]) {
        const { answer, sent } = await capture(() =>
          surface === 'alpha'
            ? post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
                model,
                stream,
                messages: [{ role: 'user', content: 'Hi' }],
              })
            : post(gateway.url, gammaPath(model, stream), gammaAuth(gateway.key), {
                contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
              }),
        );
        assert.equal(answer.status, 200, answer.text);
        assert.equal(sent.length, 1);
        assertUpstreamEnvelope(sent[0]!, 'beta', '/v1/messages');
        const body = sent[0]!.json as { model: string; max_tokens: number };
        assert.equal(body.model, model);
        assert.equal(body.max_tokens, max, `${surface} → ${model}`);
      }
    }
  });

  test('temperature, top_p and a string stop, from the A surface to each family', async () => {
    const call = (model: string): Promise<{ answer: HttpAnswer; sent: RecordedRequest[] }> =>
      capture(() =>
        post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
          model,
          messages: [{ role: 'user', content: 'Hi' }],
          temperature: 1.5,
          top_p: 0.25,
          stop: 'END',
          max_tokens: 50,
        }),
      );
    const toB = await call('B-1');
    assert.equal(toB.answer.status, 200);
    assert.deepEqual(toB.sent[0]!.json, {
      model: 'B-1',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stop_sequences: ['END'],
      temperature: 1,
      top_p: 0.25,
    });
    assert.match(toB.answer.headers.get('warning') ?? '', /299 modelgate ".*temperature 1\.5.*clamped to 1/);

    const toC = await call('C-1');
    assert.equal(toC.answer.status, 200);
    assert.deepEqual(toC.sent[0]!.json, {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      generationConfig: { temperature: 1.5, topP: 0.25, maxOutputTokens: 50, stopSequences: ['END'] },
    });
    assert.equal(toC.answer.headers.get('warning'), null);

    const toA = await call('A-2');
    assert.equal(toA.answer.status, 200);
    assert.deepEqual(toA.sent[0]!.json, {
      model: 'A-2',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 1.5,
      top_p: 0.25,
      stop: 'END',
      max_tokens: 50,
    });
  });

  test('n=2 to a B model: two upstream calls merged into two choices (with a warning)', async () => {
    const { answer, sent } = await capture(() =>
      post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
        model: 'B-1',
        n: 2,
        max_tokens: 30,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(sent.length, 2);
    for (const request of sent) {
      assertUpstreamEnvelope(request, 'beta', '/v1/messages');
      assert.deepEqual(request.json, {
        model: 'B-1',
        max_tokens: 30,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      });
    }
    const completion = answer.json as AlphaCompletion;
    assert.deepEqual(
      completion.choices.map((choice) => choice.index),
      [0, 1],
    );
    for (const choice of completion.choices) assert.ok((choice.message.content ?? '').length > 0);
    assert.match(answer.headers.get('warning') ?? '', /n=2 is served by 2 upstream calls/);
    // The simulator is deterministic: both calls produced the same reply; usage is the sum.
    const single = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'B-1',
      max_tokens: 30,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const one = single.json as AlphaCompletion;
    assert.equal(completion.usage!.completion_tokens, 2 * one.usage!.completion_tokens);
    assert.equal(completion.usage!.prompt_tokens, 2 * one.usage!.prompt_tokens);
  });

  test('n=2 streaming to a B model: two upstream streams, choices 0 and 1 in one A stream', async () => {
    const { answer, sent } = await capture(() =>
      post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
        model: 'B-1',
        n: 2,
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 300,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(sent.length, 2);
    for (const request of sent) assert.equal((request.json as { stream?: boolean }).stream, true);
    assert.ok(answer.text.trimEnd().endsWith('data: [DONE]'));
    const chunks = sseJson(answer.text) as AlphaChunk[];
    const texts: string[] = ['', ''];
    const finishes: (string | null)[] = [null, null];
    for (const chunk of chunks) {
      for (const choice of chunk.choices) {
        texts[choice.index] = (texts[choice.index] ?? '') + (choice.delta.content ?? '');
        if (choice.finish_reason !== null) finishes[choice.index] = choice.finish_reason;
      }
    }
    assert.ok(texts[0]!.length > 0);
    assert.equal(texts[0], texts[1]);
    assert.deepEqual(finishes, ['stop', 'stop']);
    const usage = chunks.at(-1)!.usage;
    assert.ok(usage, 'usage chunk last');
  });

  test('C candidateCount 2 to a B model: two calls, two candidates', async () => {
    const { answer, sent } = await capture(() =>
      post(gateway.url, gammaPath('B-2', false), gammaAuth(gateway.key), {
        contents: [{ parts: [{ text: 'Hi' }] }],
        generationConfig: { candidateCount: 2, maxOutputTokens: 20 },
      }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(sent.length, 2);
    const body = answer.json as GammaResponse;
    assert.deepEqual(
      body.candidates?.map((candidate) => candidate.index),
      [0, 1],
    );
  });

  test('n=2 to a C model is one call with candidateCount 2; to an A model it stays n=2', async () => {
    const toC = await capture(() =>
      post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
        model: 'C-1',
        n: 2,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    assert.equal(toC.answer.status, 200, toC.answer.text);
    assert.equal(toC.sent.length, 1);
    assert.deepEqual((toC.sent[0]!.json as { generationConfig: unknown }).generationConfig, {
      candidateCount: 2,
    });
    assert.equal((toC.answer.json as AlphaCompletion).choices.length, 2);
    const toA = await capture(() =>
      post(gateway.url, '/v1/messages', betaAuth(gateway.key), {
        model: 'A-2',
        max_tokens: 20,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    assert.equal(toA.sent.length, 1);
  });

  test('C surface with ?key=: the client key stays out of the upstream path', async () => {
    for (const model of ['A-2', 'B-1', 'C-1']) {
      const { answer, sent } = await capture(() =>
        post(
          gateway.url,
          `${gammaPath(model, true)}&key=${gateway.key}`,
          {},
          {
            contents: [{ parts: [{ text: 'Hi' }] }],
          },
        ),
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(sent.length, 1);
      const family: Family = model === 'A-2' ? 'alpha' : model === 'B-1' ? 'beta' : 'gamma';
      assertUpstreamEnvelope(sent[0]!, family, upstreamPathFor(family, true));
    }
  });
});

describe('same-family pass-through', () => {
  test('A: unknown fields (user, metadata, vendor extras) preserved; only model changed', async () => {
    for (const path of ['/v1/chat/completions', '/api/alpha/v1/chat/completions']) {
      const body = {
        model: 'A-3',
        messages: [{ role: 'user', content: 'Hi', name: 'ann' }],
        user: 'end-user-42',
        metadata: { ticket: 'T-1', nested: { deep: [1, 2, 3] } },
        logit_bias: { '50256': -100 },
        x_vendor_extension: { keep: true },
        seed: 7,
      };
      const { answer, sent } = await capture(() => post(gateway.url, path, alphaAuth(gateway.key), body));
      assert.equal(answer.status, 200, answer.text);
      assert.equal(sent.length, 1);
      assertUpstreamEnvelope(sent[0]!, 'alpha', '/v1/chat/completions');
      assert.deepEqual(sent[0]!.json, body);
      assert.equal((answer.json as AlphaCompletion).model, 'A-3');
    }
  });

  test('A stream: only include_usage is added (the gateway meters), the client does not see usage', async () => {
    const body = {
      model: 'A-2',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
      user: 'u',
      metadata: { a: '1' },
    };
    const { answer, sent } = await capture(() =>
      post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), body),
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(sent[0]!.json, { ...body, stream_options: { include_usage: true } });
    for (const chunk of sseJson(answer.text) as AlphaChunk[]) assert.ok(chunk.usage == null);
  });

  test('B: metadata and unknown fields preserved; only model changed', async () => {
    for (const stream of [false, true]) {
      const body = {
        model: 'B-3',
        max_tokens: 40,
        stream,
        metadata: { user_id: 'user-7' },
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] },
        ],
        service_tier: 'auto',
        x_vendor_extension: [1, { two: 2 }],
      };
      const { answer, sent } = await capture(() =>
        post(gateway.url, '/v1/messages', betaAuth(gateway.key), body),
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(sent.length, 1);
      assertUpstreamEnvelope(sent[0]!, 'beta', '/v1/messages');
      assert.deepEqual(sent[0]!.json, body);
    }
  });

  test('B: the beta-features flags go on with the pass-through; a translated call says it dropped them', async () => {
    const flags = { 'anthropic-beta': 'prompt-caching-2024-07-31, output-128k-2025-02-19' };
    const body = (model: string): Record<string, unknown> => ({
      model,
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const same = await capture(() =>
      post(gateway.url, '/v1/messages', { ...betaAuth(gateway.key), ...flags }, body('B-1')),
    );
    assert.equal(same.answer.status, 200, same.answer.text);
    assert.equal(same.sent[0]!.headers['anthropic-beta'], 'prompt-caching-2024-07-31,output-128k-2025-02-19');
    assert.equal(same.answer.headers.get('warning'), null);
    const other = await capture(() =>
      post(gateway.url, '/v1/messages', { ...betaAuth(gateway.key), ...flags }, body('A-2')),
    );
    assert.equal(other.answer.status, 200, other.answer.text);
    assertUpstreamEnvelope(other.sent[0]!, 'alpha', '/v1/chat/completions');
    assert.match(
      other.answer.headers.get('warning') ?? '',
      /the anthropic-beta header was not forwarded to A-2 \(alpha family, translated\)/,
    );
    const malformed = await capture(() =>
      post(
        gateway.url,
        '/v1/messages',
        { ...betaAuth(gateway.key), 'anthropic-beta': 'caching; drop table' },
        body('B-1'),
      ),
    );
    assert.equal(malformed.answer.status, 400);
    assert.equal(malformed.sent.length, 0);
    assert.deepEqual(
      (malformed.answer.json as { error: { type: string } }).error.type,
      'invalid_request_error',
    );
    assert.match(malformed.answer.text, /anthropic-beta: send comma-separated feature names/);
  });

  test('C: safetySettings and unknown fields preserved; the body is unchanged', async () => {
    for (const stream of [false, true]) {
      const body = {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
        generationConfig: { maxOutputTokens: 30, responseMimeType: 'text/plain' },
        cachedContent: 'cachedContents/abc',
        x_vendor_extension: { keep: true },
      };
      const { answer, sent } = await capture(() =>
        post(gateway.url, gammaPath('C-2', stream), gammaAuth(gateway.key), body),
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(sent.length, 1);
      assertUpstreamEnvelope(sent[0]!, 'gamma', gammaPath('C-2', stream));
      assert.deepEqual(sent[0]!.json, body);
    }
  });
});

describe('a config file maps A-2 to upstream id real-a2', () => {
  let mapped: TestGateway;
  let config: { path: string; remove(): void };

  before(async () => {
    config = writeTempConfig('modelgate.yaml', 'models:\n  - name: A-2\n    upstreamModel: real-a2\n');
    mapped = await startTestGateway(
      { ALPHA_BASE_URL: upstream.url, ALPHA_API_KEY: upstreamKeys.alpha },
      config.path,
    );
  });

  after(async () => {
    await mapped.close();
    config.remove();
  });

  test('upstream body says real-a2, every client sees A-2 (pass-through and translated, stream and not)', async () => {
    for (const stream of [false, true]) {
      const viaA = await capture(() =>
        post(mapped.url, '/v1/chat/completions', alphaAuth(mapped.key), {
          model: 'A-2',
          stream,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      );
      assert.equal(viaA.answer.status, 200, viaA.answer.text);
      assert.equal((viaA.sent[0]!.json as { model: string }).model, 'real-a2');
      if (stream) {
        for (const chunk of sseJson(viaA.answer.text) as AlphaChunk[]) assert.equal(chunk.model, 'A-2');
      } else {
        assert.equal((viaA.answer.json as AlphaCompletion).model, 'A-2');
      }
      // (The simulator's reply text names the id it was called with; no JSON field may.)
      assert.ok(!viaA.answer.text.includes('"real-a2"'), 'the upstream id is not shown');

      const viaB = await capture(() =>
        post(mapped.url, '/v1/messages', betaAuth(mapped.key), {
          model: 'A-2',
          max_tokens: 20,
          stream,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      );
      assert.equal(viaB.answer.status, 200, viaB.answer.text);
      assert.equal((viaB.sent[0]!.json as { model: string }).model, 'real-a2');
      assert.ok(!viaB.answer.text.includes('"real-a2"'), 'the upstream id is not shown');
      if (!stream) assert.equal((viaB.answer.json as BetaMessage).model, 'A-2');
    }
  });
});
