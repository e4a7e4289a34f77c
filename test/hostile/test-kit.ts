/**
 * Hostile-input fixtures: a gateway whose three families go to one recording upstream, and a
 * "trap" server standing for any host a request might try to reach instead. Raw HTTP requests
 * (request lines and headers exactly as written) for what fetch would normalise away.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';
import { writeTempConfig } from '../kit/e2e.ts';

export interface Trap {
  url: string;
  host: string;
  /** Requests it received (there must be none). */
  hits: number;
  close(): Promise<void>;
}

export async function startTrap(): Promise<Trap> {
  const trap = { url: '', host: '', hits: 0, close: () => Promise.resolve() };
  const server: Server = createServer((request, response) => {
    trap.hits++;
    request.resume();
    response.end('{}');
  });
  server.on('connection', () => {
    trap.hits++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  trap.host = `127.0.0.1:${port}`;
  trap.url = `http://${trap.host}`;
  trap.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return trap;
}

export interface HostileSetup {
  gateway: TestGateway;
  upstream: RecordingUpstream;
  trap: Trap;
  close(): Promise<void>;
}

/** Rate limits far above what these suites send: they test input handling, not quotas. */
const config = `
limits:
  alpha: { rpm: 1000000, tpm: 100000000 }
  beta: { rpm: 1000000, tpm: 100000000 }
  gamma: { rpm: 1000000, tpm: 100000000 }
`;

export async function startHostileSetup(
  extraConfig = '',
  environment: Record<string, string> = {},
): Promise<HostileSetup> {
  const upstream = await startRecordingUpstream();
  const trap = await startTrap();
  const file = writeTempConfig('hostile.yaml', config + extraConfig);
  const gateway = await startTestGateway(
    {
      ALPHA_BASE_URL: upstream.url,
      BETA_BASE_URL: upstream.url,
      GAMMA_BASE_URL: upstream.url,
      ALPHA_API_KEY: 'up-alpha-hostile',
      BETA_API_KEY: 'up-beta-hostile',
      GAMMA_API_KEY: 'up-gamma-hostile',
      ...environment,
    },
    file.path,
  );
  return {
    gateway,
    upstream,
    trap,
    close: async () => {
      await gateway.close();
      await upstream.close();
      await trap.close();
      file.remove();
    },
  };
}

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/** Writes `text` on a fresh TCP connection to `url` and reads until the server closes or a whole answer came. */
export function rawRequest(url: string, text: string, timeoutMs = 5000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise<RawAnswer>((resolve) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    const finish = (): void => {
      socket.destroy();
      const split = data.indexOf('\r\n\r\n');
      const head = split === -1 ? data : data.slice(0, split);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, body: split === -1 ? '' : data.slice(split + 4) });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      const split = data.indexOf('\r\n\r\n');
      if (split === -1) return;
      const length = /\r\ncontent-length: (\d+)/i.exec(data.slice(0, split))?.[1];
      if (length !== undefined && data.length - split - 4 >= Number(length)) {
        clearTimeout(timer);
        finish();
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      finish();
    });
    socket.on('error', () => undefined);
    socket.write(text, 'latin1');
  });
}

/** A raw POST with a JSON body; `target` is written verbatim in the request line. */
export function rawPost(
  url: string,
  target: string,
  headers: Record<string, string>,
  body: string,
  hostHeader?: string,
): Promise<RawAnswer> {
  const host = hostHeader ?? new URL(url).host;
  const lines = [
    `POST ${target} HTTP/1.1`,
    `Host: ${host}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return rawRequest(url, `${lines.join('\r\n')}\r\n\r\n${body}`);
}
