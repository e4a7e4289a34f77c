/**
 * What a cloud SDK costs a gateway process that loads it: the gateway's modules first (as
 * `modelgate serve` loads them), then one SDK, timed and measured in RSS after a GC. Run each case
 * in a fresh process, interleaved: `node --expose-gc bench/cloud-sdk-cost.ts none|google|azure`.
 */
const which = process.argv[2] ?? 'none';
const collect = (globalThis as { gc?: () => void }).gc;
await import('../src/server/start-gateway.ts');
collect?.();
const before = process.memoryUsage().rss;
const started = performance.now();
if (which === 'google') await import('google-auth-library');
if (which === 'azure') await import('@azure/identity');
const importMs = performance.now() - started;
collect?.();
const mib = (bytes: number) => Number((bytes / 2 ** 20).toFixed(1));
console.log(
  JSON.stringify({
    which,
    importMs: Math.round(importMs),
    rssMiB: mib(process.memoryUsage().rss),
    addedMiB: mib(process.memoryUsage().rss - before),
  }),
);
