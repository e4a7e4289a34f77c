/**
 * A gateway whose models go through the `openai`, `anthropic` and `gemini` provider presets to the
 * strict vendor mocks (test/upstream-mocks), its ledger in a file the test can read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicMock } from '../upstream-mocks/anthropic/index.ts';
import { startGeminiMock } from '../upstream-mocks/gemini/index.ts';
import { startOpenAIMock } from '../upstream-mocks/openai/mock.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { writeTempConfig } from './e2e.ts';
import { startTestGateway, type TestGateway } from './test-gateway.ts';

export const vendorKeys = {
  openai: 'sk-mock-openai-key',
  anthropic: 'sk-ant-mock-key',
  gemini: 'AIza-mock-gemini-key',
} as const;

/** The catalog names the gateway serves, one per preset. */
export const providerModels = {
  openai: 'via-openai',
  anthropic: 'via-anthropic',
  gemini: 'via-gemini',
} as const;
export type PresetName = keyof typeof providerModels;
export const presets = Object.keys(providerModels) as PresetName[];

export interface VendorGateway {
  gateway: TestGateway;
  /** Requests each mock received. */
  received: Record<PresetName, { path: string; headers: Record<string, string> }[]>;
  ledger(): LedgerRow[];
  close(): Promise<void>;
}

export interface LedgerRow {
  request_id: string;
  model: string;
  upstream_model: string | null;
  stream: number;
  status: number;
  prompt_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export async function startVendorGateway(): Promise<VendorGateway> {
  const [openai, anthropic, gemini] = await Promise.all([
    startOpenAIMock(),
    startAnthropicMock(),
    // Implicit caching from a short prefix, so a test prompt of a few hundred tokens is cached.
    startGeminiMock({ minimumCachedTokens: 32 }),
  ]);
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-providers-'));
  const databasePath = join(directory, 'ledger.db');
  const model = (name: string, family: string, upstream: string, provider: string): string => `
  - name: ${name}
    family: ${family}
    upstreamModel: ${upstream}
    contextWindow: 200000
    maxOutputTokens: 8192
    pricing: { inputPerMillion: 2, outputPerMillion: 8 }
    capabilities: { vision: true }
    provider: ${provider}`;
  const config = writeTempConfig(
    'providers.yaml',
    `
providers:
  my-openai: { preset: openai, apiKey: "\${OPENAI_KEY}", baseUrl: "${openai.url}" }
  my-anthropic: { preset: anthropic, apiKey: "\${ANTHROPIC_KEY}", baseUrl: "${anthropic.url}" }
  my-gemini: { preset: gemini, apiKey: "\${GEMINI_KEY}", baseUrl: "${gemini.url}" }
models:${model(providerModels.openai, 'alpha', 'gpt-4o-mini', 'my-openai')}${model(
      providerModels.anthropic,
      'beta',
      'claude-sonnet-4-5-20250929',
      'my-anthropic',
    )}${model(providerModels.gemini, 'gamma', 'gemini-2.5-flash', 'my-gemini')}${model('via-o3', 'alpha', 'o3-mini', 'my-openai')}
`,
  );
  const gateway = await startTestGateway(
    {
      OPENAI_KEY: vendorKeys.openai,
      ANTHROPIC_KEY: vendorKeys.anthropic,
      GEMINI_KEY: vendorKeys.gemini,
      MODELGATE_DB: databasePath,
    },
    config.path,
  );
  return {
    gateway,
    received: {
      openai: openai.requests,
      anthropic: anthropic.requests,
      gemini: gemini.requests,
    },
    ledger() {
      const database = openDatabase(databasePath);
      try {
        return database.prepare('SELECT * FROM usage_ledger ORDER BY id').all() as unknown as LedgerRow[];
      } finally {
        database.close();
      }
    },
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
      config.remove();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The ledger row of `requestId`, once its batch is written. */
export async function ledgerRowOf(
  vendor: Pick<VendorGateway, 'ledger'>,
  requestId: string,
): Promise<LedgerRow> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const row = vendor.ledger().find((candidate) => candidate.request_id === requestId);
    if (row !== undefined) return row;
    if (Date.now() > deadline) throw new Error(`no ledger row for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A 1×1 PNG. */
export const pixelPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
