/**
 * A scripted fake upstream for chaos tests: per request it stalls, resets the connection, answers
 * an error status (with `retry-after`), streams part of an answer then garbage or nothing, answers
 * slowly, or forwards to the built-in simulator (real family shapes, optionally paced). It counts
 * what a leak would show: open sockets (now and peak), requests still open, and when each tagged
 * request (`req-<n>` in its body) was closed by the gateway.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSimulator, type Simulator } from '../../src/simulator/simulator.ts';

export interface SeenRequest {
  /** 1-based arrival order. */
  index: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The `req-<n>` tag found in the body, if any. */
  tag: number | undefined;
}

export type Behaviour =
  | { kind: 'simulate' }
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Accept the request and never answer. */
  | { kind: 'stall' }
  /** Send 200 headers, then nothing. */
  | { kind: 'stall-body' }
  /** Destroy the connection without answering. */
  | { kind: 'reset' }
  /** 200 SSE: these chunks `gapMs` apart, then end / reset / garbage / stall. */
  | { kind: 'stream'; chunks: string[]; gapMs?: number; then: 'end' | 'reset' | 'garbage' | 'stall' }
  /** Wait, then behave as `then`. */
  | { kind: 'slow'; delayMs: number; then: Behaviour }
  /** 200 SSE: `before`, then nothing until `gate` resolves, then `after` and the end. */
  | { kind: 'gated-stream'; before: string[]; gate: Promise<void>; after: string[] }
  /**
   * 200 and `bytes` of one JSON string (`json`, with its content-length) or of one SSE data line
   * without a line end (`sse`), as fast as the gateway reads; `flooded` counts the bytes written.
   */
  | { kind: 'flood'; format: 'json' | 'sse'; bytes: number; flooded?: { bytes: number }; first?: string };

export interface FakeUpstreamStats {
  requests: number;
  /** Requests whose response is not closed yet. */
  openRequests: number;
  sockets: number;
  peakSockets: number;
  byStatus: Record<number, number>;
}

export interface FakeUpstream {
  url: string;
  /** Decides each request's fate; defaults to the simulator. */
  behave: (request: SeenRequest) => Behaviour;
  stats: FakeUpstreamStats;
  /** Every request seen (only while `record` is true). */
  seen: SeenRequest[];
  record: boolean;
  /** `performance.now()` when the response of each tagged request closed. */
  closedAt: Map<number, number>;
  /** Told when a tagged request's response closed. */
  onClose: ((tag: number) => void) | undefined;
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** Pacing of simulated answers. */
  timeToFirstTokenMs?: number;
  interTokenDelayMs?: number;
}

const tagPattern = /req-(\d+)/;

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const simulator = createSimulator({
    timeToFirstTokenMs: options.timeToFirstTokenMs ?? 0,
    interTokenDelayMs: options.interTokenDelayMs ?? 0,
  });
  const stats: FakeUpstreamStats = { requests: 0, openRequests: 0, sockets: 0, peakSockets: 0, byStatus: {} };
  const fake: FakeUpstream = {
    url: '',
    behave: () => ({ kind: 'simulate' }),
    stats,
    seen: [],
    record: true,
    closedAt: new Map(),
    onClose: undefined,
    close: () => Promise.resolve(),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const match = tagPattern.exec(body);
      stats.requests++;
      stats.openRequests++;
      const seen: SeenRequest = {
        index: stats.requests,
        path: request.url ?? '',
        headers: request.headers,
        body,
        tag: match === null ? undefined : Number(match[1]),
      };
      if (fake.record) fake.seen.push(seen);

      response.once('close', () => {
        stats.openRequests--;
        if (seen.tag === undefined) return;
        fake.closedAt.set(seen.tag, performance.now());
        fake.onClose?.(seen.tag);
      });
      void answer(fake.behave(seen), seen, response, simulator, stats).catch(() => {
        if (!response.destroyed) response.destroy();
      });
    });
  });
  server.on('connection', (socket) => {
    stats.sockets++;
    stats.peakSockets = Math.max(stats.peakSockets, stats.sockets);
    socket.once('close', () => {
      stats.sockets--;
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

async function answer(
  behaviour: Behaviour,
  seen: SeenRequest,
  response: ServerResponse,
  simulator: Simulator,
  stats: FakeUpstreamStats,
): Promise<void> {
  const count = (status: number): void => {
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
  };
  switch (behaviour.kind) {
    case 'status': {
      count(behaviour.status);
      const body = behaviour.body ?? '{"error":{"message":"chaos","type":"server_error"}}';
      response.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
      response.end(body);
      return;
    }
    case 'stall':
      return;
    case 'stall-body':
      count(200);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      return;
    case 'reset':
      response.socket?.destroy();
      return;
    case 'slow':
      await sleep(behaviour.delayMs);
      if (response.destroyed) return;
      await answer(behaviour.then, seen, response, simulator, stats);
      return;
    case 'stream': {
      count(200);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of behaviour.chunks) {
        if (response.destroyed) return;
        response.write(chunk);
        await sleep(behaviour.gapMs ?? 1);
      }
      if (behaviour.then === 'end') response.end();
      else if (behaviour.then === 'reset') response.socket?.destroy();
      else if (behaviour.then === 'garbage')
        response.end('data: {"this is not json\n\n\u0000\u0001garbage\n\n');
      return;
    }
    case 'flood': {
      count(200);
      const head = `${behaviour.first ?? ''}${behaviour.format === 'json' ? '{"id":"' : 'data: {"id":"'}`;
      response.writeHead(200, {
        'content-type': behaviour.format === 'json' ? 'application/json' : 'text/event-stream',
        ...(behaviour.format === 'json' ? { 'content-length': String(behaviour.bytes) } : {}),
      });
      response.write(head);
      const block = Buffer.alloc(1024 * 1024, 'x');
      let written = head.length;
      while (written < behaviour.bytes && !response.destroyed) {
        const piece =
          written + block.length <= behaviour.bytes ? block : block.subarray(0, behaviour.bytes - written);
        written += piece.length;
        if (behaviour.flooded !== undefined) behaviour.flooded.bytes = written;
        if (!response.write(piece))
          await new Promise<void>((resolve) => {
            const done = (): void => {
              response.off('drain', done);
              response.off('close', done);
              resolve();
            };
            response.on('drain', done);
            response.on('close', done);
          });
      }
      if (!response.destroyed) response.end();
      return;
    }
    case 'gated-stream': {
      count(200);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of behaviour.before) response.write(chunk);
      await behaviour.gate;
      if (response.destroyed) return;
      for (const chunk of behaviour.after) response.write(chunk);
      response.end();
      return;
    }
    case 'simulate': {
      const controller = new AbortController();
      response.once('close', () => controller.abort());
      const reply = await simulator.handle(
        { method: 'POST', path: seen.path, headers: seen.headers, body: seen.body },
        controller.signal,
      );
      count(reply.status);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(reply.headers))
        if (typeof value === 'string') headers[name] = value;
      response.writeHead(reply.status, headers);
      for await (const chunk of reply.body) {
        if (response.destroyed) break;
        response.write(chunk);
      }
      response.end();
      return;
    }
  }
}
