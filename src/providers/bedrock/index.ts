/**
 * The Amazon Bedrock preset. Anthropic's models are called through InvokeModel with the Messages
 * body (`beta`); every other model through the Converse API (`converse`). Region from `region`
 * (else `AWS_REGION`/`AWS_DEFAULT_REGION`), endpoint `https://bedrock-runtime.{region}.amazonaws.com`
 * unless `baseUrl` overrides it. Authentication: a Bedrock API key (`apiKey`, sent as a bearer
 * token), else SigV4 with static `credentials.accessKeyId`/`secretAccessKey`/`sessionToken` or the
 * AWS credential chain (`credentials.profile` picks a shared-config profile).
 */
import type { FamilyId } from '../../ir/index.ts';
import type { Provider, ProviderPreset, ProviderSettings } from '../provider.ts';
import { bearerAuthorizer, sigV4Authorizer, staticCredentials, type BedrockAuthorizer } from './auth.ts';
import { EventStreamToSse } from './event-stream.ts';
import { isAnthropicModel } from './models.ts';
import { bedrockTransport, type ReframerFactory } from './transport.ts';

const regionPattern = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;

function regionOf(settings: ProviderSettings): string {
  const region = settings.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (region === undefined || region === '')
    throw new Error(`provider ${settings.name}: bedrock needs a region (region: us-east-1, or AWS_REGION)`);
  if (!regionPattern.test(region))
    throw new Error(`provider ${settings.name}: region ${JSON.stringify(region)} is not an AWS region name`);
  return region;
}

async function loadReframer(): Promise<ReframerFactory> {
  const [{ EventStreamCodec }, { toUtf8, fromUtf8 }] = await Promise.all([
    import('@smithy/eventstream-codec'),
    import('@smithy/util-utf8'),
  ]);
  return (framing) => new EventStreamToSse(new EventStreamCodec(toUtf8, fromUtf8), framing, toUtf8);
}

export const bedrockPreset: ProviderPreset = (settings: ProviderSettings): Provider => {
  const region = regionOf(settings);
  const baseUrl = (settings.baseUrl ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(/\/+$/, '');
  const keys = staticCredentials(settings);
  const secrets = [settings.apiKey, keys?.secretAccessKey, keys?.sessionToken].filter(
    (secret): secret is string => secret !== undefined && secret !== '',
  );
  return {
    name: settings.name,
    preset: settings.preset,
    baseUrl,
    secrets,
    wireFor: (_family: FamilyId, model: string): FamilyId => (isAnthropicModel(model) ? 'beta' : 'converse'),
    transport(http) {
      // Started now, awaited by the first call: the AWS libraries load once, only for Bedrock.
      const authorizer: Promise<BedrockAuthorizer> =
        settings.apiKey === undefined
          ? sigV4Authorizer(settings, region)
          : Promise.resolve(bearerAuthorizer(settings.apiKey));
      // A failed load is reported by the call that needs it, not as an unhandled rejection.
      authorizer.catch(() => undefined);
      const reframer = loadReframer();
      reframer.catch(() => undefined);
      return bedrockTransport(http, { authorizer, reframer });
    },
  };
};
