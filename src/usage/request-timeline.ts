/**
 * The timeline of one client request, for the ledger and the `x-modelgate-overhead-ms` header:
 * when it arrived, each upstream attempt, when the answer started, its first byte and its end.
 * Gateway overhead = time to the start of the answer minus the time spent waiting on upstreams
 * (the union of the attempts' send → response-headers intervals).
 */
import type { AttemptRecord } from '../gateway/delivery.ts';
import type { ResponseHeaders, ResponseSink } from '../gateway/response-sink.ts';

export const overheadHeader = 'x-modelgate-overhead-ms';

export interface TimedAttempt {
  record: AttemptRecord;
  /** performance.now() when the attempt got its response headers or failed. */
  endedAt: number;
  /** performance.now() when it was sent. */
  sentAt: number;
}

export class RequestTimeline {
  /** performance.now() at arrival. */
  readonly receivedAt: number;
  /** Unix milliseconds at arrival. */
  readonly receivedAtMs: number;
  readonly attempts: TimedAttempt[] = [];
  answerStartedAt: number | undefined;
  firstByteAt: number | undefined;
  endedAt: number | undefined;
  /** Fixed when the answer starts (the header carries it). */
  overheadMs: number | undefined;

  constructor(receivedAt = performance.now(), receivedAtMs = Date.now()) {
    this.receivedAt = receivedAt;
    this.receivedAtMs = receivedAtMs;
  }

  /** For `ChatCall.onAttempt`: the upstream waits that the overhead leaves out. */
  readonly recordAttempt = (record: AttemptRecord): void => {
    const endedAt = performance.now();
    // Reported when the call answers (its first body byte) or fails (after its headers, or with
    // none): the wait is measured back from now, at Date.now() precision only without headers.
    const waited = record.firstByteMs ?? record.headersMs ?? Math.max(0, Date.now() - record.startedAt);
    const sentAt = endedAt - waited;
    this.attempts.push({ record, endedAt, sentAt: Math.max(this.receivedAt, sentAt) });
  };

  /** Sets the overhead header on `headers` (call just before the answer's headers go out). */
  answerStarting(headers: ResponseHeaders): void {
    if (this.answerStartedAt !== undefined) return;
    const now = performance.now();
    this.answerStartedAt = now;
    this.overheadMs = Math.max(0, now - this.receivedAt - this.#upstreamWait(now));
    headers[overheadHeader] = this.overheadMs.toFixed(2);
  }

  /** Milliseconds since arrival. */
  elapsed(now = performance.now()): number {
    return now - this.receivedAt;
  }

  #upstreamWait(until: number): number {
    if (this.attempts.length === 0) return 0;
    // One call (nearly every request): its interval, what the merge below gives for one, without
    // the arrays and the sort.
    const only = this.attempts.length === 1 ? this.attempts[0] : undefined;
    if (only !== undefined) return Math.min(only.endedAt, until) - only.sentAt;
    const intervals = this.attempts
      .map((attempt) => [attempt.sentAt, Math.min(attempt.endedAt, until)] as const)
      .sort((left, right) => left[0] - right[0]);
    let total = 0;
    let [start, end] = intervals[0] ?? [0, 0];
    for (const [from, to] of intervals) {
      if (from > end) {
        total += end - start;
        start = from;
        end = to;
      } else if (to > end) end = to;
    }
    return total + Math.max(0, end - start);
  }
}

/** A sink that tells the timeline when the answer starts, sends its first byte and ends. */
export function timedSink(sink: ResponseSink, timeline: RequestTimeline): ResponseSink {
  return new TimedSink(sink, timeline);
}

class TimedSink implements ResponseSink {
  readonly headers: ResponseHeaders;
  readonly #sink: ResponseSink;
  readonly #timeline: RequestTimeline;

  constructor(sink: ResponseSink, timeline: RequestTimeline) {
    this.headers = sink.headers;
    this.#sink = sink;
    this.#timeline = timeline;
  }

  get started(): boolean {
    return this.#sink.started;
  }

  sendJson(status: number, body: string, extraHeaders?: ResponseHeaders): void {
    const timeline = this.#timeline;
    timeline.answerStarting(this.headers);
    this.#sink.sendJson(status, body, extraHeaders);
    timeline.firstByteAt ??= performance.now();
    timeline.endedAt = timeline.firstByteAt;
  }

  startStream(extraHeaders?: ResponseHeaders, trailerNames?: readonly string[]): void {
    this.#timeline.answerStarting(this.headers);
    this.#sink.startStream(extraHeaders, trailerNames);
  }

  write(text: string): Promise<void> | undefined {
    const timeline = this.#timeline;
    timeline.firstByteAt ??= performance.now();
    return this.#sink.write(text);
  }

  end(trailers?: Record<string, string>): void {
    this.#sink.end(trailers);
    this.#timeline.endedAt = performance.now();
  }
}
