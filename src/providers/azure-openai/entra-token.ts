/**
 * Microsoft Entra ID tokens for Azure OpenAI, from @azure/identity (loaded with `import()` on the
 * first token, so a gateway without an Entra-authenticated Azure provider never loads it): a client
 * secret when `credentials.tenantId/clientId/clientSecret` are set, else `DefaultAzureCredential`
 * (environment variables, workload identity, managed identity, the Azure CLI).
 */
import type { ExpiringToken } from '../cached-token.ts';

export const cognitiveServicesScope = 'https://cognitiveservices.azure.com/.default';

/** What the gateway needs of an @azure/identity credential (core-auth's `TokenCredential`). */
export interface EntraTokenCredential {
  getToken(scope: string): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}

export interface EntraSettings {
  readonly tenantId?: string | undefined;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  /** A sovereign cloud's (or a test's) authority instead of login.microsoftonline.com. */
  readonly authorityHost?: string | undefined;
  /**
   * `"true"`: trust `authorityHost` without asking login.microsoftonline.com's instance discovery
   * about it (an authority Microsoft's list does not know: Azure Stack Hub, a private cloud).
   */
  readonly disableInstanceDiscovery?: string | undefined;
}

/** Throws naming the missing field when the client-secret settings are given only in part. */
export function checkEntraSettings(settings: EntraSettings, prefix: string): void {
  const fields = ['tenantId', 'clientId', 'clientSecret'] as const;
  const given = fields.filter((field) => settings[field] !== undefined);
  if (given.length > 0 && given.length < fields.length) {
    const missing = fields.filter((field) => settings[field] === undefined).join(', ');
    throw new Error(`${prefix}.credentials: a client secret credential also needs ${missing}`);
  }
  const discovery = settings.disableInstanceDiscovery;
  if (discovery !== undefined && discovery !== 'true' && discovery !== 'false')
    throw new Error(
      `${prefix}.credentials.disableInstanceDiscovery: "true" or "false", not ${JSON.stringify(discovery)}`,
    );
}

async function entraCredential(settings: EntraSettings): Promise<EntraTokenCredential> {
  const identity = await import('@azure/identity');
  const options = {
    ...(settings.authorityHost === undefined ? {} : { authorityHost: settings.authorityHost }),
    ...(settings.disableInstanceDiscovery === 'true' ? { disableInstanceDiscovery: true } : {}),
  };
  const { tenantId, clientId, clientSecret } = settings;
  if (tenantId !== undefined && clientId !== undefined && clientSecret !== undefined)
    return new identity.ClientSecretCredential(tenantId, clientId, clientSecret, options);
  return new identity.DefaultAzureCredential(options);
}

/** A fetcher of fresh tokens for `CachedToken`; the credential is made on the first call. */
export function entraTokenFetcher(
  settings: EntraSettings,
  injected?: EntraTokenCredential,
): () => Promise<ExpiringToken> {
  let credential: Promise<EntraTokenCredential> | undefined =
    injected === undefined ? undefined : Promise.resolve(injected);
  return async () => {
    credential ??= entraCredential(settings);
    let source: EntraTokenCredential;
    try {
      source = await credential;
    } catch (error) {
      credential = undefined;
      throw error;
    }
    const granted = await source.getToken(cognitiveServicesScope);
    if (granted === null) throw new Error('azure-openai: Entra ID gave no access token');
    return { token: granted.token, expiresAt: granted.expiresOnTimestamp };
  };
}
