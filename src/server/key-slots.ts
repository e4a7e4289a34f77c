/**
 * Fair slots: one client key may hold at most `limit` chat requests in flight (from its
 * authentication, before the body is read, until its answer ends), so one key — slow bodies,
 * endless streams, a reconnecting attacker — can never take every slot of `maxInFlight`.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../ir/index.ts';

export class KeySlots {
  readonly limit: number;
  readonly #held = new Map<string, number>();

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Requests the key has in flight now. */
  held(keyId: string): number {
    return this.#held.get(keyId) ?? 0;
  }

  /** Takes a slot for the key until `response` closes; throws the 429 when the key holds `limit`. */
  take(keyId: string, response: ServerResponse): void {
    const held = this.#held.get(keyId) ?? 0;
    if (held >= this.limit) {
      throw new GatewayError(
        'rate_limited',
        `This API key already has ${held} requests in flight, the most one key may have at once; retry when one has finished.`,
        { retryAfterSeconds: 1 },
      );
    }
    this.#held.set(keyId, held + 1);
    // 'close' comes once per response (finished or not): `on` spares `once`'s wrapper and removal.
    response.on('close', () => {
      const left = (this.#held.get(keyId) ?? 1) - 1;
      if (left <= 0) this.#held.delete(keyId);
      else this.#held.set(keyId, left);
    });
  }
}
