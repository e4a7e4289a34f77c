/**
 * "A new wire format = one codec folder + one registry line; a new surface = one surface folder +
 * one registry line", proven apart from each other (`fourth-family.test.ts` adds both at once).
 *
 * - `epsilon`, a wire codec only (Family A's under a new id and environment prefix), registered
 *   the way `codecs/registry.ts` lists the spec's three. With no surface of its own it is still a
 *   family: the configuration file accepts an `epsilon` model and `EPSILON_*` variables, and every
 *   existing surface reaches it through the canonical request.
 * - `omega`, a surface only (A's chat API under `/omega/…`, speaking A's errors), registered the way
 *   `surfaces/registry.ts` lists the Responses API. It reaches every family's model.
 *
 * Every exchange is held to the scenario's meaning (`checkSemantics`), read as A where epsilon or
 * omega stands.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { alphaWire } from '../../src/codecs/alpha/index.ts';
import type { WireCodec } from '../../src/codecs/codec.ts';
import { decodeRequest } from '../../src/codecs/alpha/decode-request.ts';
import { encodeResponse } from '../../src/codecs/alpha/encode-response.ts';
import { createStreamEncoder } from '../../src/codecs/alpha/encode-stream.ts';
import { encodeError } from '../../src/codecs/alpha/errors.ts';
import { rateLimitHeaders } from '../../src/surfaces/alpha/rate-limit-headers.ts';
import { checkHeaders, credentialHeaders, readClientKey, routes } from '../../src/surfaces/alpha/surface.ts';
import { familyIds, registry, surfaces } from '../../src/surfaces/registry.ts';
import type { SurfaceCodec } from '../../src/surfaces/surface.ts';
import { startRecordingUpstream } from '../kit/recording-upstream.ts';
import type { SpecFamily } from '../kit/spec-families.ts';
import { startTestGateway } from '../kit/test-gateway.ts';
import { checkSemantics, record, upstreamKeys, type Rig, type Transcript } from './test-kit.ts';
import { answerFor, clientRequest, scenarioNames } from './scenarios.ts';
import { upstreamAnswer } from './upstream-answers.ts';

const epsilonModel = 'epsilon-E1';
const epsilonKey = 'up-e-key-0000';

/** The codec folder: A's wire functions as a family of their own. */
const epsilonWire: WireCodec = {
  ...alphaWire,
  id: 'epsilon',
  descriptor: { ...alphaWire.descriptor, envPrefix: 'EPSILON' },
};

/** The surface folder: A's chat API under `/omega`, a surface only. */
const omegaSurface: SurfaceCodec = {
  id: 'omega',
  family: 'alpha',
  capabilities: { permissionError: false },
  routes: routes.map(({ path, route }) => ({ path: `/omega${path}`, route })),
  unknownPaths: ['/omega/*'],
  credentialHeaders,
  readClientKey,
  checkHeaders,
  familyHeaders: [],
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeError,
  rateLimitHeaders,
};

// The two registry lines.
registry.registerCodec(epsilonWire);
registry.registerSurface(omegaSurface);

const epsilonModels = `models:
  - name: ${epsilonModel}
    family: epsilon
    upstreamModel: A-2
    contextWindow: 128000
    maxOutputTokens: 4096
    pricing: { inputPerMillion: 10, outputPerMillion: 30 }
    capabilities: { vision: true }
`;

let rig: Rig;
let directory: string;

before(async () => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-new-codec-'));
  const configPath = join(directory, 'config.yaml');
  writeFileSync(configPath, epsilonModels);
  const upstream = await startRecordingUpstream();
  const gateway = await startTestGateway(
    {
      ALPHA_BASE_URL: upstream.url,
      BETA_BASE_URL: upstream.url,
      GAMMA_BASE_URL: upstream.url,
      EPSILON_BASE_URL: upstream.url,
      ALPHA_API_KEY: upstreamKeys.alpha,
      BETA_API_KEY: upstreamKeys.beta,
      GAMMA_API_KEY: upstreamKeys.gamma,
      EPSILON_API_KEY: epsilonKey,
    },
    configPath,
  );
  rig = {
    gateway,
    upstream,
    close: async () => {
      await gateway.close();
      await upstream.close();
    },
  };
});

after(async () => {
  await rig.close();
  rmSync(directory, { recursive: true, force: true });
});

/** An epsilon transcript in A's names. */
function asAlpha(transcript: Transcript, twinRequest: Transcript['request']): Transcript {
  const text = JSON.stringify({ ...transcript, request: twinRequest })
    .replaceAll(epsilonModel, 'A-2')
    .replaceAll(epsilonKey, upstreamKeys.alpha)
    .replaceAll('for epsilon models', 'for alpha models');
  return JSON.parse(text) as Transcript;
}

test('epsilon is a family with no surface; omega a surface with no family', () => {
  assert.deepEqual(familyIds(), ['alpha', 'beta', 'gamma', 'converse', 'epsilon']);
  const surfaceIds = surfaces().map((surface) => surface.id);
  assert.deepEqual(surfaceIds, ['alpha', 'beta', 'gamma', 'responses', 'omega']);
  assert.equal(registry.familySurfaces().length, 3);
});

const specFamilies: readonly SpecFamily[] = ['alpha', 'beta', 'gamma'];

for (const surface of specFamilies) {
  describe(`${surface} surface → epsilon model (a new wire codec)`, () => {
    for (const scenario of scenarioNames) {
      for (const stream of [false, true]) {
        test(`${scenario}/${stream ? 'stream' : 'json'}`, async () => {
          const answer = answerFor(scenario, surface, 'alpha');
          const client = clientRequest(scenario, surface, 'alpha', stream, rig.gateway.key);
          if (typeof client.body.model === 'string') client.body = { ...client.body, model: epsilonModel };
          client.path = client.path.replace('/models/A-2:', `/models/${epsilonModel}:`);
          const transcript = await record(rig, client, upstreamAnswer('alpha', answer, stream));
          if (transcript.upstream !== null) {
            assert.equal(transcript.upstream.path, '/v1/chat/completions', 'epsilon speaks A upstream');
            assert.equal(transcript.upstream.headers.authorization, `Bearer ${epsilonKey}`);
          }
          const twin = clientRequest(scenario, surface, 'alpha', stream, rig.gateway.key);
          const asTwin = asAlpha(transcript, { path: twin.path, body: twin.body });
          // Epsilon is another family than A: even A's clients reach it by translation.
          checkSemantics(scenario, surface, 'alpha', { transcript: asTwin, answer }, false);
        });
      }
    }
  });
}

for (const family of specFamilies) {
  describe(`omega surface (a new surface) → ${family} model`, () => {
    for (const scenario of [...scenarioNames, 'legacy-functions'] as const) {
      for (const stream of [false, true]) {
        test(`${scenario}/${stream ? 'stream' : 'json'}`, async () => {
          const answer = answerFor(scenario, 'alpha', family);
          const client = clientRequest(scenario, 'alpha', family, stream, rig.gateway.key);
          const twinPath = client.path;
          client.path = `/omega${client.path}`;
          const transcript = await record(rig, client, upstreamAnswer(family, answer, stream));
          const asTwin = { ...transcript, request: { path: twinPath, body: client.body } };
          // Omega is no family: its requests always go through the canonical request.
          checkSemantics(scenario, 'alpha', family, { transcript: asTwin, answer }, false);
        });
      }
    }
  });
}

test('epsilon has no routes of its own, and omega answers its unknown paths in A’s shape', async () => {
  const response = await fetch(`${rig.gateway.url}/omega/v1/unknown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rig.gateway.key}`, 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(response.status, 404);
  const body = (await response.json()) as { error?: { type?: string } };
  assert.equal(typeof body.error?.type, 'string', 'an A-shaped error');
});
