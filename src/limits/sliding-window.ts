/**
 * An exact sliding window of admissions: the times of the admissions still inside the window,
 * oldest first. "At most `limit` in any `periodMs`" is then a count: a draw of n is admitted when
 * the window holds at most `limit − n` admissions after the ones at or before `now − periodMs` left
 * it. Admissions at the same millisecond are one run (a time and how many), kept in a ring: a busy
 * key admits many per millisecond, and a run per admission would hold a whole minute of them
 * (8 MiB for a key admitting 12,000 a second; bench/README.md, "fourth session"). Each admission
 * adds to the newest run or starts one, and a period later its run leaves: O(1) amortized; a
 * refusal's wait is a walk from the oldest run to the admission that has to leave first.
 *
 * Memory: a window never holds more than `limit` runs (16 bytes each), and only as many as the
 * distinct milliseconds of the last period's admissions: the ring starts at 8 runs and doubles up
 * to `limit`, so a key with rpm 10,000 costs at most 160 KB, and only while it really makes
 * thousands of requests a minute; a window that empties drops back to 8 runs.
 */

const initialCapacity = 8;

export class SlidingWindow {
  /** The window's length: what an idle sweep drops by. */
  periodMs: number;
  #times = new Float64Array(initialCapacity);
  /** Admissions per run (whole numbers, at least 1). */
  #counts = new Float64Array(initialCapacity);
  /** Ring index of the oldest run. */
  #head = 0;
  #runs = 0;
  /** Admissions in the window: the runs' counts summed. */
  #size = 0;

  constructor(periodMs: number) {
    this.periodMs = periodMs;
  }

  get size(): number {
    return this.#size;
  }

  /** Runs the ring has room for (its memory: 16 bytes each). */
  get capacity(): number {
    return this.#times.length;
  }

  /** The admission time of the `index`-th oldest admission (0: the oldest). */
  at(index: number): number {
    if (index < 0 || index >= this.#size) return 0;
    // From the nearer end: a refusal asks near the oldest, nothing asks deep in the middle.
    if (index < this.#size / 2) {
      let left = index;
      for (let run = 0; run < this.#runs; run++) {
        const slot = this.#slot(run);
        const count = this.#counts[slot] ?? 0;
        if (left < count) return this.#times[slot] ?? 0;
        left -= count;
      }
    } else {
      let left = this.#size - 1 - index;
      for (let run = this.#runs - 1; run >= 0; run--) {
        const slot = this.#slot(run);
        const count = this.#counts[slot] ?? 0;
        if (left < count) return this.#times[slot] ?? 0;
        left -= count;
      }
    }
    return 0;
  }

  /** The newest admission's time; undefined when the window is empty. */
  newest(): number | undefined {
    return this.#runs === 0 ? undefined : this.#times[this.#slot(this.#runs - 1)];
  }

  /** Drops the admissions at or before `cutoff` (they left the window) and returns how many are left. */
  evict(cutoff: number): number {
    while (this.#runs > 0 && (this.#times[this.#head] ?? 0) <= cutoff) this.#dropOldestRun();
    if (this.#runs === 0 && this.#times.length > initialCapacity) {
      this.#times = new Float64Array(initialCapacity);
      this.#counts = new Float64Array(initialCapacity);
      this.#head = 0;
    }
    return this.#size;
  }

  /**
   * Records `count` admissions at `time`, kept at most `cap` (the oldest go first: only a draw
   * without a check can pass the limit, and the newest `limit` admissions are all the window's
   * answers need). A time before the newest admission is recorded as the newest, so the runs stay
   * sorted (the store passes the later time itself, to name it to refunds).
   */
  push(time: number, count: number, cap: number): void {
    const bound = Math.max(1, cap);
    const newest = this.newest();
    const at = Math.max(time, newest ?? time);
    const added = count > 0 ? Math.ceil(count) : 0;
    // A lowered limit (a key reloaded with a smaller rpm) keeps only the newest `cap`.
    this.#dropOldest(this.#size - bound);
    if (added === 0) return;
    this.#dropOldest(this.#size + added - bound);
    const kept = Math.min(added, bound);
    if (newest === at && this.#runs > 0) {
      const slot = this.#slot(this.#runs - 1);
      this.#counts[slot] = (this.#counts[slot] ?? 0) + kept;
    } else {
      if (this.#runs === this.#times.length)
        this.#grow(Math.min(bound, Math.max(this.#runs + 1, this.#times.length * 2)));
      const slot = this.#slot(this.#runs);
      this.#times[slot] = at;
      this.#counts[slot] = kept;
      this.#runs++;
    }
    this.#size += kept;
  }

  /**
   * Takes back up to `count` admissions recorded at `time` (a refund: the request they admitted
   * never went out), or the newest `count` when the time is not known. An admission that already
   * left the window is not there to take back; nothing else is removed in its place.
   */
  remove(count: number, time: number | undefined): void {
    let left = count > 0 ? Math.ceil(count) : 0;
    if (time === undefined) {
      while (left > 0 && this.#runs > 0) {
        const slot = this.#slot(this.#runs - 1);
        const taken = Math.min(left, this.#counts[slot] ?? 0);
        this.#take(this.#runs - 1, taken);
        left -= taken;
      }
      return;
    }
    // Runs are sorted: the one at `time` is found from the newest end (refunds follow their
    // admission closely).
    let run = this.#runs - 1;
    while (run >= 0 && (this.#times[this.#slot(run)] ?? 0) > time) run--;
    if (run < 0 || this.#times[this.#slot(run)] !== time) return;
    this.#take(run, Math.min(left, this.#counts[this.#slot(run)] ?? 0));
  }

  #slot(run: number): number {
    return (this.#head + run) % this.#times.length;
  }

  /** Drops the `count` oldest admissions (none when `count` ≤ 0). */
  #dropOldest(count: number): void {
    let left = count;
    while (left > 0 && this.#runs > 0) {
      const oldest = this.#counts[this.#head] ?? 0;
      if (oldest > left) {
        this.#counts[this.#head] = oldest - left;
        this.#size -= left;
        return;
      }
      left -= oldest;
      this.#dropOldestRun();
    }
  }

  #dropOldestRun(): void {
    this.#size -= this.#counts[this.#head] ?? 0;
    this.#head = (this.#head + 1) % this.#times.length;
    this.#runs--;
  }

  /** Takes `taken` admissions from the `run`-th oldest run; an emptied run goes, the newer ones move down. */
  #take(run: number, taken: number): void {
    if (taken <= 0) return;
    const slot = this.#slot(run);
    const count = (this.#counts[slot] ?? 0) - taken;
    this.#size -= taken;
    if (count > 0) {
      this.#counts[slot] = count;
      return;
    }
    for (let index = run + 1; index < this.#runs; index++) {
      const from = this.#slot(index);
      const to = this.#slot(index - 1);
      this.#times[to] = this.#times[from] ?? 0;
      this.#counts[to] = this.#counts[from] ?? 0;
    }
    this.#runs--;
  }

  #grow(capacity: number): void {
    const times = new Float64Array(capacity);
    const counts = new Float64Array(capacity);
    for (let run = 0; run < this.#runs; run++) {
      const slot = this.#slot(run);
      times[run] = this.#times[slot] ?? 0;
      counts[run] = this.#counts[slot] ?? 0;
    }
    this.#times = times;
    this.#counts = counts;
    this.#head = 0;
  }
}
