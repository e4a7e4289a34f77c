/**
 * The configuration's `providers:` section: named providers (`name → { preset, apiKey, baseUrl, …}`)
 * that models and deployments refer to with `provider: <name>`. Which presets exist is the provider
 * registry's to say (the gateway checks it when it builds them); the names referred to are checked
 * here, against this section.
 */
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { httpBaseUrl } from './base-url.ts';
import { strictSection } from './did-you-mean.ts';

const setting = z.string().min(1).max(2048);

export const providerSchema = strictSection({
  /** The preset that builds it (`openai`, `anthropic`, `gemini`, …). */
  preset: z.string().min(1).max(64),
  apiKey: setting.optional(),
  /** Overrides the preset's public endpoint (the part before `/v1`). */
  baseUrl: httpBaseUrl.optional(),
  region: setting.optional(),
  project: setting.optional(),
  location: setting.optional(),
  apiVersion: setting.optional(),
  credentials: z.record(z.string().min(1), setting).optional(),
  /** Azure OpenAI: deployment name → the OpenAI model it serves (its rules: reasoning or not). */
  deployments: z.record(z.string().min(1), setting).optional(),
});

export const providersSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'provider names are 1–64 letters, digits and ._-'),
    providerSchema,
  )
  .default({});

/** One configured provider: its section and its name. */
export type ProviderConfig = z.output<typeof providerSchema> & { readonly name: string };

/** The section as the gateway builds it (names joined to their settings). */
export function providersOf(section: z.output<typeof providersSchema>): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = Object.create(null) as Record<string, ProviderConfig>;
  for (const [name, settings] of Object.entries(section)) providers[name] = { ...settings, name };
  return providers;
}

interface ProviderReference {
  provider?: string | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
}

/**
 * Every `provider:` a model or deployment names exists, and is not given beside its own
 * `baseUrl`/`apiKey` (the provider holds those).
 */
export function checkProviderReferences(
  providers: Readonly<Record<string, ProviderConfig>>,
  models: readonly (ProviderReference & {
    name: string;
    deployments?: readonly ProviderReference[] | undefined;
  })[],
): void {
  const check = (where: string, reference: ProviderReference): void => {
    const name = reference.provider;
    if (name === undefined) return;
    if (providers[name] === undefined) {
      const known = Object.keys(providers);
      throw new ConfigError(
        `${where}.provider: no provider ${JSON.stringify(name)} in providers (${known.length === 0 ? 'none is configured' : `configured: ${known.join(', ')}`})`,
      );
    }
    if (reference.baseUrl !== undefined || reference.apiKey !== undefined)
      throw new ConfigError(
        `${where}: set baseUrl/apiKey on provider ${name}, not beside provider (it holds them)`,
      );
  };
  for (const model of models) {
    check(`model ${model.name}`, model);
    for (const [index, deployment] of (model.deployments ?? []).entries())
      check(`model ${model.name}: deployments[${index}]`, deployment);
  }
}
