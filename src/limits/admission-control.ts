/**
 * Admission as the HTTP layer sees it: the gateway core's `admit`, plus what the server asks of
 * the policy on its own — a screen from the headers before the body is read, and the rate-limit
 * headers of an answer that never reached `admit`.
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import type { Admit } from '../gateway/admission.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import type { FamilyId, GatewayError } from '../ir/index.ts';
import type { RequestContext } from '../usage/request-context.ts';

/** Who asks, in which surface's shape, about which family's limits. */
export interface LimitsQuery {
  clientId: string;
  surface: SurfaceCodec;
  family: FamilyId;
}

/** What is known of a chat request before its body is read. */
export interface ScreenQuery {
  clientId: string;
  surface: SurfaceCodec;
  /** The model the path names (the C surface), resolved; undefined when the body names it. */
  entry: ModelEntry | undefined;
  /** The path selects streaming (C); false when the body decides. */
  stream: boolean;
  context: RequestContext;
}

/** A request that carries no tokens (count-tokens, stored responses): one request on `family`. */
export interface MeterQuery {
  clientId: string;
  surface: SurfaceCodec;
  family: FamilyId;
  /** The catalog model it names (count-tokens): the key's model restriction applies. */
  model?: string | undefined;
}

export interface AdmissionControl extends Admit<RequestContext> {
  /**
   * One token-free request (`request-meter.ts`): the key's budget and model restriction checked,
   * one request drawn from its window; the rate-limit headers, or throws the `AdmissionRefusal`.
   */
  meter?(query: MeterQuery): Promise<ResponseHeaders>;
  /**
   * From the headers alone, before the body is read: the refusal `admit` would give whatever the
   * body holds (a spent budget, no request left in any family the key may call, a model the path
   * names that the key may not use), carrying its headers; undefined when the body must decide.
   * Undefined instead of a promise: nothing to ask for this key (no promise on the common path).
   */
  screen?(query: ScreenQuery): Promise<GatewayError | undefined> | undefined;
  /**
   * The rate-limit headers for an answer that never reached `admit` (a bad request…), for the
   * caller to put on it; undefined for a key that is gone.
   */
  describe(query: LimitsQuery): Promise<ResponseHeaders | undefined>;
}
