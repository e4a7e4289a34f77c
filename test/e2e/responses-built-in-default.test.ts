/**
 * Codex CLI unchanged by default: it sends its hosted `web_search` tool with every Responses
 * request. With no configuration a tool the request only offers is left out and named in a
 * `warning` header; one `tool_choice` forces is a 400 naming it; `responses.builtInTools: reject`
 * keeps the strict behaviour (any built-in tool is a 400).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const shell = {
  type: 'function' as const,
  name: 'shell',
  description: 'Run a command',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  strict: false,
};

async function refusalOf(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(caught instanceof OpenAI.APIError, String(caught));
  return caught;
}

describe('no configuration (responses.builtInTools: drop-unless-forced)', () => {
  let gateway: TestGateway;
  let client: OpenAI;

  before(async () => {
    gateway = await startTestGateway({ LOG_LEVEL: 'silent' });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });

  after(async () => {
    await gateway.close();
  });

  for (const model of ['A-2', 'B-1', 'C-1']) {
    test(`${model}: a Codex-style request (web_search offered beside its function tools) runs; the warning names web_search`, async () => {
      const { data: stream, response } = await client.responses
        .create({
          model,
          input: 'Use shell to list the files',
          tools: [shell, { type: 'web_search' }],
          tool_choice: 'auto',
          parallel_tool_calls: false,
          stream: true,
        })
        .withResponse();
      assert.match(
        response.headers.get('warning') ?? '',
        /built-in tools dropped \(responses\.builtInTools: drop-unless-forced\): web_search/,
      );
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
      const call = completed?.output.find((item) => item.type === 'function_call');
      assert.equal(call?.type === 'function_call' ? call.name : undefined, 'shell');
    });
  }

  test('a built-in tool tool_choice forces is a 400 naming it', async () => {
    const error = await refusalOf(
      client.responses.create({
        model: 'A-2',
        input: 'Search the web',
        tools: [{ type: 'web_search_preview' }],
        tool_choice: { type: 'web_search_preview' },
      }),
    );
    assert.equal(error.status, 400);
    assert.equal(error.param, 'tool_choice.type');
    assert.match(error.message, /"web_search_preview" is a built-in tool/);
  });
});

describe('responses.builtInTools: reject', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  let config: { path: string; remove(): void };

  before(async () => {
    config = writeTempConfig('reject.yaml', 'responses:\n  builtInTools: reject\n');
    gateway = await startTestGateway({ LOG_LEVEL: 'silent' }, config.path);
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });

  after(async () => {
    await gateway.close();
    config.remove();
  });

  test('an offered built-in tool is a 400 naming it, as before', async () => {
    const error = await refusalOf(
      client.responses.create({ model: 'B-1', input: 'Search', tools: [shell, { type: 'web_search' }] }),
    );
    assert.equal(error.status, 400);
    assert.equal(error.param, 'tools[1].type');
    assert.match(error.message, /"web_search" is a built-in tool/);
  });
});
