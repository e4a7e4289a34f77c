/**
 * The Microsoft identity platform's v2.0 endpoints for one tenant, as a loopback stand-in for
 * `@azure/identity` (MSAL underneath): OpenID metadata
 * (`/{tenant}/v2.0/.well-known/openid-configuration`), signing keys
 * (`/{tenant}/discovery/v2.0/keys`) and the token endpoint (`/{tenant}/oauth2/v2.0/token`) with
 * the client-credentials grant (a client secret). Access tokens are RS256 JWTs for the scope's
 * resource (`aud`), as Entra ID issues them; `verify` is what the Azure OpenAI mock checks a
 * bearer with (signature, audience, expiry). Refusals are the endpoint's `{"error",
 * "error_description"}` bodies with their AADSTS codes. MSAL accepts only an HTTPS authority:
 * the mock serves TLS with a loopback certificate.
 */
import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { LoopbackCertificate } from '../kit/loopback-certificate.ts';
import {
  isPlainObject,
  sendJson,
  startMockServer,
  type MockRequest,
  type MockUpstream,
} from '../kit/server.ts';

export const cognitiveServicesAudience = 'https://cognitiveservices.azure.com';

export interface EntraApplication {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

export interface EntraAuthorityMock extends MockUpstream {
  /** True for a token this authority issued for `audience`, unexpired and unaltered. */
  verify(token: string, audience: string): boolean;
  /** Token grants it answered with a token. */
  readonly issued: number;
}

const tokenLifetimeSeconds = 3599;

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function refuse(response: ServerResponse, status: number, error: string, description: string): void {
  sendJson(response, status, {
    error,
    error_description: `${description}\r\nTrace ID: ${randomUUID()}\r\nCorrelation ID: ${randomUUID()}\r\nTimestamp: ${new Date().toISOString()}`,
    error_codes: [Number(/^AADSTS(\d+)/.exec(description)?.[1] ?? 0)],
  });
}

export async function startEntraAuthorityMock(
  application: EntraApplication,
  certificate: Pick<LoopbackCertificate, 'key' | 'cert'>,
): Promise<EntraAuthorityMock> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  let issued = 0;
  const { tenantId, clientId, clientSecret } = application;
  const metadata = (base: string): Record<string, unknown> => ({
    token_endpoint: `${base}/${tenantId}/oauth2/v2.0/token`,
    authorization_endpoint: `${base}/${tenantId}/oauth2/v2.0/authorize`,
    jwks_uri: `${base}/${tenantId}/discovery/v2.0/keys`,
    issuer: `${base}/${tenantId}/v2.0`,
    token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    tenant_region_scope: 'NA',
  });
  const grant = (request: MockRequest, response: ServerResponse): void => {
    const form = isPlainObject(request.body) ? request.body : {};
    if (!(request.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
      refuse(
        response,
        400,
        'invalid_request',
        "AADSTS900144: The request body must contain the following parameter: 'grant_type'.",
      );
      return;
    }
    if (form.grant_type !== 'client_credentials') {
      refuse(
        response,
        400,
        'unsupported_grant_type',
        'AADSTS70003: The app requested an unsupported grant type.',
      );
      return;
    }
    if (form.client_id !== clientId) {
      refuse(
        response,
        400,
        'unauthorized_client',
        `AADSTS700016: Application with identifier '${String(form.client_id)}' was not found in the directory '${tenantId}'.`,
      );
      return;
    }
    if (form.client_secret !== clientSecret) {
      refuse(
        response,
        401,
        'invalid_client',
        `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
      );
      return;
    }
    const scope =
      typeof form.scope === 'string'
        ? form.scope.split(' ').find((value) => value.endsWith('/.default'))
        : undefined;
    if (scope === undefined) {
      refuse(
        response,
        400,
        'invalid_scope',
        `AADSTS1002012: The provided value for scope ${String(form.scope)} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
      );
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const header = base64url({ typ: 'JWT', alg: 'RS256', kid });
    const payload = base64url({
      aud: scope.slice(0, -'/.default'.length),
      iss: `https://sts.windows.net/${tenantId}/`,
      iat: now,
      nbf: now,
      exp: now + tokenLifetimeSeconds,
      appid: clientId,
      tid: tenantId,
      oid: randomUUID(),
      ver: '1.0',
    });
    const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), privateKey).toString(
      'base64url',
    );
    issued++;
    sendJson(response, 200, {
      token_type: 'Bearer',
      expires_in: tokenLifetimeSeconds,
      ext_expires_in: tokenLifetimeSeconds,
      access_token: `${header}.${payload}.${signature}`,
    });
  };
  const upstream = await startMockServer(
    (request, response) => {
      const base = `https://${request.headers.host ?? '127.0.0.1'}`;
      const { pathname } = request.url;
      if (!pathname.startsWith(`/${tenantId}/`)) {
        refuse(
          response,
          400,
          'invalid_tenant',
          `AADSTS90002: Tenant '${pathname.split('/')[1] ?? ''}' not found.`,
        );
        return;
      }
      const route = `${request.method} ${pathname.slice(tenantId.length + 1)}`;
      if (route === 'GET /v2.0/.well-known/openid-configuration') sendJson(response, 200, metadata(base));
      else if (route === 'GET /discovery/v2.0/keys')
        sendJson(response, 200, {
          keys: [{ kty: 'RSA', use: 'sig', kid, ...publicKey.export({ format: 'jwk' }) }],
        });
      else if (route === 'POST /oauth2/v2.0/token') grant(request, response);
      else sendJson(response, 404, { error: 'not_found' });
    },
    { tls: certificate },
  );
  return {
    ...upstream,
    get issued() {
      return issued;
    },
    verify(token, audience) {
      const [header = '', payload = '', signature = ''] = token.split('.');
      const signed = verify(
        'RSA-SHA256',
        Buffer.from(`${header}.${payload}`),
        publicKey,
        Buffer.from(signature, 'base64url'),
      );
      if (!signed) return false;
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        aud?: unknown;
        exp?: unknown;
      };
      return claims.aud === audience && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now();
    },
  };
}
