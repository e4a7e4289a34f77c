/**
 * The gateway core's side of admission, the per-client policy between a prepared request and its
 * delivery (model permissions, rate limits, budgets, the usage ledger; `limits/` implements it).
 * `admit` refuses by throwing a `AdmissionRefusal` (403/404/429) that carries its answer's headers; what it
 * returns travels with the request: `handleChat` puts its headers on the answer, hands
 * `afterDispatch` to delivery and calls `settle` once at the end. `Context` is the HTTP layer's
 * own record of the request, passed through untouched.
 */
import { GatewayError, type GatewayErrorOptions } from '../ir/index.ts';
import type { ChatCall } from './chat-call.ts';
import type { DeliveryResult } from './delivery.ts';
import type { PreparedRequest } from './prepare-request.ts';
import type { ResponseHeaders } from './response-sink.ts';

/** Admission's work for once the request is on its way; resolves to headers for the answer. */
export type AfterDispatch = () => Promise<ResponseHeaders | undefined>;

/** What an admitted request carries into its delivery, and back out of it. */
export interface Admission {
  /** For the answer, whatever it turns out to be: the rate-limit state after this request's draw. */
  readonly headers: ResponseHeaders;
  /**
   * Work that must not delay the request (metering a key that is never refused): run once, right
   * after the first upstream request is handed to the transport, and awaited before the answer
   * starts; what it resolves to goes on the answer too. Must not reject. Undefined when there is none.
   */
  readonly afterDispatch: AfterDispatch | undefined;
  /** Called once, whatever happened: what the client got (or the error instead), with every upstream call's record. */
  settle(result: DeliveryResult): void;
}

/** Admission said no: the error, and the headers its answer carries (rate-limit state, `x-should-retry`). */
export class AdmissionRefusal extends GatewayError {
  readonly headers: ResponseHeaders;

  constructor(error: GatewayError, headers: ResponseHeaders) {
    const options: GatewayErrorOptions = {};
    if (error.param !== undefined) options.param = error.param;
    if (error.retryAfterSeconds !== undefined) options.retryAfterSeconds = error.retryAfterSeconds;
    if (error.code !== undefined) options.code = error.code;
    super(error.kind, error.message, options);
    this.headers = headers;
  }
}

export interface Admit<Context> {
  admit(call: ChatCall, prepared: PreparedRequest, context: Context): Promise<Admission>;
}
