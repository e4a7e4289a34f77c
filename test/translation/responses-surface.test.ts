/**
 * Cross-family translation from the Responses surface (pure functions only): the conversation
 * written as Responses items gives each family the SAME upstream body as the same conversation
 * written for chat completions; and each family's equivalent answer gives the same Responses
 * output, streamed or not.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { responsesSurface } from '../../src/surfaces/responses/index.ts';
import { type JsonObject, type StreamEvent } from '../../src/ir/index.ts';
import { SseParser } from '../../src/sse/parse-sse.ts';
import { codecs, specFamilies } from '../kit/spec-families.ts';

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
  for (const familyId of specFamilies) {
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
});

const placeSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};

/** Structured output and effort, as the Responses API and chat completions spell them. */
const structured = {
  responses: {
    model: 'client-model',
    input: 'A city, as JSON',
    max_output_tokens: 8192,
    text: { format: { type: 'json_schema', name: 'place', schema: placeSchema, strict: true } },
    reasoning: { effort: 'medium' },
  },
  chat: {
    model: 'client-model',
    max_tokens: 8192,
    messages: [{ role: 'user', content: 'A city, as JSON' }],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'place', schema: placeSchema, strict: true },
    },
    reasoning_effort: 'medium',
  },
} satisfies Record<string, JsonObject>;

/** What each family's upstream body says about structured output and reasoning. */
const familyKnobs: Record<(typeof specFamilies)[number], (body: JsonObject) => unknown> = {
  alpha: (body) => [body.response_format, body.reasoning_effort],
  beta: (body) => [body.output_config, body.thinking],
  gamma: (body) => body.generationConfig,
};

const expectedKnobs: Record<(typeof specFamilies)[number], unknown> = {
  alpha: [
    { type: 'json_schema', json_schema: { name: 'place', schema: placeSchema, strict: true } },
    'medium',
  ],
  // Thinking counts toward max_tokens: medium is a quarter of the 8192 cap.
  beta: [{ format: { type: 'json_schema', schema: placeSchema } }, { type: 'enabled', budget_tokens: 2048 }],
  gamma: {
    maxOutputTokens: 8192,
    responseMimeType: 'application/json',
    responseSchema: {
      type: 'OBJECT',
      properties: { city: { type: 'STRING' }, population: { type: 'INTEGER' } },
      required: ['city', 'population'],
    },
    thinkingConfig: { thinkingBudget: 2048 },
  },
};

describe('text.format and reasoning.effort: each family’s own structured output and reasoning knob', () => {
  for (const familyId of specFamilies) {
    for (const stream of [false, true]) {
      test(`to ${familyId}${stream ? ', streamed' : ''}: the same body as chat’s response_format and reasoning_effort`, () => {
        const family = codecs[familyId];
        const fromResponses = family.encodeRequest(
          responsesSurface.decodeRequest({ body: { ...structured.responses, stream }, route: {} }),
          target,
        );
        const fromChat = family.encodeRequest(
          codecs.alpha.decodeRequest({ body: { ...structured.chat, stream }, route: {} }),
          target,
        );
        const body = JSON.parse(fromResponses.body) as JsonObject;
        assert.deepEqual(body, JSON.parse(fromChat.body));
        assert.deepEqual(familyKnobs[familyId](body), expectedKnobs[familyId]);
        assert.deepEqual(fromResponses.warnings, []);
      });
    }
  }

  test('json_object is JSON output on every family', () => {
    const request = responsesSurface.decodeRequest({
      body: {
        model: 'm',
        input: 'JSON please',
        max_output_tokens: 100,
        text: { format: { type: 'json_object' } },
      },
      route: {},
    });
    const bodies = specFamilies.map(
      (id) => JSON.parse(codecs[id].encodeRequest(request, target).body) as JsonObject,
    );
    assert.deepEqual(
      bodies.map((body, index) => familyKnobs[specFamilies[index] ?? 'alpha'](body)),
      [
        [{ type: 'json_object' }, undefined],
        [{ format: { type: 'json_schema', schema: { type: 'object' } } }, undefined],
        { maxOutputTokens: 100, responseMimeType: 'application/json' },
      ],
    );
  });

  test('structured output from B and C clients reaches an A upstream as response_format', () => {
    const fromBeta = codecs.beta.decodeRequest({
      body: {
        model: 'm',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'x' }],
        output_config: { format: { type: 'json_schema', schema: placeSchema } },
      },
      route: {},
    });
    const fromGamma = codecs.gamma.decodeRequest({
      body: {
        contents: [{ role: 'user', parts: [{ text: 'x' }] }],
        generationConfig: { responseMimeType: 'application/json', responseJsonSchema: placeSchema },
      },
      route: { model: 'm' },
    });
    for (const request of [fromBeta, fromGamma]) {
      const body = JSON.parse(codecs.alpha.encodeRequest(request, target).body) as JsonObject;
      assert.deepEqual(body.response_format, {
        type: 'json_schema',
        json_schema: { name: 'response', schema: placeSchema },
      });
    }
  });
});

/** One answer, three spellings: text then a tool call, 10 prompt tokens (4 cached), 5 output. */
const answers: Record<(typeof specFamilies)[number], JsonObject> = {
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
  for (const familyId of specFamilies) {
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
  familyId: (typeof specFamilies)[number],
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
    } else if (part.type === 'tool-call') {
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
