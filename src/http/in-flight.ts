/**
 * What is in flight (bodies being read, requests a drain may abort), without a hash table. A
 * long-lived `Set` whose members come and go with every request rehashes its table now and then,
 * and V8 allocates the new table where the old one lives: in the old generation, as garbage only a
 * full collection frees (bench/README.md, "fourth session": these tables were ~15 % of what the
 * old generation collected under load). Here an entry is a small object of the request's own,
 * linked into a list: it dies young with the request, and removing it allocates nothing.
 */

/** A member's place in the list: `delete` takes it back out. */
export interface InFlightEntry<T> {
  readonly value: T;
  /** Neighbours in the list; undefined once deleted. */
  previous: InFlightEntry<T> | undefined;
  next: InFlightEntry<T> | undefined;
  listed: boolean;
}

export class InFlight<T> implements Iterable<T> {
  #head: InFlightEntry<T> | undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(value: T): InFlightEntry<T> {
    const entry: InFlightEntry<T> = { value, previous: undefined, next: this.#head, listed: true };
    if (this.#head !== undefined) this.#head.previous = entry;
    this.#head = entry;
    this.#size++;
    return entry;
  }

  /** Takes the entry out; idempotent. */
  delete(entry: InFlightEntry<T>): void {
    if (!entry.listed) return;
    entry.listed = false;
    if (entry.previous === undefined) this.#head = entry.next;
    else entry.previous.next = entry.next;
    if (entry.next !== undefined) entry.next.previous = entry.previous;
    // Nothing of the list stays reachable from an entry its request still holds.
    entry.previous = undefined;
    entry.next = undefined;
    this.#size--;
  }

  /**
   * The members at the start, newest first, less those deleted meanwhile (what each yields may
   * delete others: aborting a request ends its body's read). Only sweeps and drains iterate.
   */
  *[Symbol.iterator](): Iterator<T> {
    const entries: InFlightEntry<T>[] = [];
    for (let entry = this.#head; entry !== undefined; entry = entry.next) entries.push(entry);
    for (const entry of entries) if (entry.listed) yield entry.value;
  }
}
