/**
 * Idle RSS of `modelgate serve` the shared rig's way: the rig's env (NODE_ENV=production, a store
 * file, `bench-limits.yaml`, providers at a closed port: no request is made), VmRSS 3 s after
 * `/healthz` answers, before any request. Checkouts alternate, `--starts N` each; every start is
 * printed (VmRSS, RssAnon, RssFile, threads, ms to ready). Binds no rig port and pins no CPU.
 *
 *   node bench/idle-rss.ts [--starts 3] <checkout>[#MODELGATE_NODE_FLAGS] ...
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serveEnvironment } from './lib/serve-environment.ts';

const rig = fileURLToPath(new URL('../../shared/bench-rig/', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { starts: { type: 'string', default: '3' } },
});

function status(pid: number): Record<string, number> {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const read = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return {
    VmRSS: read('VmRSS'),
    RssAnon: read('RssAnon'),
    RssFile: read('RssFile'),
    Threads: read('Threads'),
  };
}

async function measure(spec: string, port: number): Promise<string> {
  const [where = '', nodeFlags] = spec.split('#');
  const directory = resolve(where);
  const database = join(tmpdir(), `modelgate-idle-${process.pid}-${port}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(database + suffix, { force: true });
  const upstream = 'http://127.0.0.1:9';
  const child = spawn(process.execPath, [join(directory, 'bin/modelgate.js'), 'serve'], {
    cwd: directory,
    stdio: 'ignore',
    env: {
      ...process.env,
      ...serveEnvironment({ port, database, upstream, rig, clientKey: 'sk-bench-client-key-0000000000' }),
      ...(nodeFlags === undefined ? {} : { MODELGATE_NODE_FLAGS: nodeFlags }),
    },
  });
  const started = performance.now();
  let readyMs = Number.NaN;
  for (let attempt = 0; attempt < 200 && Number.isNaN(readyMs); attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      await response.text();
      if (response.status === 200) readyMs = performance.now() - started;
    } catch {
      await sleep(25);
    }
  }
  await sleep(3_000);
  const seen = status(child.pid ?? 0);
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  for (const suffix of ['', '-wal', '-shm']) rmSync(database + suffix, { force: true });
  const mib = (kb: number | undefined): string => ((kb ?? 0) / 1024).toFixed(1);
  return `${spec.padEnd(28)} VmRSS ${mib(seen.VmRSS)} RssAnon ${mib(seen.RssAnon)} RssFile ${mib(seen.RssFile)} threads ${seen.Threads} ready ${readyMs.toFixed(0)} ms`;
}

for (let start = 0; start < Number(values.starts); start++) {
  const order = start % 2 === 0 ? positionals : [...positionals].reverse();
  for (const [index, spec] of order.entries()) process.stdout.write(`${await measure(spec, 9480 + index)}\n`);
}
