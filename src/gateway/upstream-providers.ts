/**
 * The providers deployments go through: the configuration's named ones (`providers:`), and the
 * family upstreams' (`{PREFIX}_BASE_URL`, `upstreams:`, a model's or deployment's own `baseUrl`),
 * served by the family's vendor preset in its spec-compatible mode. Built once from the config.
 */
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/config-error.ts';
import { familyCodec } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';
import type { Provider } from '../providers/provider.ts';
import { buildProvider, isPresetName } from '../providers/registry.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import { createUpstreamErrorScrubber, type UpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';

/** Every configured provider by name; a bad one is a ConfigError naming its setting. */
export function namedProviders(config: Config): ReadonlyMap<string, Provider> {
  const providers = new Map<string, Provider>();
  for (const [name, settings] of Object.entries(config.providers)) {
    try {
      providers.set(name, buildProvider(settings));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ConfigError(message.startsWith('providers.') ? message : `providers.${name}: ${message}`);
    }
  }
  return providers;
}

/**
 * The transport of a family upstream at `baseUrl`: `http` through the family's vendor preset, which
 * keeps the spec's names and adds the vendor's (so `BETA_BASE_URL=https://api.anthropic.com` works);
 * `http` itself for a family with no vendor preset.
 */
export function familyUpstreamTransport(
  family: FamilyId,
  target: { baseUrl: string; apiKey: string | undefined },
  http: UpstreamTransport,
): UpstreamTransport {
  const preset = familyCodec(family).descriptor.vendorPreset;
  if (preset === undefined || !isPresetName(preset)) return http;
  const provider = buildProvider({
    name: `${family}-upstream`,
    preset,
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    familyUpstream: true,
  });
  return provider.transport(http);
}

/** Every upstream key and base URL the configuration holds, providers' too: none may reach a client. */
export function scrubberFor(config: Config, providers: ReadonlyMap<string, Provider>): UpstreamErrorScrubber {
  const targets = [
    ...Object.values(config.upstreams),
    ...config.models,
    ...Object.values(config.routing).flatMap((routing) => routing.deployments),
  ];
  const secrets: string[] = [];
  const baseUrls: string[] = [];
  for (const target of targets) {
    if (target.apiKey !== undefined) secrets.push(target.apiKey);
    if (target.baseUrl !== undefined) baseUrls.push(target.baseUrl);
  }
  for (const provider of providers.values()) {
    secrets.push(...provider.secrets);
    baseUrls.push(provider.baseUrl);
  }
  return createUpstreamErrorScrubber(secrets, baseUrls);
}
