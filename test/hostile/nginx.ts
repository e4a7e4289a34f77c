/**
 * Debian's nginx in front of a gateway, as an operator would put it there with the least config:
 * one `proxy_pass`, every proxy setting at its default (HTTP/1.0 to the upstream, buffering on).
 * It runs as a foreground child on a free loopback port, with its config, pid, logs and temp
 * files in its own temp directory (nothing under /etc or /var is touched), and is killed by
 * `close`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The nginx binary, or undefined when it is not installed. */
export function findNginx(): string | undefined {
  for (const candidate of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    const probe = spawnSync(candidate, ['-v'], { stdio: 'ignore' });
    if (probe.error === undefined && probe.status === 0) return candidate;
  }
  return undefined;
}

export interface RunningNginx {
  url: string;
  /** nginx's error log so far (for assertion messages). */
  errors(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startNginx(binary: string, upstreamUrl: string): Promise<RunningNginx> {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-nginx-'));
  const port = await freePort();
  const errorLog = join(directory, 'error.log');
  const upstream = new URL(upstreamUrl);
  // The minimal reverse proxy: everything not written here is nginx's default.
  writeFileSync(
    join(directory, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${join(directory, 'nginx.pid')};
error_log ${errorLog} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${join(directory, 'client_body')};
  proxy_temp_path ${join(directory, 'proxy')};
  fastcgi_temp_path ${join(directory, 'fastcgi')};
  uwsgi_temp_path ${join(directory, 'uwsgi')};
  scgi_temp_path ${join(directory, 'scgi')};
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://${upstream.host};
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(
    binary,
    ['-p', directory, '-e', errorLog, '-c', join(directory, 'nginx.conf')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errors = (): string =>
    `${stderr}${existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''}`.slice(-4000);
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(directory, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = errors();
      await close();
      throw new Error(`nginx did not start on 127.0.0.1:${port}:\n${log}`);
    }
    await sleep(20);
  }
  return { url: `http://127.0.0.1:${port}`, errors, close };
}
