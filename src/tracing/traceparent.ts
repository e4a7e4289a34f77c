/**
 * The W3C Trace Context `traceparent` header: `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`.
 * Read without the OpenTelemetry SDK, so a request's trace id reaches the ledger and the log lines
 * even when no traces are exported.
 */
const pattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-|$)/;

/** The trace id of a valid `traceparent` (version ff, all-zero ids refused), else undefined. */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length < 55) return undefined;
  const match = pattern.exec(header.trim().toLowerCase());
  if (match === null) return undefined;
  const [, version, traceId, parentId] = match;
  if (version === 'ff' || traceId === '0'.repeat(32) || parentId === '0'.repeat(16)) return undefined;
  // Version 00 is exactly 55 characters; later versions may append fields after a dash.
  if (version === '00' && header.trim().length !== 55) return undefined;
  return traceId;
}
