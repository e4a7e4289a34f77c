/**
 * What `bin/modelgate.js` holds back while `serve` starts, let go once the server listens:
 *
 * - The young generation's growth. Start-up (modules, config, the tokenizer's vocabulary)
 *   allocates in one burst that would grow it to its working size before any request, and its
 *   pages would stay in the idle process's RSS (~7 MiB). `--semi-space-growth-factor=1`, a flag V8
 *   reads at each resize, holds it at its initial size; from here on it grows as traffic needs.
 * - The compilers above the interpreter (Sparkplug, Maglev, TurboFan). Start-up's hot loops (the
 *   vocabulary's parse, the module loader, the config's validation) would have them compile code
 *   that never runs again, and that leaves ~13 MiB in the idle process: the compilers' own machine
 *   code paged in from the node binary (~6 MiB), their freed working memory, which the allocator
 *   keeps (~5 MiB), and Sparkplug's code (~0.7 MiB). Without them the vocabulary loads in ~0.2 s
 *   instead of ~0.07 s (bench/README.md, "Memory"); flags V8 reads at each tiering decision, so
 *   every request's code is compiled as before. Node's own bootstrap runs before the bin's first
 *   line, so the bin's re-execution also starts V8 with empty Maglev and TurboFan filters.
 *
 * A flag of the operator's own (command line or NODE_OPTIONS) is left alone, here and in the bin.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's own `--semi-space-growth-factor` (see `node --v8-options`). */
const v8DefaultGrowthFactor = 2;

/** The Node flags the operator gave: the same test `bin/modelgate.js` makes before holding any back. */
function operatorFlags(): string {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
}

export function operatorSetGrowthFactor(): boolean {
  return operatorFlags().includes('--semi-space-growth-factor');
}

/** Any tiering flag of the operator's (`--no-opt`, `--max-opt=…`, `--maglev`, `--no-turbofan`, …). */
export function operatorSetTiering(): boolean {
  return /--(no-)?(opt|turbofan|maglev|sparkplug)\b|--max-opt\b/.test(operatorFlags());
}

/** Start-up is over: the young generation may grow and the optimizing compilers run again. */
export function endStartUp(): void {
  if (!operatorSetGrowthFactor()) setFlagsFromString(`--semi-space-growth-factor=${v8DefaultGrowthFactor}`);
  if (!operatorSetTiering()) {
    setFlagsFromString('--maglev');
    setFlagsFromString('--turbofan');
    setFlagsFromString('--sparkplug');
    // V8's defaults: every function may be compiled by either (the bin may have started with none).
    setFlagsFromString('--maglev-filter=*');
    setFlagsFromString('--turbo-filter=*');
  }
}
