/**
 * A two-step tool loop written against each family's official SDK (streaming helpers included)
 * and the Vercel AI SDK, unchanged, against every family's model through the gateway and the
 * built-in simulator: the model calls `get_weather`, the client runs it, sends the result back,
 * and the model's answer quotes the result.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { FunctionResponse, GoogleGenAI, type Content, type Part } from '@google/genai';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const models = ['A-2', 'B-1', 'C-1'] as const;
const question = 'Please use get_weather for Paris.';
const result = '18°C and sunny';
const schema: {
  type: 'object';
  properties: Record<string, { type: 'string'; description: string }>;
  required: string[];
} = {
  type: 'object',
  properties: { city: { type: 'string', description: 'City name' } },
  required: ['city'],
};

let gateway: TestGateway;
before(async () => {
  gateway = await startTestGateway();
});
after(async () => {
  await gateway.close();
});

/** The SDK's own class, as its users build it. */
function functionResponse(
  id: string | undefined,
  name: string,
  response: Record<string, unknown>,
): FunctionResponse {
  const part = new FunctionResponse();
  if (id !== undefined) part.id = id;
  part.name = name;
  part.response = response;
  return part;
}

/** The simulator fills `city` from the schema and, given the result, answers quoting it. */
function checkAnswer(text: string): void {
  assert.match(text, /the tool get_weather returned 18°C and sunny/);
}

describe('openai SDK (A surface), streaming helper', () => {
  for (const model of models) {
    test(model, async () => {
      const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const tools = [
        {
          type: 'function' as const,
          function: { name: 'get_weather', description: 'Weather', parameters: schema },
        },
      ];
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
      const first = await client.chat.completions.stream({ model, messages, tools }).finalChatCompletion();
      const message = first.choices[0]?.message;
      assert.equal(first.choices[0]?.finish_reason, 'tool_calls');
      const call = message?.tool_calls?.[0];
      assert.ok(call !== undefined);
      assert.equal(call.function.name, 'get_weather');
      assert.deepEqual(JSON.parse(call.function.arguments), { city: 'sample city' });
      messages.push(message as ChatCompletionMessageParam, {
        role: 'tool',
        tool_call_id: call.id,
        content: result,
      });
      const second = await client.chat.completions.stream({ model, messages, tools }).finalChatCompletion();
      const answer = second.choices[0];
      assert.ok(answer !== undefined);
      assert.equal(answer.finish_reason, 'stop');
      checkAnswer(answer.message.content ?? '');
    });
  }
});

describe('@anthropic-ai/sdk (B surface), stream helper finalMessage()', () => {
  for (const model of models) {
    test(model, async () => {
      // Base URL and key only: the SDK's own `anthropic-version` header is accepted.
      const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
      const tools = [{ name: 'get_weather', description: 'Weather', input_schema: schema }];
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }];
      const first = await client.messages.stream({ model, max_tokens: 512, messages, tools }).finalMessage();
      assert.equal(first.stop_reason, 'tool_use');
      const use = first.content.find((block) => block.type === 'tool_use');
      assert.ok(use?.type === 'tool_use');
      assert.equal(use.name, 'get_weather');
      assert.deepEqual(use.input, { city: 'sample city' });
      assert.ok(first.usage.input_tokens > 0, 'input tokens reported');
      messages.push(
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: result }] },
      );
      const second = await client.messages.stream({ model, max_tokens: 512, messages, tools }).finalMessage();
      assert.equal(second.stop_reason, 'end_turn');
      const text = second.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      checkAnswer(text);
    });
  }
});

describe('@google/genai (C surface), generateContentStream', () => {
  for (const model of models) {
    test(model, async () => {
      const client = new GoogleGenAI({
        apiKey: gateway.key,
        httpOptions: {
          baseUrl: gateway.url,
          apiVersion: 'v1',
          retryOptions: { attempts: 1 },
        },
      });
      const config = {
        tools: [
          {
            functionDeclarations: [
              { name: 'get_weather', description: 'Weather', parametersJsonSchema: schema },
            ],
          },
        ],
      };
      const contents: Content[] = [{ role: 'user', parts: [{ text: question }] }];
      const modelParts: Part[] = [];
      for await (const chunk of await client.models.generateContentStream({ model, contents, config }))
        modelParts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      const call = modelParts.find((part) => part.functionCall !== undefined)?.functionCall;
      assert.ok(call !== undefined);
      assert.equal(call.name, 'get_weather');
      assert.deepEqual(call.args, { city: 'sample city' });
      contents.push(
        { role: 'model', parts: modelParts.filter((part) => part.text !== '') },
        {
          role: 'user',
          parts: [{ functionResponse: functionResponse(call.id, 'get_weather', { output: result }) }],
        },
      );
      let text = '';
      for await (const chunk of await client.models.generateContentStream({ model, contents, config }))
        text += chunk.text ?? '';
      checkAnswer(text);
    });
  }
});

describe('Vercel AI SDK: one tool loop (generateText and streamText) per provider and model', () => {
  const providers: Record<string, (model: string) => LanguageModel> = {
    '@ai-sdk/openai': (model) =>
      createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key }).chat(model),
    '@ai-sdk/anthropic': (model) =>
      createAnthropic({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key })(model),
    '@ai-sdk/google': (model) =>
      createGoogleGenerativeAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key })(model),
  };
  const tools = {
    get_weather: tool({
      description: 'Weather',
      inputSchema: jsonSchema<{ city: string }>(schema),
      execute: ({ city }) => {
        assert.equal(city, 'sample city');
        return Promise.resolve(result);
      },
    }),
  };
  for (const [provider, create] of Object.entries(providers)) {
    for (const model of models) {
      test(`${provider} → ${model}`, async () => {
        const generated = await generateText({
          model: create(model),
          tools,
          stopWhen: stepCountIs(3),
          prompt: question,
          maxRetries: 0,
        });
        assert.equal(generated.steps.length, 2);
        assert.equal(generated.steps[0]?.toolCalls[0]?.toolName, 'get_weather');
        checkAnswer(generated.text);
        const streamed = streamText({
          model: create(model),
          tools,
          stopWhen: stepCountIs(3),
          prompt: question,
          maxRetries: 0,
        });
        checkAnswer(await streamed.text);
        assert.equal((await streamed.steps).length, 2);
      });
    }
  }
});
