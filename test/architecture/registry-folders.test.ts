/**
 * The folders and the registries agree: every wire codec `codecs/registry.ts` lists is a folder
 * under `src/codecs/`, every surface `surfaces/registry.ts` lists is a folder under
 * `src/surfaces/`, there is no folder either does not list, and ARCHITECTURE.md's rows name the
 * same lists. The lists are read from the registries, so adding a codec or a surface changes no test.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { builtInCodecs } from '../../src/codecs/registry.ts';
import { builtInSurfaces, registry } from '../../src/surfaces/registry.ts';

const src = new URL('../../src/', import.meta.url);
const architecture = readFileSync(new URL('../../ARCHITECTURE.md', import.meta.url), 'utf8');

function folders(under: string): string[] {
  return readdirSync(new URL(under, src), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The names in ARCHITECTURE.md's row for `src/{parent}/{a,b,c}/`. */
function documented(parent: string): string[] {
  const row = new RegExp(`\`src/${parent}/\\{([^}]+)\\}/\``).exec(architecture);
  assert.ok(row !== null, `ARCHITECTURE.md has no src/${parent}/{…}/ row`);
  return (row[1] ?? '').split(',').map((name) => name.trim());
}

const codecIds = builtInCodecs.map((codec) => codec.id);
const surfaceIds = registry.surfaces().map((surface) => surface.id);

test('each wire codec is one folder under src/codecs/ (beside shared/), and each folder a codec', () => {
  assert.deepEqual(folders('codecs/'), [...codecIds, 'shared'].sort());
  assert.deepEqual(documented('codecs').sort(), [...codecIds].sort());
});

test('each surface is one folder under src/surfaces/, and each folder a surface', () => {
  assert.equal(builtInSurfaces.length, surfaceIds.length);
  assert.deepEqual(folders('surfaces/'), [...surfaceIds].sort());
  const familySurfaces = registry.familySurfaces().map((family) => family.id);
  assert.deepEqual(documented('surfaces').sort(), [...familySurfaces].sort());
  for (const id of surfaceIds.filter((id) => !familySurfaces.includes(id)))
    assert.match(architecture, new RegExp(`\`src/surfaces/${id}/\``), `ARCHITECTURE.md has no row for ${id}`);
});

test('a codec folder holds no client-facing file: routes, keys, rate-limit headers, model lists live in surfaces/', () => {
  const surfaceFiles = ['surface.ts', 'model-list.ts', 'rate-limit-headers.ts', 'count-tokens.ts'];
  for (const id of codecIds) {
    const files = readdirSync(new URL(`codecs/${id}/`, src));
    assert.deepEqual(
      files.filter((file) => surfaceFiles.includes(file)),
      [],
      `src/codecs/${id}/`,
    );
  }
});
