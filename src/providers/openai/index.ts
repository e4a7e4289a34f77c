/**
 * OpenAI's API, and every host that speaks it (OpenRouter, Groq, Together, DeepSeek, Mistral,
 * Fireworks, xAI, Ollama, vLLM, llama.cpp: this preset with their base URL). Chat Completions is
 * the spec's Family A wire, so the codec's request goes as it is with `Authorization: Bearer`.
 */
import type { ProviderPreset } from '../provider.ts';
import { baseUrlOf, editingTransport, mergedHeaders, secretsOf } from '../request-edit.ts';

export const openaiBaseUrl = 'https://api.openai.com';
/** The codec (`codecs/registry.ts` id) of Chat Completions. */
const chatCompletionsWire = 'alpha';

export const openaiPreset: ProviderPreset = (settings) => {
  const apiKey = settings.apiKey;
  // Built once: every request merges the same object.
  const auth: Record<string, string> = {};
  if (apiKey !== undefined) auth.authorization = `Bearer ${apiKey}`;
  // OpenAI's project header, for a key that belongs to several projects.
  if (settings.project !== undefined) auth['openai-project'] = settings.project;
  // A spec family upstream's request already carries the bearer key the codec wrote (OpenAI's own
  // header): it goes as it is, with no per-request work.
  const needsEdit = settings.familyUpstream !== true && Object.keys(auth).length > 0;
  return {
    name: settings.name,
    preset: settings.preset,
    baseUrl: baseUrlOf(settings.baseUrl, openaiBaseUrl),
    secrets: secretsOf(apiKey, settings.credentials),
    wireFor: () => chatCompletionsWire,
    // A keyless local server (Ollama, vLLM) takes the codec's request unchanged.
    transport: (http) =>
      needsEdit
        ? editingTransport(http, (request) => ({ ...request, headers: mergedHeaders(request.headers, auth) }))
        : http,
  };
};
