/** One client chat request as the HTTP layer hands it to the gateway core. */
import type { FamilyCodec, HeaderMap, SurfaceRoute } from '../families/codec.ts';
import type { FamilyId } from '../ir/index.ts';
import type { ResponseSink } from './response-sink.ts';

/** One upstream call made for a client request (a request may make several: fan-out, retries). */
export interface AttemptRecord {
  /** Catalog name of the model this attempt called. */
  model: string;
  family: FamilyId;
  upstreamModel: string;
  /** Upstream HTTP status; 0 when no response arrived (connect failure, timeout). */
  status: number;
  /** Unix milliseconds when the attempt started. */
  startedAt: number;
  /** Until the upstream's response headers. */
  headersMs: number | undefined;
}

export interface ChatCall {
  surface: FamilyCodec;
  route: SurfaceRoute;
  body: unknown;
  /** Client headers: only `x-simulate-*` fault-injection headers are ever forwarded upstream. */
  headers: HeaderMap;
  sink: ResponseSink;
  signal: AbortSignal;
  /** Who is calling: the authenticated client key's id (never the key itself). */
  clientId: string;
  /** Told about every upstream call as it gets its answer (or fails to). */
  onAttempt?: (attempt: AttemptRecord) => void;
}
