/**
 * The admin key (MODELGATE_ADMIN_KEY) guards `/admin/…`. It is kept only as a SHA-256 digest and
 * a presented key is compared digest to digest in constant time.
 */
import { hash, timingSafeEqual } from 'node:crypto';

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
}
