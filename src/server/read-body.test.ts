import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonBody } from './read-body.ts';

test('a UTF-8 byte order mark before the JSON is ignored; one elsewhere is still invalid', () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  assert.deepEqual(parseJsonBody(Buffer.concat([bom, Buffer.from('{"a":1}')])), { a: 1 });
  assert.throws(() => parseJsonBody(bom), /empty/);
  assert.throws(() => parseJsonBody(Buffer.concat([Buffer.from('{"a":1}'), bom])), /not valid JSON/);
  assert.throws(() => parseJsonBody(Buffer.concat([bom, bom, Buffer.from('{}')])), /not valid JSON/);
});
