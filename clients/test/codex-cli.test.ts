/**
 * Codex CLI (`codex exec`) through modelgate's Responses API (streamed), unchanged: a custom model
 * provider in `$HOME/.codex/config.toml` whose base URL is modelgate's `/v1`, and OPENAI_API_KEY.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertCleanRun, assertLedger } from '../harness/assertions.ts';
import { codexCli } from '../harness/client-setup.ts';
import { clientBin } from '../harness/run-client.ts';
import { startStage, type Stage } from '../harness/stage.ts';

const models = ['A-2', 'B-1', 'C-1'];
const timeoutMs = 120_000;
let stage: Stage;

before(async () => {
  stage = await startStage();
});
after(async () => {
  await stage.stop();
});

for (const model of models) {
  test(`codex exec answers in text on ${model}`, async () => {
    const setup = codexCli(stage.url, model);
    const result = await stage.run({
      name: `codex-text-${model}`,
      command: clientBin('codex'),
      args: ['exec', '--skip-git-repo-check', 'Say hello in one short sentence.'],
      env: setup.env,
      homeFiles: setup.homeFiles,
      timeoutMs,
    });
    assertCleanRun(result);
    assert.match(result.run.stdout, new RegExp(`Simulated reply from ${model}:`), result.explain());
    assert.ok(
      result.exchanges.every((exchange) => exchange.path === '/v1/responses' && exchange.stream === true),
      result.explain(),
    );
    await assertLedger(result, 'responses', model);
  });
}
