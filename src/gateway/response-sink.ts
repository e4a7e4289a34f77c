/** What the gateway needs from the HTTP layer to answer: kept tiny so the core stays framework-free. */
export type ResponseHeaders = Record<string, string | string[]>;

export interface ResponseSink {
  /**
   * Headers every answer to this request carries — success, stream or error (request id, rate
   * limits…). Mutable until the answer starts.
   */
  readonly headers: ResponseHeaders;
  /** Send a whole JSON answer. */
  sendJson(status: number, body: string, extraHeaders?: ResponseHeaders): void;
  /** Begin a 200 SSE answer; `trailerNames` are announced for `end(trailers)`. */
  startStream(extraHeaders?: ResponseHeaders, trailerNames?: readonly string[]): void;
  /** Write SSE text; resolves when the client can take more (backpressure). */
  write(text: string): Promise<void> | undefined;
  end(trailers?: Record<string, string>): void;
  /** The answer has started (headers sent). */
  readonly started: boolean;
}
