/**
 * Operator-enabled image fetching (off by default: then the gateway never requests a URL a client
 * sent). When on, an image given by URL to a family that needs the bytes inline (C) is fetched
 * and inlined, under SSRF rules: https only; the host is resolved once and EVERY address must be
 * public (no loopback, private, link-local, CGNAT, multicast, reserved or IPv4-mapped ranges), and
 * the connection goes to that vetted address (no second lookup, so DNS rebinding cannot swap it);
 * no redirects; an image content type; a size cap and a time cap; at most `maxPerRequest` images
 * per request (more is a 400 before any is fetched), fetched `fetchConcurrency` at a time. Any
 * failure is a 400 that tells the client to send the image as base64. Fetching runs only for an
 * admitted request (`handle-chat.ts`), never before the key's admission.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { ImageFetchConfig } from '../config/config.ts';
import { GatewayError, invalidRequest, type ChatRequest, type ImagePart } from '../ir/index.ts';

export type { ImageFetchConfig } from '../config/config.ts';

export const defaultImageFetchConfig: ImageFetchConfig = {
  enabled: false,
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 5_000,
  maxPerRequest: 20,
};

/** Images of one request fetched at once at most. */
export const fetchConcurrency = 4;

/** What a fetch returns: status, headers and the body as it arrives. */
export interface FetchedResponse {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: AsyncIterable<Uint8Array>;
  /** Release the connection early. */
  destroy(): void;
}

/** The network, injectable for tests: resolve a host; GET a URL from one already-vetted address. */
export interface FetchNetwork {
  resolve(hostname: string): Promise<string[]>;
  get(url: URL, address: string, signal: AbortSignal): Promise<FetchedResponse>;
}

// Two lists: a v6 rule for IPv4-mapped addresses (::ffff:0:0/96) would also match every v4 address.
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blockedV4.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96], // IPv4-mapped: never reached through a v6 literal
  ['64:ff9b::', 96], // NAT64 can reach private v4
  ['100::', 64],
  ['2001::', 23], // IETF special purpose (Teredo, benchmarking…)
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 embeds any v4 address
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blockedV6.addSubnet(network, prefix, 'ipv6');

/** A public unicast address: anything else (private, loopback, link-local, reserved…) is refused. */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  return version === 4 ? !blockedV4.check(address, 'ipv4') : !blockedV6.check(address, 'ipv6');
}

export const realNetwork: FetchNetwork = {
  async resolve(hostname) {
    const found = await dnsLookup(hostname, { all: true, order: 'verbatim' });
    return found.map((entry) => entry.address);
  },
  get(url, address, signal) {
    return new Promise((resolve, reject) => {
      const family = isIP(address);
      const outgoing = httpsRequest(
        url,
        {
          method: 'GET',
          signal,
          headers: { accept: 'image/*', 'user-agent': 'modelgate-image-fetch' },
          // Connect to the vetted address only; TLS still checks the certificate against the host.
          lookup: (_hostname, options, callback) => {
            // Happy-eyeballs connects ask for every address (`all`); either way only the vetted one.
            if (options.all === true) callback(null, [{ address, family }]);
            else callback(null, address, family);
          },
        },
        (response) => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: response,
            destroy: () => response.destroy(),
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  },
};

const ipv6Brackets = /^\[|\]$/g;

/** Only C needs bytes; C serves its own storage (`gs://`, the Files API) by reference. */
function needsFetch(url: string): boolean {
  return url.startsWith('https://') && !url.startsWith('https://generativelanguage.googleapis.com/');
}

function refuse(url: string, reason: string): GatewayError {
  return invalidRequest(
    `the image at ${url} could not be fetched (${reason}): send the image as base64 (a data: URL)`,
    'messages',
  );
}

export class ImageFetcher {
  readonly #config: ImageFetchConfig;
  readonly #network: FetchNetwork;

  constructor(config: ImageFetchConfig, network: FetchNetwork = realNetwork) {
    this.#config = config;
    this.#network = network;
  }

  get enabled(): boolean {
    return this.#config.enabled;
  }

  /** Replaces every fetchable image URL in `request` by its bytes (in place), all at once. */
  async inlineImages(request: ChatRequest): Promise<void> {
    if (!this.#config.enabled) return;
    const images: ImagePart[] = [];
    for (const message of request.messages) {
      for (const part of message.content) {
        const parts = part.type === 'tool-result' ? part.content : [part];
        for (const inner of parts) {
          if (inner.type === 'image' && inner.source.kind === 'url' && needsFetch(inner.source.url))
            images.push(inner);
        }
      }
    }
    const cap = this.#config.maxPerRequest;
    if (images.length > cap) {
      throw invalidRequest(
        `this request has ${images.length} images by URL to fetch, more than the ${cap} fetched for one request: send the others as base64 (data: URLs)`,
        'messages',
      );
    }
    // A few at a time: one request cannot open connections without bound.
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let image = images[next++]; image !== undefined; image = images[next++]) await this.#inline(image);
    };
    await Promise.all(Array.from({ length: Math.min(fetchConcurrency, images.length) }, worker));
  }

  async #inline(image: ImagePart): Promise<void> {
    if (image.source.kind !== 'url') return;
    const { mediaType, data } = await this.fetchImage(image.source.url);
    image.source = { kind: 'base64', mediaType, data };
  }

  /** Fetches one image under the SSRF rules; throws a client-facing 400 on any failure. */
  async fetchImage(url: string): Promise<{ mediaType: string; data: string }> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse(url, 'not a URL');
    }
    if (parsed.protocol !== 'https:') throw refuse(url, 'only https URLs are fetched');
    if (parsed.username !== '' || parsed.password !== '') throw refuse(url, 'credentials in the URL');
    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort();
    }, this.#config.timeoutMs);
    try {
      return await this.#fetch(parsed, url, controller.signal);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw refuse(url, controller.signal.aborted ? 'it took too long' : 'the request failed');
    } finally {
      clearTimeout(timer);
    }
  }

  async #fetch(parsed: URL, url: string, signal: AbortSignal): Promise<{ mediaType: string; data: string }> {
    const hostname = parsed.hostname.replace(ipv6Brackets, '');
    const addresses = isIP(hostname) === 0 ? await this.#network.resolve(hostname) : [hostname];
    // Every address must be public: a host that also resolves to a private one is refused outright.
    const address = addresses[0];
    if (address === undefined || !addresses.every(isPublicAddress))
      throw refuse(url, 'its host is not a public address');
    const response = await this.#network.get(parsed, address, signal);
    if (response.status < 200 || response.status >= 300) {
      response.destroy();
      throw refuse(
        url,
        response.status >= 300 && response.status < 400 ? 'it redirects' : `status ${response.status}`,
      );
    }
    const contentType = header(response.headers['content-type']).split(';')[0]?.trim().toLowerCase() ?? '';
    if (!contentType.startsWith('image/')) {
      response.destroy();
      throw refuse(url, 'it is not an image');
    }
    const declared = Number(header(response.headers['content-length']));
    if (Number.isFinite(declared) && declared > this.#config.maxBytes) {
      response.destroy();
      throw refuse(url, `it is larger than ${this.#config.maxBytes} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > this.#config.maxBytes) {
        response.destroy();
        throw refuse(url, `it is larger than ${this.#config.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return { mediaType: contentType, data: Buffer.concat(chunks).toString('base64') };
  }
}

function header(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}
