/** One client chat request as the HTTP layer hands it to the gateway core. */
import type { FamilyCodec, HeaderMap, SurfaceRoute } from '../families/codec.ts';
import type { ResponseSink } from './response-sink.ts';

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
}
