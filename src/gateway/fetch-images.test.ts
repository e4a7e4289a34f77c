import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { loadConfig } from '../config/load-config.ts';
import { GatewayError, type ChatRequest, type ImagePart } from '../ir/index.ts';
import type { ChatCall } from './chat-call.ts';
import {
  defaultImageFetchConfig,
  ImageFetcher,
  isPublicAddress,
  type FetchedResponse,
  type FetchNetwork,
} from './fetch-images.ts';
import { inlineImageUrls, prepareRequest, type PreparedRequest } from './prepare-request.ts';
import type { ResponseSink } from './response-sink.ts';
import { ModelResolver } from './resolve-model.ts';
import { codecs } from '../../test/kit/spec-families.ts';

const enabled = { ...defaultImageFetchConfig, enabled: true, maxBytes: 64, timeoutMs: 200 };
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

interface FakeNetwork extends FetchNetwork {
  resolved: string[];
  fetched: Array<{ url: string; address: string }>;
}

/** DNS answers by host; every GET answers with `respond` (a 200 PNG by default). */
function fakeNetwork(
  dns: Record<string, string[]>,
  respond: (signal: AbortSignal) => FetchedResponse = () =>
    answer(200, { 'content-type': 'image/png' }, [png]),
): FakeNetwork {
  const network: FakeNetwork = {
    resolved: [],
    fetched: [],
    resolve: (hostname) => {
      network.resolved.push(hostname);
      return Promise.resolve(dns[hostname] ?? []);
    },
    get: (url, address, signal) => {
      network.fetched.push({ url: url.href, address });
      return Promise.resolve(respond(signal));
    },
  };
  return network;
}

function answer(
  status: number,
  headers: Record<string, string>,
  chunks: Uint8Array[],
  onDestroy: () => void = () => undefined,
): FetchedResponse {
  return {
    status,
    headers,
    body: (async function* () {
      for (const chunk of chunks) {
        await Promise.resolve();
        yield chunk;
      }
    })(),
    destroy: onDestroy,
  };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.kind, 'invalid_request');
    assert.match(error.message, /send the image as base64/);
    return error.message;
  }
  assert.fail('expected a 400');
}

test('only public unicast addresses pass', () => {
  for (const address of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '2606:4700::1111'])
    assert.ok(isPublicAddress(address), address);
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:a00:1::1',
    'ff02::1',
    'not-an-address',
  ])
    assert.ok(!isPublicAddress(address), address);
});

test('a successful fetch: the vetted address is used, the bytes come back as base64 with the media type', async () => {
  const network = fakeNetwork({ 'images.example': ['93.184.216.34'] }, () =>
    answer(200, { 'content-type': 'image/png; charset=binary', 'content-length': '7' }, [
      png.slice(0, 3),
      png.slice(3),
    ]),
  );
  const image = await new ImageFetcher(enabled, network).fetchImage('https://images.example/cat.png');
  assert.deepEqual(image, { mediaType: 'image/png', data: Buffer.from(png).toString('base64') });
  assert.deepEqual(network.fetched, [{ url: 'https://images.example/cat.png', address: '93.184.216.34' }]);
});

test('refused: http, credentials, private hosts (by name, by literal, or among several addresses)', async () => {
  const network = fakeNetwork({
    'internal.example': ['10.0.0.7'],
    'mixed.example': ['93.184.216.34', '127.0.0.1'],
    'nothing.example': [],
  });
  const fetcher = new ImageFetcher(enabled, network);
  assert.match(
    await refusal(fetcher.fetchImage('http://images.example/a.png')),
    /only https URLs are fetched/,
  );
  assert.match(await refusal(fetcher.fetchImage('https://user:pw@images.example/a.png')), /credentials/);
  for (const url of [
    'https://internal.example/a.png',
    'https://mixed.example/a.png',
    'https://nothing.example/a.png',
    'https://127.0.0.1/a.png',
    'https://[::1]/a.png',
    'https://169.254.169.254/latest/meta-data',
  ])
    assert.match(await refusal(fetcher.fetchImage(url)), /its host is not a public address/, url);
  // Nothing was ever requested.
  assert.deepEqual(network.fetched, []);
});

test('the real resolver: a name that resolves to loopback is refused before any connection', async () => {
  const fetcher = new ImageFetcher(enabled);
  assert.match(await refusal(fetcher.fetchImage('https://localhost/a.png')), /not a public address/);
});

test('refused: redirects, errors, non-images, too large (declared or streamed), too slow', async () => {
  const host = { 'images.example': ['93.184.216.34'] };
  const url = 'https://images.example/a.png';
  const cases: Array<[FetchedResponse, RegExp]> = [
    [answer(302, { location: 'http://127.0.0.1/' }, []), /it redirects/],
    [answer(404, { 'content-type': 'text/html' }, []), /status 404/],
    [answer(200, { 'content-type': 'text/html' }, [png]), /it is not an image/],
    [answer(200, { 'content-type': 'image/png', 'content-length': '65' }, []), /larger than 64 bytes/],
  ];
  for (const [response, reason] of cases) {
    const fetcher = new ImageFetcher(
      enabled,
      fakeNetwork(host, () => response),
    );
    assert.match(await refusal(fetcher.fetchImage(url)), reason);
  }
  let destroyed = false;
  const endless = answer(
    200,
    { 'content-type': 'image/png' },
    Array.from({ length: 20 }, () => png),
    () => {
      destroyed = true;
    },
  );
  assert.match(
    await refusal(
      new ImageFetcher(
        enabled,
        fakeNetwork(host, () => endless),
      ).fetchImage(url),
    ),
    /larger than 64 bytes/,
  );
  assert.ok(destroyed, 'the connection is released once the cap is passed');
  const stalled = (signal: AbortSignal): FetchedResponse => ({
    status: 200,
    headers: { 'content-type': 'image/png' },
    body: (async function* () {
      await once(signal, 'abort');
      yield png;
      throw new Error('aborted');
    })(),
    destroy: () => undefined,
  });
  const slow = new ImageFetcher({ ...enabled, timeoutMs: 20 }, fakeNetwork(host, stalled));
  assert.match(await refusal(slow.fetchImage(url)), /it took too long/);
});

function imageRequest(images: ImagePart[]): ChatRequest {
  return {
    model: 'C-1',
    system: [],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'look' }, ...images] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'c1',
            name: 'shot',
            isError: false,
            content: [{ type: 'image', source: { kind: 'url', url: 'https://images.example/result.png' } }],
          },
        ],
      },
    ],
    tools: [],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
  };
}

test('inlineImages: only https URLs C cannot take by reference, tool results included; off does nothing', async () => {
  const network = fakeNetwork({ 'images.example': ['93.184.216.34'] });
  const request = imageRequest([
    { type: 'image', source: { kind: 'url', url: 'https://images.example/a.png' } },
    { type: 'image', source: { kind: 'url', url: 'gs://bucket/b.png' } },
    {
      type: 'image',
      source: { kind: 'url', url: 'https://generativelanguage.googleapis.com/v1beta/files/x' },
    },
    { type: 'image', source: { kind: 'base64', mediaType: 'image/gif', data: 'R0lG' } },
  ]);
  const fetchedUrls = (): string[] => network.fetched.map((fetch) => fetch.url).sort();
  await new ImageFetcher(defaultImageFetchConfig, network).inlineImages(request);
  assert.deepEqual(fetchedUrls(), []);
  await new ImageFetcher(enabled, network).inlineImages(request);
  assert.deepEqual(fetchedUrls(), ['https://images.example/a.png', 'https://images.example/result.png']);
  const data = Buffer.from(png).toString('base64');
  const user = request.messages[0]?.content ?? [];
  assert.deepEqual(user[1], { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data } });
  assert.deepEqual(user[2], { type: 'image', source: { kind: 'url', url: 'gs://bucket/b.png' } });
});

function call(body: unknown): ChatCall {
  const sink = {} as ResponseSink;
  return {
    surface: codecs.alpha,
    route: {},
    body,
    headers: {},
    sink,
    signal: new AbortController().signal,
    clientId: 'test',
  };
}

test('inlineImageUrls fetches for a family that needs bytes (C) only, and only when enabled', async () => {
  const models = new ModelResolver(loadConfig({}));
  const prepared = async (model: string, images?: ImageFetcher): Promise<PreparedRequest> => {
    const request = await prepareRequest(call(body(model)), models);
    await inlineImageUrls(request, images);
    return request;
  };
  const body = (model: string): unknown => ({
    model,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is it?' },
          { type: 'image_url', image_url: { url: 'https://images.example/cat.png' } },
        ],
      },
    ],
  });
  const network = fakeNetwork({ 'images.example': ['93.184.216.34'] });
  const fetcher = new ImageFetcher(enabled, network);
  const toGamma = await prepared('C-1', fetcher);
  const part = toGamma.request.messages[0]?.content[1];
  assert.equal(part?.type === 'image' ? part.source.kind : undefined, 'base64');
  // B takes the URL itself: nothing is fetched for it.
  const toBeta = await prepared('B-1', fetcher);
  const kept = toBeta.request.messages[0]?.content[1];
  assert.equal(kept?.type === 'image' ? kept.source.kind : undefined, 'url');
  assert.equal(network.fetched.length, 1);
  // Off (the default), the URL stays and the C encoder answers with its 400.
  const untouched = await prepared('C-1');
  assert.throws(
    () => untouched.target.encodeRequest(untouched.request, { baseUrl: 'x', apiKey: undefined, model: 'c' }),
    /send the image as base64/,
  );
});
