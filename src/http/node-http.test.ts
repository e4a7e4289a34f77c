import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const startGateway = fileURLToPath(new URL('../server/start-gateway.ts', import.meta.url));

/** The built-in modules a fresh process has loaded after importing `module`. */
function loadedAfterImport(module: string): string[] {
  const program = `await import(${JSON.stringify(module)}); process.stdout.write(JSON.stringify(process.moduleLoadList));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as string[];
}

test("the gateway's server does not load Node's bundled fetch/WebSocket (~13 MiB it never uses)", () => {
  const bundled = 'NativeModule internal/deps/undici/undici';
  // What an ESM import of node:http does (its facade reads the lazy WebSocket export)...
  assert.ok(loadedAfterImport('node:http').includes(bundled));
  // ...and what the server, which has node:http through node-http.ts, does not.
  const loaded = loadedAfterImport(startGateway);
  assert.ok(loaded.includes('NativeModule http'));
  assert.ok(!loaded.includes(bundled), 'a module imports node:http as ESM: use http/node-http.ts');
});
