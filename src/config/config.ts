/**
 * The validated, immutable gateway configuration (environment + optional file), built once at
 * start: the output of the one schema (runtime-config.ts), and names for its parts.
 */
import type { z } from 'zod';
import type { FamilyId } from '../ir/index.ts';
import type { configSchema } from './runtime-config.ts';

export type Config = z.output<typeof configSchema>;

/** A family's upstream: `{PREFIX}_BASE_URL`/`_API_KEY`/`_FAULT_HEADERS` over `upstreams.<family>`. */
export type UpstreamConfig = Config['upstreams'][FamilyId];
export type RateLimitConfig = Config['rateLimits'][FamilyId];
export type SimulatorConfig = Config['simulator'];
export type SharedStoreConfig = Config['sharedStore'];

export type { DeploymentConfig, ModelRouting } from './model-routing.ts';
export type { BuiltInToolPolicy, ImageFetchConfig } from './service-schema.ts';
export type { BreakerConfig, RetryConfig, TimeoutConfig, UpstreamLimits } from './resilience-schema.ts';
export type { MetricsConfig, TracingConfig } from './observability-config.ts';
export type { ProviderConfig } from './providers-schema.ts';
