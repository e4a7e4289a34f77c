/**
 * The import graph of the production code under `src/`, read from the source text with the
 * TypeScript compiler's own import scanner (static, type-only, re-exports and literal `import()`
 * alike), and the strongly connected components that are import cycles. Tests, test kits and
 * fixtures are not production code: they may import anything.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** A file as a path from the repository root, `/`-separated (`src/gateway/deliver.ts`). */
export type RepoPath = string;

export interface ImportGraph {
  files: RepoPath[];
  /** Each file's imports of other files of the graph. */
  imports: Map<RepoPath, RepoPath[]>;
}

export function isTestCode(path: RepoPath): boolean {
  return path.endsWith('.test.ts') || path.endsWith('/test-kit.ts') || path.includes('/__fixtures__/');
}

export function readImportGraph(root: string, folder = 'src'): ImportGraph {
  const files = sourceFiles(root, folder);
  const known = new Set(files);
  const imports = new Map<RepoPath, RepoPath[]>();
  for (const file of files) {
    const scanned = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = new Set<RepoPath>();
    for (const { fileName } of scanned.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = toRepoPath(root, resolve(root, dirname(file), fileName));
      if (known.has(target)) targets.add(target);
    }
    imports.set(file, [...targets].sort());
  }
  return { files, imports };
}

function sourceFiles(root: string, folder: string): RepoPath[] {
  const entries = readdirSync(join(root, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => toRepoPath(root, join(entry.parentPath, entry.name)))
    .filter((path) => !isTestCode(path))
    .sort();
}

function toRepoPath(root: string, absolute: string): RepoPath {
  return relative(root, absolute).split(sep).join('/');
}

/**
 * The import cycles: every strongly connected component of more than one file, or a file that
 * imports itself (Tarjan's algorithm, iterative so a deep chain cannot overflow the stack).
 */
export function importCycles(graph: ImportGraph): RepoPath[][] {
  const index = new Map<RepoPath, number>();
  const low = new Map<RepoPath, number>();
  const onStack = new Set<RepoPath>();
  const stack: RepoPath[] = [];
  const cycles: RepoPath[][] = [];
  let next = 0;
  for (const start of graph.files) {
    if (index.has(start)) continue;
    const work: { file: RepoPath; edge: number }[] = [{ file: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { file: RepoPath; edge: number };
      const targets = graph.imports.get(frame.file) ?? [];
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++] as RepoPath;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file) ?? 0, index.get(target) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(parent.file, Math.min(low.get(parent.file) ?? 0, low.get(frame.file) ?? 0));
      }
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: RepoPath[] = [];
      let member: RepoPath | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.file);
      const selfImport = graph.imports.get(frame.file)?.includes(frame.file) === true;
      if (component.length > 1 || selfImport) cycles.push(component.sort());
    }
  }
  return cycles;
}
