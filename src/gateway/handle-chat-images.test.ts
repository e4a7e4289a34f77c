import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/load-config.ts';
import { GatewayError, type ChatRequest, type ImagePart } from '../ir/index.ts';
import { AdmissionRefusal } from './admission.ts';
import type { ChatCall } from './chat-call.ts';
import {
  defaultImageFetchConfig,
  fetchConcurrency,
  ImageFetcher,
  type FetchNetwork,
} from './fetch-images.ts';
import { handleChat } from './handle-chat.ts';
import type { ResponseSink } from './response-sink.ts';
import { ModelResolver } from './resolve-model.ts';
import { UpstreamRouter } from './upstreams.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import { codecs } from '../../test/kit/spec-families.ts';

const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47]);

/** A network that answers every GET with a PNG after a turn, counting fetches and the most at once. */
function countingNetwork(): FetchNetwork & { fetched: number; mostAtOnce: number } {
  let open = 0;
  const network = {
    fetched: 0,
    mostAtOnce: 0,
    resolve: () => Promise.resolve(['93.184.216.34']),
    get: async () => {
      network.fetched++;
      open++;
      network.mostAtOnce = Math.max(network.mostAtOnce, open);
      await new Promise((resolve) => setImmediate(resolve));
      open--;
      return {
        status: 200,
        headers: { 'content-type': 'image/png' },
        body: (async function* () {
          await Promise.resolve();
          yield png;
        })(),
        destroy: () => undefined,
      };
    },
  };
  return network;
}

function imageCall(count: number): ChatCall {
  const images = Array.from({ length: count }, (_, index) => ({
    type: 'image_url',
    image_url: { url: `https://images.example/${index}.png` },
  }));
  return {
    surface: codecs.alpha,
    route: {},
    body: {
      model: 'C-1',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what?' }, ...images] }],
    },
    headers: {},
    sink: { headers: {} } as ResponseSink,
    signal: new AbortController().signal,
    clientId: 'test',
  };
}

const config = loadConfig({});
const models = new ModelResolver(config);
/** Never called: nothing is admitted here. */
const unused: UpstreamTransport = {
  send: () => Promise.reject(new Error('unused')),
  close: () => Promise.resolve(),
};
const enabled = { ...defaultImageFetchConfig, enabled: true, maxPerRequest: 20 };

test('a request admission refuses fetches no image', async () => {
  const network = countingNetwork();
  const refused = new AdmissionRefusal(new GatewayError('quota', 'This API key has used its budget'), {});
  await assert.rejects(
    handleChat(
      imageCall(2),
      {
        models,
        upstreams: new UpstreamRouter(config, () => unused, unused),
        admission: { admit: () => Promise.reject(refused) },
        images: new ImageFetcher(enabled, network),
      },
      undefined,
    ),
    (error: unknown) => error === refused,
  );
  assert.equal(network.fetched, 0);
});

test('more images than maxPerRequest is a 400 before any is fetched; the rest a few at a time', async () => {
  const network = countingNetwork();
  const fetcher = new ImageFetcher(enabled, network);
  const request = (count: number): ChatRequest => ({
    model: 'C-1',
    system: [],
    messages: [
      {
        role: 'user',
        content: Array.from({ length: count }, (_, index): ImagePart => ({
          type: 'image',
          source: { kind: 'url', url: `https://images.example/${index}.png` },
        })),
      },
    ],
    tools: [],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
  });
  await assert.rejects(fetcher.inlineImages(request(21)), (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    assert.match(error.message, /21 images by URL to fetch, more than the 20 fetched for one request/);
    return true;
  });
  assert.equal(network.fetched, 0);
  const twenty = request(20);
  await fetcher.inlineImages(twenty);
  assert.equal(network.fetched, 20);
  assert.ok(network.mostAtOnce <= fetchConcurrency, `${network.mostAtOnce} at once`);
  assert.ok(
    twenty.messages[0]?.content.every((part) => part.type === 'image' && part.source.kind === 'base64'),
  );
});
