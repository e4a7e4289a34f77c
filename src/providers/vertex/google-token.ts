/**
 * Vertex AI's OAuth2 access tokens, from google-auth-library (loaded with `import()` on the first
 * token, so a gateway without a Vertex provider never loads it).
 *
 * A service-account key (the setting's `keyFile`, or the file GOOGLE_APPLICATION_CREDENTIALS names)
 * goes through the library's JWT client: an RS256 JWT-bearer grant. The library signs `aud` with
 * Google's fixed token URL and posts the grant there whatever the key's `token_uri` says; the
 * gateway honours `token_uri` with the library's own knobs (`additionalClaims.aud` and a request
 * interceptor on the client's transporter), so a private universe or a loopback endpoint works.
 * Anything else (gcloud's ADC file, workload identity, the metadata server) is the library's
 * Application Default Credentials.
 */
import { readFileSync } from 'node:fs';
import type { ExpiringToken } from '../cached-token.ts';

export const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';
const googleTokenUrl = 'https://oauth2.googleapis.com/token';

/** The fields of a service-account JSON key the gateway uses. */
export interface ServiceAccountKey {
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId: string | undefined;
  readonly tokenUri: string;
}

/** Where tokens come from: a service-account key, or the library's default credentials. */
export type GoogleCredentialSource =
  | { readonly kind: 'service-account'; readonly key: ServiceAccountKey }
  | {
      readonly kind: 'default';
      readonly keyFile: string | undefined;
      /** The file's own secrets (an authorized user's client secret and refresh token). */
      readonly secrets: readonly string[];
    };

/** Fields of Google's credential files that hold a secret. */
const secretFields = ['private_key', 'client_secret', 'refresh_token'] as const;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Reads a credentials file at start-up, so a wrong path or a broken key is a configuration error.
 * Messages name the setting and the path, never the file's contents (a JSON parse error would quote it).
 */
export function readCredentialSource(keyFile: string | undefined, setting: string): GoogleCredentialSource {
  if (keyFile === undefined) return { kind: 'default', keyFile: undefined, secrets: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(keyFile, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'not valid JSON';
    throw new Error(`${setting}: cannot read the credentials file ${keyFile} (${reason})`, { cause: error });
  }
  const file = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  // authorized_user, external_account, impersonated_service_account: the library knows them.
  if (file.type !== 'service_account') {
    const secrets = secretFields.map((field) => text(file[field])).filter((value) => value !== undefined);
    return { kind: 'default', keyFile, secrets };
  }
  const clientEmail = text(file.client_email);
  const privateKey = text(file.private_key);
  if (clientEmail === undefined || privateKey === undefined)
    throw new Error(`${setting}: the service-account key ${keyFile} has no client_email or private_key`);
  return {
    kind: 'service-account',
    key: {
      clientEmail,
      privateKey,
      privateKeyId: text(file.private_key_id),
      tokenUri: text(file.token_uri) ?? googleTokenUrl,
    },
  };
}

/** What the gateway needs of any of the library's clients. */
interface AccessTokenClient {
  getAccessToken(): Promise<{ token?: string | null }>;
  credentials: { expiry_date?: number | null };
}

async function serviceAccountClient(key: ServiceAccountKey): Promise<AccessTokenClient> {
  const { JWT } = await import('google-auth-library');
  const client = new JWT({
    email: key.clientEmail,
    key: key.privateKey,
    ...(key.privateKeyId === undefined ? {} : { keyId: key.privateKeyId }),
    scopes: [cloudPlatformScope],
    additionalClaims: { aud: key.tokenUri },
  });
  if (key.tokenUri !== googleTokenUrl) {
    const tokenUri = new URL(key.tokenUri);
    client.transporter.interceptors.request.add({
      resolved: (config) => {
        if (String(config.url) === googleTokenUrl) config.url = tokenUri;
        return Promise.resolve(config);
      },
    });
  }
  return client;
}

async function defaultClient(keyFile: string | undefined): Promise<AccessTokenClient> {
  const { GoogleAuth } = await import('google-auth-library');
  const auth = new GoogleAuth({ scopes: [cloudPlatformScope], ...(keyFile ? { keyFilename: keyFile } : {}) });
  return await auth.getClient();
}

/** A fetcher of fresh tokens for `CachedToken`; the library client is made on the first call. */
export function googleTokenFetcher(source: GoogleCredentialSource): () => Promise<ExpiringToken> {
  let client: Promise<AccessTokenClient> | undefined;
  return async () => {
    client ??=
      source.kind === 'service-account' ? serviceAccountClient(source.key) : defaultClient(source.keyFile);
    let authClient: AccessTokenClient;
    try {
      authClient = await client;
    } catch (error) {
      client = undefined;
      throw error;
    }
    const { token } = await authClient.getAccessToken();
    if (typeof token !== 'string' || token === '')
      throw new Error('vertex: the credentials gave no access token');
    const expiry = authClient.credentials.expiry_date;
    return { token, expiresAt: typeof expiry === 'number' ? expiry : undefined };
  };
}
