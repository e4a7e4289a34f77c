/** One client chat request as the HTTP layer hands it to the gateway core. */
import type { HeaderMap, SurfaceRoute, SurfaceTurn } from '../codecs/codec.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import type { AttemptRecord } from './delivery.ts';
import type { ResponseSink } from './response-sink.ts';

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
  /**
   * Told about every upstream call just before it is sent, with the headers it will carry (tracing
   * starts the call's span and adds its `traceparent`). Set only when tracing is on.
   */
  onSending?: ((attempt: AttemptRecord, headers: Record<string, string>) => void) | undefined;
  /**
   * Told about every upstream call as it gets its answer (or fails to), while the request goes on:
   * the timeline measures the gateway's own overhead with it. Whoever needs the calls afterwards
   * (the ledger) reads them from the result's `records`.
   */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** A stateful surface's own facts for its answer (the Responses API's id, time, stored answer). */
  turn?: SurfaceTurn;
}
