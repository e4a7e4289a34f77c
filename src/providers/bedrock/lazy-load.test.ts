/**
 * The AWS libraries load only for a Bedrock provider that calls: importing the preset, and building
 * a provider, load none of them (checked in a fresh process, whose module cache starts empty).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const script = `
import { createRequire } from 'node:module';
const { bedrockPreset } = await import(${JSON.stringify(new URL('./index.ts', import.meta.url).href)});
const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((path) => /@smithy|@aws-sdk/.test(path)).length;
const afterImport = loaded();
bedrockPreset({ name: 'aws', preset: 'bedrock', region: 'us-east-1' });
const afterBuild = loaded();
const provider = bedrockPreset({ name: 'aws', preset: 'bedrock', region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
const transport = provider.transport({ send: () => Promise.reject(new Error('unused')), close: () => Promise.resolve() });
const call = { model: 'm', stream: false, operation: 'chat' };
await transport
  .send('https://bedrock.invalid', { path: '/model/m/converse', headers: {}, body: '{}', warnings: [], call }, new AbortController().signal)
  .catch(() => undefined);
console.log(JSON.stringify({ afterImport, afterBuild, afterTransport: loaded() }));
`;

test('importing and building the preset loads no AWS library; its transport does', () => {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  const counts = JSON.parse(output) as { afterImport: number; afterBuild: number; afterTransport: number };
  assert.equal(counts.afterImport, 0);
  assert.equal(counts.afterBuild, 0);
  assert.ok(counts.afterTransport > 0, 'the signer loads for the first call');
});
