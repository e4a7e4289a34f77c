import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { scripts } from './scripts.ts';

const luaDirectory = new URL('./lua/', import.meta.url);

test('every Lua file is part of a script, and each script is its parts in order', () => {
  const sources = Object.values(scripts).map((code) => code.SCRIPT);
  for (const file of readdirSync(luaDirectory)) {
    const text = readFileSync(new URL(file, luaDirectory), 'utf8');
    assert.ok(
      sources.some((source) => source.includes(text)),
      `${file} is in no script`,
    );
  }
  const serverNow = readFileSync(new URL('server-now.lua', luaDirectory), 'utf8');
  for (const name of [
    'modelgateBuckets',
    'modelgateLease',
    'modelgateReserve',
    'modelgateAdmit',
    'modelgateSettleTokens',
  ] as const)
    assert.ok(scripts[name].SCRIPT.startsWith(serverNow), `${name} starts from the server's clock`);
});

test('scripts are sent by SHA with their key count, keys, then arguments', () => {
  const pushed: string[] = [];
  const parser = {
    pushKeysLength: (keys: string[]) => pushed.push(String(keys.length), ...keys),
    push: (...args: string[]) => pushed.push(...args),
  };
  scripts.modelgateSettle.parseCommand(parser as never, ['a', 'b'], ['1', '2', '3']);
  assert.deepEqual(pushed, ['2', 'a', 'b', '1', '2', '3']);
  assert.match(scripts.modelgateSettle.SHA1, /^[0-9a-f]{40}$/);
});
