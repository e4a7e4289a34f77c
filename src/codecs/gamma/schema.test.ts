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

test('what C cannot state is a 400 naming the place: recursion, other refs, tuples, null-only, non-object root, nesting', () => {
  const rejects = (schema: JsonObject, message: string): void => {
    assert.throws(
      () => sanitiseParameters(schema, 'tools[0].parameters'),
      (error: unknown) =>
        error instanceof GatewayError && error.kind === 'invalid_request' && error.message === message,
    );
  };
  rejects(
    {
      type: 'object',
      properties: { node: { $ref: '#/definitions/Node' } },
      definitions: { Node: { type: 'object', properties: { next: { $ref: '#/definitions/Node' } } } },
    },
    'tools[0].parameters.properties.node.properties.next.$ref: gamma models cannot express the recursive definition "Node" in tool parameters',
  );
  rejects(
    { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } },
    'tools[0].parameters.properties.a.$ref: gamma models cannot express the reference "https://example.com/a.json" (only #/$defs/… and #/definitions/… are inlined) in tool parameters',
  );
  rejects(
    { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } },
    'tools[0].parameters.properties.a.$ref: gamma models cannot express the reference "#/$defs/Missing": no such definition in tool parameters',
  );
  rejects(
    { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } },
    'tools[0].parameters.properties.pair: gamma models cannot express tuples (prefixItems or items as a list) in tool parameters',
  );
  rejects(
    { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } },
    'tools[0].parameters.properties.pair: gamma models cannot express tuples (prefixItems or items as a list) in tool parameters',
  );
  rejects(
    { type: 'object', properties: { nothing: { type: 'null' } } },
    'tools[0].parameters.properties.nothing.type: gamma models cannot express a value that can only be null in tool parameters',
  );
  rejects(
    { type: 'string' },
    'tools[0].parameters.type: gamma models cannot express a "string" root (arguments are an object) in tool parameters',
  );
  // A definition used twice side by side is not recursion: both copies are inlined.
  const shared = sanitiseParameters({
    type: 'object',
    $defs: { P: { type: 'object', properties: { x: { type: 'number' } } } },
    properties: { a: { $ref: '#/$defs/P' }, b: { $ref: '#/$defs/P' } },
  });
  assert.deepEqual(shared?.properties, {
    a: { type: 'OBJECT', properties: { x: { type: 'NUMBER' } } },
    b: { type: 'OBJECT', properties: { x: { type: 'NUMBER' } } },
  });
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
