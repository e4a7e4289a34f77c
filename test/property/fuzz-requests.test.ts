/**
 * Fuzzing the three request decoders (and what follows them before any upstream call): any body
 * is either a 4xx `GatewayError` or a request that every family encodes into valid JSON carrying
 * all its prompt text. Never another exception (that would be a 500).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../../src/config/load-config.ts';
import type { SurfaceRoute } from '../../src/codecs/codec.ts';
import type { FamilyCodec } from '../../src/surfaces/surface.ts';
import { ModelResolver } from '../../src/gateway/resolve-model.ts';
import { validateAgainstCatalog } from '../../src/gateway/validate-request.ts';
import { GatewayError, isJsonObject, type ChatRequest } from '../../src/ir/index.ts';
import { anyBody, fuzzParameters, requestCorpus, type SurfaceId } from './test-kit.ts';
import { codecs, specCodecs } from '../kit/spec-families.ts';

const resolver = new ModelResolver(loadConfig({}));

/** A thrown value is acceptable only as a client error. */
function assertClientError(error: unknown, label: string): void {
  if (!(error instanceof GatewayError)) {
    assert.fail(
      `${label}: threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
  assert.ok(
    error.status >= 400 && error.status < 500,
    `${label}: ${error.kind} (${error.status}) ${error.message}`,
  );
}

function routeFor(surface: FamilyCodec, model: string, stream: boolean): SurfaceRoute {
  if (surface.id !== 'gamma') return {};
  return (
    surface.matchRoute(`/v1/models/${model}:${stream ? 'streamGenerateContent' : 'generateContent'}`) ?? {}
  );
}

/** Every non-empty text the model would read. */
function promptTexts(request: ChatRequest): string[] {
  const texts = request.system.map((part) => part.text);
  for (const message of request.messages)
    for (const part of message.content) if (part.type === 'text') texts.push(part.text);
  return texts.filter((text) => text.trim() !== '');
}

/** Runs one body through decode → catalog checks → every family's encoder (and pass-through). */
function check(surfaceId: SurfaceId, body: unknown, model = 'C-1', stream = false): void {
  const surface = codecs[surfaceId];
  const route = routeFor(surface, model, stream);
  for (const lenient of [false, true]) {
    let request: ChatRequest;
    try {
      request = surface.decodeRequest({ body, route, lenient });
    } catch (error) {
      assertClientError(error, `${surfaceId} decode (lenient ${lenient})`);
      continue;
    }
    const entry = resolver.resolve(request.model);
    if (entry !== undefined) {
      try {
        validateAgainstCatalog(request, entry);
      } catch (error) {
        assertClientError(error, `${surfaceId} catalog check`);
      }
    }
    for (const target of specCodecs) {
      const label = `${surfaceId} → ${target.id}`;
      const upstreamTarget = { baseUrl: 'http://upstream.test', apiKey: 'k', model: 'up-model' };
      const encode = (): { body: string } =>
        lenient && target.id === surface.id && isJsonObject(body)
          ? target.passThrough.encodeRequest(body, request, upstreamTarget, {})
          : target.encodeRequest(
              target.capabilities.requiresMaxOutputTokens && request.sampling.maxOutputTokens === undefined
                ? { ...request, sampling: { ...request.sampling, maxOutputTokens: 100 } }
                : request,
              upstreamTarget,
            );
      let encoded: { body: string };
      try {
        encoded = encode();
      } catch (error) {
        assertClientError(error, `${label} encode`);
        continue;
      }
      const sent = JSON.parse(encoded.body) as unknown;
      assert.ok(isJsonObject(sent), `${label}: the upstream body is a JSON object`);
      if (!lenient) {
        for (const text of promptTexts(request)) {
          assert.ok(
            encoded.body.includes(JSON.stringify(text).slice(1, -1)),
            `${label}: prompt text lost: ${JSON.stringify(text)}`,
          );
        }
      }
    }
  }
}

for (const surface of ['alpha', 'beta', 'gamma'] as const) {
  describe(`${surface} request decoder`, () => {
    test('any body: a 4xx or a request every family encodes, prompt text intact', () => {
      fc.assert(
        fc.property(anyBody(surface), fc.boolean(), (body, stream) => {
          check(surface, body, 'C-1', stream);
        }),
        fuzzParameters(400),
      );
    });
  });
}

describe('request seed corpus (replayed every run)', () => {
  for (const { name, value } of requestCorpus()) {
    test(name, () => {
      check(value.surface, value.body, value.model, value.stream);
    });
  }
});
