/**
 * The settlements of keys without a budget hold, gathered for one event-loop turn: every request
 * of a key (and family) answered in the same turn is settled by one `settle-tokens.lua` call — its
 * spend the sum of theirs, its token reconciliation the sum of theirs — under one marker, so a
 * retry still charges once. Nothing a limit decides waits on it: a settlement only records spend
 * (a key without a hold has no budget to check) and gives back or adds tokens after the fact, as
 * it always did, a turn later at most. Holds (keys with a budget) keep their own call: each is
 * settled by its id. `flush` sends what is gathered at once (at shutdown).
 */
import type { Draw } from '../rate-limit-store.ts';

/** A settlement without a hold: the key's spend and its token reconciliation. */
export interface Unheld {
  keyId: string;
  costUsd: number;
  tokens: Draw;
  tokensFailed: (error: unknown) => void;
}

/** Sends one batch: the spend (micro-USD, summed) and the tokens (summed) in one script call. */
export type SendBatch = (keyId: string, microUsd: number, tokens: Draw) => Promise<void>;

interface Batch {
  keyId: string;
  microUsd: number;
  tokens: Draw;
  /** Each settlement's own adjustment, for the failure policy when the call fails. */
  members: Unheld[];
  done: Promise<void>;
  resolve: () => void;
}

export class SettleBatches {
  readonly #send: SendBatch;
  /** Gathering: per key id and token bucket. */
  #open = new Map<string, Batch>();
  #scheduled: NodeJS.Immediate | undefined;
  readonly #sending = new Set<Promise<void>>();

  constructor(send: SendBatch) {
    this.#send = send;
  }

  /**
   * Adds a settlement to this turn's batch for its key; resolves once the batch was answered (when
   * the call failed, after each settlement's `tokensFailed`: the sender reports the spend's failure).
   */
  add(settlement: Unheld): Promise<void> {
    const id = `${settlement.keyId}\u0000${settlement.tokens.bucket.id}`;
    let batch = this.#open.get(id);
    if (batch === undefined) {
      let resolve: () => void = () => undefined;
      const done = new Promise<void>((settle) => (resolve = settle));
      batch = {
        keyId: settlement.keyId,
        microUsd: 0,
        tokens: { bucket: settlement.tokens.bucket, amount: 0 },
        members: [],
        done,
        resolve,
      };
      this.#open.set(id, batch);
    }
    batch.microUsd += Math.round(settlement.costUsd * 1e6);
    batch.tokens.amount += settlement.tokens.amount;
    batch.members.push(settlement);
    this.#scheduled ??= setImmediate(() => void this.flush());
    return batch.done;
  }

  /** Sends every gathered batch now; resolves when every batch sent so far has its answer. */
  async flush(): Promise<void> {
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const batches = [...this.#open.values()];
    this.#open = new Map();
    for (const batch of batches) {
      const sent = this.#send(batch.keyId, batch.microUsd, batch.tokens)
        .catch((error: unknown) => {
          for (const member of batch.members) member.tokensFailed(error);
        })
        .finally(() => batch.resolve());
      this.#sending.add(sent);
      void sent.finally(() => this.#sending.delete(sent));
    }
    await Promise.all(this.#sending);
  }
}
