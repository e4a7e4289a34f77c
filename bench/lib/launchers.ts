/**
 * The real processes: the simulator and modelgate as users start them (`bin/modelgate.js`: the
 * compiled CLI in dist/ when it is built and fresh, else src/), and bench/bare-proxy.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Launchers } from './bench.ts';
import { gatewayKey } from './scenarios.ts';

/** Simulator on core 0, the measured proxies on core 1 (ignored where taskset is missing). */
const simulatorCore = 0;
const proxyCore = 1;

export const realLaunchers: Launchers = {
  simulator: (port) => ({
    name: 'simulator',
    args: ['bin/modelgate.js', 'simulate', '--port', String(port)],
    env: { HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    cpu: simulatorCore,
    port,
    readyPath: '/',
  }),
  bare: (port, upstreamUrl) => ({
    name: 'bare proxy',
    args: ['bench/bare-proxy.ts', '--port', String(port), '--upstream', upstreamUrl],
    cpu: proxyCore,
    port,
    readyPath: '/',
  }),
  modelgate: (port, upstreamUrl, dataDir) => ({
    name: 'modelgate',
    // Limits so high the limiter runs (every request is checked and charged) but never refuses.
    args: ['bin/modelgate.js', 'serve'],
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      ALPHA_BASE_URL: upstreamUrl,
      BETA_BASE_URL: upstreamUrl,
      GAMMA_BASE_URL: upstreamUrl,
      ALPHA_API_KEY: 'sim',
      BETA_API_KEY: 'sim',
      GAMMA_API_KEY: 'sim',
      MODELGATE_KEYS: gatewayKey,
      MODELGATE_DB: join(dataDir, 'bench.db'),
      MODELGATE_CONFIG: benchLimits(dataDir),
      LOG_LEVEL: 'warn',
    },
    cpu: proxyCore,
    port,
    readyPath: '/healthz',
    isReady: (status) => status === 200,
  }),
};

/** A config file with limits no benchmark reaches; returns its path. */
function benchLimits(dataDir: string): string {
  const path = join(dataDir, 'bench-limits.yaml');
  const families = ['alpha', 'beta', 'gamma'];
  writeFileSync(
    path,
    `limits:\n${families.map((id) => `  ${id}: { rpm: 1000000000, tpm: 1000000000000 }\n`).join('')}`,
  );
  return path;
}
