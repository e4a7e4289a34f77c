import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateId } from './ids.ts';

test('ids keep their family prefix and are 18 characters of [0-9a-z] after it', () => {
  for (const prefix of ['req_', 'resp_', 'chatcmpl-', 'msg_', 'call_', 'gen_'])
    assert.match(generateId(prefix), new RegExp(`^${prefix}[0-9a-z]{18}$`));
});

test('ids reveal no volume: consecutive ids share no stem and do not count up', () => {
  const ids = Array.from({ length: 20_000 }, () => generateId('req_').slice(4));
  assert.equal(new Set(ids).size, ids.length);
  // A stem plus a counter made consecutive ids share their first 12 characters.
  const sharedStems = ids.slice(1).filter((id, index) => id.slice(0, 6) === ids[index]?.slice(0, 6));
  assert.ok(sharedStems.length < 5, `${sharedStems.length} consecutive pairs share a 6-character stem`);
  // Every position of every id is spread over the whole alphabet.
  for (let position = 0; position < 18; position++) {
    const seen = new Set(ids.map((id) => id.charAt(position)));
    assert.equal(seen.size, 36, `position ${position}`);
  }
});
