import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GatewayError, type ChatRequest, type JsonObject } from '../../ir/index.ts';
import { decodeRequest } from './decode-request.ts';

function fixture(name: string): JsonObject {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as JsonObject;
}

function decode(body: JsonObject): ChatRequest {
  return decodeRequest({ body, route: {} });
}

function refusal(body: JsonObject): GatewayError {
  try {
    decode(body);
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.kind, 'invalid_request');
    return error;
  }
  assert.fail('expected a 400');
}

test('a tool-loop turn as Codex and the Agents SDK send it', () => {
  const request = decode(fixture('items.request.json'));
  assert.equal(request.model, 'gpt-4.1');
  assert.deepEqual(request.system, [
    { type: 'text', text: 'You are a coding agent.' },
    { type: 'text', text: 'Answer in English.' },
  ]);
  assert.deepEqual(request.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is the weather in Paris? Here is a photo.' },
        {
          type: 'image',
          source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          detail: 'low',
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'call_Wz1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'call_Wz1',
          name: 'get_weather',
          content: [{ type: 'text', text: '18C and sunny' }],
          isError: false,
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks. And tomorrow?' }] },
  ]);
  assert.deepEqual(request.tools, [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
      strict: true,
    },
  ]);
  assert.deepEqual(request.toolChoice, { type: 'auto' });
  assert.equal(request.parallelToolCalls, false);
  assert.deepEqual(request.sampling, { maxOutputTokens: 500, temperature: 0.5, topP: 0.9 });
  assert.equal(request.stream, true);
  // Structured output and effort are canonical (every family encodes them); the rest is A's own.
  assert.deepEqual(request.responseFormat, {
    type: 'json-schema',
    name: 'forecast',
    schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
    strict: true,
  });
  assert.deepEqual(request.reasoning, { effort: 'low' });
  assert.deepEqual(request.extensions, { alpha: { prompt_cache_key: 'session-s-1' } });
  assert.deepEqual(request.notes, ['reasoning.summary is not available through modelgate and was ignored']);
});

test('a string input is one user message; instructions lead the system text', () => {
  const request = decode({ model: 'm', input: 'Hello', instructions: 'Be brief.' });
  assert.deepEqual(request.system, [{ type: 'text', text: 'Be brief.' }]);
  assert.deepEqual(request.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }]);
  assert.deepEqual(request.tools, []);
  assert.equal(request.stream, false);
  assert.equal(request.notes, undefined);
  assert.deepEqual(request.extensions, {});
});

test('system messages anywhere are system text; json_object is canonical JSON output', () => {
  const request = decode({
    model: 'm',
    input: [
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Reply in JSON.' },
    ],
    text: { format: { type: 'json_object' }, verbosity: 'low' },
  });
  assert.deepEqual(request.system, [{ type: 'text', text: 'Reply in JSON.' }]);
  assert.deepEqual(request.responseFormat, { type: 'json' });
  assert.deepEqual(request.extensions.alpha, { verbosity: 'low' });
});

test('outputs of parallel calls answer one turn; a tool output may hold parts', () => {
  const request = decode({
    model: 'm',
    input: [
      { role: 'user', content: 'Two cities' },
      { type: 'function_call', call_id: 'c1', name: 'w', arguments: '{"city":"A"}' },
      { type: 'function_call', call_id: 'c2', name: 'w', arguments: '{"city":"B"}' },
      { type: 'function_call_output', call_id: 'c1', output: '1' },
      {
        type: 'function_call_output',
        call_id: 'c2',
        output: [{ type: 'input_text', text: '2' }],
      },
    ],
  });
  assert.equal(request.messages.length, 3);
  assert.equal(request.messages[1]?.content.length, 2);
  assert.deepEqual(
    request.messages[2]?.content.map((part) => (part.type === 'tool-result' ? part.callId : '')),
    ['c1', 'c2'],
  );
});

test('unknown Responses fields are named in notes, never dropped silently', () => {
  const request = decode({ model: 'm', input: 'x', max_tool_calls: 3, user: 'u-1' });
  assert.deepEqual(request.notes, [
    "max_tool_calls is not supported by modelgate's Responses API and was ignored",
  ]);
  assert.deepEqual(request.extensions.alpha, { user: 'u-1' });
});

test('built-in tools are a clear 400', () => {
  const error = refusal({ model: 'm', input: 'x', tools: [{ type: 'web_search' }] });
  assert.equal(error.param, 'tools[0].type');
  assert.match(error.message, /"web_search" is a built-in tool/);
  assert.match(
    refusal({ model: 'm', input: 'x', tool_choice: { type: 'file_search' } }).message,
    /"file_search" is a built-in tool/,
  );
  assert.match(error.message, /responses\.builtInTools: drop/);
  // Their call items in the history are refused too (they need the tools).
  assert.equal(
    refusal({ model: 'm', input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] }).param,
    'input[0].type',
  );
});

test('with builtInTools: drop, built-in tools, a choice of one and their call items are left out and named', () => {
  const request = decodeRequest({
    body: {
      model: 'm',
      input: [
        { role: 'user', content: 'Search, then read' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Found it.' }] },
      ],
      tools: [
        { type: 'web_search', search_context_size: 'low' },
        { type: 'function', name: 'shell', parameters: { type: 'object', properties: {} } },
        { type: 'image_generation' },
      ],
      tool_choice: { type: 'web_search' },
    },
    route: {},
    builtInTools: 'drop',
  });
  assert.deepEqual(
    request.tools.map((tool) => tool.name),
    ['shell'],
  );
  assert.equal(request.toolChoice, undefined);
  assert.deepEqual(
    request.messages.map((message) => message.role),
    ['user', 'assistant'],
  );
  assert.deepEqual(request.notes, [
    'built-in tools dropped (responses.builtInTools: drop): web_search, image_generation',
    'built-in tool call items dropped from the input: web_search_call',
  ]);
  // Function tools alone: nothing dropped, nothing said.
  const plain = decodeRequest({ body: { model: 'm', input: 'x' }, route: {}, builtInTools: 'drop' });
  assert.equal(plain.notes, undefined);
});

test('with builtInTools: drop-unless-forced, offered built-in tools are left out and named; a forced one is a 400 naming it', () => {
  const request = decodeRequest({
    body: {
      model: 'm',
      input: 'List the files',
      tools: [
        { type: 'web_search' },
        { type: 'function', name: 'shell', parameters: { type: 'object', properties: {} } },
      ],
      tool_choice: 'auto',
    },
    route: {},
    builtInTools: 'drop-unless-forced',
  });
  assert.deepEqual(
    request.tools.map((tool) => tool.name),
    ['shell'],
  );
  assert.deepEqual(request.toolChoice, { type: 'auto' });
  assert.deepEqual(request.notes, [
    'built-in tools dropped (responses.builtInTools: drop-unless-forced): web_search',
  ]);
  const forced = (() => {
    try {
      decodeRequest({
        body: {
          model: 'm',
          input: 'x',
          tools: [{ type: 'web_search' }],
          tool_choice: { type: 'web_search' },
        },
        route: {},
        builtInTools: 'drop-unless-forced',
      });
    } catch (error) {
      return error;
    }
    return undefined;
  })();
  assert.ok(forced instanceof GatewayError);
  assert.equal(forced.kind, 'invalid_request');
  assert.equal(forced.param, 'tool_choice.type');
  assert.match(forced.message, /"web_search" is a built-in tool/);
});

test('bad input is a 400 naming the field', () => {
  assert.equal(refusal({ model: 'm' }).param, 'input');
  assert.equal(refusal({ model: 'm', input: [] }).param, 'input');
  assert.equal(refusal({ model: '', input: 'x' }).param, 'model');
  assert.equal(
    refusal({ model: 'm', input: [{ type: 'function_call_output', call_id: 'nope', output: 'x' }] }).param,
    'input[0].call_id',
  );
  assert.equal(
    refusal({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }).param,
    'input[0].content[0].type',
  );
  assert.equal(
    refusal({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] })
      .param,
    'input[0].content[0].image_url',
  );
  assert.equal(refusal({ model: 'm', input: [{ role: 'tool', content: 'x' }] }).param, 'input[0].role');
  assert.equal(refusal({ model: 'm', input: [{ type: 'item_reference', id: 'x' }] }).param, 'input[0].type');
  assert.equal(
    refusal({ model: 'm', input: 'x', text: { format: { type: 'xml' } } }).param,
    'text.format.type',
  );
  assert.equal(refusal({ model: 'm', input: 'x', max_output_tokens: 0 }).param, 'max_output_tokens');
  assert.equal(refusal({ model: 'm', input: 'x', temperature: 3 }).param, 'temperature');
  assert.equal(refusal({ model: 'm', input: 'x', background: true }).param, 'background');
  assert.equal(refusal({ model: 'm', input: 'x', store: 'yes' }).param, 'store');
});

test('a namespace tool becomes one function per member; a replayed call joins its namespace', () => {
  const request = decode({
    model: 'm',
    tools: [
      {
        type: 'namespace',
        name: 'agents',
        description: 'Sub-agents.',
        tools: [
          { type: 'function', name: 'spawn', description: 'Start one.', parameters: { type: 'object' } },
          { type: 'function', name: 'wait', parameters: { type: 'object' } },
        ],
      },
    ],
    input: [
      { role: 'user', content: 'Go' },
      { type: 'function_call', call_id: 'c1', namespace: 'agents', name: 'spawn', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'started' },
    ],
  });
  assert.deepEqual(request.tools, [
    { name: 'agents__spawn', description: 'Sub-agents.\n\nStart one.', parameters: { type: 'object' } },
    { name: 'agents__wait', description: 'Sub-agents.', parameters: { type: 'object' } },
  ]);
  assert.deepEqual(request.messages[1], {
    role: 'assistant',
    content: [{ type: 'tool-call', id: 'c1', name: 'agents__spawn', arguments: '{}' }],
  });
  assert.equal(
    refusal({
      model: 'm',
      input: 'x',
      tools: [{ type: 'namespace', name: 'n', tools: [{ type: 'custom', name: 'c' }] }],
    }).param,
    'tools[0].tools[0].type',
  );
});
