/** What the gateway needs from the HTTP layer to answer: kept tiny so the core stays framework-free. */
export type ResponseHeaders = Record<string, string | string[]>;

export interface ResponseSink {
  /** Send a whole JSON answer. */
  sendJson(status: number, headers: ResponseHeaders, body: string): void;
  /** Begin a 200 SSE answer. */
  startStream(headers: ResponseHeaders): void;
  /** Write SSE text; resolves when the client can take more (backpressure). */
  write(text: string): Promise<void> | undefined;
  end(): void;
  /** Extra headers (request id, warnings) every answer carries. */
  readonly baseHeaders: ResponseHeaders;
}
