/**
 * The shape of the generated vendor catalog (`vendor-catalog.data.json`), shared by its generator
 * (`litellm-catalog.ts`, run by `scripts/refresh-catalog.ts`) and its reader (`vendor-catalog.ts`),
 * so a hand edit or a generator change that breaks it fails loudly at load instead of pricing wrong.
 */
import { z } from 'zod';

/** Where a model is served: the vendor's own API or a cloud that resells it under its own ids. */
export const vendorPlatforms = ['openai', 'azure', 'anthropic', 'bedrock', 'vertex', 'gemini'] as const;
export type VendorPlatform = (typeof vendorPlatforms)[number];

export const vendorNames = ['openai', 'anthropic', 'google'] as const;
export type VendorName = (typeof vendorNames)[number];

const perMillion = z.number().nonnegative();
const tokenCount = z.number().int().positive();

export const vendorModelSchema = z
  .object({
    /** Who makes the model. */
    vendor: z.enum(vendorNames),
    platform: z.enum(vendorPlatforms),
    /** The API family whose wire the platform speaks (a registry family id). */
    family: z.string().min(1),
    /** The id the platform takes in a request. */
    upstreamModel: z.string().min(1),
    /** The source's max input tokens. */
    contextWindow: tokenCount,
    maxOutputTokens: tokenCount,
    pricing: z
      .object({
        inputPerMillion: perMillion,
        outputPerMillion: perMillion,
        /** null: the source gives no cache price (the family's factors apply). */
        cacheReadPerMillion: perMillion.nullable(),
        cacheWritePerMillion: perMillion.nullable(),
      })
      .strict(),
    capabilities: z
      .object({
        streaming: z.boolean(),
        tools: z.boolean(),
        vision: z.boolean(),
        /** A reasoning model (OpenAI's take `max_completion_tokens`, Anthropic's and Google's think). */
        reasoning: z.boolean(),
        promptCaching: z.boolean(),
      })
      .strict(),
    /** The source's own key for this entry, to trace a value back. */
    sourceKey: z.string().min(1),
  })
  .strict();

export type VendorModelData = z.infer<typeof vendorModelSchema>;

export const vendorCatalogSourceSchema = z
  .object({
    dataset: z.string(),
    repository: z.string(),
    license: z.string(),
    /** Where this copy was read from (the default URL, or what the maintainer passed). */
    readFrom: z.string(),
    /** The commit or copy the data was taken at, as the maintainer recorded it. */
    ref: z.string(),
    /** The source's date (ISO 8601). */
    date: z.string(),
    /** SHA-256 of the bytes read, so a regeneration can be checked against the same input. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    generatedBy: z.string(),
  })
  .strict();

export type VendorCatalogSource = z.infer<typeof vendorCatalogSourceSchema>;

export const vendorCatalogFileSchema = z
  .object({
    source: vendorCatalogSourceSchema,
    models: z.record(z.string().min(1), vendorModelSchema),
  })
  .strict();

export type VendorCatalogFile = z.infer<typeof vendorCatalogFileSchema>;
