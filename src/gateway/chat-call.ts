/** One client chat request as the HTTP layer hands it to the gateway core. */
import type { HeaderMap, SurfaceCodec, SurfaceRoute, SurfaceTurn } from '../families/codec.ts';
import type { FamilyId, GatewayErrorKind } from '../ir/index.ts';
import type { ResponseSink } from './response-sink.ts';

/**
 * One upstream call made for a client request (a request may make several: fan-out, retries,
 * fallbacks). Reported once per call, when it either starts answering the client or fails.
 */
export interface AttemptRecord {
  /** Catalog name of the model this attempt called (a fallback's name when it was one). */
  model: string;
  /** The family spoken to the upstream (a deployment may speak another than the model's). */
  family: FamilyId;
  upstreamModel: string;
  /** The deployment called: its configured id, never a URL or key. */
  deployment: string;
  /** Upstream HTTP status; 0 when no response arrived (connect failure, timeout). */
  status: number;
  /** Unix milliseconds when the attempt started. */
  startedAt: number;
  /** Until the upstream's response headers. */
  headersMs: number | undefined;
  /** Until the first byte of the upstream's body (time to first token for a stream). */
  firstByteMs: number | undefined;
  /**
   * The upstream accepted the call (2xx) and may bill for it. Calls that failed before (error
   * status, connect failure, timeout before the headers) are never billed: charge only these.
   */
  billed: boolean;
  /** This call answers the client (at most one per request, or each of an `n` fan-out). */
  answered: boolean;
  /** Why the call gave no answer; undefined when it answered. */
  error: GatewayErrorKind | undefined;
}

export interface ChatCall {
  surface: SurfaceCodec;
  route: SurfaceRoute;
  body: unknown;
  /** Client headers: only `x-simulate-*` fault-injection headers are forwarded, to the built-in simulator only. */
  headers: HeaderMap;
  sink: ResponseSink;
  signal: AbortSignal;
  /** Who is calling: the authenticated client key's id (never the key itself). */
  clientId: string;
  /** Told about every upstream call as it gets its answer (or fails to). */
  onAttempt?: (attempt: AttemptRecord) => void;
  /**
   * Told about every upstream call just before it is sent, with the headers it will carry (tracing
   * starts the call's span and adds its `traceparent`). Set only when tracing is on.
   */
  onSending?: ((attempt: AttemptRecord, headers: Record<string, string>) => void) | undefined;
  /**
   * Work that must not delay the request (metering a key that is never refused): run once, right
   * after the first upstream request is handed to the transport, and awaited before the answer
   * starts. Must not reject. Set by admission.
   */
  onDispatched?: (() => Promise<void>) | undefined;
  /** A stateful surface's own facts for its answer (the Responses API's id, time, stored answer). */
  turn?: SurfaceTurn;
}
