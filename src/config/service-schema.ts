/**
 * File sections whose runtime shape differs from what is written (`images.fetch` → `enabled`,
 * `responses.retentionDays` → `retentionMs`): defaults and a typed transform in the schema, so
 * `Config`'s `images` and `responses` are the schema's output types.
 */
import { z } from 'zod';
import { strictSection } from './did-you-mean.ts';

const positiveInteger = z.number().int().positive();

/** `images`: fetching images given by URL for families that need the bytes (C); off by default. */
export const imagesSchema = strictSection({
  fetch: z.boolean().default(false),
  maxBytes: positiveInteger.max(50 * 1024 * 1024).default(5 * 1024 * 1024),
  timeoutMs: positiveInteger.max(60_000).default(5_000),
  maxPerRequest: positiveInteger.max(1000).default(20),
})
  .prefault({})
  .transform(({ fetch, maxBytes, timeoutMs, maxPerRequest }) => ({
    enabled: fetch,
    /** Largest image accepted, in bytes. */
    maxBytes,
    /** Whole fetch (connect, headers, body), in milliseconds. */
    timeoutMs,
    /** Images fetched at most for one request (more is a 400); fetched at most 4 at a time. */
    maxPerRequest,
  }));
export type ImageFetchConfig = z.output<typeof imagesSchema>;

/**
 * What the Responses API does with a provider's built-in tools (config `responses.builtInTools`):
 * `drop-unless-forced` (default) leaves out the ones a request only offers, so agents that always
 * send them (Codex CLI's `web_search`) run unchanged, and refuses one `tool_choice` forces;
 * `drop` leaves out forced ones too; `reject` refuses any.
 */
const builtInToolPolicy = z.enum(['drop-unless-forced', 'drop', 'reject']);
export type BuiltInToolPolicy = z.output<typeof builtInToolPolicy>;

/** `responses`: days a stored Responses API answer is kept (fractions allowed), built-in tools. */
export const responsesSchema = strictSection({
  retentionDays: z.number().positive().max(3650).default(30),
  // One stored response's JSON at most (its own input and answer); default 1 MiB.
  maxStoredBytes: positiveInteger.max(256 * 1024 * 1024).default(1024 * 1024),
  builtInTools: builtInToolPolicy.default('drop-unless-forced'),
})
  .prefault({})
  .transform(({ retentionDays, maxStoredBytes, builtInTools }) => ({
    /** Stored Responses API answers (`previous_response_id`, GET/DELETE): kept this long, then purged. */
    retentionMs: retentionDays * 86_400_000,
    /**
     * One stored response at most (its own input items and its answer, as JSON characters): a
     * turn whose input is larger answers with `store: false`; an answer that makes it larger is not kept.
     */
    maxStoredBytes,
    /** Built-in tools (`web_search`…): dropped with a `warning` header, or a 400 naming the tool. */
    builtInTools,
  }));
