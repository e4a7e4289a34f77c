import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type JsonObject } from '../../ir/index.ts';
import { camelCaseRequest, camelName } from './proto-names.ts';

test('camelName: proto names become lowerCamelCase; other keys stay as written', () => {
  assert.equal(camelName('max_output_tokens'), 'maxOutputTokens');
  assert.equal(camelName('response_json_schema'), 'responseJsonSchema');
  assert.equal(camelName('text'), 'text');
  assert.equal(camelName('maxOutputTokens'), 'maxOutputTokens');
  assert.equal(camelName('_private'), '_private');
  assert.equal(camelName('Some_Key'), 'Some_Key');
  assert.equal(camelName('trailing_'), 'trailing_');
});

test('renames along the proto only: args, responses, JSON schemas and property names keep their keys', () => {
  const body: JsonObject = {
    contents: [
      {
        parts: [
          { function_call: { name: 'f', args: { unit_system: 'metric', nested_obj: { deep_key: 1 } } } },
          { function_response: { name: 'f', response: { temp_c: 18 }, will_continue: false } },
        ],
      },
    ],
    tools: [
      {
        function_declarations: [
          {
            name: 'f',
            parameters: { type: 'OBJECT', properties: { unit_system: { type: 'STRING', min_length: 1 } } },
            parameters_json_schema: { type: 'object', properties: { snake_prop: { type: 'string' } } },
          },
        ],
      },
    ],
    generation_config: { response_json_schema: { properties: { my_field: { any_of: [] } } } },
    labels: { team_name: 'x' },
  };
  assert.deepEqual(camelCaseRequest(body), {
    contents: [
      {
        parts: [
          { functionCall: { name: 'f', args: { unit_system: 'metric', nested_obj: { deep_key: 1 } } } },
          { functionResponse: { name: 'f', response: { temp_c: 18 }, willContinue: false } },
        ],
      },
    ],
    tools: [
      {
        functionDeclarations: [
          {
            name: 'f',
            parameters: { type: 'OBJECT', properties: { unit_system: { type: 'STRING', minLength: 1 } } },
            parametersJsonSchema: { type: 'object', properties: { snake_prop: { type: 'string' } } },
          },
        ],
      },
    ],
    generationConfig: { responseJsonSchema: { properties: { my_field: { any_of: [] } } } },
    // A field outside the tables: its name is a proto name, its value (a map) is data.
    labels: { team_name: 'x' },
  });
});

test('nested Schema words are renamed at every level: any_of, items, min_items, property_ordering', () => {
  const renamed = camelCaseRequest({
    generation_config: {
      response_schema: {
        type: 'OBJECT',
        property_ordering: ['a_b'],
        properties: {
          a_b: { any_of: [{ type: 'ARRAY', items: { type: 'STRING', max_length: 3 }, min_items: 1 }] },
        },
      },
    },
  });
  assert.deepEqual(renamed, {
    generationConfig: {
      responseSchema: {
        type: 'OBJECT',
        propertyOrdering: ['a_b'],
        properties: {
          a_b: { anyOf: [{ type: 'ARRAY', items: { type: 'STRING', maxLength: 3 }, minItems: 1 }] },
        },
      },
    },
  });
});

test('a body already in camelCase is returned as is, and no input is ever changed', () => {
  const camel: JsonObject = { contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: 'x' } }] }] };
  assert.equal(camelCaseRequest(camel), camel);
  const snake: JsonObject = {
    contents: [{ parts: [{ inline_data: { mime_type: 'image/png', data: 'x' } }] }],
  };
  const before = JSON.stringify(snake);
  const renamed = camelCaseRequest(snake);
  assert.equal(JSON.stringify(snake), before);
  assert.deepEqual(renamed, camel);
});

test('both spellings of one field: a 400 naming the field and both spellings', () => {
  for (const [body, param] of [
    [{ generationConfig: {}, generation_config: {} }, 'generationConfig'],
    [{ generationConfig: { maxOutputTokens: 5, max_output_tokens: 6 } }, 'generationConfig.maxOutputTokens'],
    [
      { contents: [{ parts: [{ inlineData: { mimeType: 'a', mime_type: 'b' } }] }] },
      'contents[0].parts[0].inlineData.mimeType',
    ],
  ] as const) {
    assert.throws(
      () => camelCaseRequest(body as JsonObject),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.status === 400 &&
        error.param === param &&
        /given twice/.test(error.message),
    );
  }
});

test('a hostile nesting depth is a 400, not a stack overflow', () => {
  let schema: JsonObject = { type: 'STRING' };
  for (let level = 0; level < 200; level++) schema = { type: 'ARRAY', items: schema };
  assert.throws(
    () => camelCaseRequest({ generation_config: { response_schema: schema } }),
    (error: unknown) =>
      error instanceof GatewayError && error.status === 400 && /too deeply/.test(error.message),
  );
});

test('__proto__ keys stay own data keys, never a prototype', () => {
  const body = JSON.parse(
    '{"generation_config":{"__proto__":{"polluted":true},"max_output_tokens":5}}',
  ) as JsonObject;
  const renamed = camelCaseRequest(body);
  const config = renamed.generationConfig as JsonObject;
  assert.equal(Object.getPrototypeOf(config), Object.prototype);
  assert.deepEqual(Object.keys(config), ['__proto__', 'maxOutputTokens']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
