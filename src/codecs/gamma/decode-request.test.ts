import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type ChatRequest } from '../../ir/index.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';
import { loadJson } from './test-kit.ts';

function decode(body: unknown, route = { model: 'm', stream: false }): ChatRequest {
  return gammaCodec.decodeRequest({ body, route });
}

function user(text: string): unknown {
  return { role: 'user', parts: [{ text }] };
}

function assertBadRequest(body: unknown, param: string | undefined, pattern: RegExp): void {
  assert.throws(
    () => decode(body),
    (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.kind, 'invalid_request');
      assert.equal(error.status, 400);
      assert.equal(error.param, param);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

test('decodes the reference request: parts, call ids, results, tools, config, extensions', () => {
  const request = decode(loadJson('client-request.json'), { model: 'alpha/some-id', stream: true });
  assert.deepEqual(request, {
    model: 'alpha/some-id',
    system: [{ type: 'text', text: 'sys' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'describe' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
          {
            type: 'image',
            source: {
              kind: 'url',
              url: 'https://generativelanguage.googleapis.com/v1beta/files/abc',
              mediaType: 'image/png',
            },
          },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 'call_1_0', name: 'get_w', arguments: '{"city":"Paris"}' }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'call_1_0',
            name: 'get_w',
            content: [{ type: 'text', text: '18C' }],
            isError: false,
          },
        ],
      },
    ],
    tools: [
      {
        name: 'get_w',
        description: 'Current weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
    toolChoice: { type: 'auto' },
    sampling: {
      temperature: 1,
      topP: 0.95,
      topK: 40,
      maxOutputTokens: 1024,
      stopSequences: ['END'],
      candidateCount: 1,
    },
    // JSON output with a schema is canonical structured output (the schema in JSON Schema's case).
    responseFormat: { type: 'json-schema', schema: { type: 'object' } },
    stream: true,
    includeUsage: false,
    extensions: {
      gamma: {
        cachedContent: 'cachedContents/xyz',
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
      },
    },
  });
});

test('minimal request: role defaults to user, no optional fields, empty extensions', () => {
  assert.deepEqual(decode({ contents: [{ parts: [{ text: 'hi' }] }] }), {
    model: 'm',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
  });
});

test('tool results: split from the user turn, paired by id, then by name and position; error and JSON results', () => {
  const request = decode({
    contents: [
      user('go'),
      {
        role: 'model',
        parts: [
          { text: 'Calling.' },
          { text: 'private', thought: true },
          { functionCall: { name: 'get_w', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_w', args: { city: 'Rome' } } },
          { functionCall: { name: 'lookup', args: {}, id: 'fc-9' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'lookup', id: 'fc-9', response: { error: 'not found' } } },
          { functionResponse: { name: 'get_w', response: { temp: 18, sky: 'clear' } } },
          { functionResponse: { name: 'get_w', response: { output: '21C' } } },
          { text: 'and now?' },
        ],
      },
    ],
  });
  assert.deepEqual(request.messages.slice(1), [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Calling.' },
        { type: 'tool-call', id: 'call_1_0', name: 'get_w', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_1_1', name: 'get_w', arguments: '{"city":"Rome"}' },
        { type: 'tool-call', id: 'fc-9', name: 'lookup', arguments: '{}' },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'fc-9',
          name: 'lookup',
          content: [{ type: 'text', text: 'not found' }],
          isError: true,
        },
        {
          type: 'tool-result',
          callId: 'call_1_0',
          name: 'get_w',
          content: [{ type: 'text', text: '{"temp":18,"sky":"clear"}' }],
          isError: false,
        },
        {
          type: 'tool-result',
          callId: 'call_1_1',
          name: 'get_w',
          content: [{ type: 'text', text: '21C' }],
          isError: false,
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'and now?' }] },
  ]);
});

test('result texts: {output}, {error} and the Vercel AI SDK {name, content} unwrap; other objects stay JSON', () => {
  const resultText = (response: unknown): string => {
    const request = decode({
      contents: [
        user('go'),
        { role: 'model', parts: [{ functionCall: { name: 'get_w', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_w', response } }] },
      ],
    });
    const result = request.messages[2]?.content[0];
    assert.equal(result?.type, 'tool-result');
    const text = result.content[0];
    return text?.type === 'text' ? text.text : '';
  };
  assert.equal(resultText({ output: '18C' }), '18C');
  assert.equal(resultText({ error: 'down' }), 'down');
  assert.equal(resultText({ name: 'get_w', content: '18C' }), '18C');
  assert.equal(resultText({ content: '18C' }), '18C');
  assert.equal(resultText({ name: 'other', content: '18C' }), '{"name":"other","content":"18C"}');
  assert.equal(resultText({ name: 'get_w', content: { t: 18 } }), '{"name":"get_w","content":{"t":18}}');
});

test('toolConfig ANY with several allowed names offers only those tools', () => {
  const declaration = (name: string): unknown => ({
    name,
    parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } },
  });
  const request = decode({
    contents: [user('x')],
    tools: [{ functionDeclarations: [declaration('a'), declaration('b'), declaration('c')] }],
    toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['c', 'a'] } },
  });
  assert.deepEqual(request.toolChoice, { type: 'required' });
  assert.deepEqual(
    request.tools.map((tool) => tool.name),
    ['a', 'c'],
  );
});

test('systemInstruction as a string; empty text parts are dropped', () => {
  const request = decode({
    systemInstruction: 'be brief',
    contents: [{ role: 'user', parts: [{ text: '' }, { text: 'x' }] }],
  });
  assert.deepEqual(request.system, [{ type: 'text', text: 'be brief' }]);
  assert.deepEqual(request.messages, [{ role: 'user', content: [{ type: 'text', text: 'x' }] }]);
});

test('toolConfig modes: ANY with one name forces that tool, ANY with several is required, NONE, unspecified', () => {
  const withMode = (functionCallingConfig: unknown): ChatRequest =>
    decode({ contents: [user('x')], toolConfig: { functionCallingConfig } });
  assert.deepEqual(withMode({ mode: 'ANY', allowedFunctionNames: ['get_w'] }).toolChoice, {
    type: 'tool',
    name: 'get_w',
  });
  assert.deepEqual(withMode({ mode: 'ANY', allowedFunctionNames: ['a', 'b'] }).toolChoice, {
    type: 'required',
  });
  assert.deepEqual(withMode({ mode: 'ANY' }).toolChoice, { type: 'required' });
  assert.deepEqual(withMode({ mode: 'NONE' }).toolChoice, { type: 'none' });
  assert.equal(withMode({}).toolChoice, undefined);
});

test('tools: UPPER-case schemas normalised, parametersJsonSchema as is, other tool kinds kept for C', () => {
  const request = decode({
    contents: [user('x')],
    tools: [
      {
        functionDeclarations: [
          {
            name: 'a',
            parameters: {
              type: 'OBJECT',
              properties: {
                tags: { type: 'ARRAY', items: { type: 'STRING', format: 'enum', enum: ['x', 'y'] } },
                note: { type: 'STRING', nullable: true },
              },
            },
          },
          { name: 'b', parametersJsonSchema: { type: 'object', additionalProperties: false } },
          { name: 'c' },
        ],
      },
      { googleSearch: {} },
    ],
  });
  assert.deepEqual(request.tools, [
    {
      name: 'a',
      parameters: {
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } },
          note: { type: ['string', 'null'] },
        },
      },
    },
    { name: 'b', parameters: { type: 'object', additionalProperties: false } },
    { name: 'c', parameters: { type: 'object', properties: {} } },
  ]);
  assert.deepEqual(request.extensions, { gamma: { tools: [{ googleSearch: {} }] } });
});

test('generationConfig: every canonical knob read, ranges enforced', () => {
  const request = decode({
    contents: [user('x')],
    generationConfig: {
      temperature: 2,
      topP: 0,
      topK: 3,
      maxOutputTokens: 10,
      stopSequences: ['a', 'b', 'c', 'd', 'e'],
      candidateCount: 8,
      presencePenalty: -2,
      frequencyPenalty: 1.5,
      seed: 42,
      thinkingConfig: { thinkingBudget: 0 },
    },
  });
  assert.deepEqual(request.sampling, {
    temperature: 2,
    topP: 0,
    topK: 3,
    maxOutputTokens: 10,
    stopSequences: ['a', 'b', 'c', 'd', 'e'],
    candidateCount: 8,
    presencePenalty: -2,
    frequencyPenalty: 1.5,
    seed: 42,
  });
  // A thinking budget is canonical (0: thinking off); C's other thinking options stay C-only.
  assert.deepEqual(request.reasoning, { budgetTokens: 0 });
  assert.deepEqual(request.extensions, {});
  const more = decode({
    contents: [user('x')],
    generationConfig: {
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { a: { type: 'string' } } },
      thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
    },
  });
  assert.deepEqual(more.responseFormat, {
    type: 'json-schema',
    schema: { type: 'object', properties: { a: { type: 'string' } } },
  });
  assert.deepEqual(more.reasoning, { budgetTokens: 512 });
  assert.deepEqual(more.extensions, {
    gamma: { generationConfig: { thinkingConfig: { includeThoughts: true } } },
  });
  const plain = decode({
    contents: [user('x')],
    generationConfig: { responseMimeType: 'application/json', thinkingConfig: { thinkingBudget: -1 } },
  });
  assert.deepEqual(plain.responseFormat, { type: 'json' });
  assert.equal(plain.reasoning, undefined);
  assert.deepEqual(plain.extensions, {
    gamma: { generationConfig: { thinkingConfig: { thinkingBudget: -1 } } },
  });
});

test('400s name the offending field', () => {
  const ok = [user('x')];
  assertBadRequest({}, 'contents', /expected an array/);
  assertBadRequest({ contents: [] }, 'contents', /at least one/);
  assertBadRequest(
    { contents: ok, generationConfig: { temperature: 2.5 } },
    'generationConfig.temperature',
    /outside/,
  );
  assertBadRequest({ contents: ok, generationConfig: { topP: 1.5 } }, 'generationConfig.topP', /outside/);
  assertBadRequest(
    { contents: ok, generationConfig: { candidateCount: 9 } },
    'generationConfig.candidateCount',
    /outside/,
  );
  assertBadRequest(
    { contents: ok, generationConfig: { candidateCount: 0 } },
    'generationConfig.candidateCount',
    /outside/,
  );
  assertBadRequest(
    { contents: [{ parts: [{ inlineData: { mimeType: 'application/pdf', data: 'JVBE' } }] }] },
    'contents[0].parts[0].inlineData.mimeType',
    /only image media/,
  );
  assertBadRequest({ contents: [{ role: 'system', parts: [] }] }, 'contents[0].role', /user.*model/);
  assertBadRequest(
    { contents: [{ role: 'user', parts: [{ functionCall: { name: 'f', args: {} } }] }] },
    'contents[0].parts[0]',
    /model turns/,
  );
  assertBadRequest(
    { contents: [{ role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: 'x' } }] }] },
    'contents[0].parts[0]',
    /only text and functionCall/,
  );
  assertBadRequest(
    { contents: ok, toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } },
    'toolConfig.functionCallingConfig.mode',
    /unknown mode/,
  );
  assertBadRequest(
    { contents: [{ parts: [{ executableCode: {} }] }] },
    'contents[0].parts[0]',
    /unsupported part/,
  );
});

test('the model comes from the route; a missing one is a 400', () => {
  assert.throws(() => gammaCodec.decodeRequest({ body: { contents: [user('x')] }, route: {} }), /model/);
  assert.equal(decode({ contents: [user('x')], model: 'ignored' }).model, 'm');
});

test('lenient (pass-through) decoding skips what the IR cannot carry instead of refusing it', () => {
  const body = {
    contents: [
      {
        role: 'user',
        parts: [
          { text: 'summarise' },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
          { fileData: { mimeType: 'video/mp4', fileUri: 'https://www.youtube.com/watch?v=x' } },
          { executableCode: { language: 'PYTHON', code: 'print(1)' } },
        ],
      },
      { role: 'model', parts: [{ codeExecutionResult: { outcome: 'OUTCOME_OK' } }, { text: 'done' }] },
    ],
    toolConfig: { functionCallingConfig: { mode: 'SOMETHING_NEW' } },
  };
  const request = gammaCodec.decodeRequest({ body, route: { model: 'm', stream: false }, lenient: true });
  assert.deepEqual(request.messages, [
    { role: 'user', content: [{ type: 'text', text: 'summarise' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  ]);
  assert.equal(request.toolChoice, undefined);
  assert.throws(() => decode(body), GatewayError);
});
