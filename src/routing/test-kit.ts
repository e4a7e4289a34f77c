/** Deployments and routes for routing unit tests: a manual clock, fixed randomness, no transport. */
import { defaultCatalog, type ModelEntry } from '../config/catalog.ts';
import type { RetryConfig } from '../config/config.ts';
import type { UpstreamTransport } from '../upstream/transport.ts';
import type { RoutingClock } from './clock.ts';
import { CircuitBreaker } from './breaker.ts';
import { Deployment, ModelRoute } from './deployment.ts';
import { createUpstreamErrorScrubber } from '../upstream/upstream-error-text.ts';
import { familyCodec } from '../surfaces/registry.ts';
import type { FamilyId } from '../ir/index.ts';

export class ManualClock implements RoutingClock {
  time = 1_000_000;
  /** What `random()` returns. */
  fixedRandom = 0.5;

  now(): number {
    return this.time;
  }

  random(): number {
    return this.fixedRandom;
  }
}

export const testPolicy: RetryConfig = {
  attempts: 3,
  maxAttempts: 6,
  budgetMs: 10_000,
  backoffMs: 100,
  maxBackoffMs: 1000,
  maxRetryAfterMs: 2000,
};

const noTransport: UpstreamTransport = {
  send: () => Promise.reject(new Error('no transport in routing tests')),
  close: () => Promise.resolve(),
};

export function entryNamed(name: string): ModelEntry {
  const entry = defaultCatalog().find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error(`no catalog model ${name}`);
  return entry;
}

export function deployment(
  id: string,
  options: {
    weight?: number;
    family?: FamilyId;
    model?: string;
    threshold?: number;
    simulated?: boolean;
  } = {},
): Deployment {
  return new Deployment({
    id,
    model: options.model ?? 'B-1',
    codec: familyCodec(options.family ?? 'beta'),
    transport: noTransport,
    target: { baseUrl: `http://${id}.test`, apiKey: 'k', model: id },
    weight: options.weight ?? 1,
    timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
    limits: { maxResponseBytes: 1_048_576, maxEventBytes: 65_536 },
    scrubber: createUpstreamErrorScrubber(['k'], [`http://${id}.test`]),
    breaker: new CircuitBreaker({ failureThreshold: options.threshold ?? 5, cooldownMs: 5000 }),
    simulated: options.simulated ?? false,
    faultHeaders: options.simulated ?? false,
  });
}

export function route(
  name: string,
  deployments: Deployment[],
  clock: RoutingClock,
  policy: RetryConfig = testPolicy,
): ModelRoute {
  return new ModelRoute(entryNamed(name), deployments, policy, clock);
}
