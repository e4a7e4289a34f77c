/**
 * The environment every bench starts `modelgate serve` with, the rig's way: production, the rig's
 * `bench-limits.yaml` (limits so high nothing is refused), one static client key, a store file of
 * its own, and every family's upstream at `upstream` (the rig's mock).
 */
import { join } from 'node:path';

export interface ServeSetting {
  port: number;
  database: string;
  upstream: string;
  rig: string;
  clientKey: string;
}

export function serveEnvironment(setting: ServeSetting): Record<string, string> {
  const { upstream } = setting;
  return {
    NODE_ENV: 'production',
    PORT: String(setting.port),
    HOST: '127.0.0.1',
    MODELGATE_KEYS: setting.clientKey,
    MODELGATE_DB: setting.database,
    MODELGATE_CONFIG: join(setting.rig, 'bench-limits.yaml'),
    ALPHA_BASE_URL: upstream,
    ALPHA_API_KEY: 'sk-mock',
    BETA_BASE_URL: upstream,
    BETA_API_KEY: 'sk-ant-mock',
    GAMMA_BASE_URL: upstream,
    GAMMA_API_KEY: 'g-mock',
  };
}
