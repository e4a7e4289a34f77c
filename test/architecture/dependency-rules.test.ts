/**
 * The map keeps true: ARCHITECTURE.md's folder table says, for each part of `src/`, which other
 * parts it may import ("depends on"). Every import of the production code must be listed there,
 * every listed dependency must be used, the listed graph must run one way (no folder cycle), and
 * no file may take part in an import cycle.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importCycles, readImportGraph, type RepoPath } from './import-graph.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const graph = readImportGraph(root);
const parts = documentedParts(readFileSync(new URL('../../ARCHITECTURE.md', import.meta.url), 'utf8'));

/**
 * A row of the table: a part of `src/` (one or more paths: `gateway`, `codecs/codec.ts`) and
 * what it may import. Named by its first path.
 */
interface Part {
  name: string;
  paths: string[];
  dependsOn: string[];
}

/** The table's rows under `src/`: `| `src/x/`, `src/y/` | what lives there | a, b |`. */
function documentedParts(markdown: string): Part[] {
  const found: Part[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 5 || !(cells[1] ?? '').startsWith('`src/')) continue;
    const dependsOn = (cells[3] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && name !== '—');
    const paths = [...(cells[1] ?? '').matchAll(/`src\/([^`]+)`/g)].flatMap(([, path]) =>
      expandBraces((path ?? '').replace(/\/$/, '')),
    );
    // A row of several families is one part per family: they may not import each other.
    if (paths.length > 1 && (cells[1] ?? '').includes('{'))
      for (const path of paths) found.push({ name: path, paths: [path], dependsOn });
    else found.push({ name: paths[0] ?? '', paths, dependsOn });
  }
  return found;
}

/** `codecs/{alpha,beta}` → `codecs/alpha`, `codecs/beta`. */
function expandBraces(path: string): string[] {
  const match = /^(.*)\{([^}]+)\}(.*)$/.exec(path);
  if (match === null) return [path];
  const [, before, choices, after] = match;
  return (choices ?? '').split(',').map((choice) => `${before ?? ''}${choice}${after ?? ''}`);
}

/** The part a file belongs to: the longest table path that is the file or a folder holding it. */
function partOf(file: RepoPath): Part | undefined {
  const path = file.slice('src/'.length);
  let best: Part | undefined;
  let bestLength = 0;
  for (const part of parts) {
    for (const candidate of part.paths) {
      const holds = path === candidate || path.startsWith(`${candidate}/`);
      if (holds && candidate.length > bestLength) {
        best = part;
        bestLength = candidate.length;
      }
    }
  }
  return best;
}

/** Every path the table names (a dependency naming one of them means that row alone). */
const named = new Set(parts.flatMap((part) => part.paths));

/** A dependency names a part's path, or a folder no row names whose parts it holds (`families`). */
function covers(dependency: string, part: Part): boolean {
  if (part.paths.includes(dependency)) return true;
  return !named.has(dependency) && part.paths.some((path) => path.startsWith(`${dependency}/`));
}

test('ARCHITECTURE.md names a part for every production file under src/', () => {
  assert.ok(parts.length > 10, 'the folder table was not found in ARCHITECTURE.md');
  const homeless = graph.files.filter((file) => partOf(file) === undefined);
  assert.deepEqual(homeless, [], 'add a row to the folder table of ARCHITECTURE.md for these files');
});

/** Every import from one part into another: the importing file and part, the imported file and part. */
function* crossings(): Generator<{ file: string; from: Part; target: string; to: Part }> {
  for (const [file, targets] of graph.imports) {
    const from = partOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = partOf(target);
      if (to !== undefined && to !== from) yield { file, from, target, to };
    }
  }
}

test('every import between parts is listed in the importer’s "depends on"', () => {
  const unlisted: string[] = [];
  for (const { file, from, target, to } of crossings())
    if (!from.dependsOn.some((dependency) => covers(dependency, to)))
      unlisted.push(`${file} → ${target} (${from.name} does not list ${to.name})`);
  assert.deepEqual(
    unlisted,
    [],
    'an import against the documented direction: move the code, or correct the map',
  );
});

test('every dependency the table lists is used', () => {
  const used = new Set<string>();
  for (const { from, to } of crossings())
    for (const dependency of from.dependsOn)
      if (covers(dependency, to)) used.add(`${from.name} → ${dependency}`);
  const stale = parts.flatMap((part) =>
    part.dependsOn
      .filter((dependency) => !used.has(`${part.name} → ${dependency}`))
      .map((dependency) => `${part.name} → ${dependency}`),
  );
  assert.deepEqual(stale, [], 'ARCHITECTURE.md lists a dependency no import has: remove it from the table');
});

test('the documented dependencies run one way (no cycle between parts)', () => {
  const partGraph = {
    files: parts.map((part) => part.name),
    imports: new Map(
      parts.map((part) => [
        part.name,
        parts
          .filter((other) => other !== part && part.dependsOn.some((name) => covers(name, other)))
          .map((other) => other.name),
      ]),
    ),
  };
  assert.deepEqual(importCycles(partGraph), []);
});

test('no production file takes part in an import cycle', () => {
  assert.ok(graph.files.length > 100, 'the source files were not found');
  assert.deepEqual(importCycles(graph), []);
});
