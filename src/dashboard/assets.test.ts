/**
 * The dashboard's files: every one is served from the gateway (uPlot from its package), nothing
 * in them points at another origin, and all of them together are at most 150 KB gzipped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { surfaces } from '../surfaces/registry.ts';
import { assetNames, loadAsset } from './assets.ts';
import { appScript } from './client/app-script.ts';
import { appPage, loginPage } from './pages.ts';

test('all assets together are at most 150 KB gzipped', () => {
  let total = 0;
  for (const name of assetNames) {
    const asset = loadAsset(name);
    assert.ok(asset !== undefined, name);
    assert.ok(asset.body.length > 1_000, `${name} has content`);
    assert.deepEqual(gunzipSync(asset.gzip), asset.body);
    total += asset.gzip.length;
  }
  total += Buffer.byteLength(appPage('csrf-token')) + Buffer.byteLength(loginPage(undefined));
  assert.ok(total <= 150 * 1024, `${total} bytes gzipped`);
  assert.equal(loadAsset('../../package.json'), undefined);
  assert.equal(loadAsset('constructor'), undefined);
});

test('the pages and the app load nothing from another origin', () => {
  for (const text of [appPage('x'), loginPage('message'), loadAsset('app.js')?.body.toString() ?? '']) {
    assert.doesNotMatch(text, /(src|href)\s*=\s*["']?(https?:)?\/\//i);
    assert.doesNotMatch(text, /fetch\(\s*["']https?:/i);
    assert.doesNotMatch(text, /<script>|\son\w+="/i, 'no inline script (the CSP forbids it)');
  }
  assert.match(appPage('a"<b'), /content="a&#34;&#60;b"/);
});

test("the requests page's surface filter offers every registered surface, read from the registry", () => {
  const script = loadAsset('app.js')?.body.toString() ?? '';
  const choices = /el\('select', \{ name: 'surface' \}, (\[[^\]]*\])/.exec(script)?.[1];
  assert.ok(choices !== undefined, 'the surface filter was not found');
  const expected = ['', 'unified', ...surfaces().map((surface) => surface.id)];
  assert.deepEqual(JSON.parse(choices), expected);
  assert.ok(expected.includes('responses') && expected.includes('gamma'));
  assert.deepEqual(
    JSON.parse(
      /\[[^\]]*\]/.exec(appScript(['alpha', 'epsilon']).split("name: 'surface'")[1] ?? '')?.[0] ?? '[]',
    ),
    ['', 'unified', 'alpha', 'epsilon'],
  );
});
