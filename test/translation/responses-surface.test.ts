/**
 * Cross-family translation from the Responses surface (pure functions only): the conversation
 * written as Responses items gives each family the SAME upstream body as the same conversation
 * written for chat completions; and each family's equivalent answer gives the same Responses
 * output, streamed or not.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codecs } from '../../src/families/registry.ts';
import { responsesSurface } from '../../src/families/responses/index.ts';
import { familyIds, type JsonObject, type StreamEvent } from '../../src/ir/index.ts';
import { SseParser } from '../../src/sse/parse-sse.ts';

const target = { baseUrl: 'http://upstream', apiKey: 'up-key', model: 'upstream-model' };
const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const responsesBody: JsonObject = {
  model: 'client-model',
  instructions: 'Be brief.',
  max_output_tokens: 100,
  temperature: 0.5,
  top_p: 0.9,
  tools: [{ type: 'function', ...weather }],
  tool_choice: 'required',
  input: [
    { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
    { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'function_call_output', call_id: 'call_1', output: '18C' },
    { role: 'user', content: 'Thanks. And tomorrow?' },
  ],
};

const chatBody: JsonObject = {
  model: 'client-model',
  max_tokens: 100,
  temperature: 0.5,
  top_p: 0.9,
  tools: [{ type: 'function', function: weather }],
  tool_choice: 'required',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '18C' },
    { role: 'user', content: 'Thanks. And tomorrow?' },
  ],
};

describe('requests: the Responses surface gives each family the chat surface’s upstream body', () => {
  for (const familyId of familyIds) {
    for (const stream of [false, true]) {
      test(`to ${familyId}${stream ? ', streamed' : ''}`, () => {
        const family = codecs[familyId];
        const fromResponses = family.encodeRequest(
          responsesSurface.decodeRequest({ body: { ...responsesBody, stream }, route: {} }),
          target,
        );
        const fromChat = family.encodeRequest(
          codecs.alpha.decodeRequest({ body: { ...chatBody, stream }, route: {} }),
          target,
        );
        assert.equal(fromResponses.path, fromChat.path);
        assert.deepEqual(JSON.parse(fromResponses.body), JSON.parse(fromChat.body));
        assert.deepEqual(fromResponses.warnings, fromChat.warnings);
      });
    }
  }

  test('structured output reaches an A upstream as response_format; others are warned', () => {
    const request = responsesSurface.decodeRequest({
      body: {
        model: 'm',
        input: 'Forecast?',
        max_output_tokens: 50,
        text: { format: { type: 'json_schema', name: 'f', schema: { type: 'object' }, strict: true } },
        reasoning: { effort: 'high' },
      },
      route: {},
    });
    const alpha = JSON.parse(codecs.alpha.encodeRequest(request, target).body) as JsonObject;
    assert.deepEqual(alpha.response_format, {
      type: 'json_schema',
      json_schema: { name: 'f', schema: { type: 'object' }, strict: true },
    });
    assert.equal(alpha.reasoning_effort, 'high');
    for (const other of [codecs.beta, codecs.gamma]) {
      const warnings = other.encodeRequest(request, target).warnings;
      assert.ok(warnings.some((warning) => warning.startsWith('response_format has no equivalent')));
      assert.ok(warnings.some((warning) => warning.startsWith('reasoning_effort has no equivalent')));
    }
  });
});

/** One answer, three spellings: text then a tool call, 10 prompt tokens (4 cached), 5 output. */
const answers: Record<(typeof familyIds)[number], JsonObject> = {
  alpha: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'upstream-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            {
              id: 'call_9',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 4 },
    },
  },
  beta: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'upstream-model',
    content: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Rome' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 6, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 4 },
  },
  gamma: {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: 'Checking.' },
            { functionCall: { id: 'call_9', name: 'get_weather', args: { city: 'Rome' } } },
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 10,
      candidatesTokenCount: 5,
      totalTokenCount: 15,
      cachedContentTokenCount: 4,
    },
    modelVersion: 'upstream-model',
    responseId: 'r1',
  },
};

const decodeContext = { generateId: (prefix: string) => `${prefix}x`, now: () => 1_700_000_000_000 };
const context = {
  model: 'client-model',
  includeUsage: false,
  legacyFunctions: false,
  turn: { id: 'resp_1', createdAt: 1_700_000_000, body: { model: 'client-model', input: 'x' } },
};

describe('answers: each family’s answer gives the same Responses output', () => {
  const expected = {
    status: 'completed',
    output: [
      {
        id: 'msg_1_0',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Checking.', annotations: [], logprobs: [] }],
      },
      {
        id: 'fc_1_1',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_9',
        name: 'get_weather',
        arguments: '{"city":"Rome"}',
      },
    ],
    usage: {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    },
  };
  for (const familyId of familyIds) {
    test(`from ${familyId}, non-streamed and streamed`, () => {
      const family = codecs[familyId];
      const whole = responsesSurface.encodeResponse(
        family.decodeResponse(answers[familyId], decodeContext),
        context,
      );
      assert.deepEqual({ status: whole.status, output: whole.output, usage: whole.usage }, expected);

      // The same answer through the family's stream: encode it as the family streams, decode, re-encode.
      const upstreamSse = streamOf(familyId, family.decodeResponse(answers[familyId], decodeContext));
      const decoder = family.createStreamDecoder(decodeContext);
      const encoder = responsesSurface.createStreamEncoder(context);
      let text = '';
      const parser = new SseParser();
      const emit = (event: StreamEvent): void => {
        text += encoder.encode(event);
      };
      parser.push(upstreamSse, (message) => decoder.push(message, emit));
      parser.end((message) => decoder.push(message, emit));
      decoder.end(emit);
      const completed = text
        .split('\n\n')
        .find((block) => block.startsWith('event: response.completed'))
        ?.split('\ndata: ')[1];
      assert.ok(completed !== undefined, text.slice(-400));
      const response = (JSON.parse(completed) as { response: JsonObject }).response;
      assert.deepEqual({ status: response.status, output: response.output, usage: response.usage }, expected);
    });
  }
});

/** The family's own stream of an answer, written by its surface encoder (the simulator does the same). */
function streamOf(
  familyId: (typeof familyIds)[number],
  answer: ReturnType<(typeof codecs)['alpha']['decodeResponse']>,
): string {
  const encoder = codecs[familyId].createStreamEncoder({
    model: 'upstream-model',
    includeUsage: true,
    legacyFunctions: false,
  });
  const choice = answer.choices[0];
  assert.ok(choice !== undefined);
  const events: StreamEvent[] = [
    { type: 'message-start', id: answer.id, model: answer.model, created: answer.created },
  ];
  choice.content.forEach((part, index) => {
    if (part.type === 'text') {
      events.push(
        { type: 'text-start', choice: 0, index },
        { type: 'text-delta', choice: 0, index, text: part.text },
        { type: 'text-end', choice: 0, index },
      );
    } else {
      events.push(
        { type: 'tool-call-start', choice: 0, index, id: part.id, name: part.name },
        { type: 'tool-call-delta', choice: 0, index, argumentsDelta: part.arguments },
        { type: 'tool-call-end', choice: 0, index },
      );
    }
  });
  events.push(
    { type: 'finish', choice: 0, finishReason: choice.finishReason },
    { type: 'usage', usage: answer.usage },
    { type: 'message-end', usage: answer.usage },
  );
  return events.map((event) => encoder.encode(event)).join('');
}
