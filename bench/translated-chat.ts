/**
 * The translated chat's own work alone, in process: the rig's chat-anthropic request (an A body
 * for a B model, already parsed: every path parses it) decoded by the A surface, encoded for the B upstream, the rig mock's B answer
 * parsed and decoded, and the A answer encoded and serialised, through one or more checkouts,
 * interleaved, CPU per request. It isolates what `ab.ts chat-anthropic` measures with the whole
 * gateway around it, on a machine too noisy to show a few µs there.
 *
 *   node bench/translated-chat.ts [--requests 50000] [--rounds 6] <checkout>...
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rigChatBody } from './lib/in-process-gateway.ts';
import { median } from './lib/stats.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { requests: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '6' } },
});

/** The rig's request (bench.mjs `oaBody`) as the gateway reads it: the client's bytes, parsed. */
const requestText = rigChatBody('B-4');
/** Parsed once: every gateway parses the client's body, translated or not. */
const requestBody: unknown = JSON.parse(requestText);
/** The rig mock's B answer (mock-upstream.mjs `anthropic`, not streamed). */
const answerText = JSON.stringify({
  id: 'msg_mwyh8vn700000000',
  type: 'message',
  role: 'assistant',
  model: 'b4-upstream',
  content: [
    {
      type: 'text',
      text: 'HTTP keep-alive lets a gateway reuse warm connections, so each proxied LLM call skips the TCP and TLS handshakes and adds far less latency.',
    },
  ],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 32 },
});

interface Codec {
  decodeRequest: (input: unknown) => { model: string; stream: boolean };
  encodeRequest: (request: unknown, target: unknown) => { body: string; headers: object };
  decodeResponse: (body: unknown, context: unknown) => object;
  encodeResponse: (response: object, context: unknown) => object;
}

interface Checkout {
  name: string;
  run: () => number;
}

async function load(directory: string): Promise<Checkout> {
  const at = (path: string): string => pathToFileURL(resolve(directory, path)).href;
  const { familyCodec } = (await import(at('src/surfaces/registry.ts'))) as {
    familyCodec: (id: string) => Codec;
  };
  const { decodeContext, parseUpstreamJson } = (await import(at('src/gateway/decode-context.ts'))) as {
    decodeContext: unknown;
    parseUpstreamJson: (text: string) => unknown;
  };
  const surface = familyCodec('alpha');
  const upstream = familyCodec('beta');
  const target = { model: 'b4-upstream', apiKey: 'sk-ant-mock' };
  const context = { model: 'B-4', includeUsage: false, legacyFunctions: false };
  return {
    name: directory,
    run: () => {
      const request = surface.decodeRequest({ body: requestBody, route: {}, lenient: false });
      const upstreamRequest = upstream.encodeRequest(request, target);
      const decoded = upstream.decodeResponse(parseUpstreamJson(answerText), decodeContext);
      const answer = JSON.stringify(surface.encodeResponse({ ...decoded, model: context.model }, context));
      return upstreamRequest.body.length + answer.length;
    },
  };
}

const checkouts = await Promise.all(positionals.map(load));
const perRequest = new Map<Checkout, number[]>(checkouts.map((checkout) => [checkout, []]));
const bytesPerRequest = new Map<Checkout, number>();
const requests = Number(values.requests);
for (const checkout of checkouts) for (let index = 0; index < 5000; index++) checkout.run();
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
  for (const checkout of order) {
    let bytes = 0;
    const start = process.cpuUsage();
    for (let index = 0; index < requests; index++) bytes += checkout.run();
    const used = process.cpuUsage(start);
    bytesPerRequest.set(checkout, bytes / requests);
    perRequest.get(checkout)?.push((used.user + used.system) / requests);
  }
}
for (const [checkout, figures] of perRequest) {
  process.stdout.write(
    `${checkout.name.padEnd(24)} ${median(figures).toFixed(2)} µs CPU per request [${figures.map((figure) => figure.toFixed(2)).join(' ')}], ${bytesPerRequest.get(checkout)} bytes out\n`,
  );
}
