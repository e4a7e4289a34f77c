/**
 * A Family C client in either proto-JSON spelling (and the Python SDK's mix of both), translated
 * to the other families: the tool arrives with its properties, the image with its media type,
 * snake_case schema words in the other family's JSON Schema spelling, and every C-only field the
 * upstream cannot take named in a warning.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { JsonObject } from '../../src/ir/index.ts';
import { converseWire } from '../../src/codecs/converse/index.ts';
import { codecs } from '../kit/spec-families.ts';

const target = { baseUrl: 'http://upstream', apiKey: 'up-key', model: 'upstream-model' };
const fixtures = ['snake-case-request.json', 'python-sdk-request.json', 'camel-case-request.json'];

function fixture(name: string): JsonObject {
  const url = new URL(`../../src/codecs/gamma/__fixtures__/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as JsonObject;
}

function decoded(name: string) {
  return codecs.gamma.decodeRequest({ body: fixture(name), route: { model: 'client-model', stream: false } });
}

const droppedForOthers = (family: string): string[] => [
  `cachedContent has no equivalent for ${family} models and was dropped`,
  `generationConfig has no equivalent for ${family} models and was dropped`,
  `safetySettings has no equivalent for ${family} models and was dropped`,
  `tools has no equivalent for ${family} models and was dropped`,
];

for (const name of fixtures) {
  test(`${name} → an A upstream: tool properties, image media type, warnings`, () => {
    const upstream = codecs.alpha.encodeRequest(decoded(name), target);
    const body = JSON.parse(upstream.body) as {
      tools: Array<{ function: { name: string; parameters: JsonObject } }>;
      messages: Array<{ role: string; content: unknown }>;
    };
    const parameters = body.tools[0]?.function.parameters ?? {};
    const properties = (parameters.properties ?? {}) as JsonObject;
    assert.deepEqual(Object.keys(properties), ['city', 'unit_system', 'when']);
    assert.deepEqual(parameters.required, ['city']);
    assert.deepEqual(properties.when, {
      ...(name === 'python-sdk-request.json' ? { default: null, title: 'When' } : {}),
      anyOf: [{ type: 'string' }, { type: 'integer' }],
    });
    const user = body.messages.find((message) => message.role === 'user');
    assert.match(JSON.stringify(user?.content), /"url":"data:image\/png;base64,iVBORw0KGgo="/);
    for (const warning of droppedForOthers('alpha')) assert.ok(upstream.warnings.includes(warning), warning);
  });

  test(`${name} → a B upstream: tool input schema, image source with its media type`, () => {
    const upstream = codecs.beta.encodeRequest(decoded(name), target);
    const body = JSON.parse(upstream.body) as {
      tools: Array<{ name: string; input_schema: JsonObject }>;
      messages: Array<{ role: string; content: Array<{ type: string; source?: JsonObject }> }>;
    };
    assert.deepEqual(Object.keys(body.tools[0]?.input_schema.properties as JsonObject), [
      'city',
      'unit_system',
      'when',
    ]);
    const image = body.messages[0]?.content.find((part) => part.type === 'image');
    assert.deepEqual(image?.source, { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' });
    for (const warning of droppedForOthers('beta')) assert.ok(upstream.warnings.includes(warning), warning);
  });

  test(`${name} → a Converse upstream: tool schema with its properties`, () => {
    const request = decoded(name);
    // Converse takes images inline only: the Files-API image is left out here.
    request.messages = request.messages.map((message) =>
      message.role === 'user'
        ? {
            ...message,
            content: message.content.filter((part) => part.type !== 'image' || part.source.kind !== 'url'),
          }
        : message,
    );
    const upstream = converseWire.encodeRequest(request, target);
    const body = JSON.parse(upstream.body) as {
      toolConfig: { tools: Array<{ toolSpec: { inputSchema: { json: JsonObject } } }> };
    };
    const schema = body.toolConfig.tools[0]?.toolSpec.inputSchema.json;
    assert.deepEqual(Object.keys(schema?.properties as JsonObject), ['city', 'unit_system', 'when']);
  });
}

test('snake_case Schema words reach an A upstream in JSON Schema spelling', () => {
  const request = codecs.gamma.decodeRequest({
    body: {
      contents: [{ parts: [{ text: 'list' }] }],
      tools: [
        {
          function_declarations: [
            {
              name: 'tag',
              parameters: {
                type: 'OBJECT',
                properties: {
                  tags: {
                    type: 'ARRAY',
                    items: { type: 'STRING', max_length: 9 },
                    min_items: 1,
                    max_items: 3,
                  },
                  when: { any_of: [{ type: 'STRING' }, { type: 'INTEGER', nullable: true }] },
                },
              },
            },
          ],
        },
      ],
    },
    route: { model: 'client-model', stream: false },
  });
  const body = JSON.parse(codecs.alpha.encodeRequest(request, target).body) as {
    tools: Array<{ function: { parameters: JsonObject } }>;
  };
  assert.deepEqual(body.tools[0]?.function.parameters, {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string', maxLength: 9 }, minItems: 1, maxItems: 3 },
      when: { anyOf: [{ type: 'string' }, { type: ['integer', 'null'] }] },
    },
  });
});

test('a declaration field with no canonical slot is named in the warning, not dropped silently', () => {
  const request = codecs.gamma.decodeRequest({
    body: {
      contents: [{ parts: [{ text: 'hi' }] }],
      tools: [{ function_declarations: [{ name: 'f', behavior: 'NON_BLOCKING' }] }],
    },
    route: { model: 'client-model', stream: false },
  });
  assert.ok(
    codecs.alpha
      .encodeRequest(request, target)
      .warnings.includes('functionDeclarations.behavior has no equivalent for alpha models and was dropped'),
  );
});
