/**
 * The server-side scripts of the Redis store, written in Lua in `lua/` next to this file and run
 * through node-redis's own script support (`createClient({ scripts })`: EVALSHA, with EVAL when
 * the server answers NOSCRIPT). Each runs atomically on the server with the server's clock
 * (`TIME`), so any number of gateway instances see one truth, and each is one round trip. Integers
 * only: window entries are milliseconds, GCRA levels are scaled so that a unit and a
 * millisecond's refill are both whole numbers (see `scaledBucket`), money is micro-USD.
 *
 * A script is its shared parts followed by its own body. The `.lua` files are read relative to
 * this module: from `src/` they sit beside it, and `npm run build` copies them into `dist/`.
 */
import { readFileSync } from 'node:fs';
import { defineScript, type CommandParser } from 'redis';

function lua(...files: readonly string[]): string {
  return files.map((file) => readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8')).join('\n');
}

/** A script over any number of keys: `(keys, args)`, the reply as Redis gave it. */
function script(source: string) {
  return defineScript({
    SCRIPT: source,
    parseCommand(parser: CommandParser, keys: readonly string[], args: readonly string[]) {
      parser.pushKeysLength([...keys]);
      parser.push(...args);
    },
    transformReply: (reply: unknown): unknown => reply,
  });
}

export const scripts = {
  /** Rate-limit buckets: draw, take or peek (see `lua/buckets.lua`). */
  modelgateBuckets: script(lua('server-now.lua', 'bucket-functions.lua', 'buckets.lua')),
  /** A draw that may take a lease for this instance to admit from alone (see `lua/lease.lua`). */
  modelgateLease: script(lua('server-now.lua', 'bucket-functions.lua', 'lease.lua')),
  /** A budget hold (see `lua/reserve.lua`). */
  modelgateReserve: script(lua('server-now.lua', 'budget-functions.lua', 'reserve.lua')),
  /** A budget hold and the rate-limit buckets in one step (see `lua/admit.lua`). */
  modelgateAdmit: script(lua('server-now.lua', 'budget-functions.lua', 'bucket-functions.lua', 'admit.lua')),
  /** A settlement, once per id (see `lua/settle.lua`). */
  modelgateSettle: script(lua('settle-functions.lua', 'settle.lua')),
  /**
   * A request's settlement and its token reconciliation in one step, once per id (see
   * `lua/settle-tokens.lua`): one round trip after the answer instead of two.
   */
  modelgateSettleTokens: script(
    lua('server-now.lua', 'bucket-functions.lua', 'settle-functions.lua', 'settle-tokens.lua'),
  ),
};

export type ScriptName = keyof typeof scripts;
