/** What the dashboard's rollup queries share: the usage sums, summed in SQL, per bucket. */
import type { UsageSums } from '../usage/report.ts';

export type BucketRow = UsageSums & { bucket: number };

export const sums = `SUM(requests) AS requests, SUM(errors) AS errors, SUM(prompt_tokens) AS prompt_tokens,
  SUM(cached_tokens) AS cached_tokens, SUM(cache_write_tokens) AS cache_write_tokens,
  SUM(output_tokens) AS output_tokens, SUM(cost_usd) AS cost_usd`;
