import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alphaCodec } from './alpha/index.ts';
import { familyCodec, familyIds, isFamilyId, registerFamily, surfaceFor } from './registry.ts';

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
  assert.deepEqual(familyIds(), ['alpha', 'beta', 'gamma']);
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
  assert.deepEqual(familyIds(), ['alpha', 'beta', 'gamma'], 'nothing was added');
});
