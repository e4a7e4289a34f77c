import { test } from 'node:test';
import fc from 'fast-check';
import { assertSameAsWhole } from '../shared/test-kit.ts';
import { alphaWire } from './index.ts';
import { fixtureText } from './test-kit.ts';

/** The shared rig's mock answer, byte for byte. */
const rigAnswer =
  '{"id":"chatcmpl-r1","object":"chat.completion","created":1764222000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"This is a canned answer.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_mock"}';

test('the plain answers are read by the scan, exactly as the whole path reads them', () => {
  assertSameAsWhole(alphaWire, rigAnswer, true);
  for (const name of ['tool-calls.json', 'multi-choice.json', 'stop-sequence.json', 'legacy-function.json'])
    assertSameAsWhole(alphaWire, fixtureText(name), true);
  // Already the client's name, compact: the text as it came.
  assertSameAsWhole(alphaWire, rigAnswer.replace('gpt-4o-mini', 'A-3'), true);
  // No usage, no choices: zeros and no reasons, as the decoder reads them.
  assertSameAsWhole(alphaWire, '{"model":"m","choices":null}', true);
});

test('hostile shapes: the scan reads the same as the whole path, or leaves it to it', () => {
  const cases: [string, boolean][] = [
    // A cache hit without the flat cached_tokens: the answer is re-encoded to add it.
    [fixtureText('text.json'), false],
    // Keys, quotes and braces inside strings; escaped model names; unicode escapes.
    [
      String.raw`{"model":"gpt\u002d4o","choices":[{"message":{"content":"\"usage\":{\"prompt_tokens\":9} }]"},"finish_reason":"st\u006fp"}],"usage":{"prompt_tokens":3}}`,
      true,
    ],
    // "model" named again inside the answer: the whole path re-encodes.
    [
      '{"model":"m","choices":[{"message":{"content":"the \\"model\\"","model":"x"},"finish_reason":"stop"}]}',
      false,
    ],
    ['{"model":"m","choices":[{"message":{"content":"model"},"finish_reason":"stop"}],"x":"model"}', false],
    // Nested usage keys are not the answer's usage.
    [
      '{"model":"m","choices":[{"usage":{"prompt_tokens":99},"finish_reason":"stop"}],"usage":{"prompt_tokens":5}}',
      true,
    ],
    // Repeated top-level keys, or a repeated finish_reason: a parser reads the last.
    ['{"model":"m","usage":{"prompt_tokens":1},"usage":{"prompt_tokens":2}}', false],
    ['{"model":"m","choices":[{"finish_reason":"stop","finish_reason":"length"}]}', false],
    ['{"model":"a","model":"b"}', false],
    // Whitespace everywhere; the model already the client's but spaced: re-encoded.
    [
      ' \n{ "model" : "m" , "choices" : [ { "finish_reason" : "length" } ] ,\t"usage" : { "completion_tokens" : 7 } }\r\n',
      true,
    ],
    ['{"model" : "A-3"}', false],
    // Huge numbers, odd usage values.
    [
      `{"model":"m","usage":{"prompt_tokens":1${'0'.repeat(400)},"completion_tokens":-5,"total_tokens":1e999}}`,
      true,
    ],
    ['{"model":"m","usage":[1,2]}', true],
    ['{"model":"m","usage":"lots"}', true],
    // A choice with no finish reason, or not an object: its reason hangs on its tool calls.
    ['{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c"}]}}]}', false],
    ['{"model":"m","choices":[1]}', false],
    ['{"model":"m","choices":[{"finish_reason":null}]}', false],
    // No model, or not a string: re-encoded with the client's.
    ['{"choices":[]}', false],
    ['{"model":null}', false],
    // Not an object, invalid JSON, an error body.
    ['[]', false],
    ['"model"', false],
    ['{"model":"m",}', false],
    ['{"model":"m"', false],
    ['\ufeff{"model":"m"}', false],
    ['{"error":{"message":"bad","type":"invalid_request_error"}}', false],
  ];
  for (const [text, fast] of cases) assertSameAsWhole(alphaWire, text, fast);
});

test('any answer built from the rig answer and mutations: the same as the whole path, or left to it', () => {
  const rig = JSON.parse(rigAnswer) as Record<string, unknown>;
  const field = fc.constantFrom('model', 'usage', 'choices', 'id', 'finish_reason', 'cached_tokens', 'x');
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom('A-3', 'gpt-4o-mini', 'stop', { prompt_tokens_details: { cached_tokens: 5 } }),
  );
  const answer = fc
    .tuple(fc.array(fc.tuple(field, value), { maxLength: 4 }), fc.constantFrom(0, 1), fc.nat(), fc.boolean())
    .map(([edits, indent, cut, mangle]) => {
      const object: Record<string, unknown> = structuredClone(rig);
      for (const [key, edit] of edits) object[key] = edit;
      const text = JSON.stringify(object, null, indent);
      return mangle ? text.slice(0, cut % text.length) + text.slice((cut % text.length) + 1) : text;
    });
  fc.assert(
    fc.property(answer, (text) => assertSameAsWhole(alphaWire, text)),
    { seed: 20261127, numRuns: 500 },
  );
});
