/**
 * The mock's SigV4 check: the request is signed again with the known test credentials by
 * `@smithy/signature-v4` (the library every AWS SDK for JavaScript signs with) over exactly the
 * headers the caller said it signed, and the two signatures compared. Refusals are AWS's own
 * exceptions and texts.
 */
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { MockRequest } from '../kit/server.ts';

export interface AwsTestCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface AuthRefusal {
  status: number;
  exception: string;
  message: string;
}

const authorizationPattern =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** `20261127T021500Z` → a Date. */
function amzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  return new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
}

const fiveMinutes = 5 * 60 * 1000;

export async function checkSignature(
  request: MockRequest,
  credentials: AwsTestCredentials,
  region: string,
): Promise<AuthRefusal | undefined> {
  const header = request.headers.authorization;
  if (header === undefined)
    return {
      status: 403,
      exception: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    };
  const match = authorizationPattern.exec(header);
  if (match === null)
    return {
      status: 403,
      exception: 'IncompleteSignatureException',
      message: `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters.`,
    };
  const [, accessKeyId = '', , scopeRegion, service, signedHeaders = '', signature] = match;
  if (accessKeyId !== credentials.accessKeyId)
    return {
      status: 403,
      exception: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  if (scopeRegion !== region)
    return {
      status: 403,
      exception: 'InvalidSignatureException',
      message: `Credential should be scoped to a valid region. `,
    };
  if (service !== 'bedrock')
    return {
      status: 403,
      exception: 'InvalidSignatureException',
      message: "Credential should be scoped to correct service: 'bedrock'. ",
    };
  const date = amzDate(request.headers['x-amz-date']);
  if (date === undefined)
    return {
      status: 403,
      exception: 'IncompleteSignatureException',
      message: "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    };
  if (Math.abs(Date.now() - date.getTime()) > fiveMinutes)
    return {
      status: 403,
      exception: 'InvalidSignatureException',
      message: `Signature expired: ${request.headers['x-amz-date']} is now earlier or later than 5 minutes from the current time.`,
    };
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) headers[name] = request.headers[name] ?? '';
  const sessionToken = request.headers['x-amz-security-token'];
  const signer = new SignatureV4({
    service: 'bedrock',
    region,
    credentials: sessionToken === undefined ? credentials : { ...credentials, sessionToken },
    sha256: Hash.bind(null, 'sha256'),
  });
  const resigned = await signer.sign(
    new HttpRequest({
      method: request.method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: request.url.pathname,
      headers,
      body: request.rawBody,
    }),
    { signingDate: date },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(resigned.headers.authorization ?? '')?.[1];
  if (expected !== signature)
    return {
      status: 403,
      exception: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  return undefined;
}
