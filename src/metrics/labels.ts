/**
 * Label values with a bound by construction: model names only from the catalog and config (any
 * other name is `other`), a closed set of error types, status classes. Nothing a client sends
 * becomes a label value as is.
 */
import { defaultStatusByKind } from '../ir/index.ts';

/** A model label: the catalog's and config's names, `other` for any other, `none` before one was named. */
export class ModelLabels {
  readonly #known: ReadonlySet<string>;

  constructor(names: Iterable<string>) {
    this.#known = new Set(names);
  }

  of(name: string | undefined): string {
    if (name === undefined) return 'none';
    return this.#known.has(name) ? name : 'other';
  }
}

/** The error kinds of the gateway's one vocabulary, plus why a request was aborted. */
const errorTypes: ReadonlySet<string> = new Set([
  ...Object.keys(defaultStatusByKind),
  'client_abort',
  'shutdown',
]);

/** `error.type`: a kind from the closed set, `_OTHER` (the conventions' fallback) else, '' without error. */
export function errorType(kind: string | undefined): string {
  if (kind === undefined) return '';
  return errorTypes.has(kind) ? kind : '_OTHER';
}

const statusClasses = ['1xx', '2xx', '3xx', '4xx', '5xx'];

export function statusClass(status: number): string {
  return statusClasses[Math.floor(status / 100) - 1] ?? 'other';
}
