/**
 * Codex CLI (`codex exec`) through modelgate's Responses API (streamed), unchanged: a custom model
 * provider in `$HOME/.codex/config.toml` whose base URL is modelgate's `/v1`, and OPENAI_API_KEY.
 * A text answer, and a loop through its own exec_command tool (run in its read-only sandbox).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertCleanRun, assertLedger } from '../harness/assertions.ts';
import { codexCli, codexGatewayConfig } from '../harness/client-setup.ts';
import { clientBin, newFolder } from '../harness/run-client.ts';
import { startStage, type Stage } from '../harness/stage.ts';

const models = ['A-2', 'B-1', 'C-1'];
const timeoutMs = 120_000;
let stage: Stage;

before(async () => {
  stage = await startStage(codexGatewayConfig);
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
    // Codex sends its hosted web search; the gateway leaves it out and says so.
    const searching = result.exchanges.filter((exchange) => exchange.toolTypes.includes('web_search'));
    assert.ok(searching.length > 0, `Codex declared web_search: ${result.explain()}`);
    assert.ok(
      searching.every((exchange) => exchange.status === 200 && /web_search/.test(exchange.warning ?? '')),
      result.explain(),
    );
    await assertLedger(result, 'responses', model);
  });

  test(`codex exec runs a command with its exec_command tool and answers from its output on ${model}`, async () => {
    const work = newFolder('codex-work');
    const notes = join(work, 'notes.txt');
    writeFileSync(notes, 'The launch code is kiwi-4417.\n');
    const setup = codexCli(stage.url, model);
    const result = await stage.run({
      name: `codex-tool-${model}`,
      command: clientBin('codex'),
      // The simulated model calls the named tool with the JSON that follows the name.
      args: ['exec', '--skip-git-repo-check', `exec_command ${JSON.stringify({ cmd: `cat ${notes}` })}`],
      env: setup.env,
      homeFiles: setup.homeFiles,
      cwd: work,
      timeoutMs,
    });
    assertCleanRun(result);
    // The file's text reaches the answer only through the command's output Codex sent back.
    assert.match(result.run.stdout, /the tool exec_command returned .*kiwi-4417/, result.explain());
    assert.equal(result.exchanges.length, 2, result.explain());
    await assertLedger(result, 'responses', model);
  });
}
