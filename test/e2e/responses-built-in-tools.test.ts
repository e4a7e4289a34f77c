/**
 * `responses.builtInTools: drop`: a request that carries the provider's built-in tools (as Codex CLI
 * sends `web_search` unless told not to) runs on every family, the built-ins left out and named in
 * a `warning` header (the default, `drop-unless-forced`, and `reject`: responses-built-in-default.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let directory: string;
let gateway: TestGateway;
let client: OpenAI;

before(async () => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-built-in-'));
  const configPath = join(directory, 'modelgate.yaml');
  writeFileSync(configPath, 'responses:\n  builtInTools: drop\n');
  gateway = await startTestGateway({ LOG_LEVEL: 'silent' }, configPath);
  client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

const shell = {
  type: 'function' as const,
  name: 'shell',
  description: 'Run a command',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  strict: false,
};

for (const model of ['A-2', 'B-1', 'C-1']) {
  test(`${model}: web_search beside a function tool: the function tool is called, the warning names web_search`, async () => {
    const { data: stream, response } = await client.responses
      .create({
        model,
        input: 'Use shell to list the files',
        tools: [{ type: 'web_search' }, shell],
        stream: true,
      })
      .withResponse();
    assert.match(
      response.headers.get('warning') ?? '',
      /built-in tools dropped \(responses\.builtInTools: drop\): web_search/,
    );
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    const call = completed?.output.find((item) => item.type === 'function_call');
    assert.equal(call?.type === 'function_call' ? call.name : undefined, 'shell');
  });
}
