/**
 * The admin key (MODELGATE_ADMIN_KEY) guards `/admin/…`. It is kept only as a SHA-256 digest and
 * a presented key is compared digest to digest in constant time.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';

const maxKeyLength = 512;

function digest(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

export class AdminKey {
  readonly #digest: Buffer | undefined;

  constructor(key: string | undefined) {
    this.#digest = key === undefined ? undefined : digest(key);
  }

  /** False when no admin key is configured: the admin API is then closed. */
  get enabled(): boolean {
    return this.#digest !== undefined;
  }

  verify(presented: string | undefined): boolean {
    if (this.#digest === undefined || presented === undefined) return false;
    if (presented.length === 0 || presented.length > maxKeyLength) return false;
    return timingSafeEqual(digest(presented), this.#digest);
  }

  /**
   * A digest of `value` that only this admin key gives (HMAC-SHA256 keyed by the key's digest):
   * what the dashboard stores for a session id, so that a session made under one admin key is
   * unknown once the key is rotated.
   */
  bind(value: string): string {
    return createHmac('sha256', this.#digest ?? Buffer.alloc(0))
      .update(value)
      .digest('base64url');
  }
}
