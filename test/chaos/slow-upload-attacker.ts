/**
 * The slot-hogging attacker in its own process, so its thousand sockets and reconnects do not run
 * on the event loop the gateway (and the clients it is measured by) share: `connections` uploads
 * with one key, each declaring 1,000 bytes and sending `{`, each reconnected `reconnectMs` after
 * it is answered or closed, until told to stop; then it reports the statuses it got.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface AttackOptions {
  url: string;
  key: string;
  connections: number;
  reconnectMs: number;
}

export interface AttackReport {
  opened: number;
  /** Status → count of first answers. */
  statuses: [number, number][];
}

export interface Attacker {
  /** Stops reconnecting, closes every socket and reports. */
  stop(): Promise<AttackReport>;
}

export async function startAttacker(options: AttackOptions): Promise<Attacker> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`attacker process exited (${code})`)));
  });
  return {
    stop: () =>
      new Promise<AttackReport>((resolve) => {
        child.once('message', (message) => {
          child.kill();
          resolve(message as AttackReport);
        });
        child.send('stop');
      }),
  };
}

function attack(options: AttackOptions): { stop(): AttackReport } {
  const { hostname, port, host } = new URL(options.url);
  const statuses = new Map<number, number>();
  const sockets = new Set<Socket>();
  let stopping = false;
  let opened = 0;
  const head =
    `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${options.key}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
  const open = (): void => {
    if (stopping) return;
    opened++;
    const socket = connect(Number(port), hostname);
    sockets.add(socket);
    let counted = false;
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      if (!counted && status !== 0) {
        counted = true;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (!stopping) setTimeout(open, options.reconnectMs);
    });
    socket.write(head);
  };
  for (let index = 0; index < options.connections; index++) open();
  return {
    stop: () => {
      stopping = true;
      for (const socket of sockets) socket.destroy();
      return { opened, statuses: [...statuses] };
    },
  };
}

// The child: attack until told to stop, then report.
if (
  process.send !== undefined &&
  process.argv[2] !== undefined &&
  process.argv[1] === fileURLToPath(import.meta.url)
) {
  const running = attack(JSON.parse(process.argv[2]) as AttackOptions);
  process.on('message', () => {
    process.send?.(running.stop());
  });
  process.send('started');
}
