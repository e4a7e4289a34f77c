/** Content parts of A request messages → IR parts. */
import {
  invalidRequest,
  type CacheControl,
  type GatewayError,
  type ImagePart,
  type JsonObject,
  type JsonValue,
  type TextPart,
  type UserPart,
} from '../../ir/index.ts';
import { optionalString, requireArray, requireObject, requireString } from '../shared/validate.ts';

/** The A-surface spelling of B's marker: `cache_control: {type:'ephemeral', ttl?}` on a part. */
export function readCacheControl(value: JsonValue | undefined, path: string): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const object = requireObject(value, path);
  if (object.type !== 'ephemeral') throw invalidRequest(`${path}.type: expected "ephemeral"`, `${path}.type`);
  const ttl = optionalString(object.ttl, `${path}.ttl`);
  return ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
}

function withCacheControl<Part extends TextPart | ImagePart>(
  part: Part,
  value: JsonValue | undefined,
  path: string,
): Part {
  const cacheControl = readCacheControl(value, `${path}.cache_control`);
  if (cacheControl !== undefined) part.cacheControl = cacheControl;
  return part;
}

/** `data:<mime>;base64,<data>` → base64 source; http(s) → url source; the gateway fetches nothing. */
export function decodeImageUrl(url: string, path: string): ImagePart['source'] {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    const header = comma === -1 ? '' : url.slice(5, comma);
    if (!header.endsWith(';base64'))
      throw invalidRequest(`${path}: only base64 data URLs are supported`, path);
    return {
      kind: 'base64',
      mediaType: header.slice(0, -7) || 'application/octet-stream',
      data: url.slice(comma + 1),
    };
  }
  if (url.startsWith('https://') || url.startsWith('http://')) return { kind: 'url', url };
  throw invalidRequest(`${path}: expected an http(s) or data: URL`, path);
}

function decodeImagePart(value: JsonValue | undefined, path: string): ImagePart {
  const image = requireObject(value, `${path}.image_url`);
  const url = requireString(image.url, `${path}.image_url.url`);
  const part: ImagePart = { type: 'image', source: decodeImageUrl(url, `${path}.image_url.url`) };
  const detail = optionalString(image.detail, `${path}.image_url.detail`);
  if (detail !== undefined) part.detail = detail;
  return part;
}

function decodeTextPart(part: JsonObject, path: string): TextPart {
  return withCacheControl(
    { type: 'text', text: requireString(part.text, `${path}.text`) },
    part.cache_control,
    path,
  );
}

function unsupported(type: JsonValue | undefined, path: string): GatewayError {
  return invalidRequest(
    `${path}.type: ${JSON.stringify(type ?? null)} is not supported here`,
    `${path}.type`,
  );
}

/**
 * User content: `string | (text | image_url)[]`; a string is one text part. `lenient` (pass-through,
 * where the client's own body goes upstream) skips parts the IR cannot carry instead of refusing.
 */
export function decodeUserContent(value: JsonValue | undefined, path: string, lenient: boolean): UserPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  const parts: UserPart[] = [];
  requireArray(value, path).forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    const part = requireObject(item, itemPath);
    if (part.type === 'text') parts.push(decodeTextPart(part, itemPath));
    else if (part.type === 'image_url') {
      try {
        parts.push(withCacheControl(decodeImagePart(part.image_url, itemPath), part.cache_control, itemPath));
      } catch (error) {
        if (!lenient) throw error;
      }
    } else if (!lenient) throw unsupported(part.type, itemPath);
  });
  return parts;
}

/**
 * Tool-message content: text parts, plus `image_url` parts (not in A's own schema, but what
 * gateways accept so an A client can return a screenshot from a tool; B and C carry it natively).
 */
export function decodeToolContent(
  value: JsonValue | undefined,
  path: string,
  lenient: boolean,
): Array<TextPart | ImagePart> {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  const parts: Array<TextPart | ImagePart> = [];
  requireArray(value, path).forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    const part = requireObject(item, itemPath);
    if (part.type === 'text') parts.push(decodeTextPart(part, itemPath));
    else if (part.type === 'image_url')
      parts.push(withCacheControl(decodeImagePart(part.image_url, itemPath), part.cache_control, itemPath));
    else if (!lenient) throw unsupported(part.type, itemPath);
  });
  return parts;
}

/**
 * Text-only content (system, developer, assistant). Assistant `refusal` parts are text the
 * client saw, so they stay text.
 */
export function decodeTextContent(
  value: JsonValue | undefined,
  path: string,
  lenient: boolean,
  allowRefusal = false,
): TextPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  const parts: TextPart[] = [];
  requireArray(value, path).forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    const part = requireObject(item, itemPath);
    if (part.type === 'text') parts.push(decodeTextPart(part, itemPath));
    else if (part.type === 'refusal' && allowRefusal) {
      parts.push({ type: 'text', text: requireString(part.refusal, `${itemPath}.refusal`) });
    } else if (!lenient) throw unsupported(part.type, itemPath);
  });
  return parts;
}
