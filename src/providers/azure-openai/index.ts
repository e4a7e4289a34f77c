/**
 * Azure OpenAI: OpenAI's chat completions (the alpha wire) on an Azure resource,
 * `https://{resource}.openai.azure.com`.
 *
 * Settings: `baseUrl` (the resource endpoint, required); `apiKey` (sent as `api-key`) or Microsoft
 * Entra ID (`credentials.tenantId/clientId/clientSecret`, else `DefaultAzureCredential`;
 * `credentials.authorityHost` for a sovereign cloud); `apiVersion`: absent or `v1` uses the
 * `/openai/v1` API (the model is the deployment's name), a dated version the legacy
 * `/openai/deployments/{deployment}/…?api-version=` path; `deployments`: deployment name → the
 * OpenAI model it serves, so a reasoning deployment gets OpenAI's reasoning rules whatever its name.
 */
import { GatewayError, type FamilyId } from '../../ir/index.ts';
import { refusedCredentialsAnswer, refusedStatus } from '../refused-credentials.ts';
import type { UpstreamRequest } from '../../codecs/codec.ts';
import type { UpstreamResponse, UpstreamTransport } from '../../upstream/transport.ts';
import { CachedToken } from '../cached-token.ts';
import type { Provider, ProviderPreset, ProviderSettings } from '../provider.ts';
import { toAzureRequest, type AzureCredential, type AzureRoute } from './azure-request.ts';
import { checkEntraSettings, entraTokenFetcher, type EntraTokenCredential } from './entra-token.ts';

export interface AzureOpenAIOptions {
  /** A token source instead of @azure/identity (tests, or an embedding program's own credential). */
  readonly tokenCredential?: EntraTokenCredential;
  readonly now?: () => number;
}

/** A dated data-plane version (`2024-10-21`, `2025-04-01-preview`). */
const datedVersion = /^\d{4}-\d{2}-\d{2}(-preview)?$/;

function routeOf(settings: ProviderSettings): AzureRoute {
  const version = settings.apiVersion?.trim();
  if (version === undefined || version === '' || version === 'v1') return { kind: 'v1' };
  if (!datedVersion.test(version))
    throw new Error(
      `providers.${settings.name}.apiVersion: ${JSON.stringify(version)} is neither v1 nor a dated Azure OpenAI API version (e.g. 2024-10-21)`,
    );
  return { kind: 'legacy', apiVersion: version };
}

function requiredBaseUrl(settings: ProviderSettings): string {
  const baseUrl = settings.baseUrl?.trim();
  if (baseUrl === undefined || baseUrl === '')
    throw new Error(
      `providers.${settings.name}.baseUrl: the azure-openai preset needs the resource endpoint, https://{resource}.openai.azure.com`,
    );
  return baseUrl.replace(/\/+$/, '');
}

export function createAzureOpenAIProvider(
  settings: ProviderSettings,
  options: AzureOpenAIOptions = {},
): Provider {
  const baseUrl = requiredBaseUrl(settings);
  const route = routeOf(settings);
  const entra = settings.credentials ?? {};
  checkEntraSettings(entra, `providers.${settings.name}`);
  const deployments = settings.deployments ?? {};
  const underlyingModel = (deployment: string): string =>
    Object.hasOwn(deployments, deployment) ? (deployments[deployment] ?? deployment) : deployment;

  const apiKey = settings.apiKey;
  const token =
    apiKey === undefined
      ? new CachedToken(entraTokenFetcher(entra, options.tokenCredential), options.now)
      : undefined;
  /** The credential, or undefined when Entra ID refused the gateway's (a 4xx): a final 401. */
  const credential = async (): Promise<AzureCredential | undefined> => {
    if (token === undefined) return { header: 'api-key', value: apiKey ?? '' };
    try {
      return { header: 'authorization', value: `Bearer ${await token.get()}` };
    } catch (error) {
      if (refusedStatus(error) !== undefined) return undefined;
      // The identity library's messages name tenants, clients and endpoints: logs only.
      throw new GatewayError(
        'upstream',
        'azure-openai: the gateway could not obtain a Microsoft Entra ID token',
        {
          cause: error,
        },
      );
    }
  };

  return {
    name: settings.name,
    preset: settings.preset,
    baseUrl,
    secrets: [apiKey, entra.clientSecret].filter((secret): secret is string => secret !== undefined),
    wireFor(): FamilyId {
      return 'alpha';
    },
    transport(http: UpstreamTransport): UpstreamTransport {
      return {
        async send(target: string, request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse> {
          const granted = await credential();
          if (granted === undefined) return refusedCredentialsAnswer('azure-openai');
          const sent = toAzureRequest(request, route, granted, underlyingModel);
          return http.send(target, sent, signal);
        },
        close: () => http.close(),
      };
    },
  };
}

export const azureOpenAIPreset: ProviderPreset = (settings) => createAzureOpenAIProvider(settings);
