/**
 * Traffic through all three surfaces with the official SDKs, as a user's programs send it: A's chat
 * (plain and streamed), B's messages, C's generateContent, and one request the upstream fails (the
 * simulator's fault header), which the ledger records as an error. Returns the requests sent.
 */
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';

export async function trafficOnEverySurface(baseUrl: string, key: string): Promise<number> {
  const openai = new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
  await openai.chat.completions.create({
    model: 'A-1',
    messages: [{ role: 'user', content: 'Hello there' }],
  });
  const stream = await openai.chat.completions.create({
    model: 'A-2',
    messages: [{ role: 'user', content: 'Stream a short answer' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let chunks = 0;
  for await (const chunk of stream) chunks += chunk.choices.length > 0 ? 1 : 0;
  assert.ok(chunks > 0);
  const anthropic = new Anthropic({ apiKey: key, baseURL: baseUrl, maxRetries: 0 });
  await anthropic.messages.create({
    model: 'B-1',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hello from the messages surface' }],
  });
  const google = new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl, apiVersion: 'v1', retryOptions: { attempts: 1 } },
  });
  await google.models.generateContent({ model: 'C-1', contents: 'Hello from the generate surface' });
  await assert.rejects(
    openai.chat.completions.create(
      { model: 'A-1', messages: [{ role: 'user', content: 'fail please' }] },
      { headers: { 'x-simulate-error': '400' } },
    ),
  );
  return 5;
}
