/**
 * The contract of one request's delivery, read by the gateway core, admission, the ledger and the
 * timeline alike: the record of each upstream call, what a stream ends with, and what the client
 * got (or the error it got instead), with the records of every call made for it. Types only, importing nothing of the gateway, so every delivery file (and every
 * reader of its results) can depend on it without a cycle.
 */
import type { FamilyId, FinishReason, GatewayError, GatewayErrorKind, Usage } from '../ir/index.ts';

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
   * What the call took, set when it is reported: until its first body byte, else its headers, else
   * (no response) until it failed.
   */
  latencyMs: number | undefined;
  /**
   * The upstream accepted the call (2xx) and may bill for it. Calls that failed before (error
   * status, connect failure, timeout before the headers) are never billed: charge only these.
   */
  billed: boolean;
  /** This call answers the client (at most one per request, or each of an `n` fan-out). */
  answered: boolean;
  /** Why the call gave no answer; undefined when it answered. */
  error: GatewayErrorKind | undefined;
  /**
   * What went wrong in words, for the operator's log only: the upstream's error message through
   * the deployment's scrubber (no key, host or URL), else the client-safe error's message.
   */
  detail?: string | undefined;
}

/** What the gateway learns from a stream, whichever mode carried it. */
export interface StreamOutcome {
  usage: Usage | undefined;
  completed: boolean;
  error: GatewayError | undefined;
  /** Something reached the client (its stream started). */
  started: boolean;
  /** Each choice's finish reason as it arrived (`finishReasonName`), by choice index. */
  finishReasons: string[];
  /** The answer's text the client was sent, read when asked (a stream cut short is counted from it). */
  delivered: () => DeliveredText;
}

/**
 * The text of an answer a stream sent the client (its content, tool names and tool arguments, in
 * order): what a stream that ended early is counted from, since upstreams report output tokens
 * only at the end.
 */
export interface DeliveredText {
  /** The text, or its first part when the stream sent more than the gateway keeps. */
  text: string;
  /** How many times `text` the whole is, by length (1 when `text` is whole). */
  scale: number;
}

export const nothingDelivered: DeliveredText = { text: '', scale: 1 };

/** A stream's outcome before anything arrived. */
export function newStreamOutcome(): StreamOutcome {
  return {
    usage: undefined,
    completed: false,
    error: undefined,
    started: false,
    finishReasons: [],
    delivered: () => nothingDelivered,
  };
}

/** A choice's finish reason as telemetry names it: the upstream's own value when known, else the unified one. */
export function finishReasonName(reason: FinishReason): string {
  return reason.raw ?? reason.unified;
}

/** An answer reached the client (whole, or ended in-band by a failure). */
export interface Delivery {
  delivered: true;
  stream: boolean;
  /** What the upstream reported (for a stream: up to where it stopped). */
  usage: Usage | undefined;
  costUsd: number | undefined;
  /** The client got the whole answer. */
  completed: boolean;
  /** Why an answer that had started did not complete. */
  error: GatewayError | undefined;
  /** Why each choice stopped (`finishReasonName`); fewer than the choices when a stream was cut. */
  finishReasons: readonly string[];
  /** A stream's text as the client was sent it (`StreamOutcome.delivered`); absent for a JSON answer. */
  deliveredText?: () => DeliveredText;
  /** Catalog name of the model that answered (a fallback's when the model's deployments failed). */
  servedBy: string;
  /** Every upstream call made for the request (retries, fallbacks, each call of a fan-out), in the order they ended. */
  records: readonly AttemptRecord[];
}

/** Nothing reached the client: the error it is sent instead, and the upstream calls that were tried. */
export interface Undelivered {
  delivered: false;
  error: GatewayError;
  records: readonly AttemptRecord[];
}

export type DeliveryResult = Delivery | Undelivered;
