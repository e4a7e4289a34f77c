/**
 * Google Vertex AI: Gemini models on `publishers/google` (the gamma wire) and Claude models on
 * `publishers/anthropic` (the beta wire, rawPredict), one project and location per provider,
 * OAuth2 access tokens from a service-account key or Application Default Credentials.
 *
 * Settings: `project`, `location` (required), `baseUrl` (default the location's regional endpoint,
 * `https://aiplatform.googleapis.com` for `global`), `credentials.keyFile` (a service-account JSON
 * key; else GOOGLE_APPLICATION_CREDENTIALS, else gcloud's ADC file or the metadata server).
 */
import { GatewayError, type FamilyId } from '../../ir/index.ts';
import type { UpstreamRequest } from '../../codecs/codec.ts';
import type { UpstreamResponse, UpstreamTransport } from '../../upstream/transport.ts';
import { CachedToken } from '../cached-token.ts';
import { refusedCredentialsAnswer, refusedStatus } from '../refused-credentials.ts';
import type { Provider, ProviderPreset, ProviderSettings } from '../provider.ts';
import { googleTokenFetcher, readCredentialSource } from './google-token.ts';
import { isClaudeModel, toVertexRequest, type VertexPlacement } from './vertex-request.ts';

/** What a test (or an embedding program) may replace: the clock tokens are judged by, the environment. */
export interface VertexOptions {
  readonly now?: () => number;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Locations are DNS labels: they become part of the endpoint's host name. */
const locationPattern = /^[a-z][a-z0-9-]{0,62}$/;

function required(settings: ProviderSettings, field: 'project' | 'location'): string {
  const value = settings[field]?.trim();
  if (value === undefined || value === '')
    throw new Error(`providers.${settings.name}.${field}: the vertex preset needs a Google Cloud ${field}`);
  return value;
}

export function defaultVertexBaseUrl(location: string): string {
  return location === 'global'
    ? 'https://aiplatform.googleapis.com'
    : `https://${location}-aiplatform.googleapis.com`;
}

export function createVertexProvider(settings: ProviderSettings, options: VertexOptions = {}): Provider {
  const project = required(settings, 'project');
  const location = required(settings, 'location');
  if (!locationPattern.test(location))
    throw new Error(
      `providers.${settings.name}.location: ${JSON.stringify(location)} is not a Vertex AI location`,
    );
  if (settings.apiKey !== undefined)
    throw new Error(
      `providers.${settings.name}.apiKey: Vertex AI takes OAuth2 access tokens, not API keys; set credentials.keyFile or use Application Default Credentials`,
    );
  const env = options.env ?? process.env;
  const keyFile = settings.credentials?.keyFile ?? env.GOOGLE_APPLICATION_CREDENTIALS;
  const setting = settings.credentials?.keyFile
    ? `providers.${settings.name}.credentials.keyFile`
    : 'GOOGLE_APPLICATION_CREDENTIALS';
  const source = readCredentialSource(keyFile, setting);
  const token = new CachedToken(googleTokenFetcher(source), options.now);
  const placement: VertexPlacement = { project, location };

  /** The token, or undefined when the token endpoint refused the credentials (a 4xx). */
  const accessToken = async (): Promise<string | undefined> => {
    try {
      return await token.get();
    } catch (error) {
      if (refusedStatus(error) !== undefined) return undefined;
      // The library's message may quote the token endpoint's answer or the key file's path: logs only.
      throw new GatewayError('upstream', 'vertex: the gateway could not obtain a Google Cloud access token', {
        cause: error,
      });
    }
  };

  return {
    name: settings.name,
    preset: settings.preset,
    baseUrl: (settings.baseUrl ?? defaultVertexBaseUrl(location)).replace(/\/+$/, ''),
    secrets: source.kind === 'service-account' ? [source.key.privateKey] : source.secrets,
    wireFor(_family: FamilyId, model: string): FamilyId {
      return isClaudeModel(model) ? 'beta' : 'gamma';
    },
    transport(http: UpstreamTransport): UpstreamTransport {
      return {
        async send(
          baseUrl: string,
          request: UpstreamRequest,
          signal: AbortSignal,
        ): Promise<UpstreamResponse> {
          const bearer = await accessToken();
          if (bearer === undefined) return refusedCredentialsAnswer('vertex');
          return http.send(baseUrl, toVertexRequest(request, placement, bearer), signal);
        },
        close: () => http.close(),
      };
    },
  };
}

export const vertexPreset: ProviderPreset = (settings) => createVertexProvider(settings);
