/** Block-level conversions used by both directions: cache markers, text and image blocks. */
import type { CacheControl, ImagePart, TextPart } from '../../ir/index.ts';
import { invalidRequest, type JsonObject } from '../../ir/index.ts';
import { optionalString, requireObject, requireString } from '../shared/validate.ts';
import type { BetaCacheControl, BetaImageBlock, BetaImageSource, BetaTextBlock } from './wire.ts';

/** `cache_control` → IR marker; undefined when absent. Only `ephemeral` exists on the wire. */
export function readCacheControl(value: unknown, path: string): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const object = requireObject(value, path);
  if (object.type !== 'ephemeral') throw invalidRequest(`${path}.type: expected "ephemeral"`, `${path}.type`);
  const ttl = optionalString(object.ttl, `${path}.ttl`);
  return ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
}

export function writeCacheControl(marker: CacheControl): BetaCacheControl {
  return marker.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: marker.ttl };
}

/** Adds `cacheControl` to an IR part only when the wire block had one (exact optional types). */
export function withCacheControl<Part extends { cacheControl?: CacheControl }>(
  part: Part,
  block: JsonObject,
  path: string,
): Part {
  const marker = readCacheControl(block.cache_control, `${path}.cache_control`);
  if (marker !== undefined) part.cacheControl = marker;
  return part;
}

/** Adds `cache_control` to a wire block only when the IR part had one. */
export function withWireCacheControl<Block extends { cache_control?: BetaCacheControl }>(
  block: Block,
  marker: CacheControl | undefined,
): Block {
  if (marker !== undefined) block.cache_control = writeCacheControl(marker);
  return block;
}

export function readTextBlock(block: JsonObject, path: string): TextPart {
  const part: TextPart = { type: 'text', text: requireString(block.text, `${path}.text`) };
  return withCacheControl(part, block, path);
}

export function readImageBlock(block: JsonObject, path: string): ImagePart {
  const source = requireObject(block.source, `${path}.source`);
  const sourcePath = `${path}.source`;
  let part: ImagePart;
  if (source.type === 'base64') {
    const mediaType = requireString(source.media_type, `${sourcePath}.media_type`);
    const data = requireString(source.data, `${sourcePath}.data`);
    part = { type: 'image', source: { kind: 'base64', mediaType, data } };
  } else if (source.type === 'url') {
    part = { type: 'image', source: { kind: 'url', url: requireString(source.url, `${sourcePath}.url`) } };
  } else {
    throw invalidRequest(`${sourcePath}.type: expected "base64" or "url"`, `${sourcePath}.type`);
  }
  return withCacheControl(part, block, path);
}

export function writeTextBlock(part: TextPart): BetaTextBlock {
  const block: BetaTextBlock = { type: 'text', text: part.text };
  return withWireCacheControl(block, part.cacheControl);
}

/** The only inline image types B accepts. */
const betaImageTypes: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** IR image → B image block; a `data:` URL (possible from A clients) becomes a base64 source. */
export function writeImageBlock(part: ImagePart): BetaImageBlock {
  const source = part.source;
  let block: BetaImageBlock;
  if (source.kind === 'base64') {
    block = { type: 'image', source: base64Source(source.mediaType, source.data) };
  } else {
    const inline = parseDataUrl(source.url);
    block = {
      type: 'image',
      source:
        inline === undefined ? { type: 'url', url: source.url } : base64Source(inline.mediaType, inline.data),
    };
  }
  return withWireCacheControl(block, part.cacheControl);
}

function base64Source(mediaType: string, data: string): BetaImageSource {
  const normalised = mediaType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : mediaType.toLowerCase();
  if (!betaImageTypes.has(normalised)) {
    throw invalidRequest(
      `beta models accept images of type image/jpeg, image/png, image/gif or image/webp, not ${JSON.stringify(mediaType)}`,
      'messages',
    );
  }
  return { type: 'base64', media_type: normalised, data };
}

function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice(5, comma);
  if (!header.endsWith(';base64')) return undefined;
  return { mediaType: header.slice(0, -7), data: url.slice(comma + 1) };
}
