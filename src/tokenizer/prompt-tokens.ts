/**
 * The tokens of one request's prompt, counted only as far as a decision needs and never for long
 * at a time, so that no prompt can hold the event loop.
 *
 * - Bounds first, from UTF-8 bytes: a token is 1 to 128 bytes, so `bytes` is an upper bound and
 *   `bytes / 128` a lower one. Most decisions end here (a prompt whose bytes fit the window fits).
 * - Counting goes piece by piece (segments.ts: linear, exact for ordinary text): half a
 *   millisecond at once (enough for most prompts), then in a slicer all counts share, 2 ms per turn
 *   of the event loop in all (plus at most one 512-character piece, ≈ 2 ms at worst).
 * - It stops once the count passes the caller's threshold (a refusal is then certain) or after
 *   `maxChars` characters tokenized (the work cap): the rest is then bounded by its bytes and
 *   estimated at the counted part's tokens per byte.
 * - Progress is kept: a later, larger question resumes where the last one stopped.
 *
 * Measured (Node 24, one core of a loaded 2-core machine):
 *   64,000 × "一" in one piece: 19 s; in pieces: 4 ms (the merge cache) and 3.5 µs a character for
 *   64,000 random Han characters; English prose 78 KB: 9.5 ms in pieces, 10.7 ms whole.
 *   A worker thread was measured too and not taken: +84 MB RSS and 1.2 s to start (its own copy
 *   of the tokenizer), 174 µs a round trip, and posting 1 Mi characters cost the event loop 30 ms.
 */
import { countNextPiece, maxTokenBytes, memoized, remember } from './count-tokens.ts';

export interface TokenCount {
  /** Exact when `exact`; else the counted part plus the rest at its tokens per byte, in [lower, upper]. */
  tokens: number;
  lower: number;
  upper: number;
  exact: boolean;
}

export interface CountLimits {
  /** Counted at once when a count starts, in milliseconds (most prompts need less). */
  firstMs: number;
  /** Counting per turn of the event loop, all prompts together, in milliseconds. */
  sliceMs: number;
  /** Characters tokenized at most for one prompt (the work cap; ~1 s at the worst rate). */
  maxChars: number;
}

export const defaultCountLimits: CountLimits = { firstMs: 0.5, sliceMs: 2, maxChars: 262_144 };

/**
 * The shared slicer: every count that outlasts its first stretch takes turns here, one piece at a
 * time, round robin, for at most `sliceMs` per turn of the event loop in all — so ten hostile
 * prompts cost other requests the same few milliseconds a turn as one does.
 */
interface Job {
  step: () => boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}
const jobs: Job[] = [];
let turnScheduled = false;
let turnMs = defaultCountLimits.sliceMs;

function sliced(step: () => boolean, sliceMs: number): Promise<void> {
  turnMs = sliceMs;
  return new Promise<void>((resolve, reject) => {
    jobs.push({ step, resolve, reject });
    if (!turnScheduled) {
      turnScheduled = true;
      setImmediate(turn);
    }
  });
}

function turn(): void {
  const started = performance.now();
  while (jobs.length > 0 && performance.now() - started < turnMs) {
    const job = jobs.shift() as Job;
    try {
      if (job.step()) job.resolve();
      else jobs.push(job);
    } catch (error) {
      job.reject(error);
    }
  }
  if (jobs.length > 0) setImmediate(turn);
  else turnScheduled = false;
}

export class PromptTokens {
  readonly #texts: readonly string[];
  readonly #limits: CountLimits;
  #bytes: number[] | undefined;
  /** The text being counted, and where in it. */
  #index = 0;
  #offset = 0;
  /** Tokens of everything before (#index, #offset); of the current text alone. */
  #counted = 0;
  #textTokens = 0;
  #charsTokenized = 0;
  #running: Promise<void> | undefined;

  constructor(texts: readonly string[], limits: CountLimits = defaultCountLimits) {
    this.#texts = texts;
    this.#limits = limits;
  }

  /** What the bytes alone say (no tokenizing). */
  bounds(): TokenCount {
    const bytes = this.#byteLengths().reduce((sum, length) => sum + length, 0);
    const lower = Math.ceil(bytes / maxTokenBytes);
    return { tokens: bytes, lower, upper: bytes, exact: bytes === 0 };
  }

  /**
   * `count`'s answer when the first stretch settles it (most prompts), with no promise; undefined
   * while counting goes on in the slicer (or another count is under way): then `count` waits for it.
   */
  countNow(stopAbove: number = Number.POSITIVE_INFINITY): TokenCount | undefined {
    if (!this.#settled(stopAbove) && this.#running === undefined && !this.#firstStretch(stopAbove)) {
      this.#running = sliced(() => this.#step(stopAbove), this.#limits.sliceMs).finally(() => {
        this.#running = undefined;
      });
    }
    return this.#settled(stopAbove) ? this.#result() : undefined;
  }

  /** Counts until the prompt is known, its count passes `stopAbove`, or the work cap is reached. */
  async count(stopAbove: number = Number.POSITIVE_INFINITY): Promise<TokenCount> {
    for (let known = this.countNow(stopAbove); ; known = this.countNow(stopAbove)) {
      if (known !== undefined) return known;
      await this.#running;
    }
  }

  #settled(stopAbove: number): boolean {
    return (
      this.#index >= this.#texts.length ||
      this.#counted + this.#textTokens > stopAbove ||
      this.#charsTokenized >= this.#limits.maxChars
    );
  }

  /**
   * Counts a first stretch at once (most prompts finish within it, with no extra turn of the event
   * loop); false when its time ran out first, and the rest goes to the shared slicer.
   */
  #firstStretch(stopAbove: number): boolean {
    const started = performance.now();
    while (!this.#step(stopAbove)) if (performance.now() - started >= this.#limits.firstMs) return false;
    return true;
  }

  /** Counts one piece (or takes one memoised text); true once settled. */
  #step(stopAbove: number): boolean {
    if (this.#settled(stopAbove)) return true;
    const text = this.#texts[this.#index] ?? '';
    const known = this.#offset === 0 ? memoized(text) : undefined;
    if (known !== undefined || text.length === 0) {
      this.#counted += known ?? 0;
      this.#index++;
      return this.#settled(stopAbove);
    }
    const piece = countNextPiece(text, this.#offset);
    this.#charsTokenized += piece.end - this.#offset;
    this.#textTokens += piece.tokens;
    this.#offset = piece.end;
    if (piece.end === text.length) {
      remember(text, this.#textTokens);
      this.#counted += this.#textTokens;
      this.#textTokens = 0;
      this.#offset = 0;
      this.#index++;
    }
    return this.#settled(stopAbove);
  }

  #result(): TokenCount {
    const counted = this.#counted + this.#textTokens;
    if (this.#index >= this.#texts.length)
      return { tokens: counted, lower: counted, upper: counted, exact: true };
    const lengths = this.#byteLengths();
    const current = this.#texts[this.#index] ?? '';
    const currentRest = Buffer.byteLength(current.slice(this.#offset));
    let restBytes = currentRest;
    for (let index = this.#index + 1; index < lengths.length; index++) restBytes += lengths[index] ?? 0;
    let countedBytes = (lengths[this.#index] ?? 0) - currentRest;
    for (let index = 0; index < this.#index; index++) countedBytes += lengths[index] ?? 0;
    const lower = counted + Math.ceil(restBytes / maxTokenBytes);
    const upper = counted + restBytes;
    const extrapolated =
      countedBytes > 0 ? counted + Math.round((restBytes * counted) / countedBytes) : upper;
    return { tokens: Math.min(upper, Math.max(lower, extrapolated)), lower, upper, exact: false };
  }

  #byteLengths(): number[] {
    this.#bytes ??= this.#texts.map((text) => Buffer.byteLength(text));
    return this.#bytes;
  }
}
