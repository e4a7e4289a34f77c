/**
 * Family C clients in both proto-JSON spellings through a running gateway, to a model of every
 * family: raw bodies in snake_case and in the exact mix the Python SDK (google-genai) sends, the
 * JS SDK (@google/genai, camelCase), and the Python SDK itself when this machine has it
 * (`PYTHON` names an interpreter with google-genai installed; `python3` is tried otherwise).
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { gammaAuth, post } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

type Json = Record<string, unknown>;

let upstream: RecordingUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    ALPHA_BASE_URL: upstream.url,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ALPHA_API_KEY: 'up-a',
    BETA_API_KEY: 'up-b',
    GAMMA_API_KEY: 'up-c',
  });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

/** A fixture without its Files-API image (the gateway would fetch that URL for an A or B upstream). */
function fixtureBody(name: string): Json {
  const url = new URL(`../../src/codecs/gamma/__fixtures__/${name}`, import.meta.url);
  const body = JSON.parse(readFileSync(url, 'utf8')) as { contents: Array<{ parts: Json[] }> };
  const first = body.contents[0];
  if (first !== undefined)
    first.parts = first.parts.filter((part) => part.fileData === undefined && part.file_data === undefined);
  return body;
}

/** The last upstream request, with what the tests read of each family's shape. */
function lastUpstreamBody(): string {
  const request = upstream.requests.at(-1);
  assert.ok(request !== undefined, 'no upstream request');
  return request.body;
}

/** The tool's properties and the image's media type in whatever shape the upstream family speaks. */
function assertToolAndImage(family: string, text: string): void {
  const body = JSON.parse(text) as Json;
  if (family === 'A-2') {
    const tools = body.tools as Array<{ function: { parameters: Json } }>;
    assert.deepEqual(Object.keys(tools[0]?.function.parameters.properties as Json), [
      'city',
      'unit_system',
      'when',
    ]);
    assert.match(text, /"url":"data:image\/png;base64,iVBORw0KGgo="/);
  } else {
    const tools = body.tools as Array<{ input_schema: Json }>;
    assert.deepEqual(Object.keys(tools[0]?.input_schema.properties as Json), ['city', 'unit_system', 'when']);
    assert.match(text, /"media_type":"image\/png","data":"iVBORw0KGgo="/);
  }
}

describe('raw bodies in the SDK shapes', () => {
  for (const fixture of ['snake-case-request.json', 'python-sdk-request.json']) {
    for (const model of ['A-2', 'B-1']) {
      test(`${fixture} → ${model}: 200, the tool with its properties, the image with its media type`, async () => {
        const answer = await post(
          gateway.url,
          `/v1beta/models/${model}:generateContent`,
          gammaAuth(gateway.key),
          fixtureBody(fixture),
        );
        assert.equal(answer.status, 200, answer.text);
        assertToolAndImage(model, lastUpstreamBody());
        const warning = answer.headers.get('warning') ?? '';
        assert.match(warning, /cachedContent has no equivalent/);
        assert.match(warning, /safetySettings has no equivalent/);
      });
    }

    test(`${fixture} → C-1: forwarded as the client wrote it`, async () => {
      const body = fixtureBody(fixture);
      const answer = await post(
        gateway.url,
        '/v1beta/models/C-1:generateContent',
        gammaAuth(gateway.key),
        body,
      );
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(JSON.parse(lastUpstreamBody()), body);
    });
  }

  test('both spellings of one field: a 400 in the family shape, before any upstream call', async () => {
    const calls = upstream.requests.length;
    const answer = await post(gateway.url, '/v1beta/models/A-2:generateContent', gammaAuth(gateway.key), {
      contents: [{ parts: [{ text: 'hi' }] }],
      generationConfig: { maxOutputTokens: 10 },
      generation_config: { max_output_tokens: 10 },
    });
    assert.equal(answer.status, 400, answer.text);
    const error = (answer.json as { error: { status: string; message: string } }).error;
    assert.equal(error.status, 'INVALID_ARGUMENT');
    assert.match(error.message, /given twice, as "generationConfig" and "generation_config"/);
    assert.equal(upstream.requests.length, calls);
  });
});

describe('@google/genai (camelCase)', () => {
  test('a JSON-Schema tool and an inline image reach an A upstream whole', async () => {
    const client = new GoogleGenAI({
      apiKey: gateway.key,
      httpOptions: { baseUrl: gateway.url, apiVersion: 'v1beta', retryOptions: { attempts: 1 } },
    });
    const response = await client.models.generateContent({
      model: 'A-2',
      contents: [
        {
          role: 'user',
          parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
        },
      ],
      config: {
        maxOutputTokens: 50,
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                parametersJsonSchema: {
                  type: 'object',
                  properties: { city: { type: 'string' }, unit_system: { type: 'string' }, when: {} },
                },
              },
            ],
          },
        ],
      },
    });
    assert.equal(response.modelVersion, 'A-2');
    assertToolAndImage('A-2', lastUpstreamBody());
  });
});

const python = process.env.PYTHON ?? 'python3';
const pythonHasSdk = spawnSync(python, ['-c', 'import google.genai'], { stdio: 'ignore' }).status === 0;
const program = fileURLToPath(new URL('./python/gamma_sdk_call.py', import.meta.url));

describe('google-genai (the Python SDK, unchanged)', () => {
  for (const model of ['A-2', 'B-1', 'C-1']) {
    for (const mode of ['generate', 'stream']) {
      test(
        `${model}, ${mode}: answered; the tools and the image reach the upstream`,
        { skip: pythonHasSdk ? false : `${python} has no google-genai (set PYTHON)` },
        async () => {
          // Asynchronously: the gateway answers from this same process.
          const run = await promisify(execFile)(python, [program, gateway.url, gateway.key, model, mode], {
            encoding: 'utf8',
            timeout: 60_000,
          });
          const answer = JSON.parse(run.stdout) as { text: string; calls: unknown[]; model: string };
          assert.ok(answer.text !== '' || answer.calls.length > 0, run.stdout);
          const sent = lastUpstreamBody();
          if (model === 'C-1') {
            // Same family: the SDK's own spelling goes upstream.
            assert.match(sent, /"mime_type": ?"image\/png"/);
            assert.match(sent, /"parameters_json_schema"/);
            return;
          }
          const body = JSON.parse(sent) as Json;
          const schemas =
            model === 'A-2'
              ? (body.tools as Array<{ function: { parameters: Json } }>).map(
                  (tool) => tool.function.parameters,
                )
              : (body.tools as Array<{ input_schema: Json }>).map((tool) => tool.input_schema);
          assert.deepEqual(
            schemas.map((schema) => Object.keys(schema.properties as Json)),
            [
              ['city', 'unit_system'],
              ['city', 'days'],
            ],
          );
          assert.match(sent, model === 'A-2' ? /data:image\/png;base64,/ : /"media_type":"image\/png"/);
        },
      );
    }
  }
});
