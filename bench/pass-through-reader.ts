/**
 * The same-family stream's reader alone, in process: the rig's 20-chunk A stream (its mock's exact
 * bytes, model renamed as in the bench) through `streamPassThrough` of one or more checkouts,
 * interleaved, CPU per stream. It isolates what the A/B (`ab.ts`) measures with the whole gateway
 * around it, on a machine too noisy to show a few µs there.
 *
 *   node bench/pass-through-reader.ts [--streams 20000] [--rounds 6] [--reads 1] [--chunks 20] [--family alpha|beta] [--translated] <checkout>...
 *
 * `--reads`: how many reads the stream arrives in (the mock writes it at once: 1 or 2 in practice);
 * `--family beta`: the rig's 20-chunk B stream instead; `--translated`: the B stream through
 * `streamTranslated` to an A client (the rig's stream-anthropic), every byte written collected;
 * `--chunks`: text chunks per stream (the rig's 20; more isolates the per-event cost).
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    streams: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '6' },
    reads: { type: 'string', default: '1' },
    family: { type: 'string', default: 'alpha' },
    translated: { type: 'boolean', default: false },
    chunks: { type: 'string', default: '20' },
  },
});

const head =
  '{"id":"chatcmpl-mwyh8vn700000000","object":"chat.completion.chunk","created":1795753462,"model":"a3-upstream","service_tier":"default","system_fingerprint":"fp_mock","choices":';
const words = Array.from({ length: Number(values.chunks) }, (_, index) =>
  index === 0 ? 'Hello' : ` w${index}`,
);
const body = [
  `data: ${head}[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}\n\n`,
  ...words.map(
    (word) =>
      `data: ${head}[{"index":0,"delta":{"content":"${word}"},"logprobs":null,"finish_reason":null}]}\n\n`,
  ),
  `data: ${head}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n`,
  `data: ${head}[],"usage":{"prompt_tokens":12,"completion_tokens":20,"total_tokens":32}}\n\n`,
  'data: [DONE]\n\n',
].join('');
const event = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;
/** The rig mock's B stream, as `mock-upstream.mjs` writes it. */
const betaBody = [
  event(
    'message_start',
    '{"type":"message_start","message":{"id":"msg_mock","type":"message","role":"assistant","model":"b4-upstream","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}',
  ),
  event(
    'content_block_start',
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
  ),
  event('ping', '{"type":"ping"}'),
  ...words.map((word) =>
    event(
      'content_block_delta',
      `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${word}"}}`,
    ),
  ),
  event('content_block_stop', '{"type":"content_block_stop","index":0}'),
  event(
    'message_delta',
    '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":20}}',
  ),
  event('message_stop', '{"type":"message_stop"}'),
].join('');
const translated = values.translated;
const family = values.family === 'beta' || translated ? 'beta' : 'alpha';
const bytes = Buffer.from(family === 'beta' ? betaBody : body);
const readCount = Number(values.reads);
const reads = Array.from({ length: readCount }, (_, index) =>
  bytes.subarray(
    Math.floor((index * bytes.length) / readCount),
    Math.floor(((index + 1) * bytes.length) / readCount),
  ),
);

interface Checkout {
  name: string;
  run: () => Promise<void>;
}

async function load(directory: string): Promise<Checkout> {
  const at = (path: string): string => pathToFileURL(resolve(directory, path)).href;
  // Older checkouts export it from the pipeline, newer ones from its own file.
  const pipeline = (await import(at('src/gateway/stream-pipeline.ts'))) as Record<string, unknown>;
  const own = await import(at('src/gateway/pass-through-stream.ts')).catch(() => ({}));
  const streamPassThrough = translated
    ? pipeline.streamTranslated
    : ((own as Record<string, unknown>).streamPassThrough ?? pipeline.streamPassThrough);
  const { familyCodec } = (await import(at('src/surfaces/registry.ts'))) as {
    familyCodec: (id: string) => { createStreamDecoder: (context: unknown) => unknown };
  };
  const { decodeContext } = (await import(at('src/gateway/decode-context.ts'))) as { decodeContext: unknown };
  const { CallTimers } = (await import(at('src/upstream/timers.ts'))) as {
    CallTimers: new (limits: unknown, signal: AbortSignal) => { stop(): void };
  };
  const { createUpstreamErrorScrubber } = (await import(at('src/upstream/upstream-error-text.ts'))) as {
    createUpstreamErrorScrubber: (secrets: string[], hosts: string[]) => unknown;
  };
  const surface = familyCodec(translated ? 'alpha' : family);
  const upstreamCodec = familyCodec(family);
  const scrubber = createUpstreamErrorScrubber(['sk-mock'], []);
  const signal = new AbortController().signal;
  const context = { model: 'A-3', includeUsage: false, legacyFunctions: false };
  const sink = {
    headers: {},
    started: false,
    sendJson: () => undefined,
    startStream: () => undefined,
    write: (text: string) => {
      written += text.length;
      if (capturing) captured += text;
      return undefined;
    },
    end: () => undefined,
  };
  const run = streamPassThrough as (stream: unknown, response: unknown, control: unknown) => Promise<unknown>;
  return {
    name: directory,
    run: async () => {
      const timers = new CallTimers({ connectMs: 60_000, firstByteMs: 60_000, idleMs: 60_000 }, signal);
      const response = {
        status: 200,
        headers: {},
        body: (function* () {
          yield* reads;
        })(),
        text: () => Promise.resolve(bytes.toString()),
        cancel: () => undefined,
      };
      const stream = {
        surface,
        decoder: upstreamCodec.createStreamDecoder(decodeContext),
        context,
        scrubber,
      };
      await run(stream, response, { sink, signal, timers, maxEventBytes: 1 << 20, begin: () => undefined });
      timers.stop();
    },
  };
}

/** Characters the sinks were given: the same per checkout, or one of them writes something else. */
let written = 0;
/** The first stream's whole output per checkout, compared across checkouts before measuring. */
let capturing = false;
let captured = '';
const checkouts = await Promise.all(positionals.map(load));
const perStream = new Map<Checkout, number[]>(checkouts.map((checkout) => [checkout, []]));
const charsPerStream = new Map<Checkout, number>();
const streams = Number(values.streams);
const outputs = new Set<string>();
for (const checkout of checkouts) {
  captured = '';
  capturing = true;
  await checkout.run();
  capturing = false;
  outputs.add(captured);
}
process.stdout.write(
  outputs.size === 1 ? 'output identical across checkouts\n' : 'OUTPUT DIFFERS between checkouts\n',
);
for (const checkout of checkouts) for (let index = 0; index < 2000; index++) await checkout.run();
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
  for (const checkout of order) {
    written = 0;
    const start = process.cpuUsage();
    for (let index = 0; index < streams; index++) await checkout.run();
    const used = process.cpuUsage(start);
    charsPerStream.set(checkout, written / streams);
    perStream.get(checkout)?.push((used.user + used.system) / streams);
  }
}
for (const [checkout, figures] of perStream) {
  process.stdout.write(
    `${checkout.name.padEnd(24)} ${median(figures).toFixed(2)} µs CPU per stream [${figures.map((figure) => figure.toFixed(1)).join(' ')}], ${charsPerStream.get(checkout)} characters written\n`,
  );
}
