/**
 * What the static-key presets share: a transport that edits each request on its way to the HTTP
 * client (headers merged from objects built once, a path rebuilt from `UpstreamRequest.call`),
 * synchronously, never reading the body on the hot path.
 */
import type { UpstreamCall, UpstreamRequest } from '../codecs/codec.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';

export type RequestEdit = (request: UpstreamRequest) => UpstreamRequest;

/**
 * `http` with `edit` applied to every request. Closing it does nothing: the HTTP client is shared
 * by every provider on it, and its owner (the upstream router) closes it.
 */
export function editingTransport(http: UpstreamTransport, edit: RequestEdit): UpstreamTransport {
  return {
    send: (baseUrl, request, signal) => http.send(baseUrl, edit(request), signal),
    close: () => Promise.resolve(),
  };
}

/**
 * The request's call: what the codec said, or (a codec that does not say yet) read from the JSON
 * body, the one place a body is parsed, as a safety net only. Undefined when neither tells.
 */
export function callOf(request: UpstreamRequest): UpstreamCall | undefined {
  if (request.call !== undefined) return request.call;
  try {
    const body: unknown = JSON.parse(request.body);
    if (typeof body !== 'object' || body === null) return undefined;
    const { model, stream } = body as { model?: unknown; stream?: unknown };
    if (typeof model !== 'string') return undefined;
    const operation = request.path.includes('count') ? 'count-tokens' : 'chat';
    return { model, stream: stream === true, operation };
  } catch {
    return undefined;
  }
}

/** The request's headers without `omit`, with `added` over them: one new object per request. */
export function mergedHeaders(
  headers: Readonly<Record<string, string>>,
  added: Readonly<Record<string, string>>,
  omit?: string,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const name in headers) if (name !== omit) merged[name] = headers[name] as string;
  for (const name in added) merged[name] = added[name] as string;
  return merged;
}

/** A base URL as deployments take it: no trailing slash. */
export function baseUrlOf(configured: string | undefined, vendorDefault: string): string {
  return (configured ?? vendorDefault).replace(/\/+$/, '');
}

/** The secrets a provider holds (its key, and every credential value), for the scrubber. */
export function secretsOf(
  apiKey: string | undefined,
  credentials?: Readonly<Record<string, string>>,
): string[] {
  const secrets = apiKey === undefined ? [] : [apiKey];
  for (const value of Object.values(credentials ?? {})) if (value.length >= 8) secrets.push(value);
  return secrets;
}
