/**
 * The hostile-input CPU and upstream-memory probes, full size, for `npm run chaos`: the gateway runs as
 * its own process (its event loop and RSS are then its own) with the simulator as its default
 * upstream for family B and C, and a flooding fake upstream for family A.
 *
 * - cpu: ten 192 KB prompts of random Han on a key limited to 100 tokens a minute, a 15 MB "x"
 *   body to C-3 and another to C-1 (which the bounds cannot decide), all at once, while /healthz
 *   is timed every 10 ms.
 * - upstream-memory: a non-streamed answer of 3,000 MiB and an SSE line of 50 MiB without a
 *   newline; the gateway's peak RSS (VmHWM) against its RSS before.
 */
import { readFileSync } from 'node:fs';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post, writeTempConfig } from '../kit/e2e.ts';
import { startGatewayProcess } from '../kit/gateway-process.ts';
import { startFakeUpstream } from './fake-upstream.ts';
import { percentile, round } from './harness.ts';
import type { Profile, ScenarioResult } from './scenarios.ts';

const key = 'mg-chaos-hostile-client-0123456789';
const adminKey = 'mg-chaos-hostile-admin-0123456789';
const mib = 1024 * 1024;

function randomHan(length: number, seed: number): string {
  let state = seed;
  const codes: number[] = [];
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    codes.push(0x4e00 + (state % 20_000));
  }
  let text = '';
  for (let index = 0; index < length; index += 8_192)
    text += String.fromCharCode(...codes.slice(index, index + 8_192));
  return text;
}

function memoryMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN) / 1024;
}

export async function cpuProbe(profile: Profile): Promise<ScenarioResult> {
  const problems: string[] = [];
  const config = writeTempConfig(
    'cpu-probe.yaml',
    'limits: { staticKeys: { static-1: { unlimited: true } } }\n',
  );
  const gateway = await startGatewayProcess({
    MODELGATE_KEYS: key,
    MODELGATE_ADMIN_KEY: adminKey,
    MODELGATE_CONFIG: config.path,
  });
  try {
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'restricted',
      rpm: 1,
      tpm: 100,
      budget_usd: 0.01,
      models: ['B-4'],
    });
    const restricted = (created.json as { key: string }).key;
    const prompts = profile.name === 'full' ? 10 : 3;
    const hanBodies = Array.from({ length: prompts }, (_, index) =>
      JSON.stringify({
        model: 'B-4',
        max_tokens: 10,
        messages: [{ role: 'user', content: randomHan(64_000, index + 1) }],
      }),
    );
    const xBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x'.repeat(15 * mib) }] }] });
    const latencies: number[] = [];
    const state = { done: false };
    const started = performance.now();
    const answers = Promise.all([
      ...hanBodies.map((body) => post(gateway.url, '/v1/messages', betaAuth(restricted), body)),
      post(gateway.url, gammaPath('C-3', false), gammaAuth(key), xBody),
      post(gateway.url, gammaPath('C-1', false), gammaAuth(key), xBody),
    ]).finally(() => {
      state.done = true;
    });
    while (!state.done) {
      const asked = performance.now();
      await (await fetch(`${gateway.url}/healthz`)).arrayBuffer();
      latencies.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const results = await answers;
    const elapsed = performance.now() - started;
    const statuses = results.map((answer) => answer.status);
    if (statuses.slice(0, prompts).some((status) => status !== 429))
      problems.push(`restricted: ${statuses.join(',')}`);
    if (statuses[prompts] !== 400) problems.push(`C-3 answered ${statuses[prompts]}`);
    if (statuses[prompts + 1] !== 200) problems.push(`C-1 answered ${statuses[prompts + 1]}`);
    const slowest = Math.max(...latencies);
    if (slowest >= 1_000) problems.push(`/healthz took ${round(slowest)} ms`);
    return {
      name: 'cpu',
      pass: problems.length === 0,
      problems,
      figures: {
        'healthz answers': latencies.length,
        'healthz p50 ms': round(percentile(latencies, 50)),
        'healthz p99 ms': round(percentile(latencies, 99)),
        'healthz max ms': round(slowest),
        'all answered in ms': round(elapsed),
      },
    };
  } finally {
    await gateway.close();
    config.remove();
  }
}

export async function upstreamMemoryProbe(profile: Profile): Promise<ScenarioResult> {
  const problems: string[] = [];
  const upstream = await startFakeUpstream();
  const gateway = await startGatewayProcess({
    MODELGATE_KEYS: key,
    ALPHA_BASE_URL: upstream.url,
    ALPHA_API_KEY: 'up-alpha-probe',
  });
  try {
    const chat = { model: 'A-2', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
    await post(gateway.url, '/v1/chat/completions', alphaAuth(key), chat);
    const baseline = memoryMb(gateway.child.pid, 'VmRSS');
    const body = { bytes: 0 };
    upstream.behave = () => ({
      kind: 'flood',
      format: 'json',
      bytes: (profile.name === 'full' ? 3_000 : 300) * mib,
      flooded: body,
    });
    const started = performance.now();
    const json = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), chat);
    const jsonMs = performance.now() - started;
    const afterBody = memoryMb(gateway.child.pid, 'VmHWM') - baseline;
    const line = { bytes: 0 };
    upstream.behave = () => ({ kind: 'flood', format: 'sse', bytes: 50 * mib, flooded: line });
    const stream = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), { ...chat, stream: true });
    const afterLine = memoryMb(gateway.child.pid, 'VmHWM') - baseline;
    if (json.status !== 502) problems.push(`the huge answer gave ${json.status}`);
    if (stream.status !== 502 && !/exceeded the gateway's limit/.test(stream.text))
      problems.push('the long line was not cut');
    if (Math.max(afterBody, afterLine) >= 300)
      problems.push(`peak RSS grew ${round(Math.max(afterBody, afterLine))} MB`);
    return {
      name: 'upstream-memory',
      pass: problems.length === 0,
      problems,
      figures: {
        'baseline RSS MB': round(baseline),
        'huge answer: peak RSS growth MB': round(afterBody),
        'huge answer: MiB the upstream wrote': round(body.bytes / mib),
        'huge answer: 502 after ms': round(jsonMs),
        'long line: peak RSS growth MB': round(afterLine),
        'long line: MiB the upstream wrote': round(line.bytes / mib),
      },
    };
  } finally {
    await gateway.close();
    await upstream.close();
  }
}
