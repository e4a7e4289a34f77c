import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ChatRequest, Message, ToolDefinition } from '../ir/index.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import { planReply, splitFragments, type ChoicePlan, type PlanDependencies } from './plan.ts';
import { toPieces, trimWords } from './reply-text.ts';
import { sampleArguments } from './schema-sample.ts';
import { TokenCountCache } from './token-cache.ts';

function request(
  overrides: Partial<ChatRequest> = {},
  text = 'Tell me about the weather in Paris today',
): ChatRequest {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text }] }];
  return {
    model: 'sim-1',
    system: [],
    messages,
    tools: [],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
    ...overrides,
  };
}

function deps(): PlanDependencies {
  let next = 0;
  return { counter: new TokenCountCache(), newToolCallId: () => `call_${++next}` };
}

function textOf(choice: ChoicePlan | undefined): string {
  assert.ok(choice !== undefined);
  assert.equal(choice.calls.length, 0);
  return choice.pieces.map((piece) => piece.text).join('');
}

const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer' },
      detailed: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      where: { type: 'object', properties: { lat: { type: 'number' }, label: { type: ['string', 'null'] } } },
    },
    required: ['city'],
  },
};

test('text reply: echo, natural 30-60 token length, usage from the real tokenizer', () => {
  const plan = planReply(request(), deps());
  const text = textOf(plan.choices[0]);
  assert.match(text, /^Simulated reply from sim-1: Tell me about the weather in Paris today [a-z ]+\.$/);
  const tokens = countTextTokens(text);
  assert.ok(tokens >= 30 && tokens <= 64, `natural length ${tokens}`);
  assert.equal(plan.usage.outputTokens, tokens);
  assert.equal(plan.usage.inputTokens, countTextTokens('Tell me about the weather in Paris today'));
  assert.deepEqual(plan.choices[0]?.finishReason, { unified: 'stop' });
  assert.equal(plan.chunkCount, tokens);
});

test('deterministic: the same request gives the same reply; another request another filler', () => {
  assert.deepEqual(planReply(request(), deps()), planReply(request(), deps()));
  const other = textOf(planReply(request({}, 'Something else entirely'), deps()).choices[0]);
  assert.notEqual(other, textOf(planReply(request(), deps()).choices[0]));
});

test('the echo is trimmed to 40 words', () => {
  const long = Array.from({ length: 100 }, (_, index) => `w${index}`).join(' ');
  assert.equal(trimWords(long).split(' ').length, 40);
  const text = textOf(planReply(request({}, long), deps()).choices[0]);
  assert.ok(text.includes('w39') && !text.includes('w40 '));
});

test('input tokens count system, every message part and each tool definition', () => {
  const base = request({
    system: [{ type: 'text', text: 'You are terse.' }],
    tools: [weatherTool],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'c1',
            name: 'get_weather',
            content: [{ type: 'text', text: '18C' }],
            isError: false,
          },
        ],
      },
    ],
  });
  const expected =
    countTextTokens('You are terse.') +
    countTextTokens('hi') +
    countTextTokens('get_weather') +
    countTextTokens('{"city":"Paris"}') +
    countTextTokens('18C') +
    countTextTokens(JSON.stringify(weatherTool));
  assert.equal(planReply(base, deps()).usage.inputTokens, expected);
});

test('max output tokens cuts the reply and finishes with length', () => {
  const natural = planReply(request(), deps());
  const cut = planReply(request({ sampling: { maxOutputTokens: 5 } }), deps());
  assert.equal(cut.usage.outputTokens, 5);
  assert.deepEqual(cut.choices[0]?.finishReason, { unified: 'length' });
  assert.ok(textOf(natural.choices[0]).startsWith(textOf(cut.choices[0])));
  assert.equal(textOf(cut.choices[0]), 'Simulated reply from sim');
});

test('stop sequence cuts before the first match and reports which matched', () => {
  const plan = planReply(request({ sampling: { stopSequences: ['zzz', 'weather'] } }), deps());
  assert.equal(textOf(plan.choices[0]), 'Simulated reply from sim-1: Tell me about the ');
  assert.deepEqual(plan.choices[0]?.finishReason, { unified: 'stop', stopSequence: 'weather' });
  // The token ` weather` was generated (its leading space is shown), so it counts.
  assert.equal(
    plan.usage.outputTokens,
    countTextTokens('Simulated reply from sim-1: Tell me about the weather'),
  );
});

test('a stop sequence after the max-token cut does not apply', () => {
  const plan = planReply(request({ sampling: { stopSequences: ['Paris'], maxOutputTokens: 3 } }), deps());
  assert.deepEqual(plan.choices[0]?.finishReason, { unified: 'length' });
});

test('n candidates differ and are each deterministic', () => {
  const plan = planReply(request({ sampling: { candidateCount: 3 } }), deps());
  const texts = plan.choices.map(textOf);
  assert.equal(new Set(texts).size, 3);
  assert.deepEqual(
    planReply(request({ sampling: { candidateCount: 3 } }), deps()).choices.map(textOf),
    texts,
  );
  assert.equal(texts[0], textOf(planReply(request(), deps()).choices[0]));
  assert.equal(
    plan.usage.outputTokens,
    texts.reduce((sum, text) => sum + countTextTokens(text), 0),
  );
});

test('multi-byte text splits into pieces that never break a character', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
      const pieces = toPieces(text);
      assert.equal(pieces.map((piece) => piece.text).join(''), text);
      for (const piece of pieces) assert.ok(!piece.text.includes('\uFFFD') || text.includes('\uFFFD'));
    }),
  );
  const emoji = toPieces('日本語 👩‍👩‍👧‍👦 ok');
  assert.equal(
    emoji.reduce((sum, piece) => sum + piece.tokens, 0),
    countTextTokens('日本語 👩‍👩‍👧‍👦 ok'),
  );
});

test('tool call when the user names a tool: a short lead, arguments from the schema, fragments of ~8 chars', () => {
  const plan = planReply(request({ tools: [weatherTool] }, 'please call get_weather for Paris'), deps());
  const choice = plan.choices[0];
  assert.ok(choice !== undefined);
  assert.equal(choice.pieces.map((piece) => piece.text).join(''), 'Calling get_weather.');
  assert.equal(choice.calls.length, 1);
  const call = choice.calls[0];
  assert.ok(call !== undefined);
  assert.equal(call.name, 'get_weather');
  assert.equal(call.id, 'call_1');
  assert.deepEqual(JSON.parse(call.arguments), {
    city: 'sample city',
    unit: 'celsius',
    days: 1,
    detailed: true,
    tags: ['sample tags'],
    where: { lat: 1, label: 'sample label' },
  });
  assert.equal(call.fragments.join(''), call.arguments);
  assert.ok(call.fragments.length > 3 && call.fragments.every((fragment) => fragment.length <= 9));
  assert.deepEqual(choice.finishReason, { unified: 'tool-calls' });
  assert.equal(
    plan.usage.outputTokens,
    countTextTokens('Calling get_weather.') +
      countTextTokens('get_weather') +
      countTextTokens(call.arguments),
  );
  assert.equal(plan.chunkCount, choice.pieces.length + call.fragments.length);
});

const lookupTool: ToolDefinition = {
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};

function callNames(overrides: Partial<ChatRequest>, text: string): string[] {
  return planReply(request(overrides, text), deps()).choices[0]?.calls.map((call) => call.name) ?? [];
}

test('tool choice: required picks the named tools or the first, tool picks the named one, none and auto do not call', () => {
  const tools = [weatherTool, lookupTool];
  assert.deepEqual(callNames({ tools, toolChoice: { type: 'required' } }, 'hello there'), ['get_weather']);
  assert.deepEqual(callNames({ tools, toolChoice: { type: 'required' } }, 'use lookup'), ['lookup']);
  assert.deepEqual(callNames({ tools, toolChoice: { type: 'tool', name: 'lookup' } }, 'get_weather'), [
    'lookup',
  ]);
  assert.deepEqual(callNames({ tools, toolChoice: { type: 'auto' } }, 'hello there'), []);
  assert.deepEqual(callNames({ tools }, 'hello there'), []);
  const none = planReply(request({ tools, toolChoice: { type: 'none' } }, 'use lookup'), deps()).choices[0];
  assert.equal(none?.calls.length, 0);
  // Forced calls come without a lead, as real models answer a forced tool choice.
  const forced = planReply(request({ tools, toolChoice: { type: 'required' } }, 'hi'), deps()).choices[0];
  assert.equal(forced?.pieces.length, 0);
});

test('several named tools are parallel calls in the order named, unless parallel calls are off', () => {
  const tools = [weatherTool, lookupTool];
  const text = 'first lookup the city, then get_weather there';
  assert.deepEqual(callNames({ tools }, text), ['lookup', 'get_weather']);
  const choice = planReply(request({ tools }, text), deps()).choices[0];
  assert.ok(choice !== undefined);
  assert.deepEqual(
    choice.calls.map((call) => call.id),
    ['call_1', 'call_2'],
  );
  assert.equal(choice.pieces.map((piece) => piece.text).join(''), 'Calling lookup and get_weather.');
  assert.deepEqual(callNames({ tools, parallelToolCalls: false }, text), ['lookup']);
  assert.deepEqual(callNames({ tools, legacyFunctions: true }, text), ['lookup']);
});

test('after a tool result the reply is text that mentions the result', () => {
  const plan = planReply(
    request({
      tools: [weatherTool],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'call get_weather' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{}' }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              callId: 'c1',
              name: 'get_weather',
              content: [{ type: 'text', text: '18C and sunny' }],
              isError: false,
            },
          ],
        },
      ],
    }),
    deps(),
  );
  assert.match(
    textOf(plan.choices[0]),
    /^Simulated reply from sim-1: the tool get_weather returned 18C and sunny /,
  );
});

test('schema sampling handles anyOf, const, enums, depth and non-object schemas', () => {
  assert.deepEqual(sampleArguments({ type: 'string' }), {});
  assert.deepEqual(
    sampleArguments({
      type: 'OBJECT',
      properties: {
        a: { anyOf: [{ type: 'null' }, { type: 'NUMBER' }] },
        b: { const: 'fixed' },
        c: { enum: [3, 4] },
        d: { items: { type: 'boolean' } },
        e: true,
      },
    }),
    { a: 1, b: 'fixed', c: 3, d: [true], e: 'sample e' },
  );
  const recursive: Record<string, unknown> = { type: 'object', properties: {} };
  let node = recursive;
  for (let depth = 0; depth < 20; depth++) {
    const child: Record<string, unknown> = { type: 'object', properties: {} };
    node['properties'] = { next: child };
    node = child;
  }
  assert.ok(JSON.stringify(sampleArguments(recursive as never)).length < 200);
});

test('fragments never split a surrogate pair', () => {
  const text = 'abcdefg😀hijklmnop😀😀😀';
  const fragments = splitFragments(text);
  assert.equal(fragments.join(''), text);
  for (const fragment of fragments) assert.ok(fragment.isWellFormed());
});

test('token cache counts like the tokenizer and stays bounded', () => {
  const cache = new TokenCountCache();
  for (let index = 0; index < 3000; index++)
    assert.equal(cache.count(`text number ${index}`), countTextTokens(`text number ${index}`));
  assert.equal(cache.count(''), 0);
});
