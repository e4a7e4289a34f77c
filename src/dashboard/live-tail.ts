/**
 * The live tail: ledger rows as server-sent events, as they are appended. A viewer that does not
 * keep up (more than `maxBufferedBytes` waiting in its socket) is dropped rather than buffered:
 * one slow browser never holds memory or the ledger. The ledger is watched only while someone
 * views, so the request path pays nothing otherwise. No bodies: only the ledger's own columns.
 */
import type { ServerResponse } from 'node:http';
import type { LedgerRow } from '../usage/ledger.ts';

export interface WatchedLedger {
  watch(watcher: (row: LedgerRow) => void): () => void;
}

const maxBufferedBytes = 256 * 1024;
const maxViewers = 32;
const heartbeatMs = 15_000;

export class LiveTail {
  readonly #ledger: WatchedLedger;
  readonly #viewers = new Set<ServerResponse>();
  #unwatch: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  /** Viewers dropped for being slow, since start. */
  dropped = 0;

  constructor(ledger: WatchedLedger) {
    this.#ledger = ledger;
  }

  get viewers(): number {
    return this.#viewers.size;
  }

  /** Starts an event stream on `response`; false when too many viewers are connected. */
  open(response: ServerResponse, headers: Record<string, string>): boolean {
    if (this.#viewers.size >= maxViewers) return false;
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    response.write(': modelgate live tail\n\n');
    this.#viewers.add(response);
    response.once('close', () => this.#remove(response));
    if (this.#unwatch === undefined) {
      this.#unwatch = this.#ledger.watch(this.#publish);
      this.#heartbeat = setInterval(() => this.#send(': keep-alive\n\n'), heartbeatMs).unref();
    }
    return true;
  }

  /** Ends every stream (shutdown). */
  close(): void {
    for (const viewer of [...this.#viewers]) viewer.end();
  }

  readonly #publish = (row: LedgerRow): void => {
    this.#send(`event: row\ndata: ${JSON.stringify(tailRow(row))}\n\n`);
  };

  #send(frame: string): void {
    for (const viewer of this.#viewers) {
      viewer.write(frame);
      if (viewer.writableLength > maxBufferedBytes) {
        this.dropped++;
        this.#remove(viewer);
        viewer.destroy();
      }
    }
  }

  #remove(viewer: ServerResponse): void {
    if (!this.#viewers.delete(viewer) || this.#viewers.size > 0) return;
    this.#unwatch?.();
    this.#unwatch = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

function tailRow(row: LedgerRow): Record<string, unknown> {
  return {
    request_id: row.requestId,
    attempt: row.attempt,
    final: row.final,
    created_at: new Date(row.createdAt).toISOString(),
    key_id: row.keyId,
    surface: row.surface,
    model: row.model,
    deployment: row.deployment ?? null,
    stream: row.stream,
    status: row.status,
    outcome: row.outcome,
    error: row.error ?? null,
    prompt_tokens: row.promptTokens,
    output_tokens: row.outputTokens,
    cost_usd: row.costUsd,
    latency_ms: row.latencyMs === undefined ? null : Math.round(row.latencyMs * 10) / 10,
  };
}
