import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { guardInFlight } from './overload.ts';

test('a shed answer has its id, in the header its surface reads too (B: request-id and the body)', async () => {
  const held: ServerResponse[] = [];
  const guard = guardInFlight((_request, response) => {
    held.push(response);
  }, 1);
  const server = createServer(guard.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const post = (path: string): Promise<Response> => fetch(url + path, { method: 'POST', body: '{}' });
    const first = post('/v1/messages');
    while (guard.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    const shed = await post('/v1/messages');
    assert.equal(shed.status, 529);
    const id = shed.headers.get('x-request-id');
    assert.match(id ?? '', /^req_/);
    assert.equal(shed.headers.get('request-id'), id);
    assert.equal(((await shed.json()) as { request_id?: unknown }).request_id, id);

    const alpha = await post('/v1/chat/completions');
    assert.equal(alpha.status, 503);
    assert.match(alpha.headers.get('x-request-id') ?? '', /^req_/);
    assert.equal(alpha.headers.get('request-id'), null);
    await alpha.text();

    for (const response of held) response.end();
    await (await first).text();
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
