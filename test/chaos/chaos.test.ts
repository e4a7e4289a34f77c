/**
 * The chaos scenarios, short profile (the full one: `npm run chaos`). Each prints its figures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  disconnectStorm,
  errorFlood,
  familyDown,
  formatResult,
  overloadShedding,
  retryBurst,
  shortProfile,
  soak,
  type Scenario,
} from './scenarios.ts';
import { bodyFlood, slotHog } from './hostile-client-scenarios.ts';

function run(name: string, scenario: Scenario): void {
  test(name, async (context) => {
    const outcome = await scenario(shortProfile);
    for (const line of formatResult(outcome).split('\n')) context.diagnostic(line);
    assert.deepEqual(outcome.problems, [], formatResult(outcome));
  });
}

run('retries recover a 503 burst with no client-visible error', retryBurst);
run('a whole family down: the fallback of another family answers', familyDown);
run('200 concurrent streams with client disconnects leave no upstream call open', disconnectStorm);
run('5× the in-flight cap is shed at once while admitted streams complete', overloadShedding);
run('1000 upstream error responses keep upstream sockets within the pool', errorFlood);
run('soak: heap after GC within 20% of its start', soak);
run('one key hogging slots with slow uploads: held to its share, another key served', slotHog);
run('unfinished large bodies: the excess refused at once, RSS bounded', bodyFlood);
