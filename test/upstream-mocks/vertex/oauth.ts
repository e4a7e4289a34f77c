/**
 * Google's OAuth2 token endpoint for service accounts, as a loopback stand-in: the JWT-bearer grant
 * (RFC 7523; developers.google.com/identity/protocols/oauth2/service-account#httprest) with an
 * RS256 assertion signed by a service-account key the mock knows, answered with an access token.
 * Refusals use the endpoint's real `{"error","error_description"}` bodies.
 */
import { createPublicKey, generateKeyPairSync, randomUUID, verify, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson, type MockRequest } from '../kit/server.ts';
import { randomId } from '../kit/text.ts';

export const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';

/** The fields of a service-account JSON key file, as the Cloud console downloads it. */
export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

/** A throwaway service-account key whose token_uri points at `tokenUri`, and the public half to trust it with. */
export function generateServiceAccountKey(
  tokenUri: string,
  projectId: string,
): { key: ServiceAccountKey; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `mock-gateway@${projectId}.iam.gserviceaccount.com`;
  const key: ServiceAccountKey = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomUUID().replaceAll('-', ''),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: String(100000000000000000000n + BigInt(Math.floor(Math.random() * 1e15))),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
    universe_domain: 'googleapis.com',
  };
  return { key, publicKey: createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })) };
}

interface IssuedToken {
  clientEmail: string;
  expiresAt: number;
}

/** Trusted service accounts and the access tokens issued to them. */
export class TokenAuthority {
  readonly #trusted = new Map<string, KeyObject>();
  readonly #issued = new Map<string, IssuedToken>();
  readonly tokenUri: string;
  constructor(tokenUri: string) {
    this.tokenUri = tokenUri;
  }

  trust(clientEmail: string, publicKey: KeyObject): void {
    this.#trusted.set(clientEmail, publicKey);
  }

  /** The principal a bearer token stands for, or undefined when it was never issued or has expired. */
  principalOf(accessToken: string): string | undefined {
    const issued = this.#issued.get(accessToken);
    return issued && issued.expiresAt > Date.now() ? issued.clientEmail : undefined;
  }

  answerTokenRequest(request: MockRequest, response: ServerResponse): void {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
      string,
      string | undefined
    >;
    const refuse = (error: string, description: string, status = 400) =>
      sendJson(response, status, { error, error_description: description });
    if (!(request.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
      refuse('invalid_request', 'Required parameter is missing: grant_type');
      return;
    }
    if (form.grant_type === undefined) {
      refuse('invalid_request', 'Required parameter is missing: grant_type');
      return;
    }
    if (form.grant_type !== jwtBearerGrant) {
      refuse('unsupported_grant_type', `Invalid grant_type: ${form.grant_type}`);
      return;
    }
    const outcome = this.#verifyAssertion(form.assertion ?? '');
    if (typeof outcome === 'object') {
      refuse(outcome.error, outcome.description);
      return;
    }
    const accessToken = `ya29.c.${randomId('', 96)}`;
    const expiresIn = 3599;
    this.#issued.set(accessToken, { clientEmail: outcome, expiresAt: Date.now() + expiresIn * 1000 });
    sendJson(response, 200, { access_token: accessToken, expires_in: expiresIn, token_type: 'Bearer' });
  }

  /** The verified issuer, or the token endpoint's refusal. */
  #verifyAssertion(assertion: string): string | { error: string; description: string } {
    const invalid = (description: string) => ({ error: 'invalid_grant', description });
    const [headerPart, payloadPart, signaturePart, ...rest] = assertion.split('.');
    if (
      headerPart === undefined ||
      payloadPart === undefined ||
      signaturePart === undefined ||
      rest.length > 0
    ) {
      return invalid(
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    let header: { alg?: string };
    let claims: { iss?: string; aud?: string; scope?: string; iat?: number; exp?: number };
    try {
      header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return invalid('Invalid JWT Signature.');
    }
    if (header.alg !== 'RS256') return invalid('Invalid JWT Signature.');
    const publicKey = claims.iss === undefined ? undefined : this.#trusted.get(claims.iss);
    if (!publicKey) return invalid('Invalid grant: account not found');
    const signed = Buffer.from(`${headerPart}.${payloadPart}`);
    if (!verify('RSA-SHA256', signed, publicKey, Buffer.from(signaturePart, 'base64url')))
      return invalid('Invalid JWT Signature.');
    if (claims.aud !== this.tokenUri)
      return invalid(`Invalid JWT: Failed audience check. The expected audience is ${this.tokenUri}.`);
    const now = Math.floor(Date.now() / 1000);
    const { iat, exp } = claims;
    // Google allows a few minutes of clock skew on both ends.
    if (
      typeof iat !== 'number' ||
      typeof exp !== 'number' ||
      exp - iat > 3600 ||
      exp < now - 300 ||
      iat > now + 300
    ) {
      return invalid(
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    const scopes = (claims.scope ?? '').split(' ');
    if (!scopes.includes(cloudPlatformScope))
      return { error: 'invalid_scope', description: 'Invalid OAuth scope or ID token audience provided.' };
    return claims.iss ?? '';
  }
}
