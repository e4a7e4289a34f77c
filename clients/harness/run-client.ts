/**
 * Runs one client process the way a user would from a shell: its own temp HOME and working folder,
 * a small explicit environment (nothing inherited but PATH and locale), no stdin, a hard time limit
 * after which its whole process group is killed, stdout and stderr captured to files.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

export const clientsRoot = resolve(import.meta.dirname, '..');
export const clientBin = (name: string): string => join(clientsRoot, 'node_modules', '.bin', name);

export interface ClientRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  folder: string;
  seconds: number;
}

export interface ClientSpec {
  /** Names the run's output folder. */
  name: string;
  command: string;
  args: readonly string[];
  /** The client's own variables (base URL, key, switches); HOME and PATH are set here. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Files to create in HOME before the run (paths relative to HOME). */
  homeFiles?: Readonly<Record<string, string>>;
  /** The working folder; a fresh empty one when absent. */
  cwd?: string;
}

export function newFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `modelgate-clients-${prefix}-`));
}

export async function runClient(spec: ClientSpec): Promise<ClientRun> {
  const folder = newFolder(spec.name);
  const home = join(folder, 'home');
  mkdirSync(home);
  for (const [path, text] of Object.entries(spec.homeFiles ?? {})) {
    const file = join(home, path);
    mkdirSync(join(file, '..'), { recursive: true });
    createWriteStream(file).end(text);
  }
  const cwd = spec.cwd ?? join(folder, 'work');
  mkdirSync(cwd, { recursive: true });
  const stdoutPath = join(folder, 'stdout.txt');
  const stderrPath = join(folder, 'stderr.txt');
  const started = performance.now();
  const child = spawn(spec.command, spec.args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      TMPDIR: folder,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      CI: 'true',
      ...spec.env,
    },
  });
  const stdoutFile = createWriteStream(stdoutPath);
  const stderrFile = createWriteStream(stderrPath);
  child.stdout.pipe(stdoutFile);
  child.stderr.pipe(stderrFile);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // The client's whole process group (it was started detached): helpers it spawned die with it.
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, spec.timeoutMs);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  await Promise.all([closed(stdoutFile), closed(stderrFile)]);
  return {
    code,
    signal,
    timedOut,
    stdout: readFileSync(stdoutPath, 'utf8'),
    stderr: readFileSync(stderrPath, 'utf8'),
    folder,
    seconds: Math.round(performance.now() - started) / 1000,
  };
}

/** The pipe ends the file when the child's output ends; wait until it is written (or failed). */
async function closed(stream: Writable): Promise<void> {
  await finished(stream).catch(() => undefined);
}

const tailChars = 4000;

/** What a failing case prints: how the run ended, the tail of each output, where the files are. */
export function describeRun(run: ClientRun): string {
  const ended = run.timedOut ? 'killed after its time limit' : `exit ${String(run.code ?? run.signal)}`;
  return [
    `${ended} in ${run.seconds} s; output in ${run.folder}`,
    `--- stdout (tail)\n${run.stdout.slice(-tailChars)}`,
    `--- stderr (tail)\n${run.stderr.slice(-tailChars)}`,
  ].join('\n');
}
