import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type JsonObject } from '../../ir/index.ts';
import { normaliseGammaSchema, sanitiseParameters } from './schema.ts';

test('strips what C rejects and rewrites what has an equivalent', () => {
  const schema: JsonObject = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'x',
    type: 'object',
    additionalProperties: false,
    $defs: { Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
    properties: {
      name: { type: ['string', 'null'], minLength: 1, format: 'email' },
      when: { type: 'string', format: 'date-time' },
      kind: { const: 'a' },
      level: { type: 'integer', enum: [1, 2, 3], exclusiveMinimum: 0, multipleOf: 1 },
      either: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'maybe' },
      many: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      mixed: { type: ['string', 'number'] },
      both: {
        allOf: [
          { properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'boolean' } } },
        ],
      },
      at: { $ref: '#/$defs/Point', description: 'where' },
      list: {
        type: 'array',
        items: { type: 'object', properties: {}, patternProperties: { '^x': {} } },
        uniqueItems: true,
      },
    },
    required: ['name', 'ghost'],
  };
  assert.deepEqual(sanitiseParameters(schema), {
    type: 'OBJECT',
    properties: {
      name: { type: 'STRING', nullable: true, minLength: 1 },
      when: { type: 'STRING', format: 'date-time' },
      kind: { enum: ['a'], type: 'STRING' },
      level: { type: 'INTEGER', minimum: 0 },
      either: { type: 'STRING', nullable: true, description: 'maybe' },
      many: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] },
      mixed: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
      both: { properties: { a: { type: 'STRING' }, b: { type: 'BOOLEAN' } }, required: ['a'] },
      at: { type: 'OBJECT', properties: { x: { type: 'NUMBER' } }, required: ['x'], description: 'where' },
      list: { type: 'ARRAY', items: { type: 'OBJECT' } },
    },
    required: ['name'],
  });
});

test('a tool without arguments sends no parameters (C rejects an OBJECT with empty properties)', () => {
  assert.equal(sanitiseParameters({ type: 'object', properties: {} }), undefined);
  assert.equal(sanitiseParameters({ type: 'object', additionalProperties: false }), undefined);
});

test('recursive $ref stops at a bare object; absurd nesting is a 400', () => {
  const recursive: JsonObject = {
    type: 'object',
    properties: { node: { $ref: '#/definitions/Node' } },
    definitions: { Node: { type: 'object', properties: { next: { $ref: '#/definitions/Node' } } } },
  };
  const out = JSON.stringify(sanitiseParameters(recursive));
  assert.ok(!out.includes('$ref'));
  let deep: JsonObject = { type: 'string' };
  for (let level = 0; level < 100; level++) deep = { type: 'array', items: deep };
  assert.throws(
    () => sanitiseParameters({ type: 'object', properties: { deep } }),
    (error: unknown) => error instanceof GatewayError && error.kind === 'invalid_request',
  );
});

test('C schemas decode to lower-case JSON Schema with nullable as a type array', () => {
  assert.deepEqual(
    normaliseGammaSchema({
      type: 'OBJECT',
      properties: {
        a: { type: 'STRING', nullable: true },
        b: { anyOf: [{ type: 'INTEGER' }, { type: 'NUMBER' }] },
      },
      required: ['a'],
    }),
    {
      type: 'object',
      properties: {
        a: { type: ['string', 'null'] },
        b: { anyOf: [{ type: 'integer' }, { type: 'number' }] },
      },
      required: ['a'],
    },
  );
});
