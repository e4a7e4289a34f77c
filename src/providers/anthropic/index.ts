/**
 * Anthropic's Messages API (the spec's Family B wire): `x-api-key` and `anthropic-version`. The
 * version is the one the client's own request named (a same-family pass-through forwards it),
 * else 2023-06-01, the version every Anthropic model takes.
 */
import type { ProviderPreset } from '../provider.ts';
import { baseUrlOf, editingTransport, mergedHeaders, secretsOf } from '../request-edit.ts';

export const anthropicBaseUrl = 'https://api.anthropic.com';
export const anthropicVersion = '2023-06-01';
const versionHeader = 'anthropic-version';
/** The spec's name for the version header: what the codec writes the version in. */
const specVersionHeader = 'beta-version';
/** The codec (`codecs/registry.ts` id) of the Messages API. */
const messagesWire = 'beta';

export const anthropicPreset: ProviderPreset = (settings) => {
  const apiKey = settings.apiKey;
  const auth: Record<string, string> = {};
  if (apiKey !== undefined) auth['x-api-key'] = apiKey;
  // A spec upstream keeps its own version header; Anthropic is sent only its own.
  const omit = settings.familyUpstream === true ? undefined : specVersionHeader;
  return {
    name: settings.name,
    preset: settings.preset,
    baseUrl: baseUrlOf(settings.baseUrl, anthropicBaseUrl),
    secrets: secretsOf(apiKey, settings.credentials),
    wireFor: () => messagesWire,
    transport: (http) =>
      editingTransport(http, (request) => {
        const headers = mergedHeaders(request.headers, auth, omit);
        headers[versionHeader] ??= request.headers[specVersionHeader] ?? anthropicVersion;
        return { ...request, headers };
      }),
  };
};
