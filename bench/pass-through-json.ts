/**
 * Where a same-family JSON chat spends its JSON work, in process, on the shared rig's bytes (the
 * mock's answer and bench client's request, built as `../shared/bench-rig/` builds them): the
 * answer's whole path (`gateway/deliver.ts`: parse, decode, the model renamed in the text) and its
 * parts, the JS floor any scan of it would pay (every byte checked as JSON, nothing read), and the
 * request's encoding (`alpha/pass-through.ts` re-encodes the parsed body) against renaming its
 * model in the client's text instead. CPU per operation, process CPU (garbage collection
 * included), alternated runs, medians. `node bench/pass-through-json.ts`.
 */
import { alphaWire } from '../src/codecs/alpha/index.ts';
import { renameOnlyTopLevelField } from '../src/codecs/shared/rename-field.ts';
import { decodeContext, parseUpstreamJson } from '../src/gateway/decode-context.ts';
import { finishReasonName } from '../src/gateway/delivery.ts';
import { exceedsJsonDepth } from '../src/http/json-depth.ts';
import { isJsonObject, type JsonObject } from '../src/ir/index.ts';
import { rigChatBody } from './lib/in-process-gateway.ts';
import { median } from './lib/stats.ts';

const answerText = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-mi0f5u2a10000000',
    object: 'chat.completion',
    created: 1764222000,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Hello! This is a canned answer from the mock upstream.',
          refusal: null,
          annotations: [],
        },
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
  }),
).toString();
const requestText = Buffer.from(rigChatBody('A-3')).toString();
const requestBody = JSON.parse(requestText) as JsonObject;
const context = { model: 'A-3', includeUsage: false, legacyFunctions: false };
const passThrough = alphaWire.passThrough;
const parsedAnswer = JSON.parse(answerText) as JsonObject;

const iterations = 50_000;
const runs = 7;
let sink = 0;

/** The whole path of deliver.ts for a same-family answer. */
function wholeAnswer(): void {
  const body = parseUpstreamJson(answerText);
  const decoded = alphaWire.decodeResponse(body, decodeContext);
  if (!isJsonObject(body)) throw new Error('not an object');
  const text =
    passThrough.rewriteResponseText?.(answerText, body, context) ??
    JSON.stringify(passThrough.rewriteResponse(body, context));
  sink += text.length + decoded.choices.map((choice) => finishReasonName(choice.finishReason)).length;
}

/** Every byte of the answer checked as JSON in JS, nothing kept: strings, numbers, literals, nesting. */
function checkAsJson(text: string): number {
  let depth = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      for (index++; index < length; index++) {
        const inner = text.charCodeAt(index);
        if (inner === 0x22) break;
        if (inner === 0x5c) index++;
        else if (inner < 0x20) return -1;
      }
    } else if (code === 0x7b || code === 0x5b) depth++;
    else if (code === 0x7d || code === 0x5d) depth--;
    index++;
  }
  return depth;
}

const cases: [string, () => void][] = [
  ['answer: whole path (parse, decode, rename)', wholeAnswer],
  ['answer: JSON.parse alone', () => (sink += Object.keys(JSON.parse(answerText) as object).length)],
  [
    'answer: decodeResponse alone',
    () => (sink += alphaWire.decodeResponse(parsedAnswer, decodeContext).created),
  ],
  [
    'answer: model renamed in the text alone',
    () => (sink += passThrough.rewriteResponseText?.(answerText, parsedAnswer, context)?.length ?? 0),
  ],
  ['answer: a JS pass over it (lower bound of any scan)', () => (sink += checkAsJson(answerText))],
  [
    'request: depth check + JSON.parse',
    () =>
      (sink += exceedsJsonDepth(requestText, 128)
        ? 0
        : Object.keys(JSON.parse(requestText) as object).length),
  ],
  [
    'request: re-encoded (today)',
    () => (sink += JSON.stringify({ ...requestBody, model: 'gpt-4o-mini' }).length),
  ],
  [
    'request: model renamed in its text',
    () => (sink += renameOnlyTopLevelField(requestText, 'model', 'gpt-4o-mini')?.length ?? 0),
  ],
];

function measure(work: () => void): number {
  const before = process.cpuUsage();
  for (let index = 0; index < iterations; index++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / iterations;
}

const results = cases.map((): number[] => []);
for (const [, work] of cases) measure(work);
for (let run = 0; run < runs; run++) {
  const order = cases.map((_, index) => index);
  if (run % 2 === 1) order.reverse();
  for (const index of order) results[index]?.push(measure(cases[index]![1]));
}
console.log(
  `answer ${answerText.length} bytes, request ${requestText.length} bytes; µs per operation, median of ${runs}`,
);
cases.forEach(([name], index) => {
  const values = results[index] ?? [];
  console.log(
    `${name.padEnd(54)} ${median(values).toFixed(2)}  [${values.map((value) => value.toFixed(2)).join(' ')}]`,
  );
});
if (sink === 0) console.log('');
