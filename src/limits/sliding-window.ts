/**
 * An exact sliding window of admissions: the times of the admissions still inside the window,
 * oldest first, in a ring. "At most `limit` in any `periodMs`" is then a count: a draw of n is
 * admitted when the window holds at most `limit − n` admissions after the ones at or before
 * `now − periodMs` left it. Each admission is one entry pushed and, a period later, one popped:
 * O(1) amortized; a refusal's wait is one read (the entry that has to leave first).
 *
 * Memory: a window never holds more than `limit` entries (8 bytes each), and only as many as the
 * admissions of the last period need: the ring starts at 8 and doubles up to `limit`, so a key
 * with rpm 10,000 costs at most 80 KB, and only while it really makes thousands of requests a
 * minute; a window that empties drops back to 8 entries (64 bytes).
 */

const initialCapacity = 8;

export class SlidingWindow {
  /** The window's length: what an idle sweep drops by. */
  periodMs: number;
  #times = new Float64Array(initialCapacity);
  /** Index of the oldest entry. */
  #head = 0;
  #size = 0;

  constructor(periodMs: number) {
    this.periodMs = periodMs;
  }

  get size(): number {
    return this.#size;
  }

  /** Entries the ring has room for (its memory: 8 bytes each). */
  get capacity(): number {
    return this.#times.length;
  }

  /** The admission time of the `index`-th oldest entry (0: the oldest). */
  at(index: number): number {
    return this.#times[(this.#head + index) % this.#times.length] ?? 0;
  }

  /** The newest admission's time; undefined when the window is empty. */
  newest(): number | undefined {
    return this.#size === 0 ? undefined : this.at(this.#size - 1);
  }

  /** Drops the admissions at or before `cutoff` (they left the window) and returns how many are left. */
  evict(cutoff: number): number {
    while (this.#size > 0 && this.at(0) <= cutoff) this.#dropOldest();
    if (this.#size === 0 && this.#times.length > initialCapacity) {
      this.#times = new Float64Array(initialCapacity);
      this.#head = 0;
    }
    return this.#size;
  }

  /**
   * Records `count` admissions at `time`, kept at most `cap` (the oldest go first: only a draw
   * without a check can pass the limit, and the newest `limit` entries are all the window's
   * answers need). A time before the newest entry is recorded as the newest, so the ring stays
   * sorted (the store passes the later time itself, to name it to refunds).
   */
  push(time: number, count: number, cap: number): void {
    const bound = Math.max(1, cap);
    const at = Math.max(time, this.newest() ?? time);
    const wanted = Math.min(bound, this.#size + count);
    if (wanted > this.#times.length) this.#grow(Math.min(bound, Math.max(wanted, this.#times.length * 2)));
    // A lowered limit (a key reloaded with a smaller rpm) keeps only the newest `cap`.
    while (this.#size > bound) this.#dropOldest();
    for (let index = 0; index < count; index++) {
      // Full at the cap: the oldest entry makes room.
      if (this.#size >= bound || this.#size === this.#times.length) this.#dropOldest();
      this.#times[(this.#head + this.#size) % this.#times.length] = at;
      this.#size++;
    }
  }

  #dropOldest(): void {
    this.#head = (this.#head + 1) % this.#times.length;
    this.#size--;
  }

  /**
   * Takes back up to `count` admissions recorded at `time` (a refund: the request they admitted
   * never went out), or the newest `count` when the time is not known. An admission that already
   * left the window is not there to take back; nothing else is removed in its place.
   */
  remove(count: number, time: number | undefined): void {
    if (time === undefined) {
      this.#size = Math.max(0, this.#size - count);
      return;
    }
    // Entries are sorted: the ones at `time` are one run, found from the newest end (refunds
    // follow their admission closely), and the newer entries after it move down over the gap.
    let end = this.#size;
    while (end > 0 && this.at(end - 1) > time) end--;
    let start = end;
    while (start > 0 && end - start < count && this.at(start - 1) === time) start--;
    const removed = end - start;
    if (removed === 0) return;
    const length = this.#times.length;
    for (let index = end; index < this.#size; index++)
      this.#times[(this.#head + index - removed) % length] = this.at(index);
    this.#size -= removed;
  }

  #grow(capacity: number): void {
    const times = new Float64Array(capacity);
    for (let index = 0; index < this.#size; index++) times[index] = this.at(index);
    this.#times = times;
    this.#head = 0;
  }
}
