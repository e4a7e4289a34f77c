/** Starts a real gateway on a free port with a temp database, as a user would run it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { startGateway, type GatewayOptions, type RunningGateway } from '../../src/server/start-gateway.ts';

export const testClientKey = 'mg-test-client-key-0123456789';

export interface TestGateway extends RunningGateway {
  key: string;
  /** Log lines the gateway wrote. */
  logs: string[];
}

export async function startTestGateway(
  environment: Record<string, string> = {},
  configPath?: string,
  options: GatewayOptions = {},
): Promise<TestGateway> {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-test-'));
  const config = loadConfig(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      MODELGATE_KEYS: testClientKey,
      // Most suites are about something else than rate limits: the test key says so explicitly
      // (static keys are limited like any other unless the config declares them unlimited).
      MODELGATE_UNLIMITED_KEYS: 'static-1',
      // Suites point one family at a recording upstream and let the simulator serve the others, which
      // a real upstream configured turns off unless asked for (a suite about that sets it to '').
      MODELGATE_SIMULATOR: '1',
      MODELGATE_DB: join(directory, 'test.db'),
      LOG_LEVEL: 'info',
      ...environment,
    },
    configPath,
  );
  const logs: string[] = [];
  const secrets = [
    ...config.staticKeys,
    ...Object.values(config.upstreams).flatMap((upstream) =>
      upstream.apiKey === undefined ? [] : [upstream.apiKey],
    ),
  ];
  const gateway = await startGateway(
    config,
    createLogger(config.logLevel, secrets, (line) => logs.push(line)),
    options,
  );
  return {
    ...gateway,
    key: testClientKey,
    logs,
    close: async () => {
      await gateway.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
