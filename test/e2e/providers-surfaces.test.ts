/**
 * Every client surface × the `openai`, `anthropic` and `gemini` presets, through the strict vendor
 * mocks, with the official SDKs: text (JSON and streamed), a tool call with streamed arguments,
 * an image. The mocks refuse whatever the real APIs refuse (auth, version, unknown fields), so an
 * answer here means the vendor would have taken the request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { presets, providerModels, startVendorGateway, type VendorGateway } from '../kit/vendor-providers.ts';
import {
  chatCompletions,
  generateContent,
  messages,
  responses,
  type SurfaceClient,
} from '../kit/vendor-surface-clients.ts';

let vendor: VendorGateway;
const clients: SurfaceClient[] = [];

before(async () => {
  vendor = await startVendorGateway();
  const { url, key } = vendor.gateway;
  clients.push(
    chatCompletions('unified', new OpenAI({ apiKey: key, baseURL: `${url}/api/alpha/v1`, maxRetries: 0 })),
    chatCompletions('A chat completions', new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })),
    responses(new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })),
    messages(new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 })),
    generateContent(
      new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url, retryOptions: { attempts: 1 } } }),
    ),
  );
});

after(async () => {
  await vendor.close();
});

const surfaceNames = ['unified', 'A chat completions', 'Responses', 'B messages', 'C generateContent'];

for (const surfaceName of surfaceNames)
  describe(`${surfaceName} surface`, () => {
    const client = (): SurfaceClient => {
      const found = clients.find((candidate) => candidate.name === surfaceName);
      assert.ok(found);
      return found;
    };
    for (const preset of presets) {
      const model = providerModels[preset];
      test(`${preset} preset: text, JSON and streamed, with usage`, async () => {
        for (const stream of [false, true]) {
          const answer = await client().text(model, `Hello from ${surfaceName}`, stream);
          assert.match(answer.text, /\S/, `stream ${stream}: text`);
          assert.ok(
            answer.input > 0 && answer.output > 0,
            `stream ${stream}: usage ${JSON.stringify(answer)}`,
          );
        }
      });
      test(`${preset} preset: a tool call with streamed arguments`, async () => {
        const call = await client().tool(model);
        assert.equal(call.name, 'get_weather');
        assert.equal(typeof (call.args as { city?: unknown }).city, 'string');
      });
      test(`${preset} preset: an image`, async () => {
        assert.match(await client().image(model), /\S/);
      });
    }
  });

test('each vendor got its own auth, version and paths, and never the client key', () => {
  const openai = vendor.received.openai;
  assert.ok(
    openai.length > 0 &&
      openai.every((request) => request.headers.authorization === 'Bearer sk-mock-openai-key'),
  );
  const anthropic = vendor.received.anthropic;
  assert.ok(anthropic.every((request) => request.headers['x-api-key'] === 'sk-ant-mock-key'));
  assert.ok(
    anthropic.every(
      (request) =>
        request.headers['anthropic-version'] !== undefined && request.headers['beta-version'] === undefined,
    ),
  );
  const gemini = vendor.received.gemini;
  assert.ok(gemini.every((request) => request.headers['x-goog-api-key'] === 'AIza-mock-gemini-key'));
  assert.ok(gemini.every((request) => request.headers['x-gamma-api-key'] === undefined));
  assert.ok(
    gemini.some(
      (request) => request.path === '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ),
  );
  const all = JSON.stringify([openai, anthropic, gemini].flat().map((request) => request.headers));
  assert.ok(!all.includes(vendor.gateway.key));
});
