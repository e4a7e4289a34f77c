/**
 * Admission: the per-client policy seam between a prepared request and its delivery (model
 * permissions, rate limits, budgets). `admit` may throw a `GatewayError` (403/429) and may add
 * headers to `call.sink.headers`; `settle` is always called once with what was delivered
 * (undefined when delivery failed before any answer).
 */
import type { ChatCall } from './chat-call.ts';
import type { Delivery } from './deliver.ts';
import type { PreparedRequest } from './prepare-request.ts';

export interface Admission {
  settle(delivery: Delivery | undefined, error: unknown): void;
}

export interface AdmissionControl {
  admit(call: ChatCall, prepared: PreparedRequest): Admission;
}

/** No policy: every authenticated client may call every model without limits. */
export const openAdmission: AdmissionControl = {
  admit: () => ({ settle: () => undefined }),
};
