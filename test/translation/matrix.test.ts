/**
 * Cross-family translation, all nine surface × family pairs, pure functions only:
 * - the same conversation written in each surface's shape must give the SAME upstream body for a
 *   target family, whichever surface it came from;
 * - equivalent upstream answers (non-streamed and streamed) must give the same client answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FamilyCodec } from '../../src/surfaces/surface.ts';
import { type JsonObject } from '../../src/ir/index.ts';
import { foldStream } from '../../src/ir/fold-stream.ts';
import { checkStreamEvents } from '../../src/ir/check-stream-events.ts';
import type { StreamEvent } from '../../src/ir/index.ts';
import { SseParser } from '../../src/sse/parse-sse.ts';
import { codecs, specFamilies, type SpecFamily } from '../kit/spec-families.ts';
import { converseWire } from '../../src/codecs/converse/index.ts';

let counter = 0;
const context = { generateId: (prefix: string) => `${prefix}${++counter}`, now: () => 1_700_000_000_000 };
const target = { baseUrl: 'http://upstream', apiKey: 'up-key', model: 'upstream-model' };
const responseContext = { model: 'client-model', includeUsage: true, legacyFunctions: false };

/** One conversation, three spellings: system prompt, history, a tool call and its result, sampling. */
const conversations: Record<SpecFamily, { body: JsonObject; route: { model?: string; stream?: boolean } }> = {
  alpha: {
    route: {},
    body: {
      model: 'client-model',
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
        { role: 'user', content: 'Thanks. And tomorrow?' },
      ],
    },
  },
  beta: {
    route: {},
    body: {
      model: 'client-model',
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      stop_sequences: ['END'],
      system: 'Be brief.',
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
            { type: 'text', text: 'Thanks. And tomorrow?' },
          ],
        },
      ],
    },
  },
  gamma: {
    route: { model: 'client-model', stream: false },
    body: {
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 100, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather for a city',
              parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
            },
          ],
        },
      ],
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'call_1', name: 'get_weather', response: { output: '18C' } } },
            { text: 'Thanks. And tomorrow?' },
          ],
        },
      ],
    },
  },
};

function upstreamBody(
  surface: FamilyCodec,
  family: Pick<FamilyCodec, 'encodeRequest'>,
  stream = false,
): unknown {
  const conversation = conversations[surface.id as SpecFamily];
  const body = surface.id === 'gamma' ? conversation.body : { ...conversation.body, stream };
  const request = surface.decodeRequest({ body, route: { ...conversation.route, stream } });
  return JSON.parse(family.encodeRequest(request, target).body);
}

describe('requests: every surface gives the same Converse body (an upstream-only codec)', () => {
  test('to converse', () => {
    const bodies = specFamilies.map((surfaceId) => upstreamBody(codecs[surfaceId], converseWire));
    assert.deepEqual(bodies[1], bodies[0], 'beta surface vs alpha surface → converse');
    assert.deepEqual(bodies[2], bodies[0], 'gamma surface vs alpha surface → converse');
    const converse = bodies[0] as JsonObject;
    assert.deepEqual(converse.system, [{ text: 'Be brief.' }]);
    assert.deepEqual(converse.inferenceConfig, {
      maxTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      stopSequences: ['END'],
    });
    assert.deepEqual(
      (converse.messages as JsonObject[]).map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
  });
});

describe('requests: every surface gives the same upstream body for a family', () => {
  for (const familyId of specFamilies) {
    test(`to ${familyId}`, () => {
      const family = codecs[familyId];
      const bodies = specFamilies.map((surfaceId) => upstreamBody(codecs[surfaceId], family));
      assert.deepEqual(bodies[1], bodies[0], `beta surface vs alpha surface → ${familyId}`);
      assert.deepEqual(bodies[2], bodies[0], `gamma surface vs alpha surface → ${familyId}`);
    });
  }

  test('each family gets its own official shape', () => {
    const alpha = upstreamBody(codecs.beta, codecs.alpha) as JsonObject;
    assert.equal(alpha.model, 'upstream-model');
    assert.deepEqual(alpha.stop, ['END']);
    assert.deepEqual(
      (alpha.messages as JsonObject[]).map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'user'],
    );
    const beta = upstreamBody(codecs.alpha, codecs.beta) as JsonObject;
    assert.equal(beta.system, 'Be brief.');
    assert.deepEqual(beta.stop_sequences, ['END']);
    assert.deepEqual(
      (beta.messages as JsonObject[]).map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    const gamma = upstreamBody(codecs.alpha, codecs.gamma) as JsonObject;
    assert.deepEqual(gamma.systemInstruction, { parts: [{ text: 'Be brief.' }] });
    assert.deepEqual(gamma.generationConfig, {
      temperature: 0.5,
      topP: 0.9,
      maxOutputTokens: 100,
      stopSequences: ['END'],
    });
    assert.deepEqual(
      (gamma.contents as JsonObject[]).map((content) => content.role),
      ['user', 'model', 'user'],
    );
  });

  test('streaming requests use each family’s switch', () => {
    const request = codecs.alpha.decodeRequest({
      body: { ...conversations.alpha.body, stream: true },
      route: {},
    });
    assert.equal(
      codecs.gamma.encodeRequest(request, target).path,
      '/v1/models/upstream-model:streamGenerateContent?alt=sse',
    );
    assert.equal((JSON.parse(codecs.beta.encodeRequest(request, target).body) as JsonObject).stream, true);
    const alpha = JSON.parse(codecs.alpha.encodeRequest(request, target).body) as JsonObject;
    assert.deepEqual(alpha.stream_options, { include_usage: true });
  });
});

/** One answer, three spellings: text then a tool call, 10 prompt tokens of which 4 cached, 5 output. */
const answers: Record<SpecFamily, JsonObject> = {
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

/** Ids and timestamps differ by source family by design; everything else must not. */
function withoutIds(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, inner: unknown) =>
    key === 'id' || key === 'created' || key === 'responseId' ? undefined : inner,
  );
}

describe('responses: equivalent upstream answers give the same client answer', () => {
  for (const surfaceId of specFamilies) {
    test(`on the ${surfaceId} surface`, () => {
      const surface = codecs[surfaceId];
      const encoded = specFamilies.map((familyId) =>
        withoutIds(
          surface.encodeResponse(
            { ...codecs[familyId].decodeResponse(answers[familyId], context), model: 'client-model' },
            responseContext,
          ),
        ),
      );
      assert.deepEqual(encoded[1], encoded[0], `beta upstream vs alpha upstream on ${surfaceId}`);
      assert.deepEqual(encoded[2], encoded[0], `gamma upstream vs alpha upstream on ${surfaceId}`);
    });
  }

  test('usage keeps its meaning in each shape (cached tokens counted once)', () => {
    const decoded = codecs.gamma.decodeResponse(answers.gamma, context);
    const alpha = codecs.alpha.encodeResponse(decoded, responseContext) as { usage: JsonObject };
    assert.equal(alpha.usage.prompt_tokens, 10);
    assert.equal(alpha.usage.cached_tokens, 4);
    assert.deepEqual(alpha.usage.prompt_tokens_details, { cached_tokens: 4 });
    const beta = codecs.beta.encodeResponse(
      codecs.alpha.decodeResponse(answers.alpha, context),
      responseContext,
    ) as { usage: JsonObject; stop_reason: string };
    assert.equal(beta.usage.input_tokens, 6);
    assert.equal(beta.usage.cache_read_input_tokens, 4);
    assert.equal(beta.stop_reason, 'tool_use');
    const gamma = codecs.gamma.encodeResponse(
      codecs.beta.decodeResponse(answers.beta, context),
      responseContext,
    ) as { usageMetadata: JsonObject };
    assert.deepEqual(gamma.usageMetadata, {
      promptTokenCount: 10,
      candidatesTokenCount: 5,
      totalTokenCount: 15,
      cachedContentTokenCount: 4,
    });
  });
});

/** The same answer as each family streams it. */
const streams: Record<SpecFamily, string> = {
  alpha: [
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"Check"},"finish_reason":null}]}',
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"ing."},"finish_reason":null}]}',
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_9","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}',
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"finish_reason":null}]}',
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Rome\\"}"}}]},"finish_reason":null}]}',
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
    '{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":4}}}',
    '[DONE]',
  ]
    .map((data) => `data: ${data}\n\n`)
    .join(''),
  beta: [
    [
      'message_start',
      '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":6,"cache_creation_input_tokens":0,"cache_read_input_tokens":4,"output_tokens":1}}}',
    ],
    [
      'content_block_start',
      '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    ],
    ['ping', '{"type":"ping"}'],
    [
      'content_block_delta',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Check"}}',
    ],
    [
      'content_block_delta',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ing."}}',
    ],
    ['content_block_stop', '{"type":"content_block_stop","index":0}'],
    [
      'content_block_start',
      '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_9","name":"get_weather","input":{}}}',
    ],
    [
      'content_block_delta',
      '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}',
    ],
    [
      'content_block_delta',
      '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":"}}',
    ],
    [
      'content_block_delta',
      '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\"Rome\\"}"}}',
    ],
    ['content_block_stop', '{"type":"content_block_stop","index":1}'],
    [
      'message_delta',
      '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}',
    ],
    ['message_stop', '{"type":"message_stop"}'],
  ]
    .map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`)
    .join(''),
  gamma: [
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"Check"}]},"index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"totalTokenCount":11,"cachedContentTokenCount":4},"responseId":"r1"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"ing."}]},"index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2,"totalTokenCount":12,"cachedContentTokenCount":4},"responseId":"r1"}',
    '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_9","name":"get_weather","args":{"city":"Rome"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15,"cachedContentTokenCount":4},"responseId":"r1"}',
  ]
    .map((data) => `data: ${data}\r\n\r\n`)
    .join(''),
};

function decodeSse(codec: FamilyCodec, text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  const parser = new SseParser();
  const decoder = codec.createStreamDecoder(context);
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  parser.push(text, (message) => {
    decoder.push(message, emit);
  });
  parser.end((message) => {
    decoder.push(message, emit);
  });
  decoder.end(emit);
  return events;
}

describe('streams: equivalent upstream streams give the same client stream content', () => {
  for (const surfaceId of specFamilies) {
    test(`on the ${surfaceId} surface`, () => {
      const surface = codecs[surfaceId];
      const folded = specFamilies.map((familyId) => {
        const upstreamEvents = decodeSse(codecs[familyId], streams[familyId]);
        assert.deepEqual(checkStreamEvents(upstreamEvents), [], `${familyId} decoder output`);
        const encoder = surface.createStreamEncoder(responseContext);
        const clientText = upstreamEvents.map((event) => encoder.encode(event)).join('');
        const clientEvents = decodeSse(surface, clientText);
        assert.deepEqual(checkStreamEvents(clientEvents), [], `${surfaceId} client stream from ${familyId}`);
        const response = foldStream(clientEvents);
        return {
          choices: response.choices.map((choice) => ({
            finish: choice.finishReason.unified,
            content: choice.content.map((part) =>
              part.type === 'tool-call'
                ? { name: part.name, arguments: JSON.parse(part.arguments) as unknown }
                : part,
            ),
          })),
          usage: response.usage,
        };
      });
      assert.deepEqual(folded[1], folded[0], `beta upstream vs alpha upstream on ${surfaceId}`);
      assert.deepEqual(folded[2], folded[0], `gamma upstream vs alpha upstream on ${surfaceId}`);
      assert.equal(folded[0]?.choices[0]?.finish, 'tool-calls');
      assert.deepEqual(folded[0].usage, {
        inputTokens: 10,
        outputTokens: 5,
        cacheReadTokens: 4,
        cacheWriteTokens: 0,
      });
    });
  }
});
