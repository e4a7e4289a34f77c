/**
 * How the gateway reaches an upstream. Two implementations share this contract: the real HTTP
 * client (undici pools) and the in-process simulator (the offline default). The gateway code path
 * above it — encode request, decode response or stream — is the same for both.
 */
import type { HeaderMap, UpstreamRequest } from '../codecs/codec.ts';

export interface UpstreamResponse {
  status: number;
  /** Lower-case header names. */
  headers: HeaderMap;
  /** Body chunks as they arrive. Must be consumed to the end, or `cancel()`ed. */
  body: AsyncIterable<Uint8Array | string>;
  /** The whole body as text (consumes it). */
  text(): Promise<string>;
  /**
   * The whole body as text at once when it has already arrived whole (consumes it), else
   * undefined and nothing is consumed (`text()` then waits for it). A JSON answer usually comes in
   * the packet of its headers: read so, it costs no promise and no turn of the event loop.
   */
  textNow?(): string | undefined;
  /** Stop reading and release the connection. Safe to call more than once. */
  cancel(): void;
}

export interface UpstreamTransport {
  /** POST `request` to `baseUrl + request.path`. Rejects with a `GatewayError` on connect/timeout failures. */
  send(baseUrl: string, request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse>;
  close(): Promise<void>;
}
