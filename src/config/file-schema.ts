/**
 * The settings' schema: every section of the config file (the environment's variables laid over
 * it, environment.ts), its limits, its defaults and the messages that name a bad field.
 */
import { z } from 'zod';
import { closestKey, strictSection } from './did-you-mean.ts';
import { refuse } from './cross-field.ts';
import { familyIds, isFamilyId } from '../surfaces/registry.ts';
import { joinableBaseUrl, withoutTrailingSlashes } from './base-url.ts';
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

/** `upstreams.<family>` (or `{PREFIX}_BASE_URL`, `_API_KEY`, `_FAULT_HEADERS`). */
const upstreamSchema = strictSection({
  /** The part before `/v1`; unset: the built-in simulator serves the family. */
  baseUrl: joinableBaseUrl.optional(),
  apiKey: z.string().min(1).optional(),
  /**
   * The upstream is a `modelgate simulate` server: clients' `x-simulate-*` fault headers are
   * forwarded to it (they go to the built-in simulator always, to a real upstream never).
   */
  faultHeaders: z.boolean().default(false),
});
/** A family's upstream as the gateway reaches it. */
export type UpstreamSection = z.output<typeof upstreamSchema>;

const deploymentSchema = strictSection({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:#@+-]{0,99}$/, 'deployment ids are 1–100 letters, digits and ._:#@+-')
    .optional(),
  family: family.optional(),
  baseUrl: joinableBaseUrl.optional(),
  apiKey: z.string().min(1).optional(),
  upstreamModel: z.string().min(1).optional(),
  /** A `providers:` name: the deployment goes through that provider. */
  provider: z.string().min(1).optional(),
  /** Relative share of the traffic among healthy deployments. */
  weight: z.number().positive().max(1_000_000).default(1),
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
  aliases: z.array(modelName).default([]),
  baseUrl: z.url().transform(withoutTrailingSlashes).optional(),
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

/** The settings of `limits` that are not a family's section. */
const limitSettings = {
  // An output cap above the model's maximum is a 400 instead of being lowered (with a warning).
  strictOutputTokens: z.boolean().default(false),
  /** With a shared store (Redis): what rate limits do when it cannot answer. */
  onStoreFailure: z.enum(['closed', 'local']).default('closed'),
  /** Gateway processes sharing the limits (instances × workers): `local` admits limit ÷ this each. */
  instances: positiveInteger.max(10_000).default(1),
  /** Static keys metered but never refused: on every family (`true`) or on the listed ones. */
  staticKeys: z
    .record(z.string(), strictSection({ unlimited: z.union([z.boolean(), z.array(family).min(1)]) }))
    .default({}),
};

/**
 * `limits`: the settings above, and one `{rpm, tpm, unlimited}` section per family, keyed by its id
 * (the families are the registry's, so the sections are checked by name, not by a fixed shape).
 */
const limitsSchema = z
  .looseObject(limitSettings)
  .superRefine((limits, context) => {
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
  })
  .transform(({ strictOutputTokens, onStoreFailure, instances, staticKeys, ...families }) => ({
    strictOutputTokens,
    onStoreFailure,
    instances,
    staticKeys,
    /** Each family's own section, by family id (checked above: only registered families). */
    families: Object.fromEntries(
      Object.entries(families).map(([id, section]) => [id, familyLimits.parse(section)] as const),
    ),
  }));

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

export const settingsSchema = strictSection({
  server: strictSection({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8080),
    /** Largest accepted request body. */
    bodyLimitBytes: positiveInteger.default(16 * 1024 * 1024),
    maxInFlight: positiveInteger.default(1024),
    maxInFlightPerKey: positiveInteger.optional(),
    maxBodyBytesReading: positiveInteger.optional(),
    bodyReadTimeoutMs: positiveInteger.default(60_000),
    minBodyBytesPerSecond: z.number().int().min(0).default(8_192),
    maxHeaderBytes: positiveInteger.default(16_384),
    headersTimeoutMs: positiveInteger.default(10_000),
    requestTimeoutMs: positiveInteger.default(120_000),
  })
    .prefault({})
    .superRefine((server, context) => {
      if (server.maxInFlightPerKey !== undefined && server.maxInFlightPerKey > server.maxInFlight)
        refuse(context, 'server.maxInFlightPerKey must not exceed server.maxInFlight');
      if (server.maxBodyBytesReading !== undefined && server.maxBodyBytesReading < server.bodyLimitBytes)
        refuse(context, 'server.maxBodyBytesReading must be at least server.bodyLimitBytes (one whole body)');
    })
    .transform((server) => ({
      ...server,
      // The defaults that follow from the section's other settings.
      maxInFlightPerKey: server.maxInFlightPerKey ?? Math.max(1, Math.floor(server.maxInFlight / 4)),
      maxBodyBytesReading: server.maxBodyBytesReading ?? Math.max(128 * 1024 * 1024, server.bodyLimitBytes),
      // node:http requires requestTimeout ≥ headersTimeout.
      requestTimeoutMs: Math.max(server.requestTimeoutMs, server.headersTimeoutMs),
    })),
  database: z.string().min(1).default('./data/modelgate.db'),
  postgres: strictSection({
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\/[^\s]+$/, 'a postgres:// or postgresql:// URL')
      .optional(),
    /** Unset: `ledger-outbox.db` beside the embedded store's file. */
    outbox: z.string().min(1).optional(),
  }).prefault({}),
  redis: strictSection({
    url: z
      .string()
      .regex(/^(redis|rediss|valkey|valkeys):\/\/[^\s]+$/, 'a redis:// or rediss:// URL')
      // Valkey speaks Redis's protocol: the client knows the redis schemes only.
      .transform((url) => url.replace(/^valkey/, 'redis'))
      .optional(),
    commandTimeoutMs: positiveInteger.max(10_000).default(50),
    prefix: z.string().max(64).default('mg:'),
    holdTtlMs: positiveInteger.min(1_000).optional(),
  }).prefault({}),
  upstreams: z.record(z.string(), upstreamSchema).superRefine(onlyFamilyKeys).default({}),
  providers: providersSchema,
  models: z.array(modelSchema).default([]),
  aliases: z.record(modelName, modelName).default({}),
  timeouts: timeoutsSchema,
  retry: retrySchema,
  breaker: breakerSchema,
  upstreamPool: strictSection({ connections: positiveInteger.max(10_000).default(256) }).prefault({}),
  upstreamLimits: upstreamLimitsSchema,
  /**
   * Whether models with no upstream are answered by the built-in simulator (unset: only while no
   * real upstream is configured at all), and its pace. The file may say `simulator: true|false`
   * for `{ enabled: … }` (raw-config.ts).
   */
  simulator: strictSection({
    enabled: z.boolean().optional(),
    timeToFirstTokenMs: z.number().int().min(0).default(0),
    interTokenDelayMs: z.number().int().min(0).default(0),
  }).prefault({}),
  /** `spec: false` leaves the spec's models (A-1…C-3) out of the catalog. */
  catalog: strictSection({ spec: z.boolean().default(true) }).prefault({}),
  logLevel: z.enum(logLevels).default('info'),
  images: imagesSchema,
  limits: limitsSchema.prefault({}),
  shutdown: strictSection({ drainTimeoutMs: z.number().int().min(0).default(30_000) }).prefault({}),
  responses: responsesSchema,
  metrics: metricsFileSchema,
});

export type Settings = z.output<typeof settingsSchema>;
export type ModelSpec = z.infer<typeof modelSchema>;
export type DeploymentSpec = z.output<typeof deploymentSchema>;
