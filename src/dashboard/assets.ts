/**
 * The dashboard's static files, all served from the gateway's own origin: the app script and
 * styles (TypeScript string modules, so they exist in src/ and in the compiled dist/ alike) and
 * uPlot, read from its package in node_modules (resolved from this module, which works from both).
 * Each file is read and gzipped once, on first use.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { appScript } from './client/app-script.ts';
import { appStyles } from './client/app-styles.ts';
import { surfaces } from '../surfaces/registry.ts';
import { securityHeaders } from './http.ts';

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

const sources: Readonly<Record<string, { type: string; read: () => string | Buffer }>> = {
  'app.js': {
    type: 'text/javascript; charset=utf-8',
    read: () => appScript(surfaces().map((surface) => surface.id)),
  },
  'app.css': { type: 'text/css; charset=utf-8', read: () => appStyles },
  'uplot.js': {
    type: 'text/javascript; charset=utf-8',
    read: () => readPackageFile('uplot/dist/uPlot.iife.min.js'),
  },
  'uplot.css': { type: 'text/css; charset=utf-8', read: () => readPackageFile('uplot/dist/uPlot.min.css') },
};

export const assetNames = Object.keys(sources);

const loaded = new Map<string, Asset>();

export function loadAsset(name: string): Asset | undefined {
  const cached = loaded.get(name);
  if (cached !== undefined) return cached;
  const source = Object.hasOwn(sources, name) ? sources[name] : undefined;
  if (source === undefined) return undefined;
  const content = source.read();
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  const asset = {
    type: source.type,
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 20)}"`,
  };
  loaded.set(name, asset);
  return asset;
}

export function serveAsset(request: IncomingMessage, response: ServerResponse, name: string): void {
  const asset = loadAsset(name);
  const headers: Record<string, string> = { ...securityHeaders, 'cache-control': 'no-cache' };
  if (asset === undefined) {
    response.writeHead(404, { ...headers, 'content-type': 'text/plain' });
    response.end('not found');
    return;
  }
  headers.etag = asset.etag;
  headers.vary = 'accept-encoding';
  if (request.headers['if-none-match'] === asset.etag) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
  const body = gzip ? asset.gzip : asset.body;
  if (gzip) headers['content-encoding'] = 'gzip';
  response.writeHead(200, { ...headers, 'content-type': asset.type, 'content-length': String(body.length) });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function readPackageFile(specifier: string): Buffer {
  return readFileSync(createRequire(import.meta.url).resolve(specifier));
}
