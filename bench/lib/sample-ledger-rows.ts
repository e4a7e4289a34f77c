/**
 * Ledger rows like the rig's traffic for the ledger benches: one key and one model, or (`mixed`)
 * three keys and two models interleaved; a clock that moves `clockStepMs` a row. `randomTimes`
 * gives latencies with all their digits, as measured ones have (what a JSON hand-off carries),
 * instead of a few repeating values.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { LedgerRow } from '../../src/usage/ledger.ts';

export interface SampleRowOptions {
  mixed: boolean;
  clockStepMs: number;
  randomTimes: boolean;
}

export function sampleLedgerRow(options: SampleRowOptions): (index: number) => LedgerRow {
  const models = options.mixed ? ['A-3', 'B-4'] : ['A-3'];
  const keys = options.mixed ? ['key-static-0', 'key-static-1', 'key-3f2a9c'] : ['key-static-0'];
  let clock = Date.now();
  return (index) => {
    const model = models[index % models.length] as string;
    clock += options.clockStepMs;
    return {
      requestId: `req_${randomUUID().replaceAll('-', '')}`,
      attempt: 1,
      final: true,
      createdAt: Math.floor(clock),
      keyId: keys[index % keys.length] as string,
      surface: 'alpha',
      model,
      family: model.startsWith('A') ? 'alpha' : 'beta',
      upstreamModel: model === 'A-3' ? 'gpt-4o-mini' : 'claude-3-5-haiku-latest',
      deployment: model,
      stream: false,
      status: 200,
      upstreamStatus: 200,
      outcome: 'ok',
      error: undefined,
      promptTokens: 120 + (index % 50),
      cachedTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 40 + (index % 20),
      reasoningTokens: 0,
      costUsd: 0.000042 + index * 1e-9,
      usageEstimated: false,
      latencyMs: options.randomTimes ? 1.5 + Math.random() * 3 : 1.5 + (index % 100) / 37,
      ttftMs: undefined,
      overheadMs: options.randomTimes ? 0.05 + Math.random() / 7 : 0.05 + (index % 10) / 97,
      traceId: randomBytes(16).toString('hex'),
    };
  };
}
