/**
 * What the chaos scenarios share: a gateway started in process from a config text (rate limits
 * out of the way, silent logs), client calls on each surface with abort and first-byte timing,
 * and small statistics.
 */
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { startGateway, type RunningGateway } from '../../src/server/start-gateway.ts';

export const chaosKey = 'mg-chaos-client-key-0123456789';

export interface ChaosGateway extends RunningGateway {
  key: string;
  /** What the gateway's own server saw of each tagged request (`x-chaos-tag`). */
  observed: Map<number, GatewaySide>;
}

/**
 * Server-side times (`performance.now()`) of a tagged request: when the gateway got it, when it
 * answered, and when the client's connection closed as the gateway saw it. The clients run in
 * this process too, so client-side times include this process's own queueing; these do not.
 */
export interface GatewaySide {
  receivedAt: number;
  finishedAt: number | undefined;
  clientClosedAt: number | undefined;
}

/** Per-key limits far above what a scenario sends: the scenarios measure resilience, not quotas. */
const generousLimits = `
limits:
  alpha: { rpm: 10000000, tpm: 1000000000 }
  beta: { rpm: 10000000, tpm: 1000000000 }
  gamma: { rpm: 10000000, tpm: 1000000000 }
`;

export async function startChaosGateway(
  configText: string,
  environment: Record<string, string> = {},
): Promise<ChaosGateway> {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-chaos-'));
  const path = join(directory, 'config.yaml');
  writeFileSync(path, `${generousLimits}\n${configText}`);
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      MODELGATE_KEYS: chaosKey,
      MODELGATE_DB: join(directory, 'chaos.db'),
      LOG_LEVEL: 'silent',
      // Scenarios put fake upstreams beside simulated models (fallbacks, other families), which a real
      // upstream configured turns off unless asked for.
      MODELGATE_SIMULATOR: '1',
      ...environment,
    },
    path,
  );
  const gateway = await startGateway(config, createLogger('silent', []));
  const observed = new Map<number, GatewaySide>();
  gateway.server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const tag = request.headers['x-chaos-tag'];
    if (typeof tag !== 'string') return;
    const side: GatewaySide = {
      receivedAt: performance.now(),
      finishedAt: undefined,
      clientClosedAt: undefined,
    };
    observed.set(Number(tag), side);
    response.once('finish', () => {
      side.finishedAt = performance.now();
    });
    response.once('close', () => {
      if (!response.writableFinished) side.clientClosedAt = performance.now();
    });
  });
  return {
    ...gateway,
    key: chaosKey,
    observed,
    close: async () => {
      await gateway.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export type Surface = 'alpha' | 'beta' | 'gamma';

export interface ChatOptions {
  surface: Surface;
  model: string;
  stream: boolean;
  /** Put `req-<tag>` in the prompt, so the upstream can tell requests apart. */
  tag?: number;
  /** Abort the call this many ms after it was sent. */
  abortAfterMs?: number;
  headers?: Record<string, string>;
  /** Merged into the JSON body (top level). */
  body?: Record<string, unknown>;
}

export interface ChatAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  trailers: NodeJS.Dict<string>;
  /** From sending to the first body byte. */
  firstByteMs: number | undefined;
  totalMs: number;
  /** `performance.now()` when the client aborted (undefined when it did not). */
  abortedAt: number | undefined;
  /** The client aborted before the first body byte. */
  abortedEarly: boolean;
}

function requestFor(
  gateway: ChaosGateway,
  options: ChatOptions,
): { path: string; headers: Record<string, string>; body: string } {
  const prompt = options.tag === undefined ? 'Hello there' : `Hello there req-${options.tag}`;
  const json = { 'content-type': 'application/json' };
  if (options.surface === 'alpha') {
    return {
      path: '/v1/chat/completions',
      headers: { ...json, authorization: `Bearer ${gateway.key}` },
      body: JSON.stringify({
        model: options.model,
        stream: options.stream,
        ...(options.stream ? { stream_options: { include_usage: true } } : {}),
        max_tokens: 60,
        messages: [{ role: 'user', content: prompt }],
        ...options.body,
      }),
    };
  }
  if (options.surface === 'beta') {
    return {
      path: '/v1/messages',
      headers: { ...json, 'x-api-key': gateway.key, 'beta-version': '2023-06-01' },
      body: JSON.stringify({
        model: options.model,
        stream: options.stream,
        max_tokens: 60,
        messages: [{ role: 'user', content: prompt }],
        ...options.body,
      }),
    };
  }
  return {
    path: `/v1/models/${options.model}:${options.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { ...json, 'x-gamma-api-key': gateway.key },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      generationConfig: { maxOutputTokens: 60 },
      ...options.body,
    }),
  };
}

/** One call with node:http (trailers readable, abort timing exact); never rejects. */
export function chat(gateway: ChaosGateway, options: ChatOptions): Promise<ChatAnswer> {
  const { path, headers, body } = requestFor(gateway, options);
  const url = new URL(gateway.url);
  const started = performance.now();

  return new Promise<ChatAnswer>((resolve) => {
    const answer: ChatAnswer = {
      status: 0,
      headers: {},
      text: '',
      trailers: {},
      firstByteMs: undefined,
      totalMs: 0,
      abortedAt: undefined,
      abortedEarly: false,
    };
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      answer.totalMs = performance.now() - started;
      resolve(answer);
    };
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: {
          ...headers,
          ...options.headers,
          ...(options.tag === undefined ? {} : { 'x-chaos-tag': String(options.tag) }),
          'content-length': Buffer.byteLength(body),
        },
        agent: false,
      },
      (response) => {
        answer.status = response.statusCode ?? 0;
        answer.headers = response.headers;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          answer.firstByteMs ??= performance.now() - started;
          answer.text += chunk;
        });
        response.on('end', () => {
          answer.trailers = response.trailers;
          done();
        });
        response.on('error', done);
        response.on('close', done);
      },
    );
    outgoing.on('error', done);
    outgoing.on('close', () => {
      if (answer.abortedAt !== undefined) done();
    });
    if (options.abortAfterMs !== undefined) {
      setTimeout(() => {
        if (settled) return;
        answer.abortedAt = performance.now();

        answer.abortedEarly = answer.firstByteMs === undefined;
        outgoing.destroy();
      }, options.abortAfterMs);
    }
    outgoing.end(body);
  });
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Runs `tasks` with at most `concurrency` at a time; results in order. */
export async function pool<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/** The answer is an error in the surface's own shape. */
export function isSurfaceError(surface: Surface, answer: ChatAnswer): boolean {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  if (surface === 'beta') return record.type === 'error' && typeof record.error === 'object';
  const error = record.error as Record<string, unknown> | undefined;
  if (surface === 'gamma') return typeof error?.status === 'string' && error.code === answer.status;
  return typeof error?.message === 'string' && typeof error.type === 'string';
}

/** A stream answer that ended the family's normal way. */
export function streamCompleted(surface: Surface, text: string): boolean {
  if (surface === 'alpha') return text.includes('data: [DONE]');
  if (surface === 'beta') return text.includes('event: message_stop');
  return text.includes('"finishReason"');
}
