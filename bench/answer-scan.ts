/**
 * A same-family JSON answer's cost in process: the whole path (parsed, decoded to the canonical
 * answer, the model renamed in the text: what `gateway/deliver.ts` did for every answer) against
 * the scan (`PassThrough.readAnswer`: the top level scanned, the usage parsed, the model spliced),
 * alternated in one process, CPU per answer (process CPU: garbage collection included). The
 * answers are the shared rig mock's (`../shared/bench-rig/mock-upstream.mjs`: the same objects,
 * `JSON.stringify`d as it does). `node bench/answer-scan.ts`.
 */
import type { ResponseContext, WireCodec } from '../src/codecs/codec.ts';
import { alphaWire } from '../src/codecs/alpha/index.ts';
import { betaWire } from '../src/codecs/beta/index.ts';
import { decodeContext, parseUpstreamJson } from '../src/gateway/decode-context.ts';
import { finishReasonName } from '../src/gateway/delivery.ts';
import { isJsonObject } from '../src/ir/index.ts';
import { valueEnd } from '../src/codecs/shared/json-scan.ts';
import { median } from './lib/stats.ts';

const answer = 'Hello! This is a canned answer from the mock upstream.';
const alphaAnswer = JSON.stringify({
  id: 'chatcmpl-mi0f5u2a10000000',
  object: 'chat.completion',
  created: 1764222000,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: answer, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 12,
    completion_tokens: 14,
    total_tokens: 26,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_mock',
});
const betaAnswer = JSON.stringify({
  id: 'msg_mi0f5u2a10000000',
  type: 'message',
  role: 'assistant',
  model: 'claude-3-5-haiku-20241022',
  content: [{ type: 'text', text: answer }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 14 },
});

const context: ResponseContext = { model: 'A-3', includeUsage: false, legacyFunctions: false };
const iterations = 50_000;
const runs = 9;
let sink = 0;

/** What deliver.ts did with every same-family answer before the scan. */
function whole(codec: WireCodec, text: string): void {
  const body = parseUpstreamJson(text);
  const decoded = codec.decodeResponse(body, decodeContext);
  if (!isJsonObject(body)) throw new Error('not an object');
  const out =
    codec.passThrough.rewriteResponseText?.(text, body, context) ??
    JSON.stringify(codec.passThrough.rewriteResponse(body, context));
  const reasons = decoded.choices.map((choice) => finishReasonName(choice.finishReason));
  sink += out.length + reasons.length + decoded.usage.inputTokens;
}

function scanned(codec: WireCodec, text: string): void {
  const read = codec.passThrough.readAnswer?.(text, context);
  if (read === undefined) throw new Error('the scan gave up on the rig answer');
  sink += read.text.length + read.finishReasons.length + read.usage.inputTokens;
}

/** Microseconds of process CPU per answer. */
function measure(work: () => void): number {
  const before = process.cpuUsage();
  for (let index = 0; index < iterations; index++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / iterations;
}

for (const [name, codec, text] of [
  ['A (chat-openai)', alphaWire, alphaAnswer],
  ['B (messages)', betaWire, betaAnswer],
] as const) {
  if (codec.passThrough.readAnswer === undefined) continue;
  const wholeUs: number[] = [];
  const scanUs: number[] = [];
  measure(() => whole(codec, text));
  measure(() => scanned(codec, text));
  for (let run = 0; run < runs; run++) {
    // Alternated, order swapped every other run, so drift hits both alike.
    const pair = [
      () => wholeUs.push(measure(() => whole(codec, text))),
      () => scanUs.push(measure(() => scanned(codec, text))),
    ];
    if (run % 2 === 1) pair.reverse();
    for (const step of pair) step();
  }
  const format = (values: number[]): string => values.map((value) => value.toFixed(2)).join(' ');
  console.log(`${name}, ${text.length} bytes: whole ${median(wholeUs).toFixed(2)} us [${format(wholeUs)}]`);
  console.log(`${' '.repeat(name.length)}  scan  ${median(scanUs).toFixed(2)} us [${format(scanUs)}]`);
  // The parts: the native parse alone, and the JS scan's floor (checking the text as JSON, nothing read).
  const parseUs = measure(() => (sink += typeof JSON.parse(text) === 'object' ? 1 : 0));
  const floorUs = measure(() => (sink += valueEnd(text, 0)));
  console.log(
    `${' '.repeat(name.length)}  JSON.parse alone ${parseUs.toFixed(2)} us, JSON check alone ${floorUs.toFixed(2)} us`,
  );
}
if (sink === 0) console.log('');
