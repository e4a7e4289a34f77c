/**
 * Clients that hold their request open: a head, maybe part of a body, and then as much or as
 * little as the test writes. What the server answers (a `100 Continue` first or not, the final
 * status, whether it then closed the connection) is collected for assertions.
 */
import { connect, type Socket } from 'node:net';

export interface HeldAnswer {
  /** The final status (0 when none came). */
  status: number;
  head: string;
  body: string;
  /** The server sent `100 Continue` before its final answer. */
  continued: boolean;
  /** The server closed the connection (or reset it). */
  closed: boolean;
  /** Milliseconds from the request's first byte to the final answer's head (or the close). */
  ms: number;
}

export interface HeldRequest {
  socket: Socket;
  /** Settles once a final answer came and the connection closed, or after `timeoutMs`. */
  answer: Promise<HeldAnswer>;
  /** Resolves when the final head has arrived (or the connection closed). */
  answered: Promise<void>;
  /** Resolves when `100 Continue` arrived (never when it does not). */
  continued: Promise<void>;
  /** Writes more of the body (ignored once the connection is gone). */
  write(data: string | Buffer): void;
  close(): void;
}

export interface HoldOptions {
  url: string;
  method?: string;
  path: string;
  headers: Record<string, string>;
  /** Sent right after the head. */
  body?: string | Buffer;
  timeoutMs?: number;
}

export function holdRequest(options: HoldOptions): HeldRequest {
  const { hostname, port } = new URL(options.url);
  const socket = connect(Number(port), hostname);
  const started = performance.now();
  let data = '';
  let answeredAt: number | undefined;
  let closed = false;
  let resolveAnswered: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => {
    resolveAnswered = resolve;
  });
  let resolveContinued: () => void = () => undefined;
  const continued = new Promise<void>((resolve) => {
    resolveContinued = resolve;
  });
  const answer = new Promise<HeldAnswer>((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      let text = data;
      let sawContinue = false;
      while (/^HTTP\/1\.[01] 100 /.test(text)) {
        sawContinue = true;
        const end = text.indexOf('\r\n\r\n');
        text = end === -1 ? '' : text.slice(end + 4);
      }
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      resolveAnswered();
      resolve({
        status,
        head,
        body: split === -1 ? '' : text.slice(split + 4),
        continued: sawContinue,
        closed,
        ms: (answeredAt ?? performance.now()) - started,
      });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 10_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (/^HTTP\/1\.[01] 100 [^]*?\r\n\r\n/.test(data)) resolveContinued();
      if (answeredAt === undefined && /(^|\r\n\r\n)HTTP\/1\.[01] [2-5]\d\d [^]*\r\n\r\n/.test(data)) {
        answeredAt = performance.now();
        resolveAnswered();
      }
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', () => undefined);
  });
  const lines = [
    `${options.method ?? 'POST'} ${options.path} HTTP/1.1`,
    `Host: ${new URL(options.url).host}`,
    ...Object.entries(options.headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (options.body !== undefined) socket.write(options.body);
  return {
    socket,
    answer,
    answered,
    continued,
    write: (chunk) => {
      if (!socket.destroyed && socket.writable) socket.write(chunk);
    },
    close: () => {
      socket.destroy();
    },
  };
}

/** `/healthz` timed: the gateway keeps answering while an attack runs. */
export async function healthzMs(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/healthz`);
  await response.text();
  if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
  return performance.now() - started;
}
