/**
 * Each client surface through its official SDK, as the provider end-to-end tests call it: text
 * (JSON or streamed) with usage, a streamed tool call read back, an image.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type OpenAI from 'openai';
import { pixelPng } from './vendor-providers.ts';

export interface SurfaceClient {
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

export const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
export const toolPrompt = 'Please call get_weather for Paris';
const imageUrl = `data:image/png;base64,${pixelPng}`;

export function chatCompletions(name: string, client: OpenAI): SurfaceClient {
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

export function responses(client: OpenAI): SurfaceClient {
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

export function messages(client: Anthropic): SurfaceClient {
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

export function generateContent(client: GoogleGenAI): SurfaceClient {
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
