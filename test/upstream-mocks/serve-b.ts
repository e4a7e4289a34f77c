/**
 * Runs one of this kit's strict mocks by hand: `node test/upstream-mocks/serve-b.ts <vendor> [--port N]`
 * (vendors: anthropic, bedrock, gemini, vertex). Prints the URL (and for Vertex the service-account key
 * file it trusts; for Bedrock the test credentials and API key) and serves until interrupted.
 */
import { writeFileSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startAnthropicMock } from './anthropic/index.ts';
import { startBedrockMock, testCredentials } from './bedrock/index.ts';
import { startGeminiMock } from './gemini/index.ts';
import type { MockUpstream } from './kit-b/server.ts';
import { startVertexMock } from './vertex/index.ts';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { port: { type: 'string' } } });
const vendor = positionals[0];
const starters: Record<string, () => Promise<MockUpstream>> = {
  anthropic: () => startAnthropicMock({ apiKey: process.env.MOCK_API_KEY ?? 'sk-ant-mock-key' }),
  bedrock: async () => {
    const apiKey = process.env.MOCK_API_KEY ?? 'ABSKbW9jay1iZWRyb2NrLWFwaS1rZXk=';
    const mock = await startBedrockMock({ apiKey });
    console.log(
      `SigV4: ${testCredentials.accessKeyId} / ${testCredentials.secretAccessKey} (us-east-1); API key: ${apiKey}`,
    );
    return mock;
  },
  gemini: () => startGeminiMock({ apiKey: process.env.MOCK_API_KEY ?? 'AIza-mock-gemini-key' }),
  vertex: async () => {
    const mock = await startVertexMock({ projectId: process.env.MOCK_PROJECT ?? 'mock-project' });
    const keyFile = join(tmpdir(), `vertex-mock-key-${process.pid}.json`);
    writeFileSync(keyFile, JSON.stringify(mock.serviceAccountKey, null, 2), { mode: 0o600 });
    console.log(`service-account key: ${keyFile} (project ${mock.projectId})`);
    return mock;
  },
};
const start = vendor === undefined ? undefined : starters[vendor];
if (!start) {
  console.error(`usage: node test/upstream-mocks/serve-b.ts <${Object.keys(starters).join('|')}> [--port N]`);
  process.exit(2);
}
const mock = await start();
let url = mock.url;
if (values.port !== undefined) {
  // The mocks listen on an ephemeral port; a fixed one is a plain relay in front of it.
  const target = new URL(mock.url);
  const relay = createServer((incoming, outgoing) => {
    const proxied = forward(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => relay.listen(Number(values.port), '127.0.0.1', resolve));
  url = `http://127.0.0.1:${values.port}`;
}
console.log(`${vendor ?? ''} mock listening on ${url}`);
process.on('SIGINT', () => void mock.close().then(() => process.exit(0)));
