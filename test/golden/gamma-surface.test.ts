/**
 * Golden transcripts for the gamma surface against every family, streaming and not: tool calls
 * (single, parallel, after text), tool results (error and image included), image input, and a
 * cached system prompt. See kit.ts for what is recorded and how to update.
 */
import { after, before, describe, test } from 'node:test';
import { familyIds, type FamilyId } from '../../src/ir/index.ts';
import { checkSemantics, exchange, GoldenFile, startRig, type Rig } from './kit.ts';
import { scenarioNames, type ScenarioName } from './scenarios.ts';

const surface: FamilyId = 'gamma';
const scenarios: readonly ScenarioName[] = scenarioNames;

let rig: Rig;
before(async () => {
  rig = await startRig();
});
after(async () => {
  await rig.close();
});

for (const family of familyIds) {
  describe(`${surface} surface → ${family} model`, () => {
    const golden = new GoldenFile(surface, family);
    for (const scenario of scenarios) {
      for (const stream of [false, true]) {
        const name = `${scenario}/${stream ? 'stream' : 'json'}`;
        test(name, async () => {
          const result = await exchange(rig, scenario, surface, family, stream);
          checkSemantics(scenario, surface, family, result);
          golden.check(name, result.transcript);
        });
      }
    }
    test('every recorded transcript was replayed', async () => {
      await golden.finish();
    });
  });
}
