/**
 * Google's Gemini API (the spec's Family C wire) on generativelanguage.googleapis.com: the key in
 * `x-goog-api-key` (never `?key=`, which would reach access logs), the methods under `/v1beta`,
 * the version the @google/genai SDK calls (`apiVersion` picks another, e.g. `v1`).
 */
import type { UpstreamCall, UpstreamRequest } from '../../codecs/codec.ts';
import type { ProviderPreset } from '../provider.ts';
import { baseUrlOf, callOf, editingTransport, mergedHeaders, secretsOf } from '../request-edit.ts';

export const geminiBaseUrl = 'https://generativelanguage.googleapis.com';
export const geminiApiVersion = 'v1beta';
/** The spec's key header: what the codec writes the key in. */
const specKeyHeader = 'x-gamma-api-key';
/** The codec (`codecs/registry.ts` id) of generateContent. */
const generateContentWire = 'gamma';

function methodOf(call: UpstreamCall): string {
  if (call.operation === 'count-tokens') return 'countTokens';
  return call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
}

/** The vendor's path: the call's model and method under the API version. */
function vendorPath(request: UpstreamRequest, apiVersion: string): string {
  const call = callOf(request);
  // Gemini bodies name no model: without a call, the codec's path is moved to the version.
  if (call === undefined) return request.path.replace(/^\/v1(beta)?\//, `/${apiVersion}/`);
  return `/${apiVersion}/models/${encodeURIComponent(call.model)}:${methodOf(call)}`;
}

export const geminiPreset: ProviderPreset = (settings) => {
  const apiKey = settings.apiKey;
  const auth: Record<string, string> = {};
  if (apiKey !== undefined) auth['x-goog-api-key'] = apiKey;
  const apiVersion = settings.apiVersion ?? geminiApiVersion;
  const familyUpstream = settings.familyUpstream === true;
  return {
    name: settings.name,
    preset: settings.preset,
    baseUrl: baseUrlOf(settings.baseUrl, geminiBaseUrl),
    secrets: secretsOf(apiKey, settings.credentials),
    wireFor: () => generateContentWire,
    transport: (http) =>
      editingTransport(
        http,
        familyUpstream
          ? // A spec upstream keeps the spec's path and key header; the vendor's key header is added.
            (request) => ({ ...request, headers: mergedHeaders(request.headers, auth) })
          : (request) => ({
              ...request,
              path: vendorPath(request, apiVersion),
              headers: mergedHeaders(request.headers, auth, specKeyHeader),
            }),
      ),
  };
};
