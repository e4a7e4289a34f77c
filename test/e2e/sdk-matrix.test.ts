/**
 * Every surface SDK × every family, as real users call the gateway: the official clients
 * (openai on A and the unified path, @anthropic-ai/sdk 1.x and 0.x on B, @google/genai on C) and
 * the Vercel AI SDK providers. The families' upstreams point at a recording upstream that answers
 * with the built-in (deterministic) simulator, so what reaches the upstream can be checked too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content } from '@google/genai';
import { generateText, streamText, type LanguageModel } from 'ai';
import Anthropic0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { alphaAuth, betaVersion, post, sseJson, type AlphaChunk } from '../kit/e2e.ts';
import {
  startRecordingUpstream,
  type RecordedRequest,
  type RecordingUpstream,
} from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

interface Conversation {
  system?: string;
  turns: Turn[];
  maxTokens?: number;
}

/** What a client sees, read through its SDK's own types. */
interface Outcome {
  text: string;
  finish: string | null | undefined;
  model: string | undefined;
  input: number;
  output: number;
  total: number;
}

interface SurfaceSdk {
  name: string;
  /** Finish reason of a natural end and of a max-tokens cut, in the surface's words. */
  stop: string;
  length: string;
  complete(model: string, conversation: Conversation): Promise<Outcome>;
  stream(model: string, conversation: Conversation): Promise<Outcome>;
}

const models = ['A-2', 'B-1', 'C-1'] as const;

let upstream: RecordingUpstream;
let gateway: TestGateway;
const sdks = new Map<string, SurfaceSdk>();
const sdkNames = [
  'openai (A surface)',
  'openai (unified)',
  '@anthropic-ai/sdk 1.x (B surface)',
  '@anthropic-ai/sdk 0.x (B surface)',
  '@google/genai (C surface)',
] as const;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    ALPHA_BASE_URL: upstream.url,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ALPHA_API_KEY: 'up-a',
    BETA_API_KEY: 'up-b',
    GAMMA_API_KEY: 'up-c',
  });
  for (const sdk of [
    openaiSdk(sdkNames[0], `${gateway.url}/v1`),
    openaiSdk(sdkNames[1], `${gateway.url}/api/alpha/v1`),
    anthropicSdk1(),
    anthropicSdk0(),
    genaiSdk(),
  ])
    sdks.set(sdk.name, sdk);
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

function openaiSdk(name: string, baseURL: string): SurfaceSdk {
  const client = new OpenAI({ apiKey: gateway.key, baseURL, maxRetries: 0 });
  const messages = (conversation: Conversation): ChatCompletionMessageParam[] => [
    ...(conversation.system === undefined ? [] : [{ role: 'system' as const, content: conversation.system }]),
    ...conversation.turns.map((turn) => ({ role: turn.role, content: turn.text })),
  ];
  const limit = (conversation: Conversation): { max_tokens?: number } =>
    conversation.maxTokens === undefined ? {} : { max_tokens: conversation.maxTokens };
  return {
    name,
    stop: 'stop',
    length: 'length',
    async complete(model, conversation) {
      const completion = await client.chat.completions.create({
        model,
        messages: messages(conversation),
        ...limit(conversation),
      });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.choices.length, 1);
      const choice = completion.choices[0]!;
      assert.equal(choice.message.role, 'assistant');
      assert.ok(completion.usage, 'usage present');
      return {
        text: choice.message.content ?? '',
        finish: choice.finish_reason,
        model: completion.model,
        input: completion.usage.prompt_tokens,
        output: completion.usage.completion_tokens,
        total: completion.usage.total_tokens,
      };
    },
    async stream(model, conversation) {
      const stream = await client.chat.completions.create({
        model,
        messages: messages(conversation),
        ...limit(conversation),
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let finish: string | null = null;
      const modelsSeen = new Set<string>();
      let usage: OpenAI.CompletionUsage | undefined;
      let chunksAfterUsage = 0;
      for await (const chunk of stream) {
        modelsSeen.add(chunk.model);
        if (usage !== undefined) chunksAfterUsage += 1;
        const choice = chunk.choices[0];
        text += choice?.delta.content ?? '';
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (chunk.usage) {
          assert.equal(chunk.choices.length, 0, 'the usage chunk has no choices');
          usage = chunk.usage;
        }
      }
      assert.equal(modelsSeen.size, 1, `one model name on every chunk: ${[...modelsSeen].join(', ')}`);
      assert.ok(usage, 'include_usage gives a usage chunk');
      assert.equal(chunksAfterUsage, 0, 'the usage chunk is the last one');
      return {
        text,
        finish,
        model: [...modelsSeen][0],
        input: usage.prompt_tokens,
        output: usage.completion_tokens,
        total: usage.total_tokens,
      };
    },
  };
}

interface BetaLikeMessage {
  model: string;
  role: string;
  type: string;
  content: readonly ({ type: 'text'; text: string } | { type: string })[];
  stop_reason: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

function betaOutcome(message: BetaLikeMessage): Outcome {
  assert.equal(message.type, 'message');
  assert.equal(message.role, 'assistant');
  const text = message.content
    .map((block) => (block.type === 'text' && 'text' in block ? block.text : ''))
    .join('');
  return {
    text,
    finish: message.stop_reason,
    model: message.model,
    input: message.usage.input_tokens,
    output: message.usage.output_tokens,
    total: message.usage.input_tokens + message.usage.output_tokens,
  };
}

function betaParams(
  model: string,
  conversation: Conversation,
): {
  model: string;
  max_tokens: number;
  system?: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
} {
  return {
    model,
    max_tokens: conversation.maxTokens ?? 1024,
    ...(conversation.system === undefined ? {} : { system: conversation.system }),
    messages: conversation.turns.map((turn) => ({ role: turn.role, content: turn.text })),
  };
}

/** The parts of a B SDK's `messages` API the matrix uses; 0.x and 1.x both have this shape. */
interface BetaMessagesApi {
  create(params: ReturnType<typeof betaParams>): Promise<BetaLikeMessage>;
  stream(params: ReturnType<typeof betaParams>): AsyncIterable<BetaStreamEvent> & {
    finalMessage(): Promise<BetaLikeMessage>;
  };
}

interface BetaStreamEvent {
  type: string;
  delta?: unknown;
}

/** The text of a `text_delta`, or undefined for any other delta. */
function textDelta(delta: unknown): string | undefined {
  if (typeof delta !== 'object' || delta === null) return undefined;
  if (!('type' in delta) || delta.type !== 'text_delta' || !('text' in delta)) return undefined;
  return typeof delta.text === 'string' ? delta.text : undefined;
}

/** One adapter for both major versions of the B SDK: only how the key travels differs. */
function betaSdk(name: string, messages: BetaMessagesApi): SurfaceSdk {
  return {
    name,
    stop: 'end_turn',
    length: 'max_tokens',
    async complete(model, conversation) {
      return betaOutcome(await messages.create(betaParams(model, conversation)));
    },
    async stream(model, conversation) {
      const stream = messages.stream(betaParams(model, conversation));
      let deltas = '';
      const types: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'content_block_delta') deltas += textDelta(event.delta) ?? '';
      }
      assertBetaEventOrder(types);
      const outcome = betaOutcome(await stream.finalMessage());
      assert.equal(deltas, outcome.text);
      return outcome;
    },
  };
}

/** @anthropic-ai/sdk 1.x: the key goes as `Authorization: Bearer`; no custom header (it sends `anthropic-version`). */
function anthropicSdk1(): SurfaceSdk {
  const options = { apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 };
  const client = new Anthropic(options);
  return betaSdk(sdkNames[2], client.messages);
}

/** @anthropic-ai/sdk 0.x: the key goes as `x-api-key`; the spec's `beta-version` header is added by hand. */
function anthropicSdk0(): SurfaceSdk {
  const options = { apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 };
  const client = new Anthropic0({ ...options, defaultHeaders: { 'beta-version': betaVersion } });
  return betaSdk(sdkNames[3], client.messages);
}

function assertBetaEventOrder(types: string[]): void {
  assert.equal(types[0], 'message_start');
  assert.equal(types.at(-1), 'message_stop');
  assert.equal(types.at(-2), 'message_delta');
  assert.ok(types.includes('content_block_start') && types.includes('content_block_stop'), types.join(','));
}

function genaiSdk(): SurfaceSdk {
  const client = new GoogleGenAI({
    apiKey: gateway.key,
    httpOptions: {
      baseUrl: gateway.url,
      apiVersion: 'v1',
      // No custom header: the SDK's own `x-goog-api-key` carries the key.
      retryOptions: { attempts: 1 },
    },
  });
  const contents = (conversation: Conversation): Content[] =>
    conversation.turns.map((turn) => ({
      role: turn.role === 'assistant' ? 'model' : 'user',
      parts: [{ text: turn.text }],
    }));
  const config = (conversation: Conversation): { systemInstruction?: string; maxOutputTokens?: number } => ({
    ...(conversation.system === undefined ? {} : { systemInstruction: conversation.system }),
    ...(conversation.maxTokens === undefined ? {} : { maxOutputTokens: conversation.maxTokens }),
  });
  return {
    name: sdkNames[4],
    stop: 'STOP',
    length: 'MAX_TOKENS',
    async complete(model, conversation) {
      const response = await client.models.generateContent({
        model,
        contents: contents(conversation),
        config: config(conversation),
      });
      assert.equal(response.candidates?.length, 1);
      const candidate = response.candidates[0]!;
      assert.equal(candidate.content?.role, 'model');
      const usage = response.usageMetadata;
      assert.ok(usage, 'usageMetadata present');
      return {
        text: response.text ?? '',
        finish: candidate.finishReason,
        model: response.modelVersion,
        input: usage.promptTokenCount ?? 0,
        output: usage.candidatesTokenCount ?? 0,
        total: usage.totalTokenCount ?? 0,
      };
    },
    async stream(model, conversation) {
      const stream = await client.models.generateContentStream({
        model,
        contents: contents(conversation),
        config: config(conversation),
      });
      let text = '';
      let finish: string | undefined;
      let usage:
        { promptTokenCount?: number; candidatesTokenCount?: number; totalTokenCount?: number } | undefined;
      const modelsSeen = new Set<string | undefined>();
      for await (const chunk of stream) {
        modelsSeen.add(chunk.modelVersion);
        text += chunk.text ?? '';
        const reason = chunk.candidates?.[0]?.finishReason;
        if (reason !== undefined) finish = reason;
        if (chunk.usageMetadata !== undefined) usage = chunk.usageMetadata;
      }
      assert.equal(modelsSeen.size, 1, 'one modelVersion on every chunk');
      assert.ok(usage, 'usageMetadata in the stream');
      return {
        text,
        finish,
        model: [...modelsSeen][0],
        input: usage.promptTokenCount ?? 0,
        output: usage.candidatesTokenCount ?? 0,
        total: usage.totalTokenCount ?? 0,
      };
    },
  };
}

function assertUsage(outcome: Outcome, label: string): void {
  assert.ok(outcome.input > 0, `${label}: input tokens > 0 (${outcome.input})`);
  assert.ok(outcome.output > 0, `${label}: output tokens > 0 (${outcome.output})`);
  assert.equal(outcome.total, outcome.input + outcome.output, `${label}: total = input + output`);
}

/** The system prompt and turns of a recorded upstream request, whatever its family. */
function upstreamConversation(request: RecordedRequest): { system: string | undefined; turns: Turn[] } {
  const body = request.json as Record<string, unknown>;
  const textOf = (content: unknown): string => {
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
    return '';
  };
  if (request.path.startsWith('/v1/chat/completions')) {
    const messages = body.messages as { role: string; content: unknown }[];
    const system = messages.filter((message) => message.role === 'system');
    return {
      system: system.length === 0 ? undefined : system.map((message) => textOf(message.content)).join('\n'),
      turns: messages
        .filter((message) => message.role !== 'system')
        .map((message) => ({ role: message.role as Turn['role'], text: textOf(message.content) })),
    };
  }
  if (request.path.startsWith('/v1/messages')) {
    const messages = body.messages as { role: Turn['role']; content: unknown }[];
    return {
      system: body.system === undefined ? undefined : textOf(body.system),
      turns: messages.map((message) => ({ role: message.role, text: textOf(message.content) })),
    };
  }
  const contents = body.contents as { role?: string; parts: unknown }[];
  const instruction = body.systemInstruction as { parts: unknown } | undefined;
  return {
    system: instruction === undefined ? undefined : textOf(instruction.parts),
    turns: contents.map((content) => ({
      role: content.role === 'model' ? 'assistant' : 'user',
      text: textOf(content.parts),
    })),
  };
}

const upstreamPathPrefix: Record<(typeof models)[number], string> = {
  'A-2': '/v1/chat/completions',
  'B-1': '/v1/messages',
  'C-1': '/v1/models/C-1:',
};

describe('official SDKs × families', () => {
  for (const sdkName of sdkNames) {
    for (const model of models) {
      test(`${sdkName} → ${model}: non-stream shape; the stream's text and usage equal it`, async () => {
        const sdk = sdks.get(sdkName)!;
        const label = `${sdk.name} → ${model}`;
        const conversation: Conversation = { turns: [{ role: 'user', text: `Hello from ${sdk.name}` }] };
        const whole = await sdk.complete(model, conversation);
        assert.ok(whole.text.length > 0, `${label}: text`);
        assert.equal(whole.finish, sdk.stop, `${label}: finish reason`);
        assert.equal(whole.model, model, `${label}: model field`);
        assertUsage(whole, label);
        const streamed = await sdk.stream(model, conversation);
        assert.equal(streamed.text, whole.text, `${label}: stream text = non-stream text`);
        assert.equal(streamed.finish, sdk.stop, `${label}: stream finish reason`);
        assert.equal(streamed.model, model, `${label}: stream model field`);
        assertUsage(streamed, `${label} (stream)`);
        assert.deepEqual(
          [streamed.input, streamed.output],
          [whole.input, whole.output],
          `${label}: stream usage = non-stream usage`,
        );
      });

      test(`${sdkName} → ${model}: a small max tokens ends with the surface's length reason`, async () => {
        const sdk = sdks.get(sdkName)!;
        const label = `${sdk.name} → ${model}`;
        const conversation: Conversation = {
          turns: [{ role: 'user', text: 'Tell me a long story' }],
          maxTokens: 5,
        };
        for (const outcome of [
          await sdk.complete(model, conversation),
          await sdk.stream(model, conversation),
        ]) {
          assert.equal(outcome.finish, sdk.length, `${label}: length finish reason`);
          assert.ok(outcome.text.length > 0, `${label}: some text`);
          assert.equal(outcome.output, 5, `${label}: output tokens = the limit`);
        }
      });

      test(`${sdkName} → ${model}: the system prompt and a multi-turn history reach the upstream`, async () => {
        const sdk = sdks.get(sdkName)!;
        const conversation: Conversation = {
          system: 'You are terse.',
          turns: [
            { role: 'user', text: 'What is two plus two?' },
            { role: 'assistant', text: 'Four.' },
            { role: 'user', text: 'And three plus three?' },
          ],
        };
        for (const call of [sdk.complete.bind(sdk), sdk.stream.bind(sdk)]) {
          const before = upstream.requests.length;
          const outcome = await call(model, conversation);
          assert.ok(outcome.text.length > 0);
          const sent = upstream.requests.slice(before);
          assert.equal(sent.length, 1, 'one upstream call');
          assert.ok(sent[0]!.path.startsWith(upstreamPathPrefix[model]), sent[0]!.path);
          assert.deepEqual(upstreamConversation(sent[0]!), {
            system: conversation.system,
            turns: conversation.turns,
          });
        }
      });
    }
  }
});

describe('A streams and usage', () => {
  for (const model of models) {
    for (const path of ['/v1/chat/completions', '/api/alpha/v1/chat/completions']) {
      test(`${path} ${model}: no stream_options → no usage chunk; ends with [DONE]`, async () => {
        const answer = await post(gateway.url, path, alphaAuth(gateway.key), {
          model,
          stream: true,
          messages: [{ role: 'user', content: 'Hello' }],
        });
        assert.equal(answer.status, 200);
        assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
        assert.ok(answer.text.trimEnd().endsWith('data: [DONE]'), 'ends with [DONE]');
        const chunks = sseJson(answer.text) as AlphaChunk[];
        assert.ok(chunks.length > 2);
        for (const chunk of chunks) {
          assert.equal(chunk.object, 'chat.completion.chunk');
          assert.equal(chunk.model, model);
          assert.ok(chunk.usage === undefined || chunk.usage === null, `no usage without include_usage`);
          assert.equal(chunk.choices.length, 1);
        }
        assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'stop');
      });
    }
  }
});

describe('Vercel AI SDK providers (cross-family)', () => {
  const cases: { name: string; model: () => LanguageModel }[] = [
    {
      name: '@ai-sdk/openai .chat(B-1)',
      model: () => createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key }).chat('B-1'),
    },
    {
      name: '@ai-sdk/anthropic (C-1)',
      model: () => createAnthropic({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key })('C-1'),
    },
    {
      name: '@ai-sdk/google (A-2)',
      model: () => createGoogleGenerativeAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key })('A-2'),
    },
  ];
  for (const { name, model } of cases) {
    test(`${name}: generateText and streamText agree`, async () => {
      const prompt = `Hello through ${name}`;
      const generated = await generateText({
        model: model(),
        system: 'Be brief.',
        prompt,
        maxOutputTokens: 256,
        maxRetries: 0,
      });
      assert.ok(generated.text.length > 0);
      assert.equal(generated.finishReason, 'stop');
      assert.ok((generated.usage.inputTokens ?? 0) > 0, 'input tokens');
      assert.ok((generated.usage.outputTokens ?? 0) > 0, 'output tokens');

      const errors: unknown[] = [];
      const streamed = streamText({
        model: model(),
        system: 'Be brief.',
        prompt,
        maxOutputTokens: 256,
        maxRetries: 0,
        onError: ({ error }) => {
          errors.push(error);
        },
      });
      let text = '';
      for await (const delta of streamed.textStream) text += delta;
      assert.deepEqual(errors, []);
      assert.equal(text, generated.text);
      assert.equal(await streamed.finishReason, 'stop');
      const usage = await streamed.usage;
      assert.equal(usage.outputTokens, generated.usage.outputTokens);
      assert.equal(usage.inputTokens, generated.usage.inputTokens);
    });
  }
});

describe('catalog and health', () => {
  test('openai models.list() and retrieve() show the catalog; /healthz needs no key', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    for (const name of ['A-1', 'A-2', 'A-3', 'B-1', 'B-2', 'B-3', 'B-4', 'C-1', 'C-2', 'C-3']) {
      assert.ok(ids.includes(name), `${name} listed`);
    }
    const one = await client.models.retrieve('B-2');
    assert.equal(one.id, 'B-2');
    await assert.rejects(client.models.retrieve('Z-9'), OpenAI.NotFoundError);
    const stranger = new OpenAI({ apiKey: 'wrong', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await assert.rejects(stranger.models.list(), OpenAI.AuthenticationError);
    const health = await fetch(`${gateway.url}/healthz`);
    assert.equal(health.status, 200);
  });
});
