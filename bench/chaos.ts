/**
 * `npm run chaos`: the chaos scenarios with the full profile (the short one runs inside
 * `npm test`). Prints each scenario's figures and PASS/FAIL; exit code 1 when any failed.
 *
 *   CHAOS_SOAK_SECONDS=600 npm run chaos     # the 10-minute soak (default 60 s)
 *   CHAOS_ONLY=soak npm run chaos            # only the scenarios whose name contains the text
 *
 * Names: retry-burst, family-down, disconnect-storm, overload, error-flood, soak, slot-hog,
 * body-flood, and the upstream-side probes cpu and upstream-memory (hostile-probes.ts).
 */
import { cpuProbe, upstreamMemoryProbe } from '../test/chaos/hostile-probes.ts';
import { formatResult, fullProfile, scenarios, type ScenarioResult } from '../test/chaos/scenarios.ts';

const only = process.env.CHAOS_ONLY;
const started = performance.now();
const results: ScenarioResult[] = [];
console.log(`modelgate chaos, full profile (soak ${fullProfile.soakSeconds} s)\n`);
const probes = [
  { name: 'cpu', run: cpuProbe },
  { name: 'upstream-memory', run: upstreamMemoryProbe },
];
for (const scenario of [...scenarios, ...probes]) {
  if (only !== undefined && !scenario.name.includes(only)) continue;
  const outcome = await scenario.run(fullProfile);
  results.push(outcome);
  console.log(`[${scenario.name}] ${formatResult(outcome)}\n`);
}
const failed = results.filter((outcome) => !outcome.pass);
const seconds = Math.round((performance.now() - started) / 100) / 10;
console.log(`${results.length - failed.length}/${results.length} scenarios passed in ${seconds} s`);
process.exitCode = failed.length === 0 ? 0 : 1;
