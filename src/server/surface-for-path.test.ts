import assert from 'node:assert/strict';
import { test } from 'node:test';
import { repeatedHeader, surfaceForPath } from './surface-for-path.ts';

test('each path is answered in the shape of the surface it belongs to or resembles', () => {
  const cases: [string, string][] = [
    ['/v1/chat/completions', 'alpha'],
    ['/api/alpha/v1/chat/completions', 'alpha'],
    ['/v1/messages', 'beta'],
    ['/v1/messages/batches', 'beta'],
    ['/v1/models/C-1:generateContent', 'gamma'],
    ['/v1beta/models/C-1:embedContent', 'gamma'],
    ['/v1/nothing', 'alpha'],
    ['/', 'alpha'],
  ];
  for (const [path, family] of cases) assert.equal(surfaceForPath(path).id, family, path);
});

test('repeatedHeader finds a credential header sent twice, whatever its case', () => {
  const names = ['x-api-key', 'authorization'];
  assert.equal(repeatedHeader(['Host', 'h', 'X-Api-Key', 'a', 'x-api-key', 'b'], names), 'x-api-key');
  assert.equal(
    repeatedHeader(['Authorization', 'Bearer a', 'authorization', 'Bearer b'], names),
    'authorization',
  );
  assert.equal(repeatedHeader(['x-api-key', 'a', 'authorization', 'Bearer a'], names), undefined);
  assert.equal(repeatedHeader([], names), undefined);
});
