/**
 * Claude Code (`claude -p`) through modelgate's Family B surface, unchanged: ANTHROPIC_BASE_URL and
 * ANTHROPIC_API_KEY, the model chosen with `--model` (what a user does for a gateway model id; the
 * same as ANTHROPIC_MODEL) or, with no model chosen, its own default names mapped by a prefix alias
 * (`claude-*`) in the gateway's config. A text answer, and a loop through its own Read tool on a real file.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertCleanRun, assertLedger } from '../harness/assertions.ts';
import { claudeCode } from '../harness/client-setup.ts';
import { clientBin, newFolder } from '../harness/run-client.ts';
import { startStage, type Stage } from '../harness/stage.ts';

const models = ['B-1', 'C-1', 'A-2'];
const timeoutMs = 120_000;
let stage: Stage;

before(async () => {
  // A user who keeps Claude Code's own model names maps them all to a catalog model with one prefix
  // alias in the config file (whichever `claude-…` ids this version asks for by default).
  stage = await startStage({ aliases: { 'claude-*': 'B-2' } });
});
after(async () => {
  await stage.stop();
});

for (const model of models) {
  test(`claude -p answers in text on ${model}`, async () => {
    const setup = claudeCode(stage.url);
    const result = await stage.run({
      name: `claude-text-${model}`,
      command: clientBin('claude'),
      args: ['-p', 'Say hello in one short sentence.', '--model', model],
      env: setup.env,
      homeFiles: setup.homeFiles,
      timeoutMs,
    });
    assertCleanRun(result);
    assert.match(result.run.stdout, new RegExp(`Simulated reply from ${model}:`), result.explain());
    assert.ok(
      result.exchanges.every(
        (exchange) => exchange.path.startsWith('/v1/messages') && exchange.stream === true,
      ),
      result.explain(),
    );
    await assertLedger(result, 'beta', model);
  });

  test(`claude -p reads a file with its Read tool and answers from it on ${model}`, async () => {
    const work = newFolder('claude-work');
    const notes = join(work, 'notes.txt');
    writeFileSync(notes, 'The launch code is kiwi-4417.\n');
    const setup = claudeCode(stage.url);
    const result = await stage.run({
      name: `claude-read-${model}`,
      command: clientBin('claude'),
      // The simulated model calls the named tool with the JSON that follows the name.
      args: ['-p', `Read ${JSON.stringify({ file_path: notes })}`, '--model', model],
      env: setup.env,
      homeFiles: setup.homeFiles,
      cwd: work,
      timeoutMs,
    });
    assertCleanRun(result);
    // The file's text can only reach the answer through the tool result Claude Code sent back.
    assert.match(result.run.stdout, /the tool Read returned .*kiwi-4417/, result.explain());
    assert.ok(result.exchanges.length >= 2, result.explain());
    await assertLedger(result, 'beta', model);
  });
}

test(`claude -p with no model chosen reaches the catalog model its default names are aliased to`, async () => {
  const setup = claudeCode(stage.url);
  const result = await stage.run({
    name: 'claude-text-default-model',
    command: clientBin('claude'),
    args: ['-p', 'Say hello in one short sentence.'],
    env: setup.env,
    homeFiles: setup.homeFiles,
    timeoutMs,
  });
  assertCleanRun(result);
  // The simulated upstream names the model it was called as: the catalog model behind the alias.
  assert.match(result.run.stdout, /Simulated reply from B-2:/, result.explain());
  assert.ok(
    result.exchanges.every((exchange) => exchange.model?.startsWith('claude-') === true),
    result.explain(),
  );
  await assertLedger(result, 'beta', 'B-2');
});
