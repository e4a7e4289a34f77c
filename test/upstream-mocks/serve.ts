/**
 * Runs one strict vendor mock by hand: `node test/upstream-mocks/serve.ts <vendor> [--port N]`, prints its
 * URL and the credentials it accepts, and serves until interrupted. Each vendor is one row of the table.
 */
import { parseArgs } from 'node:util';
import {
  defaultAzureDeployments,
  defaultAzureEntraToken,
  defaultAzureMockKey,
  startAzureOpenAIMock,
} from './azure-openai/mock.ts';
import type { MockUpstream } from './kit/mock-server.ts';
import { defaultOpenAIMockKey, startOpenAIMock } from './openai/mock.ts';

interface VendorEntry {
  start: (port: number | undefined) => Promise<MockUpstream>;
  /** What a person needs to point a client at the mock. */
  describe: (url: string) => string;
}

const vendors: Record<string, VendorEntry> = {
  openai: {
    start: (port) => startOpenAIMock({ port }),
    describe: (url) => `base URL ${url}/v1, API key ${defaultOpenAIMockKey}`,
  },
  'azure-openai': {
    start: (port) => startAzureOpenAIMock({ port }),
    describe: (url) =>
      `endpoint ${url}, api-key ${defaultAzureMockKey}, Entra token ${defaultAzureEntraToken}, ` +
      `deployments ${JSON.stringify(defaultAzureDeployments)}`,
  },
};

const { positionals, values } = parseArgs({ allowPositionals: true, options: { port: { type: 'string' } } });
const vendor = positionals[0] ?? '';
const entry = vendors[vendor];
if (entry === undefined) {
  process.stderr.write(
    `usage: node test/upstream-mocks/serve.ts <${Object.keys(vendors).join('|')}> [--port N]\n`,
  );
  process.exit(2);
}
const mock = await entry.start(values.port === undefined ? undefined : Number(values.port));
process.stdout.write(`${vendor} mock listening on ${mock.url}\n${entry.describe(mock.url)}\n`);
const stop = (): void => void mock.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
