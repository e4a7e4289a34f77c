/**
 * Small helpers for the end-to-end suites: raw HTTP calls against a running gateway, an SSE
 * reader, per-surface credential headers and the wire shapes the tests read back.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/** POSTs `body` (JSON-encoded unless it is already a string) with a JSON content type unless overridden. */
export async function post(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<HttpAnswer> {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export interface SseMessage {
  event: string | undefined;
  data: string;
}

/** Splits a whole SSE body into messages (event name + joined data lines). */
export function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (event !== undefined || data.length > 0) messages.push({ event, data: data.join('\n') });
  }
  return messages;
}

/** The JSON payloads of an SSE body (skips `[DONE]`). */
export function sseJson(text: string): unknown[] {
  return parseSse(text)
    .filter((message) => message.data !== '[DONE]' && message.data !== '')
    .map((message) => JSON.parse(message.data) as unknown);
}

export const betaVersion = '2023-06-01';

export function alphaAuth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

export function betaAuth(key: string): Record<string, string> {
  return { 'x-api-key': key, 'beta-version': betaVersion };
}

export function gammaAuth(key: string): Record<string, string> {
  return { 'x-gamma-api-key': key };
}

export function gammaPath(model: string, stream: boolean): string {
  return `/v1/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

/** Writes `text` to a config file in a fresh temp directory; `remove()` deletes the directory. */
export function writeTempConfig(name: string, text: string): { path: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-e2e-config-'));
  const path = join(directory, name);
  writeFileSync(path, text);
  return { path, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** Every place `secret` occurs in `haystack`, described for an assertion message. */
export function leaks(haystack: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => haystack.includes(secret));
}

// Wire shapes the tests read (only the fields they look at).

export interface AlphaCompletion {
  id: string;
  object: string;
  model: string;
  choices: {
    index: number;
    message: { role: string; content: string | null };
    finish_reason: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface AlphaChunk {
  id: string;
  object: string;
  model: string;
  choices: {
    index: number;
    delta: { role?: string; content?: string | null };
    finish_reason: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

export interface AlphaErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface BetaMessage {
  id: string;
  type: string;
  role: string;
  model: string;
  content: { type: string; text?: string }[];
  stop_reason: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

export interface BetaErrorBody {
  type: string;
  error: { type: string; message: string };
}

export interface GammaResponse {
  candidates?: {
    index?: number;
    content?: { role?: string; parts?: { text?: string }[] };
    finishReason?: string;
  }[];
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; totalTokenCount?: number };
  modelVersion?: string;
}

export interface GammaErrorBody {
  error: { code: number; message: string; status: string };
}
