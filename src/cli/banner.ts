/** The start banner of `modelgate serve`. */
import type { Config } from '../config/config.ts';

/**
 * The line saying the gateway is up, on stdout where scripts wait for it (`listening on URL`): a
 * JSON line like the log's for a collector, a sentence for a person at a terminal.
 */
export function startBanner(
  config: Config,
  url: string,
  terminal: boolean | undefined,
  workers?: number,
): string {
  const upstreams: Record<string, string> = {};
  // A family with no base URL is the simulator's only while the simulator is on (else it is none).
  for (const [family, upstream] of Object.entries(config.upstreams))
    upstreams[family] =
      upstream.baseUrl !== undefined ? 'upstream' : config.simulator.enabled ? 'simulator' : 'none';
  const providers: Record<string, string> = {};
  for (const [name, provider] of Object.entries(config.providers)) providers[name] = provider.preset;
  const message = `modelgate listening on ${url}`;
  if (terminal === true) {
    const served = [
      ...Object.entries(upstreams).map(([family, kind]) => `${family}=${kind}`),
      ...Object.entries(providers).map(([name, preset]) => `${name}=${preset}`),
    ].join(' ');
    return `${message} (${served}${workers === undefined ? '' : `; ${workers} workers`})\n`;
  }
  const line = {
    time: new Date().toISOString(),
    level: 'info',
    message,
    url,
    pid: process.pid,
    upstreams,
    providers,
    ...(workers === undefined ? {} : { workers }),
  };
  return `${JSON.stringify(line)}\n`;
}
