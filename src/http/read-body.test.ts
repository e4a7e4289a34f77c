import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { parseJsonBody, readBody } from './read-body.ts';

const utf8 = (bytes: Buffer): string => bytes.toString('utf8');

test('a UTF-8 byte order mark before the JSON is ignored; one elsewhere is still invalid', () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  assert.deepEqual(parseJsonBody(utf8(Buffer.concat([bom, Buffer.from('{"a":1}')]))), { a: 1 });
  assert.throws(() => parseJsonBody(utf8(bom)), /empty/);
  assert.throws(() => parseJsonBody(utf8(Buffer.concat([Buffer.from('{"a":1}'), bom]))), /not valid JSON/);
  assert.throws(() => parseJsonBody(utf8(Buffer.concat([bom, bom, Buffer.from('{}')]))), /not valid JSON/);
});

test('a body in many chunks, with UTF-8 sequences split between them, reads as one text', async () => {
  const text = JSON.stringify({ messages: [{ role: 'user', content: 'héllo 一丁七 🙂 '.repeat(2_000) }] });
  const bytes = Buffer.from(text);
  const request = Readable.from(
    Array.from({ length: Math.ceil(bytes.length / 7) }, (_, index) =>
      bytes.subarray(index * 7, index * 7 + 7),
    ),
  ) as unknown as IncomingMessage;
  request.headers = {};
  assert.equal(await readBody(request, bytes.length), text);
  const one = Readable.from([bytes]) as unknown as IncomingMessage;
  one.headers = {};
  assert.equal(await readBody(one, bytes.length), text);
});
