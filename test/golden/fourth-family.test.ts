/**
 * "A fourth family = one codec folder, one surface folder, one line in each registry", proven: this
 * file alone adds a family `delta` — Family A's wire codec under a new id with its own environment
 * variables (`DELTA_BASE_URL`, `DELTA_API_KEY`), A's surface under routes of its own (`/delta/…`),
 * and a model of its own in the configuration file — registers the codec and the surface the way
 * the registries list the spec's three (`registerCodec`, `registerSurface`: the lines of
 * `codecs/registry.ts` and `surfaces/registry.ts`), and runs the golden matrix with it: every
 * surface (A, B, C, delta) against a delta model and the delta surface against every family's
 * model, JSON and stream, each scenario.
 *
 * Every exchange must mean what the scenario means (`checkSemantics`, read as A where delta stands).
 * Where delta takes A's place on the same kind of path (pass-through for delta → delta, translation
 * for delta ↔ B and C), the transcript must be A's recorded one byte for byte once the names are
 * swapped back: delta's model name, upstream key and family name. A and delta are two families
 * that speak one shape, so A → delta and delta → A go through the canonical request (A → A is a
 * pass-through): those are held to the scenario's meaning.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { alphaWire } from '../../src/codecs/alpha/index.ts';
import type { WireCodec } from '../../src/codecs/codec.ts';
import { alphaSurface } from '../../src/surfaces/alpha/index.ts';
import { familyIds, registry } from '../../src/surfaces/registry.ts';
import type { FamilySurface } from '../../src/surfaces/surface.ts';
import { startRecordingUpstream } from '../kit/recording-upstream.ts';
import type { SpecFamily } from '../kit/spec-families.ts';
import { startTestGateway } from '../kit/test-gateway.ts';
import { checkSemantics, record, upstreamKeys, type Rig, type Transcript } from './test-kit.ts';
import { answerFor, clientRequest, scenarioNames, type ScenarioName } from './scenarios.ts';
import { upstreamAnswer } from './upstream-answers.ts';

const delta = 'delta';
const deltaModel = 'delta-D2';
const deltaKey = 'up-d-key-0000';

/** The codec folder: Family A's wire codec as a family of its own, with its own environment prefix. */
const deltaWire: WireCodec = {
  ...alphaWire,
  id: delta,
  descriptor: { ...alphaWire.descriptor, envPrefix: 'DELTA' },
};

/** The surface folder: A's surface fronting the delta codec, its paths under `/delta`. */
const deltaSurface: FamilySurface = {
  ...alphaSurface,
  codec: delta,
  routes: alphaSurface.routes.map(({ path, route }) => ({ path: `/delta${path}`, route })),
  unknownPaths: ['/delta/*'],
  modelListing: { ...alphaSurface.modelListing, paths: ['/delta/v1/models'] },
};

// The two registry lines.
registry.registerCodec(deltaWire);
registry.registerSurface(deltaSurface);

type Party = SpecFamily | typeof delta;

/** The spec family whose wire shape a party speaks (delta speaks A's). */
function shapeOf(party: Party): SpecFamily {
  return party === delta ? 'alpha' : party;
}

/** A model of the delta family, priced as A-2 (cache prices from its descriptor: A's factors). */
const deltaModels = `models:
  - name: ${deltaModel}
    family: delta
    upstreamModel: A-2
    contextWindow: 128000
    maxOutputTokens: 4096
    pricing: { inputPerMillion: 10, outputPerMillion: 30 }
    capabilities: { vision: true }
`;

let rig: Rig;
let directory: string;

before(async () => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-fourth-'));
  const configPath = join(directory, 'config.yaml');
  writeFileSync(configPath, deltaModels);
  const upstream = await startRecordingUpstream();
  const gateway = await startTestGateway(
    {
      ALPHA_BASE_URL: upstream.url,
      BETA_BASE_URL: upstream.url,
      GAMMA_BASE_URL: upstream.url,
      DELTA_BASE_URL: upstream.url,
      ALPHA_API_KEY: upstreamKeys.alpha,
      BETA_API_KEY: upstreamKeys.beta,
      GAMMA_API_KEY: upstreamKeys.gamma,
      DELTA_API_KEY: deltaKey,
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

/** The client request of the pair, spelled as A's pair and moved to delta's path and model. */
function deltaRequest(
  scenario: ScenarioName,
  surface: Party,
  family: Party,
  stream: boolean,
): ReturnType<typeof clientRequest> {
  const client = clientRequest(scenario, shapeOf(surface), shapeOf(family), stream, rig.gateway.key);
  if (family === delta) {
    if (typeof client.body.model === 'string') client.body = { ...client.body, model: deltaModel };
    client.path = client.path.replace('/models/A-2:', `/models/${deltaModel}:`);
  }
  if (surface === delta) client.path = `/delta${client.path}`;
  return client;
}

/** A delta transcript in A's names: what A's recorded pair must show. */
function asAlpha(transcript: Transcript, twinRequest: Transcript['request']): Transcript {
  const text = JSON.stringify({ ...transcript, request: twinRequest })
    .replaceAll(deltaModel, 'A-2')
    .replaceAll(deltaKey, upstreamKeys.alpha)
    .replaceAll('for delta models', 'for alpha models');
  return JSON.parse(text) as Transcript;
}

const here = dirname(fileURLToPath(import.meta.url));

function recorded(surface: SpecFamily, family: SpecFamily): Record<string, Transcript> {
  const path = join(here, 'transcripts', `${surface}-to-${family}.json`);
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, Transcript>;
}

test('delta is registered beside the spec families', () => {
  assert.deepEqual(familyIds(), ['alpha', 'beta', 'gamma', 'converse', delta]);
});

const pairs: Array<[Party, Party]> = [
  ['alpha', delta],
  ['beta', delta],
  ['gamma', delta],
  [delta, delta],
  [delta, 'alpha'],
  [delta, 'beta'],
  [delta, 'gamma'],
];

for (const [surface, family] of pairs) {
  const twin: [SpecFamily, SpecFamily] = [shapeOf(surface), shapeOf(family)];
  // The same kind of path as A's pair: both pass-through, or both translated.
  const sameRoute = (surface === family) === (twin[0] === twin[1]);
  const scenarios: readonly ScenarioName[] =
    twin[0] === 'alpha' ? [...scenarioNames, 'legacy-functions'] : scenarioNames;
  describe(`${surface} surface → ${family} model`, () => {
    const seen = new Set<string>();
    for (const scenario of scenarios) {
      for (const stream of [false, true]) {
        const name = `${scenario}/${stream ? 'stream' : 'json'}`;
        test(name, async () => {
          const answer = answerFor(scenario, twin[0], twin[1]);
          const client = deltaRequest(scenario, surface, family, stream);
          const transcript = await record(rig, client, upstreamAnswer(twin[1], answer, stream));
          if (family === delta && transcript.upstream !== null) {
            assert.equal(transcript.upstream.path, '/v1/chat/completions', 'delta speaks A upstream');
            assert.equal(transcript.upstream.headers.authorization, `Bearer ${deltaKey}`);
          }
          const twinRequest = clientRequest(scenario, twin[0], twin[1], stream, rig.gateway.key);
          const asTwin = asAlpha(transcript, { path: twinRequest.path, body: twinRequest.body });
          checkSemantics(scenario, twin[0], twin[1], { transcript: asTwin, answer }, surface === family);
          if (sameRoute) {
            assert.deepEqual(asTwin, recorded(twin[0], twin[1])[name], `${twin[0]}-to-${twin[1]} ${name}`);
            seen.add(name);
          }
        });
      }
    }
    if (sameRoute)
      test(`every transcript of ${twin[0]} → ${twin[1]} was matched`, () => {
        assert.deepEqual([...seen].sort(), Object.keys(recorded(twin[0], twin[1])).sort());
      });
  });
}
