/**
 * Every client surface × the `openai`, `anthropic` and `gemini` presets, through the strict vendor
 * mocks, with the official SDKs: text (JSON and streamed), a tool call with streamed arguments,
 * an image. The mocks refuse whatever the real APIs refuse (auth, version, unknown fields), so an
 * answer here means the vendor would have taken the request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import {
  pixelPng,
  presets,
  providerModels,
  startVendorGateway,
  type VendorGateway,
} from '../kit/vendor-providers.ts';

interface SurfaceClient {
  name: string;
  text(
    model: string,
    prompt: string,
    stream: boolean,
  ): Promise<{ text: string; input: number; output: number }>;
  /** A streamed answer calling `get_weather`: its name and the arguments read from the stream. */
  tool(model: string): Promise<{ name: string; args: unknown }>;
  image(model: string): Promise<string>;
}

const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
const toolPrompt = 'Please call get_weather for Paris';
const imageUrl = `data:image/png;base64,${pixelPng}`;

let vendor: VendorGateway;
const clients: SurfaceClient[] = [];

before(async () => {
  vendor = await startVendorGateway();
  const { url, key } = vendor.gateway;
  clients.push(
    chatCompletions('unified', new OpenAI({ apiKey: key, baseURL: `${url}/api/alpha/v1`, maxRetries: 0 })),
    chatCompletions('A chat completions', new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })),
    responses(new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })),
    messages(new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 })),
    generateContent(
      new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url, retryOptions: { attempts: 1 } } }),
    ),
  );
});

after(async () => {
  await vendor.close();
});

function chatCompletions(name: string, client: OpenAI): SurfaceClient {
  return {
    name,
    async text(model, prompt, stream) {
      const messages = [{ role: 'user' as const, content: prompt }];
      if (!stream) {
        const completion = await client.chat.completions.create({ model, messages });
        const usage = completion.usage;
        return {
          text: completion.choices[0]?.message.content ?? '',
          input: usage?.prompt_tokens ?? 0,
          output: usage?.completion_tokens ?? 0,
        };
      }
      const chunks = await client.chat.completions.create({
        model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let input = 0;
      let output = 0;
      for await (const chunk of chunks) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) ({ prompt_tokens: input, completion_tokens: output } = chunk.usage);
      }
      return { text, input, output };
    },
    async tool(model) {
      const chunks = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: toolPrompt }],
        tools: [{ type: 'function', function: weather }],
        stream: true,
      });
      let toolName = '';
      let args = '';
      for await (const chunk of chunks)
        for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
          toolName += call.function?.name ?? '';
          args += call.function?.arguments ?? '';
        }
      return { name: toolName, args: JSON.parse(args) as unknown };
    },
    async image(model) {
      const completion = await client.chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this image?' },
              { type: 'image_url', image_url: { url: imageUrl } },
            ],
          },
        ],
      });
      return completion.choices[0]?.message.content ?? '';
    },
  };
}

function responses(client: OpenAI): SurfaceClient {
  return {
    name: 'Responses',
    async text(model, prompt, stream) {
      if (!stream) {
        const response = await client.responses.create({ model, input: prompt });
        return {
          text: response.output_text,
          input: response.usage?.input_tokens ?? 0,
          output: response.usage?.output_tokens ?? 0,
        };
      }
      const events = await client.responses.create({ model, input: prompt, stream: true });
      let text = '';
      let input = 0;
      let output = 0;
      for await (const event of events) {
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed')
          ({ input_tokens: input, output_tokens: output } = event.response.usage ?? {
            input_tokens: 0,
            output_tokens: 0,
          });
      }
      return { text, input, output };
    },
    async tool(model) {
      const events = await client.responses.create({
        model,
        input: toolPrompt,
        tools: [{ type: 'function', strict: false, ...weather }],
        stream: true,
      });
      let args = '';
      let toolName = '';
      for await (const event of events) {
        if (event.type === 'response.function_call_arguments.delta') args += event.delta;
        if (event.type === 'response.output_item.added' && event.item.type === 'function_call')
          toolName = event.item.name;
      }
      return { name: toolName, args: JSON.parse(args) as unknown };
    },
    async image(model) {
      const response = await client.responses.create({
        model,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is in this image?' },
              { type: 'input_image', image_url: imageUrl, detail: 'auto' },
            ],
          },
        ],
      });
      return response.output_text;
    },
  };
}

function messages(client: Anthropic): SurfaceClient {
  const textOf = (content: Anthropic.ContentBlock[]): string =>
    content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return {
    name: 'B messages',
    async text(model, prompt, stream) {
      const request = { model, max_tokens: 256, messages: [{ role: 'user' as const, content: prompt }] };
      const message = stream
        ? await client.messages.stream(request).finalMessage()
        : await client.messages.create(request);
      return {
        text: textOf(message.content),
        input: message.usage.input_tokens,
        output: message.usage.output_tokens,
      };
    },
    async tool(model) {
      const message = await client.messages
        .stream({
          model,
          max_tokens: 256,
          messages: [{ role: 'user', content: toolPrompt }],
          tools: [{ name: weather.name, description: weather.description, input_schema: weather.parameters }],
        })
        .finalMessage();
      const call = message.content.find((block) => block.type === 'tool_use');
      return { name: call?.name ?? '', args: call?.input };
    },
    async image(model) {
      const message = await client.messages.create({
        model,
        max_tokens: 256,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixelPng } },
              { type: 'text', text: 'What is in this image?' },
            ],
          },
        ],
      });
      return textOf(message.content);
    },
  };
}

function generateContent(client: GoogleGenAI): SurfaceClient {
  return {
    name: 'C generateContent',
    async text(model, prompt, stream) {
      if (!stream) {
        const response = await client.models.generateContent({ model, contents: prompt });
        const usage = response.usageMetadata;
        return {
          text: response.text ?? '',
          input: usage?.promptTokenCount ?? 0,
          output: usage?.candidatesTokenCount ?? 0,
        };
      }
      let text = '';
      let input = 0;
      let output = 0;
      for await (const chunk of await client.models.generateContentStream({ model, contents: prompt })) {
        text += chunk.text ?? '';
        if (chunk.usageMetadata) {
          input = chunk.usageMetadata.promptTokenCount ?? 0;
          output = chunk.usageMetadata.candidatesTokenCount ?? 0;
        }
      }
      return { text, input, output };
    },
    async tool(model) {
      let call: { name?: string; args?: unknown } | undefined;
      const stream = await client.models.generateContentStream({
        model,
        contents: toolPrompt,
        config: {
          tools: [
            {
              functionDeclarations: [
                {
                  name: weather.name,
                  description: weather.description,
                  parametersJsonSchema: weather.parameters,
                },
              ],
            },
          ],
        },
      });
      for await (const chunk of stream) call ??= chunk.functionCalls?.[0];
      return { name: call?.name ?? '', args: call?.args };
    },
    async image(model) {
      const response = await client.models.generateContent({
        model,
        contents: [
          {
            role: 'user',
            parts: [
              { inlineData: { mimeType: 'image/png', data: pixelPng } },
              { text: 'What is in this image?' },
            ],
          },
        ],
      });
      return response.text ?? '';
    },
  };
}

const surfaceNames = ['unified', 'A chat completions', 'Responses', 'B messages', 'C generateContent'];

for (const surfaceName of surfaceNames)
  describe(`${surfaceName} surface`, () => {
    const client = (): SurfaceClient => {
      const found = clients.find((candidate) => candidate.name === surfaceName);
      assert.ok(found);
      return found;
    };
    for (const preset of presets) {
      const model = providerModels[preset];
      test(`${preset} preset: text, JSON and streamed, with usage`, async () => {
        for (const stream of [false, true]) {
          const answer = await client().text(model, `Hello from ${surfaceName}`, stream);
          assert.match(answer.text, /\S/, `stream ${stream}: text`);
          assert.ok(
            answer.input > 0 && answer.output > 0,
            `stream ${stream}: usage ${JSON.stringify(answer)}`,
          );
        }
      });
      test(`${preset} preset: a tool call with streamed arguments`, async () => {
        const call = await client().tool(model);
        assert.equal(call.name, 'get_weather');
        assert.equal(typeof (call.args as { city?: unknown }).city, 'string');
      });
      test(`${preset} preset: an image`, async () => {
        assert.match(await client().image(model), /\S/);
      });
    }
  });

test('each vendor got its own auth, version and paths, and never the client key', () => {
  const openai = vendor.received.openai;
  assert.ok(
    openai.length > 0 &&
      openai.every((request) => request.headers.authorization === 'Bearer sk-mock-openai-key'),
  );
  const anthropic = vendor.received.anthropic;
  assert.ok(anthropic.every((request) => request.headers['x-api-key'] === 'sk-ant-mock-key'));
  assert.ok(
    anthropic.every(
      (request) =>
        request.headers['anthropic-version'] !== undefined && request.headers['beta-version'] === undefined,
    ),
  );
  const gemini = vendor.received.gemini;
  assert.ok(gemini.every((request) => request.headers['x-goog-api-key'] === 'AIza-mock-gemini-key'));
  assert.ok(gemini.every((request) => request.headers['x-gamma-api-key'] === undefined));
  assert.ok(
    gemini.some(
      (request) => request.path === '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ),
  );
  const all = JSON.stringify([openai, anthropic, gemini].flat().map((request) => request.headers));
  assert.ok(!all.includes(vendor.gateway.key));
});
