/**
 * One request per scenario and target before anything is measured: a target that answers 401 or
 * streams nothing would otherwise post excellent throughput figures.
 */
import { request } from 'undici';
import type { HttpRequestSpec, Scenario } from './scenarios.ts';
import { streamChunks } from './scenarios.ts';

export interface PreflightResult {
  status: number;
  bytes: number;
  /** SSE `data:` lines for streams, 0 for JSON answers. */
  dataLines: number;
}

export async function preflight(
  baseUrl: string,
  scenario: Scenario,
  spec: HttpRequestSpec,
): Promise<PreflightResult> {
  const response = await request(baseUrl + spec.path, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await response.body.text();
  const problem = (why: string): Error =>
    new Error(`${baseUrl}${spec.path} (${scenario.id}): ${why}; body: ${text.slice(0, 400)}`);
  if (response.statusCode !== 200) throw problem(`status ${response.statusCode}`);
  if (scenario.stream) {
    const dataLines = text.split('\n').filter((line) => line.startsWith('data:')).length;
    if (dataLines < streamChunks)
      throw problem(`only ${dataLines} SSE data lines, expected >= ${streamChunks}`);
    return { status: response.statusCode, bytes: Buffer.byteLength(text), dataLines };
  }
  try {
    JSON.parse(text);
  } catch {
    throw problem('body is not JSON');
  }
  return { status: response.statusCode, bytes: Buffer.byteLength(text), dataLines: 0 };
}
