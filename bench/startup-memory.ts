/**
 * What each library the gateway loads at start costs in resident memory: a fresh
 * `node --expose-gc` per case and round (cases interleaved), the library imported (and, for
 * prom-client, its default collectors started as the gateway does), then `gc()` and VmRSS; the
 * figure is the median RSS above the same script importing nothing.
 *
 *   node bench/startup-memory.ts [rounds]
 */
import { execFileSync } from 'node:child_process';
import { median } from './lib/stats.ts';

const cases: Record<string, string> = {
  nothing: '',
  undici: "await import('undici');",
  zod: "await import('zod');",
  yaml: "await import('yaml');",
  'find-my-way': "await import('find-my-way');",
  'prom-client (+ default collectors)':
    "const p = (await import('prom-client')).default; p.collectDefaultMetrics({ register: new p.Registry() });",
  '@opentelemetry/api': "await import('@opentelemetry/api');",
  'node:sqlite': "await import('node:sqlite');",
};
const rounds = Number(process.argv[2] ?? 5);
const rss: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, code] of Object.entries(cases)) {
    const script =
      `${code} globalThis.gc(); await new Promise((r) => setTimeout(r, 50)); globalThis.gc();` +
      `process.stdout.write(String(/VmRSS:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]));`;
    const output = execFileSync(
      process.execPath,
      [
        '--expose-gc',
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url); ${script}`,
      ],
      { encoding: 'utf8' },
    );
    rss[name]?.push(Number(output) / 1024);
  }
}
const base = median(rss['nothing'] ?? []);
for (const [name, values] of Object.entries(rss)) {
  process.stdout.write(
    `${name.padEnd(36)} ${name === 'nothing' ? `${base.toFixed(1)} MiB` : `+${(median(values) - base).toFixed(1)} MiB`}\n`,
  );
}
