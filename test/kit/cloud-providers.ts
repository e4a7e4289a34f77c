/**
 * A gateway whose models go through the cloud presets (`azure-openai`, `vertex`, `bedrock`) to the
 * strict loopback mocks: an Azure deployment (api-key), Vertex's Gemini and Claude (a
 * service-account key file whose token_uri is the mock), Bedrock's Anthropic model (InvokeModel)
 * and a non-Anthropic one (Converse), signed with static SigV4 test credentials.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAzureMockKey, startAzureOpenAIMock } from '../upstream-mocks/azure-openai/mock.ts';
import { startBedrockMock, testCredentials } from '../upstream-mocks/bedrock/index.ts';
import { startVertexMock } from '../upstream-mocks/vertex/index.ts';
import { generateServiceAccountKey } from '../upstream-mocks/vertex/oauth.ts';
import type { MockRequest } from '../upstream-mocks/kit/server.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { writeTempConfig } from './e2e.ts';
import { startTestGateway, type TestGateway } from './test-gateway.ts';
import type { LedgerRow } from './vendor-providers.ts';

/** The catalog names the gateway serves, one per cloud model. */
export const cloudModels = {
  azure: 'via-azure',
  vertexGemini: 'via-vertex-gemini',
  vertexClaude: 'via-vertex-claude',
  bedrockClaude: 'via-bedrock-claude',
  bedrockConverse: 'via-bedrock-nova',
} as const;
export type CloudModel = keyof typeof cloudModels;

/** The same clouds reached another way: a Bedrock API key, Azure's dated (legacy) API version. */
export const alternativeModels = {
  bedrockApiKey: 'via-bedrock-api-key',
  azureDated: 'via-azure-dated',
} as const;
/** A Claude model Bedrock's CountTokens counts (cloudModels.bedrockClaude is one it does not). */
export const bedrockCountableModel = 'via-bedrock-claude-sonnet-4';
export const bedrockApiKey = 'ABSKbW9jay1iZWRyb2NrLWFwaS1rZXktZTJl';
export const azureDatedVersion = '2024-10-21';

/** Models on providers whose credentials the clouds refuse (a wrong key, secret or signing key). */
export const refusedModels = {
  azure: 'refused-azure',
  vertex: 'refused-vertex',
  bedrock: 'refused-bedrock',
} as const;
/** The wrong credentials: as secret as the right ones, so never in an answer. */
export const wrongSecrets = {
  azureKey: 'azure-wrong-api-key-fedcba9876543210',
  awsSecret: 'wrong/secret/key/for/bedrock/tests/99999',
} as const;

export interface CloudGateway {
  gateway: TestGateway;
  /** Requests each mock received (path, headers, parsed body). */
  received: Record<'azure' | 'vertex' | 'bedrock', { path: string; headers: Record<string, string> }[]>;
  /** The secrets the gateway holds for the clouds: none may reach a client. */
  secrets: string[];
  ledger(): LedgerRow[];
  close(): Promise<void>;
}

export async function startCloudGateway(): Promise<CloudGateway> {
  const [azure, vertex, bedrock] = await Promise.all([
    startAzureOpenAIMock(),
    // Implicit caching from a short prefix, so a test prompt of a few hundred tokens is cached.
    startVertexMock({ minimumCachedTokens: 32 }),
    startBedrockMock({ region: 'us-west-2', apiKey: bedrockApiKey }),
  ]);
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-clouds-'));
  const databasePath = join(directory, 'ledger.db');
  const keyFile = join(directory, 'vertex-service-account.json');
  writeFileSync(keyFile, JSON.stringify(vertex.serviceAccountKey));
  // A well-formed key of the project whose account the mock's token endpoint does not know.
  const untrusted = generateServiceAccountKey(vertex.tokenUri, vertex.projectId).key;
  const untrustedKeyFile = join(directory, 'untrusted-service-account.json');
  writeFileSync(untrustedKeyFile, JSON.stringify(untrusted));
  const model = (name: string, family: string, upstream: string, provider: string): string => `
  - name: ${name}
    family: ${family}
    upstreamModel: "${upstream}"
    contextWindow: 200000
    maxOutputTokens: 8192
    pricing: { inputPerMillion: 2, outputPerMillion: 8 }
    capabilities: { vision: true }
    provider: ${provider}`;
  const config = writeTempConfig(
    'clouds.yaml',
    `
providers:
  azure-east:
    preset: azure-openai
    baseUrl: "${azure.url}"
    apiKey: "\${AZURE_OPENAI_API_KEY}"
    deployments: { chat-prod: gpt-4o-mini }
  vertex-us:
    preset: vertex
    project: ${vertex.projectId}
    location: us-east5
    baseUrl: "${vertex.url}"
    credentials: { keyFile: "\${VERTEX_KEY_FILE}" }
  bedrock-us:
    preset: bedrock
    region: us-west-2
    baseUrl: "${bedrock.url}"
    credentials:
      accessKeyId: "\${AWS_TEST_ACCESS_KEY_ID}"
      secretAccessKey: "\${AWS_TEST_SECRET_ACCESS_KEY}"
  azure-dated:
    preset: azure-openai
    baseUrl: "${azure.url}"
    apiKey: "\${AZURE_OPENAI_API_KEY}"
    apiVersion: "${azureDatedVersion}"
  bedrock-api-key: { preset: bedrock, region: us-west-2, baseUrl: "${bedrock.url}", apiKey: "${bedrockApiKey}" }
  azure-refused: { preset: azure-openai, baseUrl: "${azure.url}", apiKey: "${wrongSecrets.azureKey}" }
  vertex-refused:
    preset: vertex
    project: ${vertex.projectId}
    location: us-east5
    baseUrl: "${vertex.url}"
    credentials: { keyFile: "${untrustedKeyFile}" }
  bedrock-refused:
    preset: bedrock
    region: us-west-2
    baseUrl: "${bedrock.url}"
    credentials: { accessKeyId: "${testCredentials.accessKeyId}", secretAccessKey: "${wrongSecrets.awsSecret}" }
models:${model(cloudModels.azure, 'alpha', 'chat-prod', 'azure-east')}${model(
      cloudModels.vertexGemini,
      'gamma',
      'gemini-2.5-flash',
      'vertex-us',
    )}${model(cloudModels.vertexClaude, 'beta', 'claude-sonnet-4-5@20250929', 'vertex-us')}${model(
      cloudModels.bedrockClaude,
      'beta',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'bedrock-us',
    )}${model(cloudModels.bedrockConverse, 'alpha', 'amazon.nova-lite-v1:0', 'bedrock-us')}${model(
      refusedModels.azure,
      'alpha',
      'chat-prod',
      'azure-refused',
    )}${model(alternativeModels.azureDated, 'alpha', 'gpt-4o', 'azure-dated')}${model(
      alternativeModels.bedrockApiKey,
      'alpha',
      'meta.llama3-3-70b-instruct-v1:0',
      'bedrock-api-key',
    )}${model(
      bedrockCountableModel,
      'beta',
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
      'bedrock-us',
    )}${model(refusedModels.vertex, 'gamma', 'gemini-2.5-flash', 'vertex-refused')}${model(
      refusedModels.bedrock,
      'beta',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'bedrock-refused',
    )}
`,
  );
  const gateway = await startTestGateway(
    {
      AZURE_OPENAI_API_KEY: defaultAzureMockKey,
      VERTEX_KEY_FILE: keyFile,
      AWS_TEST_ACCESS_KEY_ID: testCredentials.accessKeyId,
      AWS_TEST_SECRET_ACCESS_KEY: testCredentials.secretAccessKey,
      MODELGATE_DB: databasePath,
    },
    config.path,
  );
  const seen = (requests: readonly MockRequest[] | readonly unknown[]) =>
    requests as CloudGateway['received']['azure'];
  return {
    gateway,
    received: { azure: seen(azure.requests), vertex: seen(vertex.requests), bedrock: seen(bedrock.requests) },
    secrets: [
      defaultAzureMockKey,
      testCredentials.secretAccessKey,
      vertex.serviceAccountKey.private_key,
      untrusted.private_key,
      bedrockApiKey,
      ...Object.values(wrongSecrets),
    ],
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
      await Promise.all([azure.close(), vertex.close(), bedrock.close()]);
      config.remove();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
