/**
 * Traces as an OTLP collector would get them, through an in-memory exporter: a request the
 * scripted upstream fails twice (primary, then the retry on the model's second deployment) and a
 * fallback answers gives one SERVER span and three CLIENT spans in the client's trace, with the
 * GenAI attributes; each upstream call carried its own span's `traceparent`; the ledger rows carry
 * the trace id; no message content unless the operator opted in.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { startGateway, type RunningGateway } from '../../src/server/start-gateway.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.ts';
import { staticKeyId } from '../../src/keys/client-keys.ts';

const clientKey = 'mg-tracing-client-key-0123456789';
const clientTraceId = '0af7651916cd43dd8448eb211c80319c';
const clientSpanId = 'b7ad6b7169203331';

interface Started {
  gateway: RunningGateway;
  exporter: InMemorySpanExporter;
  databasePath: string;
  close(): Promise<void>;
}

async function startTraced(
  upstream: FakeUpstream,
  environment: Record<string, string> = {},
): Promise<Started> {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-tracing-'));
  const path = join(directory, 'config.yaml');
  writeFileSync(
    path,
    `
models:
  - name: B-1
    deployments:
      - { id: b1-east, baseUrl: "${upstream.url}", apiKey: b-key }
      - { id: b1-west, baseUrl: "${upstream.url}", apiKey: b-key }
    fallbacks: [B-4]
  - { name: B-4, deployments: [{ id: b4-only, baseUrl: "${upstream.url}", apiKey: b-key }] }
retry: { backoffMs: 5, maxBackoffMs: 10 }
limits: { staticKeys: { static-1: { unlimited: true } } }
`,
  );
  const databasePath = join(directory, 'tracing.db');
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      MODELGATE_KEYS: clientKey,
      MODELGATE_DB: databasePath,
      LOG_LEVEL: 'silent',
      ...environment,
    },
    path,
  );
  const exporter = new InMemorySpanExporter();
  const gateway = await startGateway(config, createLogger('silent', []), { spanExporter: exporter });
  return {
    gateway,
    exporter,
    databasePath,
    close: async () => {
      await gateway.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function finishedSpans(exporter: InMemorySpanExporter, count: number): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 10_000;
  while (exporter.getFinishedSpans().length < count && Date.now() < deadline) await delay(20);
  return exporter.getFinishedSpans();
}

function ask(url: string, headers: Record<string, string> = {}, stream = false): Promise<Response> {
  return fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': clientKey,
      'beta-version': '2023-06-01',
      ...headers,
    },
    body: JSON.stringify({
      model: 'B-1',
      max_tokens: 32,
      stream,
      system: 'Answer briefly.',
      messages: [{ role: 'user', content: 'a secret prompt' }],
    }),
  });
}

describe('traces of a request retried, then served by a fallback', () => {
  let upstream: FakeUpstream;
  let started: Started;

  before(async () => {
    upstream = await startFakeUpstream();
    started = await startTraced(upstream);
  });

  after(async () => {
    await started.close();
    await upstream.close();
  });

  test('one server span, three client spans (primary, retry, fallback) in the client’s trace', async () => {
    upstream.record = true;
    upstream.seen.length = 0;
    // The next two calls fail (the primary and its retry on the second deployment), then simulate.
    const before = upstream.stats.requests;
    upstream.behave = (request) =>
      request.index <= before + 2 ? { kind: 'status', status: 503 } : { kind: 'simulate' };
    const response = await ask(started.gateway.url, {
      traceparent: `00-${clientTraceId}-${clientSpanId}-01`,
    });
    const body = (await response.json()) as {
      stop_reason: string;
      usage: { input_tokens: number; output_tokens: number };
    };
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.equal(response.headers.get('x-modelgate-served-by'), 'B-4');

    const spans = await finishedSpans(started.exporter, 4);
    const servers = spans.filter((span) => span.kind === SpanKind.SERVER);
    const clients = spans.filter((span) => span.kind === SpanKind.CLIENT);
    assert.equal(servers.length, 1);
    assert.equal(clients.length, 3);
    const server = servers[0] as ReadableSpan;
    for (const span of spans)
      assert.equal(span.spanContext().traceId, clientTraceId, 'the client’s trace continues');
    assert.equal(server.parentSpanContext?.spanId, clientSpanId);
    for (const client of clients) assert.equal(client.parentSpanContext?.spanId, server.spanContext().spanId);

    assert.equal(server.name, 'chat B-1');
    assert.equal(server.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(server.attributes['gen_ai.request.model'], 'B-1');
    assert.equal(server.attributes['gen_ai.response.model'], 'B-4');
    assert.equal(server.attributes['gen_ai.provider.name'], 'beta');
    assert.equal(server.attributes['modelgate.surface'], 'beta');
    assert.equal(server.attributes['modelgate.key_id'], staticKeyId(clientKey));
    assert.equal(server.attributes['modelgate.attempts'], 3);
    assert.equal(server.attributes['http.response.status_code'], 200);
    assert.equal(server.attributes['gen_ai.usage.output_tokens'], body.usage.output_tokens);
    assert.ok(Number(server.attributes['gen_ai.usage.input_tokens']) >= body.usage.input_tokens);
    assert.ok(Number(server.attributes['modelgate.cost_usd']) > 0);
    assert.deepEqual(server.attributes['gen_ai.response.finish_reasons'], [body.stop_reason]);
    assert.equal(server.attributes['error.type'], undefined);

    // In the order they were sent.
    const ordered = [...clients].sort((left, right) =>
      left.startTime[0] === right.startTime[0]
        ? left.startTime[1] - right.startTime[1]
        : left.startTime[0] - right.startTime[0],
    );
    assert.deepEqual(
      ordered.map((span) => [
        span.attributes['modelgate.attempt'],
        span.attributes['modelgate.model'],
        span.attributes['http.response.status_code'],
      ]),
      [
        ['primary', 'B-1', 503],
        ['retry', 'B-1', 503],
        ['fallback', 'B-4', 200],
      ],
    );
    const [primary, retry, fallback] = ordered as [ReadableSpan, ReadableSpan, ReadableSpan];
    assert.notEqual(primary.attributes['modelgate.deployment'], retry.attributes['modelgate.deployment']);
    for (const failed of [primary, retry]) {
      assert.equal(typeof failed.attributes['error.type'], 'string');
      assert.equal(
        failed.attributes['gen_ai.usage.input_tokens'],
        undefined,
        'usage only on the answering call',
      );
    }
    assert.equal(fallback.name, 'chat B-4');
    assert.equal(fallback.attributes['gen_ai.provider.name'], 'beta');
    assert.equal(fallback.attributes['gen_ai.request.model'], 'B-4');
    assert.equal(fallback.attributes['gen_ai.usage.output_tokens'], body.usage.output_tokens);
    assert.deepEqual(fallback.attributes['gen_ai.response.finish_reasons'], [body.stop_reason]);
    for (const failed of [primary, retry])
      assert.equal(failed.attributes['gen_ai.response.finish_reasons'], undefined);
    assert.equal(typeof fallback.attributes['gen_ai.usage.cache_read.input_tokens'], 'number');
    assert.equal(typeof fallback.attributes['gen_ai.usage.cache_creation.input_tokens'], 'number');
    assert.equal(fallback.attributes['error.type'], undefined);

    // Each upstream call carried its own client span as the parent.
    assert.deepEqual(
      upstream.seen.map((request) => request.headers.traceparent),
      ordered.map((span) => `00-${clientTraceId}-${span.spanContext().spanId}-01`),
    );
    // No content unless opted in.
    for (const span of spans) {
      assert.ok(!JSON.stringify(span.attributes).includes('secret prompt'));
      assert.equal(span.attributes['gen_ai.input.messages'], undefined);
    }

    // The trace id is on every ledger row of the request.
    const deadline = Date.now() + 10_000;
    const database = openDatabase(started.databasePath);
    try {
      let traced: unknown[] = [];
      while (traced.length < 3 && Date.now() < deadline) {
        traced = database.prepare('SELECT attempt FROM usage_ledger WHERE trace_id = ?').all(clientTraceId);
        if (traced.length < 3) await delay(50);
      }
      assert.equal(traced.length, 3);
    } finally {
      database.close();
    }
  });

  test('without a client traceparent the gateway starts a trace of its own', async () => {
    started.exporter.reset();
    upstream.behave = () => ({ kind: 'simulate' });
    const response = await ask(started.gateway.url);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    const spans = await finishedSpans(started.exporter, 2);
    assert.equal(spans.length, 2);
    const [first, second] = spans as [ReadableSpan, ReadableSpan];
    assert.equal(first.spanContext().traceId, second.spanContext().traceId);
    assert.notEqual(first.spanContext().traceId, clientTraceId);
    const server = spans.find((span) => span.kind === SpanKind.SERVER);
    assert.equal(server?.parentSpanContext, undefined);
  });

  test('a streamed answer: the finish reason the stream gave is on the spans', async () => {
    started.exporter.reset();
    upstream.behave = () => ({ kind: 'simulate' });
    const response = await ask(started.gateway.url, {}, true);
    assert.equal(response.status, 200);
    const text = await response.text();
    const delta = /"stop_reason":"([a-z_]+)"/.exec(text);
    assert.ok(delta !== null, 'the stream says why it stopped');
    const spans = await finishedSpans(started.exporter, 2);
    for (const span of spans)
      assert.deepEqual(span.attributes['gen_ai.response.finish_reasons'], [delta[1]], span.name);
  });
});

describe('message content on spans, only when opted in', () => {
  test('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true puts the messages on the server span', async () => {
    const upstream = await startFakeUpstream();
    const started = await startTraced(upstream, {
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    try {
      const response = await ask(started.gateway.url);
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      const spans = await finishedSpans(started.exporter, 2);
      const server = spans.find((span) => span.kind === SpanKind.SERVER);
      assert.match(String(server?.attributes['gen_ai.input.messages']), /a secret prompt/);
      assert.equal(server?.attributes['gen_ai.system_instructions'], '"Answer briefly."');
    } finally {
      await started.close();
      await upstream.close();
    }
  });
});

describe('export over OTLP/HTTP', () => {
  test('with OTEL_EXPORTER_OTLP_ENDPOINT set, a collector gets the spans (at the latest on shutdown)', async () => {
    const received: { path: string; type: string; body: string }[] = [];
    const collector = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          path: request.url ?? '',
          type: request.headers['content-type'] ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    // The exporter reads the standard variables from the process environment, as in production.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    process.env.OTEL_SERVICE_NAME = 'modelgate-under-test';
    const upstream = await startFakeUpstream();
    const directory = mkdtempSync(join(tmpdir(), 'modelgate-otlp-'));
    try {
      const config = loadConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        MODELGATE_KEYS: clientKey,
        MODELGATE_UNLIMITED_KEYS: 'static-1',
        MODELGATE_DB: join(directory, 'otlp.db'),
        LOG_LEVEL: 'silent',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      });
      assert.equal(config.tracing.enabled, true);
      const gateway = await startGateway(config, createLogger('silent', []));
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${clientKey}`,
          traceparent: `00-${clientTraceId}-${clientSpanId}-01`,
        },
        body: JSON.stringify({ model: 'A-1', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      await gateway.close();
      const traces = received.filter((request) => request.path === '/v1/traces');
      assert.ok(traces.length >= 1, JSON.stringify(received.map((request) => request.path)));
      const all = traces.map((request) => request.body).join('\n');
      assert.ok(all.includes(clientTraceId), 'the client’s trace id is exported');
      assert.ok(all.includes('modelgate-under-test'), 'OTEL_SERVICE_NAME names the service');
      assert.ok(all.includes('gen_ai.operation.name'));
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      delete process.env.OTEL_SERVICE_NAME;
      await upstream.close();
      collector.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
