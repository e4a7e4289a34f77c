/**
 * What writing a same-family JSON answer costs as text (what the gateway does: the upstream's bytes
 * decoded, the model renamed in the text, written as a string) against as bytes (what the bare proxy
 * does: the upstream's bytes written as they came, or a byte-level rename), in ONE process: a
 * node:http server answering each request with the gateway's head (its twelve headers) and the rig
 * mock's 614-byte answer, the way it answers switched between rounds, a client process (outside the
 * measure) sending 16 requests at a time; this process's CPU per request, rounds alternated.
 *
 *   node bench/answer-write.ts [--requests 20000] [--rounds 8]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '16' },
  },
});
const requests = Number(values.requests);

// The rig mock's chat answer (model renamed by the gateway from gpt-4o-mini to A-3).
const upstreamText = JSON.stringify({
  id: 'chatcmpl-mock0000000000000000000000',
  object: 'chat.completion',
  created: 1_800_000_000,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content:
          'HTTP keep-alive lets a gateway reuse warm connections to its upstreams, so each proxied LLM request skips the TCP and TLS handshakes and answers sooner.',
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 31,
    completion_tokens: 40,
    total_tokens: 71,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_mock',
});
const upstreamBytes = Buffer.from(upstreamText);
const from = Buffer.from('"gpt-4o-mini-2024-07-18"');
const to = Buffer.from('"A-3"');

function head(length: number): Record<string, string> {
  return {
    'x-request-id': 'req_5f0c2b9e8d7a41c3b2e1f0a9',
    'x-ratelimit-limit-requests': '1000000000',
    'x-ratelimit-limit-tokens': '1000000000000',
    'x-ratelimit-remaining-requests': '999999999',
    'x-ratelimit-remaining-tokens': '999999999929',
    'x-ratelimit-reset-requests': '0s',
    'x-ratelimit-reset-tokens': '0s',
    'x-modelgate-served-by': 'A-3',
    'x-modelgate-cost-usd': '0.0000285',
    'x-modelgate-overhead-ms': '0.31',
    'content-type': 'application/json',
    'content-length': String(length),
  };
}

type Way = (response: ServerResponse) => void;
const ways: Record<string, Way> = {
  // The gateway today: bytes decoded to text, the model renamed in the text, the text written.
  text: (response) => {
    const text = upstreamBytes.toString('utf8');
    const at = text.indexOf('"gpt-4o-mini-2024-07-18"');
    const body = `${text.slice(0, at)}"A-3"${text.slice(at + 24)}`;
    response.writeHead(200, head(Buffer.byteLength(body)));
    response.end(body);
  },
  // Bytes in, bytes out: the model renamed between byte slices (no decode, no encode).
  bytes: (response) => {
    const at = upstreamBytes.indexOf(from);
    const body = Buffer.concat([upstreamBytes.subarray(0, at), to, upstreamBytes.subarray(at + from.length)]);
    response.writeHead(200, head(body.length));
    response.end(body);
  },
  // The bare proxy: the upstream's bytes as they came (no rename at all): the floor of either.
  'bytes as they came': (response) => {
    response.writeHead(200, head(upstreamBytes.length));
    response.end(upstreamBytes);
  },
};

let current: Way = ways.text as Way;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => current(response));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

const clientScript = `
const [url, total, concurrency] = process.argv.slice(1);
let left = Number(total);
async function loop() {
  while (left-- > 0) {
    const answer = await fetch(url, { method: 'POST', body: '{}' });
    await answer.arrayBuffer();
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, loop));
`;

function drive(count: number): Promise<void> {
  return new Promise((done, fail) => {
    const client = spawn(
      process.execPath,
      ['--input-type=module', '-e', clientScript, url, String(count), values.concurrency],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    client.on('exit', (code) => (code === 0 ? done() : fail(new Error(`client exited ${code}`))));
  });
}

const names = Object.keys(ways);
const figures = new Map<string, number[]>(names.map((name) => [name, []]));
for (const name of names) {
  current = ways[name] as Way;
  await drive(4000); // warm up
}
for (let index = 0; index < Number(values.rounds); index++) {
  const order = index % 2 === 0 ? names : [...names].reverse();
  for (const name of order) {
    current = ways[name] as Way;
    const before = process.cpuUsage();
    await drive(requests);
    const used = process.cpuUsage(before);
    figures.get(name)?.push((used.user + used.system) / requests);
  }
}
for (const [name, runs] of figures)
  console.log(
    `${name.padEnd(20)} ${median(runs).toFixed(2)} µs/request [${runs.map((run) => run.toFixed(1)).join(' ')}]`,
  );
server.close();
