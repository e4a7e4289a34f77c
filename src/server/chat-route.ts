/**
 * The chat route (every surface's chat and count-tokens paths) as its stages, in order:
 * authenticate (`chat-authenticate.ts`) → screen before the body (`before-body.ts`, admission's
 * screen through `request-admission.ts`) → read the body (`http/read-body.ts`), wire the abort
 * (`chat-body.ts`) → the surface's session
 * (`chat-session.ts`: a Responses API turn) → handle (count tokens, or `handleChat`) → answer
 * (a delivery was answered by its sink; an error is answered here in the surface's shape, with
 * admission's headers) → the end observed once (`chat-end.ts`).
 */
import type { SurfaceCodec } from '../surfaces/surface.ts';
import type { SurfaceMatch } from '../surfaces/registry.ts';
import type { ModelEntry } from '../config/catalog.ts';
import { countTokens } from '../gateway/count-tokens.ts';
import { handleChat, type ChatCall } from '../gateway/handle-chat.ts';
import type { BodyWatch } from '../http/body-guard.ts';
import { parseJsonBody, readBody } from '../http/read-body.ts';
import { GatewayError } from '../ir/index.ts';
import type { ClientKey } from '../keys/client-keys.ts';
import { traceIdOf } from '../tracing/traceparent.ts';
import type { RequestContext } from '../usage/request-context.ts';
import { timedSink } from '../usage/request-timeline.ts';
import { sendError } from './answers.ts';
import { beforeBody, type BeforeBodyGuards } from './before-body.ts';
import { authenticate } from './chat-authenticate.ts';
import { abortSignalFor } from './chat-body.ts';
import { observeEnd, type ChatEnding } from './chat-end.ts';
import { openSession } from './chat-session.ts';
import type { Exchange, ServerState } from './exchange.ts';
import { createNodeSink } from './node-sink.ts';
import type { RequestAdmission } from './request-admission.ts';
import { logFailedAttempt } from './request-log.ts';

export interface ChatRouteState extends ServerState {
  /** What a chat request must pass before its body is read. */
  guards: BeforeBodyGuards & { admission: RequestAdmission };
}

/** Answers one chat request on `surface` (`match` undefined: a path that only resembles one). */
export async function chatRoute(
  exchange: Exchange,
  match: SurfaceMatch | undefined,
  surface: SurfaceCodec,
  state: ChatRouteState,
): Promise<void> {
  const { request, response, pathname, timeline } = exchange;
  const { dependencies } = state;
  // Created first so that every answer, errors included, carries the same headers.
  const sink = timedSink(createNodeSink(response, exchange.baseHeaders), timeline);
  const context: RequestContext = {
    requestId: exchange.requestId,
    surface: pathname.startsWith('/api/') ? 'unified' : surface.id,
    timeline,
  };
  exchange.context = context;
  const tracer = dependencies.tracer;
  if (tracer !== undefined) tracer.begin(context, request.headers);
  else {
    const traceId = traceIdOf(request.headers.traceparent);
    if (traceId !== undefined) context.traceId = traceId;
  }
  const countOnly = match?.route.countTokens === true;
  let key: ClientKey | undefined;
  let body: unknown;
  let watch: BodyWatch | undefined;
  let admitted = false;
  let ending: ChatEnding;
  try {
    key = authenticate(
      request,
      pathname,
      exchange.search,
      match,
      dependencies.keys,
      state.clock(),
      sink.headers,
    );
    // authenticate throws without a match.
    const route = (match as SurfaceMatch).route;
    const passed = beforeBody(
      request,
      response,
      {
        keyId: key.id,
        surface,
        entry: state.guards.admission.resolve(route.model),
        stream: route.stream ?? false,
        context,
      },
      state.guards,
    );
    // Most requests pass with nothing to wait for: no promise, no turn of the event loop.
    watch = passed instanceof Promise ? await passed : passed;
    // Read and parsed here, not in a helper of its own: one promise less on every request.
    body = parseJsonBody(await readBody(request, dependencies.config.bodyLimitBytes, watch));
    const signal = abortSignalFor(response, state.controllers);
    if (countOnly) {
      const keyId = key.id;
      const count = {
        surface,
        route,
        body,
        headers: request.headers,
        sink,
        signal,
        allowedModels: key.models,
        admit: async (entry: ModelEntry) => {
          const limits = {};
          const meter = { clientId: keyId, surface, family: entry.family, model: entry.name };
          await state.guards.admission.meter(meter, limits);
          return limits;
        },
      };
      await countTokens(count, dependencies);
      ending = {
        status: response.statusCode,
        errorKind: undefined,
        delivery: undefined,
        keyId: key.id,
        body,
        countTokens: true,
      };
    } else {
      const opening = openSession(surface, body, key.id, state.clock(), dependencies);
      const turn = opening === undefined ? undefined : await opening;
      const call: ChatCall = {
        surface,
        route,
        body: turn?.body ?? body,
        headers: request.headers,
        sink,
        signal,
        clientId: key.id,
        onAttempt: (record) => {
          timeline.recordAttempt(record);
          // A call the client's leaving (or a shutdown) cut says nothing about the upstream.
          if (!signal.aborted) logFailedAttempt(dependencies.logger, exchange.requestId, record);
        },
        onSending:
          tracer === undefined
            ? undefined
            : (record, headers) => tracer.attemptSending(context, record, headers),
      };
      if (turn !== undefined) call.turn = turn.turn;
      const result = await handleChat(call, dependencies, context);
      // Admitted: the answer carries admission's rate-limit headers, whatever happens next.
      admitted = true;
      if (!result.delivered) throw result.error;
      if (turn !== undefined) await turn.finish();
      const errorKind = result.completed
        ? undefined
        : (abortReason(signal) ?? result.error?.kind ?? 'upstream');
      ending = {
        status: response.statusCode,
        errorKind,
        delivery: result,
        keyId: key.id,
        body,
        countTokens: false,
      };
    }
  } catch (error) {
    // Refused before the whole request arrived (from its headers, or cut while reading it): the
    // rest of the upload is not read, the connection closes after the answer.
    if (!request.complete) sink.headers.connection = 'close';
    watch?.finish();
    if (!response.headersSent) {
      const refused = { keyId: key?.id, surface, pathModel: match?.route.model, body, admitted, context };
      await state.guards.admission.headersFor(error, refused, sink.headers);
    }
    sendError(response, surface, error, sink.headers, exchange.requestId, dependencies.logger, timeline);
    const errorKind = error instanceof GatewayError ? error.kind : 'internal';
    ending = {
      status: response.statusCode,
      errorKind,
      delivery: undefined,
      keyId: key?.id,
      body,
      countTokens: countOnly,
    };
  }
  exchange.ending = ending;
  observeEnd(context, ending, dependencies.metrics, tracer);
}

/** Why a request's signal was aborted (`client_abort`, `shutdown`), undefined while it was not. */
function abortReason(signal: AbortSignal): string | undefined {
  if (!signal.aborted) return undefined;
  return typeof signal.reason === 'string' ? signal.reason : 'client_abort';
}
