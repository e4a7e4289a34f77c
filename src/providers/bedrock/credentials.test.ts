/**
 * Where SigV4 credentials come from when the settings hold no keys: the AWS SDK's chain, read when
 * the first call is signed — environment variables, then a shared credentials file's profile
 * (`credentials.profile`). Each case signs a real call the strict mock verifies.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import type { MockUpstream } from '../../../test/upstream-mocks/kit/server.ts';
import { startBedrockMock, testCredentials } from '../../../test/upstream-mocks/bedrock/index.ts';
import { GatewayError } from '../../ir/index.ts';
import { bedrockPreset } from './index.ts';
import { call, http, request } from './test-kit.ts';

const nova = 'amazon.nova-lite-v1:0';
let mock: MockUpstream;
let directory: string;
const awsVariables = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_REGION',
];

before(async () => {
  mock = await startBedrockMock();
  directory = mkdtempSync(join(tmpdir(), 'modelgate-bedrock-'));
});
after(async () => {
  await http.close();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => {
  for (const name of awsVariables) Reflect.deleteProperty(process.env, name);
  // Never the machine's own ~/.aws: empty files of this test's.
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(directory, 'none-credentials');
  process.env.AWS_CONFIG_FILE = join(directory, 'none-config');
  // No instance-metadata probe from a test machine.
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
});

const settings = () => ({ name: 'aws', preset: 'bedrock', region: 'us-east-1', baseUrl: mock.url });

test('credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY', async () => {
  process.env.AWS_ACCESS_KEY_ID = testCredentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = testCredentials.secretAccessKey;
  const outcome = await call(bedrockPreset(settings()), nova, request('From the environment'));
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.message);
  assert.match(mock.requests.at(-1)?.headers.authorization ?? '', /Credential=MOCKAKIDBEDROCK00001\//);
});

test('credentials from a shared credentials file, by profile', async () => {
  const file = join(directory, 'credentials');
  writeFileSync(
    file,
    `[default]\naws_access_key_id = MOCKWRONGDEFAULT0000\naws_secret_access_key = wrong\n\n[bedrock-test]\naws_access_key_id = ${testCredentials.accessKeyId}\naws_secret_access_key = ${testCredentials.secretAccessKey}\n`,
  );
  process.env.AWS_SHARED_CREDENTIALS_FILE = file;
  const outcome = await call(
    bedrockPreset({ ...settings(), credentials: { profile: 'bedrock-test' } }),
    nova,
    request('From a profile'),
  );
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.message);
  const refused = await call(bedrockPreset(settings()), nova, request('The default profile'));
  assert.equal(refused.status, 403, 'the default profile holds other keys');
});

test('no credentials anywhere: a clear error, not a crash', async () => {
  await assert.rejects(
    call(bedrockPreset({ ...settings(), credentials: { profile: 'missing' } }), nova, request('x')),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.message === 'the gateway could not load its AWS credentials for Bedrock',
  );
});
