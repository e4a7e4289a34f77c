/**
 * LangChain JS chat models, unchanged: ChatOpenAI, ChatAnthropic and ChatGoogleGenerativeAI, each
 * configured by its package's own variables (Google's base URL is a constructor option), each on
 * a model of every family: invoke, stream and a bindTools round trip (programs/langchain.ts).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertCleanRun, assertLedger, lastJsonLine } from '../harness/assertions.ts';
import { anthropicSdkEnv, openAiSdkEnv } from '../harness/client-setup.ts';
import { clientKey } from '../harness/gateway.ts';
import { clientsRoot } from '../harness/run-client.ts';
import { startStage, type Stage } from '../harness/stage.ts';

interface LangChainReport {
  invoke: string;
  stream: { chunks: number; text: string };
  tools: { calls: Array<{ name: string; args: unknown }>; answer: string };
}

interface ClassCase {
  className: string;
  surface: string;
  env: (url: string) => Record<string, string>;
  /** Every path the class may call for `model`. */
  paths: (model: string) => readonly string[];
}

const classes: readonly ClassCase[] = [
  {
    className: 'ChatOpenAI',
    surface: 'alpha',
    env: openAiSdkEnv,
    paths: () => ['/v1/chat/completions'],
  },
  {
    className: 'ChatAnthropic',
    surface: 'beta',
    env: anthropicSdkEnv,
    paths: () => ['/v1/messages'],
  },
  {
    className: 'ChatGoogleGenerativeAI',
    surface: 'gamma',
    env: (url) => ({ GOOGLE_BASE_URL: url, GOOGLE_API_KEY: clientKey }),
    paths: (model) => [
      `/v1beta/models/${model}:generateContent`,
      `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
    ],
  },
];
const models = ['A-2', 'B-1', 'C-1'];
let stage: Stage;

before(async () => {
  stage = await startStage();
});
after(async () => {
  await stage.stop();
});

for (const chat of classes) {
  for (const model of models) {
    test(`LangChain ${chat.className} invokes, streams and calls a bound tool on ${model}`, async () => {
      const result = await stage.run({
        name: `langchain-${chat.className}-${model}`,
        command: process.execPath,
        args: [join(clientsRoot, 'programs/langchain.ts')],
        env: { ...chat.env(stage.url), LANGCHAIN_CLASS: chat.className, LANGCHAIN_MODEL: model },
        timeoutMs: 60_000,
      });
      assertCleanRun(result);
      const report = lastJsonLine(result) as LangChainReport;
      const explain = `${JSON.stringify(report)}\n${result.explain()}`;
      assert.match(
        report.invoke,
        new RegExp(`^Simulated reply from ${model}: Say hello to LangChain\\.`),
        explain,
      );
      assert.ok(report.stream.chunks > 5, explain);
      assert.match(report.stream.text, new RegExp(`^Simulated reply from ${model}: Stream a hello`), explain);
      assert.deepEqual(
        report.tools.calls.map((call) => call.name),
        ['get_weather'],
        explain,
      );
      // C carries a function's result as an object, so ChatGoogleGenerativeAI wraps the text in one.
      assert.match(report.tools.answer, /the tool get_weather returned .*forecast-7421/, explain);
      const allowed = chat.paths(model);
      assert.ok(
        result.exchanges.every((exchange) => allowed.includes(exchange.path)),
        explain,
      );
      await assertLedger(result, chat.surface, model);
    });
  }
}
