/**
 * The request's side of admission, in one place: the screen from the headers before the body is
 * read, and the rate-limit headers an error answer carries — a refusal's own, or the limits
 * described for a request that never reached admission. (`admit` and `settle` belong to the
 * gateway's `handleChat`; this is everything the server's stages ask of admission.)
 */
import type { ModelEntry } from '../config/catalog.ts';
import type { SurfaceCodec } from '../surfaces/surface.ts';
import { AdmissionRefusal } from '../gateway/admission.ts';
import type { ModelResolver } from '../gateway/resolve-model.ts';
import type { ResponseHeaders } from '../gateway/response-sink.ts';
import { GatewayError, isJsonObject } from '../ir/index.ts';
import type { AdmissionControl, MeterQuery } from '../limits/admission-control.ts';
import type { Logger } from '../log/logger.ts';
import type { RequestContext } from '../usage/request-context.ts';

export interface ScreenInput {
  keyId: string;
  surface: SurfaceCodec;
  /** The model the path names (the C surface), resolved. */
  entry: ModelEntry | undefined;
  /** The path selects streaming (C). */
  stream: boolean;
  context: RequestContext;
}

/** What an error answer needs to know to carry admission's headers. */
export interface RefusedRequest {
  keyId: string | undefined;
  surface: SurfaceCodec;
  /** The model the path names, if any. */
  pathModel: string | undefined;
  /** The parsed body, when it was read. */
  body: unknown;
  /** The request passed `admit`: its answer already carries admission's headers. */
  admitted: boolean;
  context: RequestContext;
}

export class RequestAdmission {
  readonly #control: AdmissionControl;
  readonly #models: ModelResolver;
  readonly #logger: Logger;

  constructor(control: AdmissionControl, models: ModelResolver, logger: Logger) {
    this.#control = control;
    this.#models = models;
    this.#logger = logger;
  }

  /**
   * Rejects with the refusal `admit` would make whatever the body holds; passes otherwise.
   * Undefined: passed at once, with no promise (the screen had nothing to ask).
   */
  screen(input: ScreenInput): Promise<void> | undefined {
    const screening = this.#control.screen?.({
      clientId: input.keyId,
      surface: input.surface,
      entry: input.entry,
      stream: input.stream,
      context: input.context,
    });
    if (screening === undefined) return undefined;
    return screening.then((refusal) => {
      if (refusal !== undefined) throw refusal;
    });
  }

  /**
   * One token-free request (count-tokens, stored responses) admitted: its rate-limit headers, put
   * on `headers`; throws the refusal (carrying them) otherwise.
   */
  async meter(query: MeterQuery, headers: ResponseHeaders): Promise<void> {
    if (this.#control.meter === undefined) return;
    Object.assign(headers, await this.#control.meter(query));
  }

  /** The model the path names, resolved (undefined when it names none or an unknown one). */
  resolve(pathModel: string | undefined): ModelEntry | undefined {
    return pathModel === undefined ? undefined : this.#models.resolve(pathModel);
  }

  /**
   * Puts admission's headers on an error answer: a refusal's own; else, for an authenticated
   * request that never reached admission, the limits described — unless a store was unreachable
   * (the limits store would only fail again, and log once more per request for the whole outage).
   */
  async headersFor(error: unknown, request: RefusedRequest, headers: ResponseHeaders): Promise<void> {
    if (error instanceof AdmissionRefusal) {
      Object.assign(headers, error.headers);
      return;
    }
    // A model nothing is configured to serve: retrying cannot help, so the SDKs are told not to.
    if (error instanceof GatewayError && error.kind === 'not_configured') headers['x-should-retry'] = 'false';
    if (request.keyId === undefined || request.admitted || storeDown(error)) return;
    const named = request.pathModel ?? modelIn(request.body);
    const family =
      (named === undefined ? undefined : this.#models.resolve(named))?.family ?? request.surface.family;
    try {
      const limits = await this.#control.describe({
        clientId: request.keyId,
        surface: request.surface,
        family,
      });
      if (limits !== undefined) Object.assign(headers, limits);
    } catch (failure) {
      // A store failure only loses the headers.
      this.#logger.warn('rate-limit headers unavailable', {
        requestId: request.context.requestId,
        cause: failure instanceof Error ? failure.message : 'unknown',
      });
    }
  }
}

/** A store could not answer (limits, budgets, stored responses): a 503 before admission. */
function storeDown(error: unknown): boolean {
  return error instanceof GatewayError && error.kind === 'unavailable';
}

function modelIn(body: unknown): string | undefined {
  return isJsonObject(body) && typeof body.model === 'string' ? body.model : undefined;
}
