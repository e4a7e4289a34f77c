/**
 * Rate-limit buckets of two kinds, behind one asynchronous store interface:
 * - `window` (requests per minute): an exact sliding window. A draw of n is admitted only while
 *   fewer than `limit − n + 1` admissions were made in the last `periodMs`, so no minute, wherever
 *   it starts, ever holds more than `limit` (see `SlidingWindow`); a refund takes its admission out.
 * - `gcra` (tokens per minute): the generic cell rate algorithm, a bucket of `limit` units per
 *   `periodMs` that refills continuously (as the families document their token limits) and holds at
 *   most `limit`; its whole state is one number, the theoretical arrival time (TAT). A draw of n
 *   units moves the TAT by n × period / limit and is allowed while the TAT stays within one period
 *   of now. Giving units back moves it back, which makes "reserve the estimate, reconcile to the
 *   real usage" exact.
 *
 * The interface is asynchronous so a shared store can implement it for several gateway instances:
 * in Redis (`redis/redis-rate-limit-store.ts`) each call is one Lua script on the server's clock
 * (read every bucket, check all, write all: all or nothing); in one process,
 * `memory-rate-limit-store.ts`.
 */
export interface Bucket {
  /** Unique per client key × family × dimension. */
  id: string;
  /** The client key it belongs to: a shared store keeps one client's buckets together. */
  owner?: string;
  /** Units per period (e.g. requests per minute). */
  limit: number;
  periodMs: number;
  /** `window`: at most `limit` admissions in any `periodMs`; `gcra`: a continuously refilling bucket. */
  kind: 'window' | 'gcra';
}

export interface Draw {
  bucket: Bucket;
  amount: number;
  /**
   * A window's refund (a negative amount): when the admissions were recorded (`DrawResult.at` of
   * the draw that took them), so exactly those leave the window; the newest ones when absent.
   */
  at?: number;
}

export interface BucketState {
  limit: number;
  /** Whole units that could be drawn now. */
  remaining: number;
  /** Milliseconds until the bucket is full again (a window: until its newest admission leaves it). */
  resetMs: number;
  /** Milliseconds until one unit could be drawn: 0 while `remaining` ≥ 1. */
  nextMs: number;
}

export interface DrawResult {
  allowed: boolean;
  /** Each bucket after the draw; when refused, as it is (nothing was taken). */
  states: BucketState[];
  /** When refused: the first bucket that lacked room. */
  refusedBy: number | undefined;
  /** When refused: milliseconds until the same draw would succeed; Infinity when it never can. */
  retryAfterMs: number;
  /** The store's clock at the decision (Redis: its server's): what a refund names as `Draw.at`. */
  at: number;
  /** Decided by this process alone (the shared store was unreachable and the config says `local`). */
  local?: boolean;
}

export interface RateLimitStore {
  /** Takes every draw or, when any bucket lacks room, none: one atomic step. */
  draw(draws: readonly Draw[], now: number): Promise<DrawResult>;
  /**
   * Adds `amount` units without a check, or gives them back (negative): reconciles an estimate,
   * refunds an admission.
   */
  adjust(draw: Draw, now: number): Promise<void>;
  /**
   * An adjustment a shared store could not make inside another store's round trip (the budget
   * store's one-step settle): the failure policy applies as if `adjust` had failed. Absent where
   * no other store shares the round trip.
   */
  adjustFailed?(draw: Draw, now: number, error: unknown): Promise<void>;
  /** Takes every draw without a check (metered, never refused) and returns the states after. */
  take(draws: readonly Draw[], now: number): Promise<BucketState[]>;
  /** The buckets' states without drawing. */
  peek(buckets: readonly Bucket[], now: number): Promise<BucketState[]>;
  /**
   * A store that decides in this process (the memory store): `draw` and `adjust` answered at once,
   * with no promise — each request's admission and settle take these when they exist.
   */
  drawNow?(draws: readonly Draw[], now: number): DrawResult;
  adjustNow?(draw: Draw, now: number): void;
}
