/**
 * The gateway core's side of admission, the per-client policy between a prepared request and its
 * delivery (model permissions, rate limits, budgets, the usage ledger; `limits/` implements it).
 * `admit` may throw a `GatewayError` (403/404/429); what it returns travels with the request:
 * `handleChat` hands `afterDispatch` to delivery and calls `settle` once at the end. `Context` is the
 * HTTP layer's own record of the request, passed through untouched.
 */
import type { ChatCall } from './chat-call.ts';
import type { DeliveryResult } from './delivery.ts';
import type { PreparedRequest } from './prepare-request.ts';

/** What an admitted request carries into its delivery, and back out of it. */
export interface Admission {
  /**
   * Work that must not delay the request (metering a key that is never refused): run once, right
   * after the first upstream request is handed to the transport, and awaited before the answer
   * starts. Must not reject. Undefined when there is none.
   */
  readonly afterDispatch: (() => Promise<void>) | undefined;
  /** Called once, whatever happened: what the client got (or the error instead), with every upstream call's record. */
  settle(result: DeliveryResult): void;
}

export interface Admit<Context> {
  admit(call: ChatCall, prepared: PreparedRequest, context: Context): Promise<Admission>;
}
