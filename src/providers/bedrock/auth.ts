/**
 * How a Bedrock request proves who sends it: a Bedrock API key as a bearer token, or an AWS SigV4
 * signature made by `@smithy/signature-v4` (service `bedrock`) with credentials from static
 * settings or the AWS SDK's own chain (`fromNodeProviderChain`: environment, shared config and
 * credentials files with profiles, web identity, container and instance roles). The AWS libraries
 * are imported here, on first use, so a gateway without a Bedrock provider never loads them.
 */
import { GatewayError } from '../../ir/index.ts';
import type { ProviderSettings } from '../provider.ts';

/** Adds the credential to the headers of a request about to be sent to `url` with `body`. */
export interface BedrockAuthorizer {
  authorize(url: URL, headers: Record<string, string>, body: string): Promise<Record<string, string>>;
}

export function bearerAuthorizer(apiKey: string): BedrockAuthorizer {
  return {
    authorize: (_url, headers) => Promise.resolve({ ...headers, authorization: `Bearer ${apiKey}` }),
  };
}

interface StaticCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Static keys from the settings' `credentials`, when both halves are there. */
export function staticCredentials(settings: ProviderSettings): StaticCredentials | undefined {
  const given = settings.credentials ?? {};
  const { accessKeyId, secretAccessKey, sessionToken } = given;
  if (accessKeyId === undefined || secretAccessKey === undefined) return undefined;
  return sessionToken === undefined
    ? { accessKeyId, secretAccessKey }
    : { accessKeyId, secretAccessKey, sessionToken };
}

export async function sigV4Authorizer(
  settings: ProviderSettings,
  region: string,
): Promise<BedrockAuthorizer> {
  const [{ SignatureV4 }, { Hash }, { HttpRequest }, { fromNodeProviderChain }] = await Promise.all([
    import('@smithy/signature-v4'),
    import('@smithy/hash-node'),
    import('@smithy/protocol-http'),
    import('@aws-sdk/credential-providers'),
  ]);
  const profile = settings.credentials?.profile;
  const credentials =
    staticCredentials(settings) ?? fromNodeProviderChain(profile === undefined ? {} : { profile });
  const signer = new SignatureV4({
    service: 'bedrock',
    region,
    credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  return {
    async authorize(url, headers, body) {
      const request = new HttpRequest({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port === '' ? {} : { port: Number(url.port) }),
        path: url.pathname,
        headers: { ...headers, host: url.host },
        body,
      });
      const signed = await signer.sign(request);
      // undici writes the host from the origin itself; the value signed is the same.
      const { host: _host, ...rest } = signed.headers;
      return rest;
    },
  };
}

/** Signed headers; credentials the chain cannot find are the operator's problem, said without detail. */
export async function authorizeRequest(
  authorizer: Promise<BedrockAuthorizer>,
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<Record<string, string>> {
  try {
    return await (await authorizer).authorize(url, headers, body);
  } catch (error) {
    throw new GatewayError('upstream', 'the gateway could not load its AWS credentials for Bedrock', {
      cause: error,
    });
  }
}
