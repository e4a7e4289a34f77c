import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseContext, UpstreamTarget } from '../codec.ts';
import type { JsonObject } from '../../ir/index.ts';
import { SseParser, type SseMessage } from '../../sse/parse-sse.ts';
import { decodeRequest } from './decode-request.ts';
import { passThrough } from './pass-through.ts';
import { fixture, sseFromChunks } from './test-kit.ts';

const target: UpstreamTarget = { baseUrl: 'https://b.example', apiKey: 'sk-upstream', model: 'b-1-20250101' };
const context: ResponseContext = { model: 'b-1', includeUsage: false, legacyFunctions: false };

test('the client body goes upstream with only the model changed (thinking blocks survive)', () => {
  const body = fixture('request-full.json') as JsonObject;
  const request = decodeRequest({ body, route: {} });
  const upstream = passThrough.encodeRequest(body, request, target);
  assert.equal(upstream.path, '/v1/messages');
  assert.deepEqual(upstream.headers, {
    'x-api-key': 'sk-upstream',
    'beta-version': '2023-06-01',
    'content-type': 'application/json',
  });
  assert.equal(upstream.body, JSON.stringify({ ...body, model: 'b-1-20250101' }));
  assert.match(upstream.body, /"type":"thinking"/);
  assert.ok(upstream.body.startsWith('{"model":"b-1-20250101","max_tokens":1024,'));
  assert.deepEqual(upstream.warnings, []);
});

test('the response keeps everything but shows the client model', () => {
  const body = fixture('tool-use.json') as JsonObject;
  assert.deepEqual(passThrough.rewriteResponse(body, context), { ...body, model: 'b-1' });
  // The same from the upstream's text, without re-encoding it.
  const text = JSON.stringify(body);
  const renamed = passThrough.rewriteResponseText?.(text, body, context);
  assert.ok(renamed !== undefined);
  assert.deepEqual(JSON.parse(renamed), { ...body, model: 'b-1' });
  assert.equal(renamed.length, text.length - JSON.stringify(body.model).length + '"b-1"'.length);
});

function messages(text: string): SseMessage[] {
  const parser = new SseParser();
  const out: SseMessage[] = [];
  parser.push(text, (message) => out.push(message));
  parser.end((message) => out.push(message));
  return out;
}

test('stream messages are re-framed byte for byte; only message_start renames the model', () => {
  const source = sseFromChunks('tool-use.chunks.txt');
  const forwarded = messages(source)
    .map((message) => passThrough.forwardStreamMessage(message, context))
    .join('');
  assert.equal(forwarded, source.replace('"model":"b-1-20250101"', '"model":"b-1"'));
  const same = messages(source)
    .map((message) => passThrough.forwardStreamMessage(message, { ...context, model: 'b-1-20250101' }))
    .join('');
  assert.equal(same, source);
});

test('model names with $ patterns and multi-line data are forwarded safely', () => {
  const start: SseMessage = {
    event: 'message_start',
    data: '{"type":"message_start","message":{"model":"up"}}',
  };
  assert.equal(
    passThrough.forwardStreamMessage(start, { ...context, model: "$&-$'" }),
    'event: message_start\ndata: {"type":"message_start","message":{"model":"$&-$\'"}}\n\n',
  );
  const multi: SseMessage = { event: 'content_block_delta', data: '{"a":\n1}' };
  const text = passThrough.forwardStreamMessage(multi, context);
  assert.equal(text, 'event: content_block_delta\ndata: {"a":\ndata: 1}\n\n');
  assert.deepEqual(messages(text), [multi]);
});

test('an output cap the gateway lowered reaches the upstream lowered; the version goes as beta-version', () => {
  const body: JsonObject = { model: 'alias', max_tokens: 32000, messages: [{ role: 'user', content: 'hi' }] };
  const request = decodeRequest({ body, route: {} });
  request.sampling.maxOutputTokens = 8192;
  const upstream = passThrough.encodeRequest(body, request, target, { 'anthropic-version': '2023-06-01' });
  assert.equal(upstream.body, JSON.stringify({ ...body, model: target.model, max_tokens: 8192 }));
  assert.equal(upstream.headers['beta-version'], '2023-06-01');
  assert.equal(upstream.headers['anthropic-version'], undefined);
  const both = passThrough.encodeRequest(body, request, target, {
    'anthropic-version': '2023-06-01',
    'beta-version': '2024-01-01',
  });
  assert.equal(both.headers['beta-version'], '2024-01-01');
});

test('a thinking budget the lowered cap leaves no room for is lowered below it, or thinking turned off', () => {
  // What Claude Code sends with thinking on: a budget just below its 32000-token cap.
  const body: JsonObject = {
    model: 'alias',
    max_tokens: 32000,
    thinking: { type: 'enabled', budget_tokens: 31999 },
    messages: [{ role: 'user', content: 'hi' }],
  };
  const request = decodeRequest({ body, route: {} });
  request.sampling.maxOutputTokens = 8192;
  const upstream = passThrough.encodeRequest(body, request, target);
  assert.deepEqual(JSON.parse(upstream.body), {
    ...body,
    model: target.model,
    max_tokens: 8192,
    thinking: { type: 'enabled', budget_tokens: 8191 },
  });
  assert.deepEqual(upstream.warnings, [
    'thinking.budget_tokens lowered from 31999 to 8191, below the lowered max_tokens',
  ]);
  request.sampling.maxOutputTokens = 1000;
  const tight = passThrough.encodeRequest(body, request, target);
  assert.deepEqual((JSON.parse(tight.body) as JsonObject).thinking, { type: 'disabled' });
  // A budget that still fits is left as the client wrote it.
  const fits = { ...body, thinking: { type: 'enabled', budget_tokens: 4000 } };
  request.sampling.maxOutputTokens = 8192;
  assert.deepEqual(
    (JSON.parse(passThrough.encodeRequest(fits, request, target).body) as JsonObject).thinking,
    {
      type: 'enabled',
      budget_tokens: 4000,
    },
  );
});

test('message_start names the client model whatever id the upstream answered (a dated one)', () => {
  const start: SseMessage = {
    event: 'message_start',
    data: '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-x-20250929","usage":{"input_tokens":3}}}',
  };
  assert.equal(
    passThrough.forwardStreamMessage(start, context),
    `event: message_start\ndata: ${start.data.replace('claude-x-20250929', 'b-1')}\n\n`,
  );
});
