/**
 * Stream time to first body byte, measured from this process with one keep-alive undici connection
 * and strictly sequential requests (no load), so the figure is the hop's own delay, not queueing.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import type { HttpRequestSpec } from './scenarios.ts';
import { percentileSorted, sortedCopy } from './stats.ts';

export interface FirstByteResult {
  requests: number;
  /** Request sent → first body chunk, ms. */
  p50: number;
  p90: number;
  p99: number;
  /** Request sent → end of stream, ms. */
  totalP50: number;
}

const warmupRequests = 20;

export async function measureFirstByte(
  baseUrl: string,
  spec: HttpRequestSpec,
  count: number,
): Promise<FirstByteResult> {
  const client = new Client(baseUrl, { pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    for (let index = 0; index < warmupRequests; index++) await timeOne(client, spec);
    const firstBytes: number[] = [];
    const totals: number[] = [];
    for (let index = 0; index < count; index++) {
      const timing = await timeOne(client, spec);
      firstBytes.push(timing.firstByte);
      totals.push(timing.total);
    }
    const sorted = sortedCopy(firstBytes);
    return {
      requests: count,
      p50: percentileSorted(sorted, 50),
      p90: percentileSorted(sorted, 90),
      p99: percentileSorted(sorted, 99),
      totalP50: percentileSorted(sortedCopy(totals), 50),
    };
  } finally {
    await client.close();
  }
}

async function timeOne(client: Client, spec: HttpRequestSpec): Promise<{ firstByte: number; total: number }> {
  const start = performance.now();
  const response = await client.request({
    path: spec.path,
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
  });
  // A plain 'data' listener: an async iterator adds a promise hop per chunk to every figure.
  const firstByte = await new Promise<number>((resolve, reject) => {
    let first = Number.NaN;
    response.body.on('data', () => {
      if (Number.isNaN(first)) first = performance.now() - start;
    });
    response.body.once('end', () => {
      resolve(first);
    });
    response.body.once('error', reject);
  });
  const total = performance.now() - start;
  if (response.statusCode !== 200)
    throw new Error(`first-byte probe: ${spec.path} answered ${response.statusCode}`);
  return { firstByte, total };
}
