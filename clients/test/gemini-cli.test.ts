/**
 * Gemini CLI (`gemini -p`) through modelgate's Family C surface, unchanged: GOOGLE_GEMINI_BASE_URL
 * and GEMINI_API_KEY, the model chosen with `-m`. A text answer, a loop through its own read_file
 * tool on a real file, and a prompt holding a picture (Gemini CLI counts its tokens first).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertCleanRun, assertLedger } from '../harness/assertions.ts';
import { geminiCli } from '../harness/client-setup.ts';
import { clientBin, newFolder } from '../harness/run-client.ts';
import { startStage, type Stage } from '../harness/stage.ts';

const models = ['C-1', 'B-1', 'A-2'];
/** A 1×1 PNG. */
const pixel = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const timeoutMs = 120_000;
let stage: Stage;

before(async () => {
  stage = await startStage();
});
after(async () => {
  await stage.stop();
});

for (const model of models) {
  test(`gemini -p answers in text on ${model}`, async () => {
    const setup = geminiCli(stage.url);
    const result = await stage.run({
      name: `gemini-text-${model}`,
      command: clientBin('gemini'),
      args: ['-p', 'Say hello in one short sentence.', '-m', model],
      env: setup.env,
      homeFiles: setup.homeFiles,
      timeoutMs,
    });
    assertCleanRun(result);
    assert.match(result.run.stdout, new RegExp(`Simulated reply from ${model}:`), result.explain());
    assert.ok(
      result.exchanges.every((exchange) => exchange.path.startsWith(`/v1beta/models/${model}:`)),
      result.explain(),
    );
    await assertLedger(result, 'gamma', model);
  });

  test(`gemini -p reads a file with its read_file tool and answers from it on ${model}`, async () => {
    const work = newFolder('gemini-work');
    const notes = join(work, 'notes.txt');
    writeFileSync(notes, 'The launch code is kiwi-4417.\n');
    const setup = geminiCli(stage.url);
    const result = await stage.run({
      name: `gemini-read-${model}`,
      command: clientBin('gemini'),
      args: ['-p', `read_file ${JSON.stringify({ file_path: notes })}`, '-m', model],
      env: setup.env,
      homeFiles: setup.homeFiles,
      cwd: work,
      timeoutMs,
    });
    assertCleanRun(result);
    assert.match(result.run.stdout, /the tool read_file returned .*kiwi-4417/, result.explain());
    assert.ok(result.exchanges.length >= 2, result.explain());
    await assertLedger(result, 'gamma', model);
  });

  test(`gemini -p with a picture in the prompt counts its tokens, then answers, on ${model}`, async () => {
    const work = newFolder('gemini-picture');
    writeFileSync(join(work, 'pixel.png'), pixel);
    const setup = geminiCli(stage.url);
    const result = await stage.run({
      name: `gemini-picture-${model}`,
      command: clientBin('gemini'),
      args: ['-p', 'Describe the picture @pixel.png', '-m', model],
      env: setup.env,
      homeFiles: setup.homeFiles,
      cwd: work,
      timeoutMs,
    });
    assertCleanRun(result);
    assert.match(result.run.stdout, new RegExp(`Simulated reply from ${model}:`), result.explain());
    assert.deepEqual(
      result.exchanges.map((exchange) => exchange.path),
      [`/v1beta/models/${model}:countTokens`, `/v1beta/models/${model}:streamGenerateContent?alt=sse`],
      result.explain(),
    );
    await assertLedger(result, 'gamma', model);
  });
}
