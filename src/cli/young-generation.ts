/**
 * Start-up (modules, config, the tokenizer's vocabulary) allocates in one burst that would grow
 * V8's young generation to its working size before any request, and its pages would stay in the
 * idle process's RSS (~7 MiB). `bin/modelgate.js` holds the young generation at its initial size
 * for `serve` (`--semi-space-growth-factor=1`, a flag V8 reads at each resize); once the server
 * listens it may grow again, as traffic needs. A growth factor of the operator's own is left alone.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's own `--semi-space-growth-factor` (see `node --v8-options`). */
const v8DefaultGrowthFactor = 2;

export function operatorSetGrowthFactor(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? '']
    .join(' ')
    .includes('--semi-space-growth-factor');
}

/** Lets the young generation grow again (after `bin/modelgate.js` held it for start-up). */
export function letYoungGenerationGrow(): void {
  if (!operatorSetGrowthFactor()) setFlagsFromString(`--semi-space-growth-factor=${v8DefaultGrowthFactor}`);
}
