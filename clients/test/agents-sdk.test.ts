/**
 * The OpenAI Agents SDK, unchanged, configured by OPENAI_BASE_URL and OPENAI_API_KEY only: its
 * default Responses API and its chat-completions mode, one function tool, a plain and a streamed
 * run (programs/agents-sdk.ts is the user's program).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertCleanRun, assertLedger, lastJsonLine } from '../harness/assertions.ts';
import { openAiSdkEnv } from '../harness/client-setup.ts';
import { clientsRoot } from '../harness/run-client.ts';
import { startStage, type Stage } from '../harness/stage.ts';

interface AgentsReport {
  plain: { toolCalls: string[]; finalOutput: string };
  streamed: { toolCalls: string[]; text: string; finalOutput: string };
}

const modes = [
  { api: 'responses', path: '/v1/responses', surface: 'responses' },
  { api: 'chat_completions', path: '/v1/chat/completions', surface: 'alpha' },
] as const;
const models = ['A-2', 'B-1', 'C-1'];
let stage: Stage;

before(async () => {
  stage = await startStage();
});
after(async () => {
  await stage.stop();
});

for (const mode of modes) {
  for (const model of models) {
    test(`Agents SDK (${mode.api}) runs a function tool on ${model}, plain and streamed`, async () => {
      const result = await stage.run({
        name: `agents-${mode.api}-${model}`,
        command: process.execPath,
        args: [join(clientsRoot, 'programs/agents-sdk.ts')],
        env: {
          ...openAiSdkEnv(stage.url),
          OPENAI_AGENTS_DISABLE_TRACING: '1',
          AGENT_MODEL: model,
          AGENT_API: mode.api,
        },
        timeoutMs: 60_000,
      });
      assertCleanRun(result);
      const report = lastJsonLine(result) as AgentsReport;
      const explain = `${JSON.stringify(report)}\n${result.explain()}`;
      assert.equal(report.plain.toolCalls.length, 1, explain);
      assert.match(report.plain.finalOutput, /the tool get_weather returned forecast-7421/, explain);
      assert.equal(report.streamed.toolCalls.length, 1, explain);
      assert.match(report.streamed.text, /the tool get_weather returned forecast-7421/, explain);
      assert.equal(
        report.streamed.finalOutput,
        report.streamed.text.replace(/^Calling get_weather\./, ''),
        explain,
      );
      assert.ok(
        result.exchanges.every((exchange) => exchange.path === mode.path && exchange.model === model),
        explain,
      );
      assert.deepEqual(
        result.exchanges.map((exchange) => exchange.stream ?? false),
        [false, false, true, true],
        explain,
      );
      await assertLedger(result, mode.surface, model);
    });
  }
}
