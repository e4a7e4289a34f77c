/**
 * The golden scenarios, written once in neutral form and then spelled in each surface's own
 * request shape (what a client sends) and each family's own answer shape (what an upstream sends,
 * hand-built here the way the real providers stream, not by the gateway's encoders).
 */
import type { SpecFamily } from '../kit/spec-families.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const scenarioNames = [
  'single-call',
  'parallel-calls',
  'text-then-call',
  'tool-results',
  'image-input',
  'image-url',
  'cached-system',
] as const;
export type ScenarioName = (typeof scenarioNames)[number] | 'legacy-functions';

export interface NeutralCall {
  name: string;
  args: JsonObject;
}

export interface NeutralUsage {
  /** All prompt tokens, cache reads and writes included. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What the upstream model answers. */
export interface Answer {
  text: string | undefined;
  calls: NeutralCall[];
  usage: NeutralUsage;
  /** The request used A's legacy `functions`: an A upstream answers with `function_call`. */
  legacy?: boolean;
}

/** A 1×1 PNG. */
export const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
export const imageUrl = 'https://example.com/cat.png';

export const models: Record<SpecFamily, string> = { alpha: 'A-2', beta: 'B-1', gamma: 'C-1' };

const plainUsage: NeutralUsage = { input: 120, output: 30, cacheRead: 0, cacheWrite: 0 };

export function answerFor(scenario: ScenarioName, surface: SpecFamily, family: SpecFamily): Answer {
  switch (scenario) {
    case 'single-call':
      return {
        text: undefined,
        calls: [{ name: 'get_weather', args: { city: 'Zürich', unit: 'celsius' } }],
        usage: plainUsage,
      };
    case 'parallel-calls':
      return {
        text: undefined,
        calls: [
          { name: 'get_weather', args: { city: 'Paris' } },
          { name: 'get_time', args: { timezone: 'Asia/Tokyo' } },
        ],
        usage: plainUsage,
      };
    case 'text-then-call':
      return {
        text: 'Let me check the weather in Oslo 🌧.',
        calls: [{ name: 'get_weather', args: { city: 'Oslo', unit: 'celsius' } }],
        usage: plainUsage,
      };
    case 'tool-results':
      return {
        text: 'It is 18°C and sunny in Paris; the time is unavailable.',
        calls: [],
        usage: plainUsage,
      };
    case 'image-input':
      return { text: 'A single white pixel.', calls: [], usage: plainUsage };
    case 'image-url':
      return { text: 'A cat.', calls: [], usage: plainUsage };
    case 'cached-system':
      // A C client cannot mark a prefix, so a B model caches nothing for it; A and C cache implicitly.
      return {
        text: 'Take an umbrella.',
        calls: [],
        usage:
          family === 'beta' && surface === 'gamma'
            ? { input: 2100, output: 6, cacheRead: 0, cacheWrite: 0 }
            : { input: 2100, output: 6, cacheRead: 2048, cacheWrite: 0 },
      };
    case 'legacy-functions':
      return {
        text: undefined,
        calls: [{ name: 'get_weather', args: { city: 'Milan' } }],
        usage: plainUsage,
        legacy: true,
      };
  }
}

// ------------------------------------------------------------------ tools, per surface

const weatherSchema: JsonObject = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
  },
  required: ['city'],
  additionalProperties: false,
};
const timeSchema: JsonObject = {
  type: 'object',
  properties: { timezone: { type: 'string', description: 'IANA zone' } },
  required: ['timezone'],
};
const mapSchema: JsonObject = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

const toolList: Array<{ name: string; description: string; schema: JsonObject }> = [
  { name: 'get_weather', description: 'Current weather for a city', schema: weatherSchema },
  { name: 'get_time', description: 'Local time in a zone', schema: timeSchema },
  { name: 'get_map', description: 'A map picture of a city', schema: mapSchema },
];

function alphaTools(): Json[] {
  return toolList.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.schema,
      ...(tool.name === 'get_weather' ? { strict: true } : {}),
    },
  }));
}

function betaTools(): Json[] {
  return toolList.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.schema,
  }));
}

/** C clients write OpenAPI-style upper-case types. */
function gammaTools(): Json[] {
  const upper = (schema: Json): Json => {
    if (Array.isArray(schema)) return schema.map(upper);
    if (schema === null || typeof schema !== 'object') return schema;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'additionalProperties') continue;
      out[key] = key === 'type' && typeof value === 'string' ? value.toUpperCase() : upper(value);
    }
    return out;
  };
  return [
    {
      functionDeclarations: toolList.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: upper(tool.schema),
      })),
    },
  ];
}

// ------------------------------------------------------------------ client requests, per surface

export interface ClientRequest {
  path: string;
  headers: Record<string, string>;
  body: JsonObject;
}

const pastCalls: NeutralCall[] = [
  { name: 'get_weather', args: { city: 'Paris' } },
  { name: 'get_time', args: { timezone: 'Europe/Paris' } },
  { name: 'get_map', args: { city: 'Paris' } },
];

export function clientRequest(
  scenario: ScenarioName,
  surface: SpecFamily,
  family: SpecFamily,
  stream: boolean,
  key: string,
): ClientRequest {
  const model = models[family];
  switch (surface) {
    case 'alpha':
      return {
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        body: {
          model,
          ...alphaBody(scenario),
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        },
      };
    case 'beta':
      return {
        path: '/v1/messages',
        headers: { 'x-api-key': key, 'beta-version': '2023-06-01' },
        body: { model, max_tokens: 1024, ...betaBody(scenario), ...(stream ? { stream: true } : {}) },
      };
    case 'gamma':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: { 'x-gamma-api-key': key },
        body: gammaBody(scenario),
      };
  }
}

const systemText = 'You are a meticulous weather assistant. Always answer in one sentence.';

function alphaBody(scenario: ScenarioName): JsonObject {
  const dataUrl = `data:image/png;base64,${png}`;
  switch (scenario) {
    case 'single-call':
      return {
        messages: [{ role: 'user', content: 'What is the weather in Zürich?' }],
        tools: alphaTools(),
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      };
    case 'parallel-calls':
      return {
        messages: [{ role: 'user', content: 'Weather in Paris and the time in Tokyo, please.' }],
        tools: alphaTools(),
        tool_choice: 'required',
      };
    case 'text-then-call':
      return {
        messages: [{ role: 'user', content: 'Is it raining in Oslo?' }],
        tools: alphaTools(),
        tool_choice: 'auto',
      };
    case 'tool-results':
      return {
        messages: [
          { role: 'user', content: 'Weather, time and a map for Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: pastCalls.map((call, index) => ({
              id: `call_past${index}`,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            })),
          },
          { role: 'tool', tool_call_id: 'call_past0', content: '18°C, sunny' },
          { role: 'tool', tool_call_id: 'call_past1', content: 'Error: timezone service unavailable' },
          {
            role: 'tool',
            tool_call_id: 'call_past2',
            content: [
              { type: 'text', text: 'Map of Paris' },
              { type: 'image_url', image_url: { url: dataUrl } },
            ],
          },
        ],
        tools: alphaTools(),
      };
    case 'image-input':
      return {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image_url', image_url: { url: dataUrl, detail: 'low' } },
            ],
          },
        ],
      };
    case 'image-url':
      return {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image_url', image_url: { url: imageUrl } },
            ],
          },
        ],
      };
    case 'cached-system':
      return {
        messages: [
          {
            role: 'system',
            content: [{ type: 'text', text: systemText, cache_control: { type: 'ephemeral' } }],
          },
          { role: 'user', content: 'Any advice for today?' },
        ],
      };
    case 'legacy-functions':
      return {
        messages: [
          { role: 'user', content: 'Weather in Rome?' },
          {
            role: 'assistant',
            content: null,
            function_call: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
          { role: 'function', name: 'get_weather', content: '21°C' },
          { role: 'user', content: 'And in Milan?' },
        ],
        functions: [
          { name: 'get_weather', description: 'Current weather for a city', parameters: weatherSchema },
        ],
        function_call: 'auto',
      };
  }
}

function betaBody(scenario: ScenarioName): JsonObject {
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } };
  switch (scenario) {
    case 'single-call':
      return {
        messages: [{ role: 'user', content: 'What is the weather in Zürich?' }],
        tools: betaTools(),
        tool_choice: { type: 'tool', name: 'get_weather' },
      };
    case 'parallel-calls':
      return {
        messages: [{ role: 'user', content: 'Weather in Paris and the time in Tokyo, please.' }],
        tools: betaTools(),
        tool_choice: { type: 'any' },
      };
    case 'text-then-call':
      return {
        messages: [{ role: 'user', content: 'Is it raining in Oslo?' }],
        tools: betaTools(),
        tool_choice: { type: 'auto' },
      };
    case 'tool-results':
      return {
        messages: [
          { role: 'user', content: 'Weather, time and a map for Paris?' },
          {
            role: 'assistant',
            content: pastCalls.map((call, index) => ({
              type: 'tool_use',
              id: `toolu_past${index}`,
              name: call.name,
              input: call.args,
            })),
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_past0', content: '18°C, sunny' },
              {
                type: 'tool_result',
                tool_use_id: 'toolu_past1',
                content: 'timezone service unavailable',
                is_error: true,
              },
              {
                type: 'tool_result',
                tool_use_id: 'toolu_past2',
                content: [{ type: 'text', text: 'Map of Paris' }, image],
              },
            ],
          },
        ],
        tools: betaTools(),
      };
    case 'image-input':
      return {
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, image] }],
      };
    case 'image-url':
      return {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image', source: { type: 'url', url: imageUrl } },
            ],
          },
        ],
      };
    case 'cached-system':
      return {
        system: [{ type: 'text', text: systemText, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Any advice for today?' }],
      };
    case 'legacy-functions':
      throw new Error('legacy functions are an A-surface scenario');
  }
}

function gammaBody(scenario: ScenarioName): JsonObject {
  const user = (text: string): JsonObject => ({ role: 'user', parts: [{ text }] });
  switch (scenario) {
    case 'single-call':
      return {
        contents: [user('What is the weather in Zürich?')],
        tools: gammaTools(),
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      };
    case 'parallel-calls':
      return {
        contents: [user('Weather in Paris and the time in Tokyo, please.')],
        tools: gammaTools(),
        toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      };
    case 'text-then-call':
      return {
        contents: [user('Is it raining in Oslo?')],
        tools: gammaTools(),
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      };
    case 'tool-results':
      return {
        contents: [
          user('Weather, time and a map for Paris?'),
          {
            role: 'model',
            parts: pastCalls.map((call) => ({ functionCall: { name: call.name, args: call.args } })),
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'get_weather', response: { output: '18°C, sunny' } } },
              { functionResponse: { name: 'get_time', response: { error: 'timezone service unavailable' } } },
              {
                functionResponse: {
                  name: 'get_map',
                  response: { output: 'Map of Paris' },
                  parts: [{ inlineData: { mimeType: 'image/png', data: png } }],
                },
              },
            ],
          },
        ],
        tools: gammaTools(),
      };
    case 'image-input':
      return {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'What is in this picture?' },
              { inlineData: { mimeType: 'image/png', data: png } },
            ],
          },
        ],
      };
    case 'image-url':
      return {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'What is in this picture?' },
              { fileData: { mimeType: 'image/png', fileUri: imageUrl } },
            ],
          },
        ],
      };
    case 'cached-system':
      return {
        systemInstruction: { parts: [{ text: systemText }] },
        contents: [user('Any advice for today?')],
      };
    case 'legacy-functions':
      throw new Error('legacy functions are an A-surface scenario');
  }
}
