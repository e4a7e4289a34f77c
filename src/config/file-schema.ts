/**
 * The config file's schema: every section, its limits and the messages that name a bad field.
 * Defaults and the environment's overrides are applied by load-config.ts.
 */
import { z } from 'zod';
import { closestKey, strictSection } from './did-you-mean.ts';
import { familyIds, isFamilyId } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';
import { logLevels } from './environment.ts';
import { metricsFileSchema } from './observability-config.ts';
import {
  breakerSchema,
  retrySchema,
  timeoutOverridesSchema,
  timeoutsSchema,
  upstreamLimitsSchema,
} from './resilience-schema.ts';
import { imagesSchema, responsesSchema } from './service-schema.ts';
import { providersSchema } from './providers-schema.ts';

const positiveInteger = z.number().int().positive();
const price = z.number().nonnegative();
// Checked when a file is read, against the families registered then.
const family = z.string().refine(isFamilyId, {
  error: (issue) => `${JSON.stringify(issue.input)} is no family (${familyIds().join(', ')})`,
});
const modelName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\s/][^\s]*$/, 'model names have no spaces and do not start with "/"');

const upstreamSchema = strictSection({
  baseUrl: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  faultHeaders: z.boolean().optional(),
});

const deploymentSchema = strictSection({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:#@+-]{0,99}$/, 'deployment ids are 1–100 letters, digits and ._:#@+-')
    .optional(),
  family: family.optional(),
  baseUrl: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  upstreamModel: z.string().min(1).optional(),
  /** A `providers:` name: the deployment goes through that provider. */
  provider: z.string().min(1).optional(),
  weight: z.number().positive().max(1_000_000).optional(),
});

const modelSchema = strictSection({
  name: modelName,
  family: family.optional(),
  upstreamModel: z.string().min(1).optional(),
  contextWindow: positiveInteger.optional(),
  maxOutputTokens: positiveInteger.optional(),
  pricing: strictSection({
    inputPerMillion: price.optional(),
    outputPerMillion: price.optional(),
    cacheReadPerMillion: price.optional(),
    cacheWritePerMillion: price.optional(),
  }).optional(),
  capabilities: strictSection({
    streaming: z.boolean().optional(),
    tools: z.boolean().optional(),
    vision: z.boolean().optional(),
    reasoning: z.boolean().optional(),
    promptCaching: z.boolean().optional(),
  }).optional(),
  aliases: z.array(modelName).optional(),
  baseUrl: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
  deployments: z.array(deploymentSchema).min(1).max(100).optional(),
  fallbacks: z.array(modelName).max(20).optional(),
  timeouts: timeoutOverridesSchema.optional(),
});

/** Per-family rate limits: one optional `{rpm, tpm, unlimited}` key per family id. */
const familyLimits = strictSection({
  rpm: positiveInteger.optional(),
  tpm: positiveInteger.optional(),
  /** Every key on this family is metered for the headers but never refused. */
  unlimited: z.boolean().optional(),
});
type FamilyLimitsSpec = z.infer<typeof familyLimits>;

/** The settings of `limits` that are not a family's section. */
const limitSettings = {
  // An output cap above the model's maximum is a 400 instead of being lowered (with a warning).
  strictOutputTokens: z.boolean().optional(),
  /** With a shared store (Redis): what rate limits do when it cannot answer. */
  onStoreFailure: z.enum(['closed', 'local']).optional(),
  /** Gateway processes sharing the limits (instances × workers): `local` admits limit ÷ this each. */
  instances: positiveInteger.max(10_000).optional(),
  /** Static keys metered but never refused: on every family (`true`) or on the listed ones. */
  staticKeys: z
    .record(z.string(), strictSection({ unlimited: z.union([z.boolean(), z.array(family).min(1)]) }))
    .optional(),
};

/**
 * `limits`: the settings above, and one `{rpm, tpm, unlimited}` section per family, keyed by its id
 * (the families are the registry's, so the sections are checked by name, not by a fixed shape).
 */
const limitsSchema = z.looseObject(limitSettings).superRefine((limits, context) => {
  for (const [key, value] of Object.entries(limits)) {
    if (Object.hasOwn(limitSettings, key)) continue;
    if (!isFamilyId(key)) {
      context.addIssue({
        code: 'custom',
        path: [key],
        message: `no such setting or family (families: ${familyIds().join(', ')})${didYouMean(key)}`,
      });
      continue;
    }
    const parsed = familyLimits.safeParse(value);
    for (const issue of parsed.error?.issues ?? [])
      context.addIssue({ ...issue, code: 'custom', path: [key, ...issue.path], message: issue.message });
  }
});

/** A typo of a `limits` setting or family names the one meant. */
function didYouMean(key: string): string {
  const suggestion = closestKey(key, [...Object.keys(limitSettings), ...familyIds()]);
  return suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`;
}

/** Keys of a per-family record must name registered families. */
function onlyFamilyKeys(record: Record<string, unknown>, context: z.RefinementCtx): void {
  for (const key of Object.keys(record))
    if (!isFamilyId(key))
      context.addIssue({
        code: 'custom',
        path: [key],
        message: `no such family (${familyIds().join(', ')})`,
      });
}

/** A family's section of `limits` (already validated when the file was read). */
export function familyLimitsOf(file: ConfigFile, id: FamilyId): FamilyLimitsSpec | undefined {
  const section = file.limits?.[id];
  return section === undefined ? undefined : familyLimits.parse(section);
}

export const fileSchema = strictSection({
  server: strictSection({
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65535).optional(),
    bodyLimitBytes: positiveInteger.optional(),
    maxInFlight: positiveInteger.optional(),
    maxInFlightPerKey: positiveInteger.optional(),
    maxBodyBytesReading: positiveInteger.optional(),
    bodyReadTimeoutMs: positiveInteger.optional(),
    minBodyBytesPerSecond: z.number().int().min(0).optional(),
    maxHeaderBytes: positiveInteger.optional(),
    headersTimeoutMs: positiveInteger.optional(),
    requestTimeoutMs: positiveInteger.optional(),
  }).optional(),
  database: z.string().min(1).optional(),
  postgres: strictSection({
    url: z.string().min(1).optional(),
    outbox: z.string().min(1).optional(),
  }).optional(),
  redis: strictSection({
    url: z.string().min(1).optional(),
    commandTimeoutMs: positiveInteger.max(10_000).optional(),
    prefix: z.string().max(64).optional(),
    holdTtlMs: positiveInteger.min(1_000).optional(),
  }).optional(),
  upstreams: z.record(z.string(), upstreamSchema).superRefine(onlyFamilyKeys).optional(),
  providers: providersSchema,
  models: z.array(modelSchema).optional(),
  aliases: z.record(modelName, modelName).optional(),
  timeouts: timeoutsSchema,
  retry: retrySchema,
  breaker: breakerSchema,
  upstreamPool: strictSection({ connections: positiveInteger.max(10_000).optional() }).optional(),
  upstreamLimits: upstreamLimitsSchema,
  /**
   * `true`/`false` or a section: whether models with no upstream are answered by the built-in
   * simulator (default: only while no real upstream is configured at all), and its pace.
   */
  simulator: z
    .union([
      z.boolean(),
      strictSection({
        enabled: z.boolean().optional(),
        timeToFirstTokenMs: z.number().int().min(0).optional(),
        interTokenDelayMs: z.number().int().min(0).optional(),
      }),
    ])
    .optional(),
  /** `spec: false` leaves the spec's models (A-1…C-3) out of the catalog. */
  catalog: strictSection({ spec: z.boolean().optional() }).optional(),
  logLevel: z.enum(logLevels).optional(),
  images: imagesSchema,
  limits: limitsSchema.optional(),
  shutdown: strictSection({ drainTimeoutMs: z.number().int().min(0).optional() }).optional(),
  responses: responsesSchema,
  metrics: metricsFileSchema,
});

export type ConfigFile = z.output<typeof fileSchema>;
export type ModelSpec = z.infer<typeof modelSchema>;
