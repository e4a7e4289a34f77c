/**
 * Golden transcripts: a real gateway whose three upstreams are one recording fake that answers
 * from a script, so every exchange records (1) the exact upstream request and (2) exactly what
 * the client saw — status, headers, the cost header or trailer, the body or every SSE event.
 * Transcripts live in `test/golden/transcripts/<surface>-to-<family>.json`;
 * `UPDATE_GOLDEN=1 node --test "test/golden/*.test.ts"` rewrites them (review the diff!). Besides the byte-for-byte comparison, `checkSemantics` asserts
 * what each scenario must mean, independently of the recorded text.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  startRecordingUpstream,
  type RecordingUpstream,
  type ScriptedAnswer,
} from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';
import {
  answerFor,
  clientRequest,
  type Answer,
  type ClientRequest,
  type Json,
  type JsonObject,
  type NeutralCall,
  type ScenarioName,
} from './scenarios.ts';
import { upstreamAnswer } from './upstream-answers.ts';
import { specFamilies, type SpecFamily } from '../kit/spec-families.ts';

export const upstreamKeys: Record<SpecFamily, string> = {
  alpha: 'up-a-key',
  beta: 'up-b-key',
  gamma: 'up-c-key',
};

export interface Rig {
  gateway: TestGateway;
  upstream: RecordingUpstream;
  close(): Promise<void>;
}

export async function startRig(): Promise<Rig> {
  const upstream = await startRecordingUpstream();
  const gateway = await startTestGateway({
    ALPHA_BASE_URL: upstream.url,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ALPHA_API_KEY: upstreamKeys.alpha,
    BETA_API_KEY: upstreamKeys.beta,
    GAMMA_API_KEY: upstreamKeys.gamma,
  });
  return {
    gateway,
    upstream,
    close: async () => {
      await gateway.close();
      await upstream.close();
    },
  };
}

export interface ClientView {
  status: number;
  headers: Record<string, string>;
  /** Stream trailers (the cost of a streamed answer). */
  trailers?: Record<string, string>;
  /** JSON body, or for streams every SSE message (`data` parsed when it is JSON). */
  body?: Json;
  events?: Array<{ event?: string; data: Json }>;
}

export interface Transcript {
  request: { path: string; body: JsonObject };
  upstream: { method: string; path: string; headers: Record<string, string>; body: Json } | null;
  response: ClientView;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  trailers: Record<string, string | undefined>;
  text: string;
}

/** node:http, not fetch: streamed answers carry their cost in an HTTP trailer. */
function send(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      new URL(path, baseUrl),
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            trailers: response.trailers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const shownResponseHeaders = ['content-type', 'warning', 'x-modelgate-cost-usd'] as const;
const shownUpstreamHeaders = [
  'content-type',
  'authorization',
  'x-api-key',
  'beta-version',
  'x-gamma-api-key',
] as const;

/** One exchange: script the upstream's answer, send the client request, record both sides. */
export async function exchange(
  rig: Rig,
  scenario: ScenarioName,
  surface: SpecFamily,
  family: SpecFamily,
  stream: boolean,
): Promise<{ transcript: Transcript; answer: Answer }> {
  const answer = answerFor(scenario, surface, family);
  const client = clientRequest(scenario, surface, family, stream, rig.gateway.key);
  const transcript = await record(rig, client, upstreamAnswer(family, answer, stream));
  return { transcript, answer };
}

/** Sends one client request with the upstream's answer scripted; the transcript of both sides. */
export async function record(rig: Rig, client: ClientRequest, scripted: ScriptedAnswer): Promise<Transcript> {
  const before = rig.upstream.requests.length;
  rig.upstream.script.push(scripted);
  const raw = await send(rig.gateway.url, client.path, client.headers, JSON.stringify(client.body));
  const sent = rig.upstream.requests.slice(before);
  assert.ok(sent.length <= 1, 'one upstream call per exchange');
  const upstreamCall = sent[0];
  // An exchange the gateway refused (a 400) leaves its scripted answer unused.
  if (upstreamCall === undefined) rig.upstream.script.length = 0;
  const headers: Record<string, string> = {};
  for (const name of shownResponseHeaders) {
    const value = raw.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const response: ClientView = { status: raw.status, headers };
  const trailer = raw.trailers['x-modelgate-cost-usd'];
  if (trailer !== undefined) response.trailers = { 'x-modelgate-cost-usd': trailer };
  if (headers['content-type']?.startsWith('text/event-stream') === true)
    response.events = parseEvents(raw.text);
  else response.body = normalise(JSON.parse(raw.text) as Json);
  return {
    request: { path: client.path, body: client.body },
    upstream:
      upstreamCall === undefined
        ? null
        : {
            method: upstreamCall.method,
            path: upstreamCall.path,
            headers: Object.fromEntries(
              shownUpstreamHeaders.flatMap((name) => {
                const value = upstreamCall.headers[name];
                return typeof value === 'string' ? [[name, value]] : [];
              }),
            ),
            body: upstreamCall.json as Json,
          },
    response,
  };
}

export function parseEvents(text: string): Array<{ event?: string; data: Json }> {
  const out: Array<{ event?: string; data: Json }> = [];
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    let name: string | undefined;
    const lines: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) name = line.slice(7);
      else if (line.startsWith('data: ')) lines.push(line.slice(6));
      else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
    }
    const payload = lines.join('\n');
    let value: Json;
    try {
      value = normalise(JSON.parse(payload) as Json);
    } catch {
      value = payload;
    }
    out.push(name === undefined ? { data: value } : { event: name, data: value });
  }
  return out;
}

/**
 * `created` is the gateway's clock when the upstream family has none (B, C): pinned to 0. A B
 * error body's `request_id` is the answer's own (random) id: written as a placeholder.
 */
function normalise(value: Json): Json {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines own properties: a `__proto__` key stays a key (assignment would set the
  // prototype and drop it, as a client's JSON.parse never does).
  return Object.fromEntries<Json>(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === 'created'
        ? 0
        : key === 'request_id' && typeof inner === 'string'
          ? '<request id>'
          : normalise(inner),
    ]),
  );
}

// ------------------------------------------------------------------ golden files

const here = dirname(fileURLToPath(import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

export class GoldenFile {
  readonly #path: string;
  readonly #recorded: Record<string, Transcript>;
  readonly #seen: Record<string, Transcript> = {};

  constructor(surface: SpecFamily, family: SpecFamily) {
    this.#path = join(here, 'transcripts', `${surface}-to-${family}.json`);
    let recorded: Record<string, Transcript> = {};
    try {
      recorded = JSON.parse(readFileSync(this.#path, 'utf8')) as Record<string, Transcript>;
    } catch (error) {
      if (!update) throw error;
    }
    this.#recorded = recorded;
  }

  check(name: string, transcript: Transcript): void {
    this.#seen[name] = transcript;
    if (update) return;
    assert.deepEqual(transcript, this.#recorded[name], `${this.#path} ${name}`);
  }

  /** After all exchanges: no recorded transcript went unchecked; in update mode, write the file. */
  async finish(): Promise<void> {
    if (update) {
      mkdirSync(dirname(this.#path), { recursive: true });
      // Written the way `prettier --check .` wants it (the comparison itself parses the JSON).
      const prettier = await import('prettier');
      const options = (await prettier.resolveConfig(this.#path)) ?? {};
      writeFileSync(
        this.#path,
        await prettier.format(JSON.stringify(this.#seen), { ...options, parser: 'json' }),
      );
      return;
    }
    assert.deepEqual(Object.keys(this.#seen).sort(), Object.keys(this.#recorded).sort());
  }
}

// ------------------------------------------------------------------ what each scenario must mean

interface Seen {
  text: string;
  calls: Array<{ id: string; name: string; args: Json }>;
  finish: string | null;
  usage: JsonObject | undefined;
}

/** The client-visible answer, read the way each family's SDK reads it (streams accumulated). */
export function clientSaw(surface: SpecFamily, view: ClientView): Seen {
  const events = view.events?.map((message) => message.data) ?? [];
  const objects = events.filter((item): item is JsonObject => isObject(item));
  switch (surface) {
    case 'alpha':
      return view.events === undefined ? alphaJson(view.body) : alphaStream(objects);
    case 'beta':
      return view.events === undefined ? betaJson(view.body) : betaStream(objects);
    case 'gamma':
      return gammaParts(view.events === undefined ? [view.body ?? null] : events);
  }
}

/** A JSON value as text: strings as they are, anything else as JSON ('' when absent). */
function str(value: Json | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: Json | undefined, ...path: Array<string | number>): Json | undefined {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number') current = Array.isArray(current) ? current[key] : undefined;
    else current = isObject(current) ? current[key] : undefined;
  }
  return current;
}

function alphaJson(body: Json | undefined): Seen {
  const message = field(body, 'choices', 0, 'message');
  const calls = field(message, 'tool_calls');
  const legacy = field(message, 'function_call');
  const list = Array.isArray(calls) ? calls : [];
  return {
    text: typeof field(message, 'content') === 'string' ? (field(message, 'content') as string) : '',
    calls: [
      ...list.map((call) => ({
        id: str(field(call, 'id')),
        name: str(field(call, 'function', 'name')),
        args: JSON.parse(str(field(call, 'function', 'arguments'))) as Json,
      })),
      ...(isObject(legacy)
        ? [{ id: '', name: str(legacy.name), args: JSON.parse(str(legacy.arguments)) as Json }]
        : []),
    ],
    finish: field(body, 'choices', 0, 'finish_reason') as string | null,
    usage: field(body, 'usage') as JsonObject | undefined,
  };
}

function alphaStream(chunks: JsonObject[]): Seen {
  let text = '';
  const calls: Array<{ id: string; name: string; args: string }> = [];
  let legacy: { name: string; args: string } | undefined;
  let finish: string | null = null;
  let usage: JsonObject | undefined;
  for (const chunk of chunks) {
    if (isObject(chunk.usage)) usage = chunk.usage;
    const choice = field(chunk, 'choices', 0);
    const delta = field(choice, 'delta');
    const content = field(delta, 'content');
    if (typeof content === 'string') text += content;
    const fragments = field(delta, 'tool_calls');
    for (const fragment of Array.isArray(fragments) ? fragments : []) {
      const index = Number(field(fragment, 'index'));
      const call = (calls[index] ??= { id: '', name: '', args: '' });
      const id = field(fragment, 'id');
      const name = field(fragment, 'function', 'name');
      if (typeof id === 'string') call.id = id;
      if (typeof name === 'string') call.name = name;
      call.args += str(field(fragment, 'function', 'arguments') ?? '');
    }
    const functionCall = field(delta, 'function_call');
    if (isObject(functionCall)) {
      legacy ??= { name: '', args: '' };
      if (typeof functionCall.name === 'string') legacy.name = functionCall.name;
      legacy.args += str(functionCall.arguments ?? '');
    }
    const reason = field(choice, 'finish_reason');
    if (typeof reason === 'string') finish = reason;
  }
  const all = calls.map((call) => ({ id: call.id, name: call.name, args: JSON.parse(call.args) as Json }));
  if (legacy !== undefined) all.push({ id: '', name: legacy.name, args: JSON.parse(legacy.args) as Json });
  return { text, calls: all, finish, usage };
}

function betaJson(body: Json | undefined): Seen {
  const content = field(body, 'content');
  let text = '';
  const calls: Seen['calls'] = [];
  for (const block of Array.isArray(content) ? content : []) {
    if (field(block, 'type') === 'text') text += str(field(block, 'text'));
    if (field(block, 'type') === 'tool_use')
      calls.push({
        id: str(field(block, 'id')),
        name: str(field(block, 'name')),
        args: field(block, 'input') ?? null,
      });
  }
  return {
    text,
    calls,
    finish: field(body, 'stop_reason') as string | null,
    usage: field(body, 'usage') as JsonObject,
  };
}

function betaStream(events: JsonObject[]): Seen {
  let text = '';
  const blocks = new Map<number, { id: string; name: string; args: string }>();
  const order: number[] = [];
  let open: number | undefined;
  let finish: string | null = null;
  let usage: JsonObject = {};
  for (const item of events) {
    switch (str(item.type)) {
      case 'message_start':
        usage = { ...(field(item, 'message', 'usage') as JsonObject) };
        break;
      case 'content_block_start': {
        // B streams one block at a time.
        assert.equal(open, undefined, 'a B block started while another was open');
        const index = Number(item.index);
        open = index;
        const block = item.content_block;
        if (field(block, 'type') === 'tool_use') {
          assert.deepEqual(field(block, 'input'), {});
          blocks.set(index, { id: str(field(block, 'id')), name: str(field(block, 'name')), args: '' });
          order.push(index);
        }
        break;
      }
      case 'content_block_delta': {
        assert.equal(item.index, open);
        const delta = item.delta;
        if (field(delta, 'type') === 'text_delta') text += str(field(delta, 'text'));
        const block = blocks.get(Number(item.index));
        if (block !== undefined && field(delta, 'type') === 'input_json_delta')
          block.args += str(field(delta, 'partial_json'));
        break;
      }
      case 'content_block_stop':
        assert.equal(item.index, open);
        open = undefined;
        break;
      case 'message_delta':
        finish = field(item, 'delta', 'stop_reason') as string | null;
        // Cumulative: the values replace, never add to, those of message_start.
        if (isObject(item.usage)) usage = { ...usage, ...item.usage };
        break;
      default:
        break;
    }
  }
  const calls = order.map((index) => {
    const block = blocks.get(index) ?? { id: '', name: '', args: '' };
    return {
      id: block.id,
      name: block.name,
      args: (block.args === '' ? {} : JSON.parse(block.args)) as Json,
    };
  });
  return { text, calls, finish, usage };
}

function gammaParts(responses: Array<Json | undefined>): Seen {
  let text = '';
  const calls: Seen['calls'] = [];
  let finish: string | null = null;
  let usage: JsonObject | undefined;
  for (const response of responses) {
    const candidate = field(response, 'candidates', 0);
    const parts = field(candidate, 'content', 'parts');
    for (const part of Array.isArray(parts) ? parts : []) {
      if (typeof field(part, 'text') === 'string') text += str(field(part, 'text'));
      const call = field(part, 'functionCall');
      if (isObject(call)) calls.push({ id: str(call.id ?? ''), name: str(call.name), args: call.args ?? {} });
    }
    const reason = field(candidate, 'finishReason');
    if (typeof reason === 'string') finish = reason;
    const metadata = field(response, 'usageMetadata');
    if (isObject(metadata)) usage = metadata;
  }
  return { text, calls, finish, usage };
}

/** Total prompt tokens, cache reads and writes as the surface's client reads them. */
function usageOf(
  surface: SpecFamily,
  usage: JsonObject | undefined,
): { input: number; output: number; read: number; write: number } {
  const number = (value: Json | undefined): number => (typeof value === 'number' ? value : 0);
  switch (surface) {
    case 'alpha':
      return {
        input: number(usage?.prompt_tokens),
        output: number(usage?.completion_tokens),
        read: number(field(usage, 'prompt_tokens_details', 'cached_tokens')),
        write: number(field(usage, 'prompt_tokens_details', 'cache_write_tokens')),
      };
    case 'beta': {
      const read = number(usage?.cache_read_input_tokens);
      const write = number(usage?.cache_creation_input_tokens);
      return {
        input: number(usage?.input_tokens) + read + write,
        output: number(usage?.output_tokens),
        read,
        write,
      };
    }
    case 'gamma':
      return {
        input: number(usage?.promptTokenCount),
        output: number(usage?.candidatesTokenCount),
        read: number(usage?.cachedContentTokenCount),
        write: 0,
      };
  }
}

/** USD per 1M: input, output, cache read, cache write of the golden models (README catalog). */
const prices: Record<SpecFamily, [number, number, number, number]> = {
  alpha: [10, 30, 5, 10],
  beta: [3, 15, 0.3, 3.75],
  gamma: [1.25, 5, 0.3125, 1.25],
};

const finishes: Record<SpecFamily, { tool: string; stop: string }> = {
  alpha: { tool: 'tool_calls', stop: 'stop' },
  beta: { tool: 'tool_use', stop: 'end_turn' },
  gamma: { tool: 'STOP', stop: 'STOP' },
};

/** What the exchange must mean, whatever the recorded bytes say. */
export function checkSemantics(
  scenario: ScenarioName,
  surface: SpecFamily,
  family: SpecFamily,
  { transcript, answer }: { transcript: Transcript; answer: Answer },
  // Whether the surface and the model are one family (the client's body goes upstream as it is).
  passThrough = surface === family,
): void {
  const view = transcript.response;
  if (scenario === 'image-url' && family === 'gamma' && surface !== 'gamma') {
    // C needs image bytes: the gateway refuses before calling upstream and says to send base64.
    assert.equal(view.status, 400);
    assert.equal(transcript.upstream, null);
    assert.match(JSON.stringify(view.body), /send the image as base64/);
    return;
  }
  assert.equal(view.status, 200, JSON.stringify(view.body ?? view.events));
  const seen = clientSaw(surface, view);
  // Text and calls: same text, same calls in the same order, arguments parse to the same JSON.
  assert.equal(seen.text, answer.text ?? '');
  assert.deepEqual(
    seen.calls.map((call) => ({ name: call.name, args: call.args })),
    answer.calls.map((call: NeutralCall) => ({ name: call.name, args: call.args })),
  );
  const legacy = scenario === 'legacy-functions';
  const ids = seen.calls.map((call) => call.id);
  // C to C passes through: the C upstream's calls carry no ids, and the client gets them as sent.
  if (!legacy && !(surface === 'gamma' && family === 'gamma')) {
    assert.equal(new Set(ids).size, ids.length, 'call ids are distinct');
    for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]+$/);
  }
  const expectedFinish =
    legacy && surface === 'alpha'
      ? 'function_call'
      : answer.calls.length > 0
        ? finishes[surface].tool
        : finishes[surface].stop;
  assert.equal(seen.finish, expectedFinish);
  // Usage: the same totals in every pair, each in the surface's own fields.
  const usage = usageOf(surface, seen.usage);
  assert.deepEqual(usage, {
    input: answer.usage.input,
    output: answer.usage.output,
    read: answer.usage.cacheRead,
    write: answer.usage.cacheWrite,
  });
  if (surface === 'alpha' && answer.usage.cacheRead > 0)
    assert.equal(seen.usage?.cached_tokens, answer.usage.cacheRead);
  // Cost: uncached input, cache reads, cache writes and output at the model's own prices.
  const [input, output, read, write] = prices[family];
  const cost =
    ((answer.usage.input - answer.usage.cacheRead - answer.usage.cacheWrite) * input +
      answer.usage.cacheRead * read +
      answer.usage.cacheWrite * write +
      answer.usage.output * output) /
    1_000_000;
  const reported = view.trailers?.['x-modelgate-cost-usd'] ?? view.headers['x-modelgate-cost-usd'];
  assert.ok(reported !== undefined, 'the cost is reported');
  assert.ok(Math.abs(Number(reported) - cost) < 1e-12, `cost ${reported} vs ${cost}`);
  checkUpstream(scenario, surface, family, transcript, passThrough);
}

/** The upstream request says the same thing as the client's, in the family's shape. */
function checkUpstream(
  scenario: ScenarioName,
  surface: SpecFamily,
  family: SpecFamily,
  transcript: Transcript,
  passThrough: boolean,
): void {
  const body = transcript.upstream?.body;
  assert.ok(isObject(body));
  const text = JSON.stringify(body);
  assert.ok(!text.includes('mg-test-client-key'), 'the client key never goes upstream');
  if (passThrough) {
    // Same family: the client's own body, only the model changed (and A streams always ask for usage).
    const expected: JsonObject = { ...transcript.request.body };
    if (family !== 'gamma') expected.model = body.model ?? null;
    if (family === 'alpha' && expected.stream === true) expected.stream_options = { include_usage: true };
    assert.deepEqual(body, expected);
    return;
  }
  switch (scenario) {
    case 'single-call':
    case 'parallel-calls':
    case 'text-then-call':
      assert.deepEqual(toolNames(family, body), ['get_weather', 'get_time', 'get_map']);
      assert.deepEqual(
        toolChoice(family, body),
        {
          'single-call': 'tool:get_weather',
          'parallel-calls': 'required',
          'text-then-call': 'auto',
        }[scenario],
      );
      break;
    case 'tool-results':
      checkToolResults(family, body);
      break;
    case 'image-input':
    case 'image-url':
      assert.ok(text.includes(scenario === 'image-input' ? 'iVBORw0KGgo' : 'https://example.com/cat.png'));
      break;
    case 'cached-system': {
      const marked = text.includes('"cache_control":{"type":"ephemeral"}');
      // Markers reach B from A and B surfaces; A and C have no markers (they cache implicitly).
      assert.equal(marked, family === 'beta' && surface !== 'gamma');
      break;
    }
    case 'legacy-functions':
      assert.deepEqual(toolNames(family, body), ['get_weather']);
      break;
  }
}

function toolNames(family: SpecFamily, body: JsonObject): string[] {
  const tools = body.tools;
  const list = Array.isArray(tools) ? tools : [];
  if (family === 'alpha') return list.map((tool) => str(field(tool, 'function', 'name')));
  if (family === 'beta') return list.map((tool) => str(field(tool, 'name')));
  const declarations = field(list[0], 'functionDeclarations');
  return (Array.isArray(declarations) ? declarations : []).map((item) => str(field(item, 'name')));
}

function toolChoice(family: SpecFamily, body: JsonObject): string {
  if (family === 'alpha') {
    const choice = body.tool_choice;
    return typeof choice === 'string' ? choice : `tool:${str(field(choice, 'function', 'name'))}`;
  }
  if (family === 'beta') {
    const type = field(body, 'tool_choice', 'type');
    return type === 'any'
      ? 'required'
      : type === 'tool'
        ? `tool:${str(field(body, 'tool_choice', 'name'))}`
        : str(type);
  }
  const mode = field(body, 'toolConfig', 'functionCallingConfig', 'mode');
  const names = field(body, 'toolConfig', 'functionCallingConfig', 'allowedFunctionNames');
  if (mode === 'ANY')
    return Array.isArray(names) && names.length === 1 ? `tool:${str(names[0])}` : 'required';
  return str(mode).toLowerCase();
}

/** Three results, paired with their calls, in call order; the error flagged where the family can say it. */
function checkToolResults(family: SpecFamily, body: JsonObject): void {
  const messages = (family === 'gamma' ? body.contents : body.messages) as JsonObject[];
  if (family === 'alpha') {
    const assistant = messages.find((message) => message.role === 'assistant');
    const callIds = (field(assistant, 'tool_calls') as JsonObject[]).map((call) => call.id);
    const results = messages.filter((message) => message.role === 'tool');
    assert.deepEqual(
      results.map((message) => message.tool_call_id),
      callIds,
    );
    // The image of the third result follows the results in a user message.
    const last = messages.at(-1);
    assert.equal(last?.role, 'user');
    assert.ok(JSON.stringify(last).includes('iVBORw0KGgo'));
    return;
  }
  if (family === 'beta') {
    const [, assistant, results] = messages;
    const callIds = (field(assistant, 'content') as JsonObject[]).map((block) => block.id);
    const blocks = field(results, 'content') as JsonObject[];
    assert.equal(results?.role, 'user');
    assert.deepEqual(
      blocks.map((block) => block.tool_use_id),
      callIds,
    );
    assert.ok(JSON.stringify(blocks[2]).includes('"type":"image"'));
    return;
  }
  const [, model, user] = messages;
  assert.equal(model?.role, 'model');
  assert.equal(user?.role, 'user');
  const parts = field(user, 'parts') as JsonObject[];
  assert.deepEqual(
    parts.flatMap((part) => (isObject(part.functionResponse) ? [part.functionResponse.name] : [])),
    ['get_weather', 'get_time', 'get_map'],
  );
  assert.ok(parts.some((part) => isObject(part.inlineData)));
}

/**
 * The golden suite of one surface against every family, JSON and stream, one rig per file (each
 * surface has its own file so the runner spreads them over the cores).
 */
export function goldenSuite(surface: SpecFamily, scenarios: readonly ScenarioName[]): void {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig.close();
  });
  for (const family of specFamilies) {
    describe(`${surface} surface → ${family} model`, () => {
      const golden = new GoldenFile(surface, family);
      for (const scenario of scenarios) {
        for (const stream of [false, true]) {
          const name = `${scenario}/${stream ? 'stream' : 'json'}`;
          test(name, async () => {
            const result = await exchange(rig, scenario, surface, family, stream);
            checkSemantics(scenario, surface, family, result);
            golden.check(name, result.transcript);
          });
        }
      }
      test('every recorded transcript was replayed', async () => {
        await golden.finish();
      });
    });
  }
}
