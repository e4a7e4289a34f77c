/**
 * Shared pieces of the fuzz suites: the fast-check settings (fixed seed, so `npm test` replays the
 * same inputs; FUZZ_SEED / FUZZ_RUNS to explore), request templates per surface, a mutation
 * arbitrary (replace, delete or retype any field of a template), valid upstream streams from the
 * simulator as stream seeds, and the seed corpus that every run replays.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { createSimulator } from '../../src/simulator/simulator.ts';
import type { SpecFamily } from '../kit/spec-families.ts';

export const fuzzSeed = Number(process.env.FUZZ_SEED ?? 20261121);
export const fuzzRuns = (runs: number): number => Number(process.env.FUZZ_RUNS ?? runs);
export const fuzzParameters = (runs: number): fc.Parameters<unknown> => ({
  seed: fuzzSeed,
  numRuns: fuzzRuns(runs),
});

export type SurfaceId = SpecFamily;

/** A realistic request per surface (tools, images, several roles) that mutations start from. */
export const templates: Record<SurfaceId, Record<string, unknown>> = {
  alpha: {
    model: 'B-1',
    max_tokens: 64,
    temperature: 0.5,
    stop: ['END'],
    stream: false,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_w', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
      { role: 'user', content: 'Thanks, and Tokyo?' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_w',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ],
    tool_choice: 'auto',
  },
  beta: {
    model: 'C-1',
    max_tokens: 64,
    system: [{ type: 'text', text: 'Be brief.' }],
    temperature: 0.5,
    stop_sequences: ['END'],
    messages: [
      { role: 'user', content: 'What is the weather in Paris?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_w', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
          { type: 'text', text: 'And Tokyo?' },
        ],
      },
    ],
    tools: [
      {
        name: 'get_w',
        description: 'Weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
    tool_choice: { type: 'auto' },
  },
  gamma: {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_w', args: { city: 'Paris' } } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_w', response: { temperature: '18C' } } },
          { text: 'And Tokyo?' },
        ],
      },
    ],
    tools: [
      {
        functionDeclarations: [
          {
            name: 'get_w',
            description: 'Weather',
            parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } },
          },
        ],
      },
    ],
    generationConfig: { maxOutputTokens: 64, temperature: 0.5, stopSequences: ['END'] },
  },
};

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], into: Path[] = []): Path[] {
  if (prefix.length > 0) into.push(prefix);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...prefix, index], into));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], into);
  return into;
}

const remove = Symbol('remove');
type Replacement = unknown;

/** Odd values a field may get: any JSON, wrong types, huge or empty strings, nulls, numbers at the edges. */
const oddValue: fc.Arbitrary<Replacement> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    '',
    ' ',
    0,
    -1,
    1e308,
    -0,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    [],
    {},
    [[]],
    { type: null },
    '\u0000',
    '\ud800',
    'x'.repeat(5000),
    remove,
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

function applyAt(root: unknown, path: Path, replacement: Replacement): void {
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return;
    parent = (parent as Record<string | number, unknown>)[key];
  }
  const last = path.at(-1);
  if (last === undefined || typeof parent !== 'object' || parent === null) return;
  const container = parent as Record<string | number, unknown>;
  if (replacement === remove) {
    if (Array.isArray(container) && typeof last === 'number') container.splice(last, 1);
    else Reflect.deleteProperty(container, last);
  } else {
    // A copy: constants are shared between samples, and a later mutation may write into this one.
    container[last] = structuredClone(replacement);
  }
}

/** A template with `min`–`max` of its fields replaced, deleted or retyped. */
export function mutated(template: Record<string, unknown>, min = 1, max = 4): fc.Arbitrary<unknown> {
  const paths = pathsOf(template);
  return fc
    .array(fc.tuple(fc.nat({ max: paths.length - 1 }), oddValue), { minLength: min, maxLength: max })
    .map((mutations) => {
      const copy = structuredClone(template);
      for (const [index, replacement] of mutations) applyAt(copy, paths[index] as Path, replacement);
      return copy;
    });
}

const text = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.constantFrom('Hello', '{"json":"inside"}', '</s>[INST]', 'line\nbreak\r\n', '"quoted"', '\\'),
);
const model = fc.constantFrom(
  'A-1',
  'A-2',
  'A-3',
  'B-1',
  'B-4',
  'C-1',
  'C-3',
  'alpha/x',
  'beta/y',
  'gamma/z',
);
const turns = fc.array(text, { minLength: 1, maxLength: 5 });

/** Valid requests of many shapes (roles alternate, texts are anything printable or not). */
export function validRequest(surface: SurfaceId): fc.Arbitrary<unknown> {
  const sampling = fc.record(
    {
      temperature: fc.double({ min: 0, max: 1, noNaN: true }),
      top_p: fc.double({ min: 0.01, max: 1, noNaN: true }),
    },
    { requiredKeys: [] },
  );
  if (surface === 'alpha') {
    return fc
      .record({ model, system: fc.option(text), turns, sampling, stream: fc.boolean() })
      .map((value) => ({
        model: value.model,
        max_tokens: 50,
        stream: value.stream,
        ...value.sampling,
        messages: [
          ...(value.system === null ? [] : [{ role: 'system', content: value.system }]),
          ...value.turns.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })),
        ],
      }));
  }
  if (surface === 'beta') {
    return fc
      .record({ model, system: fc.option(text), turns, sampling, stream: fc.boolean() })
      .map((value) => ({
        model: value.model,
        max_tokens: 50,
        stream: value.stream,
        ...value.sampling,
        ...(value.system === null ? {} : { system: value.system }),
        messages: value.turns.map((content, index) => ({
          role: index % 2 === 0 ? 'user' : 'assistant',
          content,
        })),
      }));
  }
  return fc
    .record({ system: fc.option(text), turns, temperature: fc.double({ min: 0, max: 1, noNaN: true }) })
    .map((value) => ({
      ...(value.system === null ? {} : { systemInstruction: { parts: [{ text: value.system }] } }),
      contents: value.turns.map((part, index) => ({
        role: index % 2 === 0 ? 'user' : 'model',
        parts: [{ text: part }],
      })),
      generationConfig: { maxOutputTokens: 50, temperature: value.temperature },
    }));
}

/** Any body at all: random JSON, a template with a field or a few broken, or a valid request. */
export function anyBody(surface: SurfaceId): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 })) },
    { weight: 4, arbitrary: mutated(templates[surface], 1, 1) },
    { weight: 2, arbitrary: mutated(templates[surface], 2, 4) },
    { weight: 4, arbitrary: validRequest(surface) },
  );
}

/** The SSE text the simulator sends for a streamed request of `family` (tools offered, so calls too). */
export async function simulatedStream(family: SpecFamily, withTools: boolean): Promise<string> {
  const simulator = createSimulator();
  const bodies: Record<SpecFamily, { path: string; body: Record<string, unknown> }> = {
    alpha: {
      path: '/v1/chat/completions',
      body: {
        model: 'm',
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 30,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        ...(withTools ? { tools: templates.alpha.tools, tool_choice: 'required' } : {}),
      },
    },
    beta: {
      path: '/v1/messages',
      body: {
        model: 'm',
        stream: true,
        max_tokens: 30,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        ...(withTools ? { tools: templates.beta.tools, tool_choice: { type: 'any' } } : {}),
      },
    },
    gamma: {
      path: '/v1/models/m:streamGenerateContent?alt=sse',
      body: {
        contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
        generationConfig: { maxOutputTokens: 30 },
        ...(withTools
          ? { tools: templates.gamma.tools, toolConfig: { functionCallingConfig: { mode: 'ANY' } } }
          : {}),
      },
    },
  };
  const { path, body } = bodies[family];
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: 'Bearer k',
    'x-api-key': 'k',
    'beta-version': '2023-06-01',
    'x-gamma-api-key': 'k',
  };
  const response = await simulator.handle(
    { method: 'POST', path, headers, body: JSON.stringify(body) },
    new AbortController().signal,
  );
  return response.text();
}

export interface RequestCase {
  surface: SurfaceId;
  /** For C: the model in the path. */
  model?: string;
  stream?: boolean;
  body: unknown;
}

export interface StreamCase {
  family: SpecFamily;
  /** The upstream body, as chunks in the order they arrive. */
  chunks: string[];
}

/** The seed corpus: JSON files under test/property/corpus/<kind>/, replayed by every run. */
function corpus(kind: 'requests' | 'streams'): { name: string; value: unknown }[] {
  const directory = new URL(`./corpus/${kind}/`, import.meta.url);
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, value: JSON.parse(readFileSync(new URL(name, directory), 'utf8')) as unknown }));
}

export function requestCorpus(): { name: string; value: RequestCase }[] {
  return corpus('requests').map(({ name, value }) => ({ name, value: value as RequestCase }));
}

export function streamCorpus(): { name: string; value: StreamCase }[] {
  return corpus('streams').map(({ name, value }) => ({ name, value: value as StreamCase }));
}
