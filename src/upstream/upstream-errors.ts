/** Upstream transport failures in the gateway's vocabulary. */
import { undiciErrors } from './undici-parts.ts';
import { GatewayError } from '../ir/index.ts';

/** Maps undici failures to client-safe errors; a timer's abort reason is reported as is. */
export function toGatewayError(error: unknown, signal?: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error;
  if (signal?.aborted === true && signal.reason instanceof GatewayError) return signal.reason;
  if (error instanceof undiciErrors.HeadersTimeoutError) {
    return new GatewayError('timeout', 'the upstream did not answer in time', { cause: error });
  }
  if (error instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('timeout', 'the upstream stopped sending data', { cause: error });
  }
  if (error instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('timeout', 'connecting to the upstream timed out', { cause: error });
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return new GatewayError('upstream', 'the request was cancelled', { cause: error });
  }
  return new GatewayError('upstream', 'the upstream could not be reached', { cause: error });
}

/** Why a call whose signal fired ends: the timer's own error, or a plain cancellation. */
export function abortError(signal: AbortSignal): GatewayError {
  const reason: unknown = signal.reason;
  return reason instanceof GatewayError
    ? reason
    : new GatewayError('upstream', 'the request was cancelled', { cause: reason });
}
