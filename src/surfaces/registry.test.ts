import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WireCodec } from '../codecs/codec.ts';
import { alphaWire } from '../codecs/alpha/index.ts';
import { builtInCodecs } from '../codecs/registry.ts';
import { alphaCodec, alphaSurface } from './alpha/index.ts';
import { responsesSurface } from './responses/index.ts';
import type { FamilySurface } from './surface.ts';
import {
  builtInSurfaces,
  createRegistry,
  familyCodec,
  familyIds,
  isFamilyId,
  registerFamily,
  surfaceFor,
} from './registry.ts';

test('each path is answered in the shape of the surface it belongs to or resembles', () => {
  const cases: [string, string][] = [
    ['/v1/chat/completions', 'alpha'],
    ['/api/alpha/v1/chat/completions', 'alpha'],
    ['/v1/responses', 'responses'],
    ['/v1/messages', 'beta'],
    ['/v1/messages/batches', 'beta'],
    ['/v1/models/C-1:generateContent', 'gamma'],
    ['/v1beta/models/C-1:embedContent', 'gamma'],
    ['/v1/nothing', 'alpha'],
    ['/', 'alpha'],
  ];
  for (const [path, family] of cases) assert.equal(surfaceFor(path).id, family, path);
});

test('the spec families are registered; ids from outside are checked', () => {
  assert.deepEqual(familyIds(), ['alpha', 'beta', 'gamma', 'converse']);
  assert.equal(isFamilyId('beta'), true);
  assert.equal(isFamilyId('responses'), false, 'a surface-only codec is no family');
  assert.equal(isFamilyId('Alpha'), false);
  assert.equal(familyCodec('gamma').id, 'gamma');
  assert.throws(() => familyCodec('omega'), /no family "omega"/);
});

test('a family that would collide with another is refused', () => {
  assert.throws(() => registerFamily(alphaCodec), /already registered/);
  assert.throws(
    () => registerFamily({ ...alphaCodec, id: 'responses', family: 'responses' }),
    /already registered/,
  );
  assert.throws(() => registerFamily({ ...alphaCodec, id: 'Omega', family: 'Omega' }), /lower-case/);
  assert.throws(() => registerFamily({ ...alphaCodec, id: 'omega', family: 'omega' }), /prefix ALPHA/);
  assert.throws(
    () =>
      registerFamily({
        ...alphaCodec,
        id: 'omega',
        family: 'alpha',
        descriptor: { ...alphaCodec.descriptor, envPrefix: 'OMEGA' },
      }),
    /its own errors/,
  );
  assert.deepEqual(familyIds(), ['alpha', 'beta', 'gamma', 'converse'], 'nothing was added');
});

test('a registry is a value built from the two lists: one more line is one more codec or surface', () => {
  const zeta: WireCodec = {
    ...alphaWire,
    id: 'zeta',
    descriptor: { ...alphaWire.descriptor, envPrefix: 'ZETA' },
  };
  const zetaSurface: FamilySurface = {
    ...alphaSurface,
    codec: 'zeta',
    routes: [{ path: '/zeta', route: {} }],
  };
  const built = createRegistry([...builtInCodecs, zeta], [...builtInSurfaces, zetaSurface]);
  assert.deepEqual(built.familyIds(), ['alpha', 'beta', 'gamma', 'converse', 'zeta']);
  assert.equal(built.familyCodec('zeta'), zeta);
  assert.equal(built.matchSurface('/zeta')?.codec.id, 'zeta');
  assert.equal(built.matchSurface('/zeta')?.codec.family, 'zeta');
  assert.deepEqual(
    built.surfaces().map((surface) => surface.id),
    ['alpha', 'beta', 'gamma', 'zeta', 'responses'],
    'family surfaces are matched before the surface-only ones',
  );
  assert.deepEqual(
    familyIds(),
    ['alpha', 'beta', 'gamma', 'converse'],
    'the gateway’s registry is another value',
  );

  const wireOnly = createRegistry([...builtInCodecs, zeta], builtInSurfaces);
  assert.equal(wireOnly.isFamilyId('zeta'), true, 'a codec with no surface is a family the gateway can call');
  assert.deepEqual(
    wireOnly.familySurfaces().map((family) => family.id),
    ['alpha', 'beta', 'gamma'],
  );
});

test('a surface must front a registered codec, once', () => {
  assert.throws(
    () => createRegistry(builtInCodecs, [...builtInSurfaces, { ...alphaSurface, codec: 'zeta' }]),
    /no such codec/,
  );
  assert.throws(
    () => createRegistry(builtInCodecs, [...builtInSurfaces, alphaSurface]),
    /already registered/,
  );
  assert.throws(
    () => createRegistry(builtInCodecs, [...builtInSurfaces, { ...responsesSurface, family: 'zeta' }]),
    /surface responses is already registered/,
  );
  assert.throws(
    () =>
      createRegistry(builtInCodecs, [
        ...builtInSurfaces,
        { ...responsesSurface, id: 'other', family: 'zeta' },
      ]),
    /no family zeta/,
  );
});
