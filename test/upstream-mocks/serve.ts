/**
 * Runs one strict vendor mock by hand: `node test/upstream-mocks/serve.ts <vendor> [--port N]`
 * (vendors: openai, azure-openai, anthropic, gemini, vertex, bedrock), prints its URL and what a
 * client needs to reach it (keys, credentials; for Vertex the service-account key file it trusts),
 * and serves until interrupted. `MOCK_API_KEY` overrides the key of the key-based mocks. Each
 * vendor is one row of the table.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startAnthropicMock } from './anthropic/index.ts';
import {
  defaultAzureDeployments,
  defaultAzureEntraToken,
  defaultAzureMockKey,
  startAzureOpenAIMock,
} from './azure-openai/mock.ts';
import { startBedrockMock, testCredentials } from './bedrock/index.ts';
import { startGeminiMock } from './gemini/index.ts';
import type { MockUpstream } from './kit/server.ts';
import { defaultOpenAIMockKey, startOpenAIMock } from './openai/mock.ts';
import { startVertexMock } from './vertex/index.ts';

interface RunningMock {
  mock: MockUpstream;
  /** What a person needs to point a client at the mock. */
  description: string;
  /** Files written for the person (removed when the mock stops). */
  files?: string[];
}

type Port = number | undefined;

const keyed = process.env.MOCK_API_KEY;

const vendors: Record<string, (port: Port) => Promise<RunningMock>> = {
  openai: async (port) => {
    const apiKey = keyed ?? defaultOpenAIMockKey;
    const mock = await startOpenAIMock({ port, apiKey });
    return { mock, description: `base URL ${mock.url}/v1, API key ${apiKey}` };
  },
  'azure-openai': async (port) => {
    const mock = await startAzureOpenAIMock({ port });
    return {
      mock,
      description:
        `endpoint ${mock.url}, api-key ${defaultAzureMockKey}, Entra token ${defaultAzureEntraToken}, ` +
        `deployments ${JSON.stringify(defaultAzureDeployments)}`,
    };
  },
  anthropic: async (port) => {
    const apiKey = keyed ?? 'sk-ant-mock-key';
    return { mock: await startAnthropicMock({ port, apiKey }), description: `x-api-key ${apiKey}` };
  },
  gemini: async (port) => {
    const apiKey = keyed ?? 'AIza-mock-gemini-key';
    return { mock: await startGeminiMock({ port, apiKey }), description: `x-goog-api-key ${apiKey}` };
  },
  vertex: async (port) => {
    const mock = await startVertexMock({ port, projectId: process.env.MOCK_PROJECT ?? 'mock-project' });
    const keyFile = join(tmpdir(), `vertex-mock-key-${process.pid}.json`);
    writeFileSync(keyFile, JSON.stringify(mock.serviceAccountKey, null, 2), { mode: 0o600 });
    return {
      mock,
      description: `service-account key: ${keyFile} (project ${mock.projectId})`,
      files: [keyFile],
    };
  },
  bedrock: async (port) => {
    const apiKey = keyed ?? 'ABSKbW9jay1iZWRyb2NrLWFwaS1rZXk=';
    const mock = await startBedrockMock({ port, apiKey });
    const { accessKeyId, secretAccessKey } = testCredentials;
    return {
      mock,
      description: `SigV4: ${accessKeyId} / ${secretAccessKey} (us-east-1); API key: ${apiKey}`,
    };
  },
};

const { positionals, values } = parseArgs({ allowPositionals: true, options: { port: { type: 'string' } } });
const vendor = positionals[0] ?? '';
const start = vendors[vendor];
if (start === undefined) {
  process.stderr.write(
    `usage: node test/upstream-mocks/serve.ts <${Object.keys(vendors).join('|')}> [--port N]\n`,
  );
  process.exit(2);
}
const {
  mock,
  description,
  files = [],
} = await start(values.port === undefined ? undefined : Number(values.port));
process.stdout.write(`${vendor} mock listening on ${mock.url}\n${description}\n`);
const stop = (): void =>
  void mock.close().then(() => {
    for (const file of files) rmSync(file, { force: true });
    process.exit(0);
  });
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
