/**
 * Family C's two spellings (lowerCamelCase and the proto's snake_case), one fixture each plus the
 * mix the family's Python SDK really sends: the same canonical request from each, whatever goes
 * upstream in camelCase, and a same-family call forwarded as the client wrote it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest, JsonObject } from '../../ir/index.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';
import { loadJson } from './test-kit.ts';

const route = { model: 'm', stream: false };
const target = { baseUrl: 'https://upstream.invalid', apiKey: 'sk-up', model: 'm-001' };

function decode(name: string): ChatRequest {
  return gammaCodec.decodeRequest({ body: loadJson(name), route });
}

const camel = decode('camel-case-request.json');

test('snake_case: the same canonical request as camelCase, field for field', () => {
  assert.deepEqual(decode('snake-case-request.json'), camel);
});

test('camelCase and snake_case: every field the gateway reads is read', () => {
  for (const request of [camel, decode('snake-case-request.json')]) {
    assert.deepEqual(request.system, [{ type: 'text', text: 'Answer briefly.' }]);
    assert.deepEqual(request.messages[0]?.content.slice(1), [
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      {
        type: 'image',
        source: {
          kind: 'url',
          url: 'https://generativelanguage.googleapis.com/v1beta/files/abc',
          mediaType: 'image/jpeg',
        },
      },
    ]);
    // Arguments and results are the client's data: their snake_case keys stay.
    assert.deepEqual(request.messages[1]?.content, [
      {
        type: 'tool-call',
        id: 'call_1_0',
        name: 'get_weather',
        arguments: '{"city":"Paris","unit_system":"metric"}',
      },
    ]);
    assert.deepEqual(request.sampling, {
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 1024,
      stopSequences: ['END'],
      candidateCount: 1,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
    });
    assert.deepEqual(request.reasoning, { budgetTokens: 512 });
    assert.deepEqual(request.toolChoice, { type: 'tool', name: 'get_weather' });
    assert.deepEqual(request.responseFormat, {
      type: 'json-schema',
      schema: {
        type: 'object',
        properties: {
          summary_text: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
        },
        propertyOrdering: ['summary_text', 'tags'],
      },
    });
    assert.deepEqual(request.tools[0]?.parameters, {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit_system: { type: 'string', enum: ['metric', 'imperial'] },
        when: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
      required: ['city'],
      propertyOrdering: ['city', 'unit_system', 'when'],
    });
    assert.deepEqual(request.extensions.gamma, {
      cachedContent: 'cachedContents/xyz',
      generationConfig: { thinkingConfig: { includeThoughts: true } },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
      tools: [{ googleSearch: {} }],
    });
  }
});

test('the Python SDK mix: mime_type in inlineData, parameters_json_schema, thinking_budget all read', () => {
  const request = decode('python-sdk-request.json');
  assert.deepEqual(request.messages, camel.messages);
  assert.deepEqual(request.sampling, camel.sampling);
  assert.deepEqual(request.reasoning, { budgetTokens: 512 });
  assert.deepEqual(request.extensions, camel.extensions);
  // The tool keeps its JSON Schema (the declaration's parameters_json_schema) as written.
  assert.deepEqual(request.tools, [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: {
        properties: {
          city: { title: 'City', type: 'string' },
          unit_system: { enum: ['metric', 'imperial'], title: 'Unit System', type: 'string' },
          when: { anyOf: [{ type: 'string' }, { type: 'integer' }], default: null, title: 'When' },
        },
        required: ['city'],
        title: 'get_weather',
        type: 'object',
      },
    },
  ]);
});

test('to a C upstream by translation: one spelling, camelCase, whatever the client wrote', () => {
  const fromCamel = gammaCodec.encodeRequest(camel, target);
  const fromSnake = gammaCodec.encodeRequest(decode('snake-case-request.json'), target);
  assert.equal(fromSnake.body, fromCamel.body);
  const body = JSON.parse(fromSnake.body) as JsonObject;
  assert.deepEqual(body.cachedContent, 'cachedContents/xyz');
  assert.deepEqual(body.generationConfig, {
    temperature: 0.2,
    topP: 0.9,
    topK: 40,
    maxOutputTokens: 1024,
    stopSequences: ['END'],
    candidateCount: 1,
    presencePenalty: 0.5,
    frequencyPenalty: 0.25,
    responseMimeType: 'application/json',
    responseSchema: {
      type: 'OBJECT',
      properties: {
        summary_text: { type: 'STRING' },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: 1, maxItems: 3 },
      },
      propertyOrdering: ['summary_text', 'tags'],
    },
    thinkingConfig: { includeThoughts: true, thinkingBudget: 512 },
  });
  assert.deepEqual(fromSnake.warnings, []);
});

test('declaration fields without a canonical slot: back on a C declaration, named in a warning elsewhere', () => {
  const request = gammaCodec.decodeRequest({
    body: {
      contents: [{ parts: [{ text: 'hi' }] }],
      tools: [
        { function_declarations: [{ name: 'f', behavior: 'NON_BLOCKING', response: { type: 'STRING' } }] },
      ],
    },
    route,
  });
  const body = JSON.parse(gammaCodec.encodeRequest(request, target).body) as JsonObject;
  assert.deepEqual(body.tools, [
    { functionDeclarations: [{ name: 'f', behavior: 'NON_BLOCKING', response: { type: 'STRING' } }] },
  ]);
});

test('same family: the snake_case body goes upstream as written, its output cap lowered in its spelling', () => {
  const body = loadJson('snake-case-request.json') as JsonObject;
  const request = gammaCodec.decodeRequest({ body, route, lenient: true });
  const asWritten = gammaCodec.passThrough.encodeRequest(body, request, target);
  assert.equal(asWritten.body, JSON.stringify(body));
  const lowered = gammaCodec.passThrough.encodeRequest(
    body,
    { ...request, sampling: { ...request.sampling, maxOutputTokens: 100 } },
    target,
  );
  const sent = JSON.parse(lowered.body) as { generation_config: JsonObject };
  assert.equal(sent.generation_config.max_output_tokens, 100);
  assert.equal(Object.hasOwn(sent.generation_config, 'maxOutputTokens'), false);
});
