/**
 * A google-auth-library JWT client that honours a service-account key's token_uri.
 *
 * google-auth-library 10 signs its grant with `aud` = https://oauth2.googleapis.com/token and posts it
 * to that fixed URL whatever the key file's token_uri says (gtoken/getToken.js, gtoken/jwsSign.js).
 * Its own knobs fix both: `additionalClaims.aud` overrides the audience (spread after the defaults),
 * and a request interceptor on the client's transporter sends the grant to token_uri.
 */
import { JWT } from 'google-auth-library';
import { cloudPlatformScope, type ServiceAccountKey } from './oauth.ts';

const googleTokenUrl = 'https://oauth2.googleapis.com/token';

export function jwtClientFor(key: ServiceAccountKey): JWT {
  const client = new JWT({
    email: key.client_email,
    key: key.private_key,
    keyId: key.private_key_id,
    scopes: [cloudPlatformScope],
    additionalClaims: { aud: key.token_uri },
  });
  client.projectId = key.project_id;
  client.transporter.interceptors.request.add({
    resolved: (config) => {
      if (String(config.url) === googleTokenUrl) config.url = new URL(key.token_uri);
      return Promise.resolve(config);
    },
  });
  return client;
}
