/**
 * Secrets stay secret: the gateway runs as a user runs it (`modelgate serve`, a standalone
 * simulator as the Family B upstream) with unique canary keys (client, admin, upstream) and a
 * realistic sequence — admin calls, requests on every surface, streams, upstream errors, refusals,
 * hostile keys, a revoke, usage reports, SIGTERM. Then the gateway's stdout and stderr, every
 * response (headers and bodies) and the database files (WAL included, while running and after
 * exit) are scanned for every key and every key's SHA-256 hash. The one allowed appearance: the
 * created key in the answer that created it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { alphaAuth, betaAuth, gammaAuth, gammaPath } from '../kit/e2e.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src/cli/main.ts');
const directory = mkdtempSync(join(tmpdir(), 'modelgate-canary-'));
const children: ChildProcess[] = [];

after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function launch(args: string[], environment: Record<string, string>, prefix: string): Promise<Running> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(MODELGATE_|ALPHA_|BETA_|GAMMA_|SIMULATOR_|HOST$|PORT$|LOG_LEVEL$|NODE_TEST)/.test(name))
      clean[name] = value;
  const child = spawn(process.execPath, [main, ...args], {
    cwd: root,
    env: { ...clean, HOST: '127.0.0.1', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = new RegExp(`${prefix} (http://[^\\s"]+)`).exec(output);
      if (match !== null) {
        clearInterval(timer);
        resolve(match[1]!);
      }
    }, 10);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`exited early:\n${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}

/** Every answer the test received, headers and body as text. */
const answers: { label: string; text: string }[] = [];

async function call(
  url: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown },
  label: string,
): Promise<{ status: number; text: string; json: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined
      ? {}
      : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
  });
  const text = await response.text();
  answers.push({ label, text: `${JSON.stringify([...response.headers])}\n${text}` });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** A stream read with node:http so its trailers are scanned too. */
function streamCall(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  label: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          answers.push({ label, text: `${JSON.stringify([response.headers, response.trailers])}\n${text}` });
          resolve();
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function databaseFiles(path: string): { name: string; bytes: Buffer }[] {
  return [path, `${path}-wal`, `${path}-shm`]
    .filter((file) => existsSync(file))
    .map((file) => ({ name: file, bytes: readFileSync(file) }));
}

test('no client, admin, upstream or created key, nor any key hash, in output, answers, ledger or database files', async () => {
  const id = randomUUID().replaceAll('-', '');
  const client = `canary-client-${id}`;
  const admin = `canary-admin-${id}`;
  const upstreamKey = `canary-upstream-${id}`;
  const databasePath = join(directory, 'canary.db');
  const simulator = await launch(['simulate', '--port', '0'], {}, 'listening on');
  const gateway = await launch(
    ['serve'],
    {
      PORT: '0',
      LOG_LEVEL: 'debug',
      MODELGATE_KEYS: client,
      MODELGATE_ADMIN_KEY: admin,
      MODELGATE_DB: databasePath,
      BETA_BASE_URL: simulator.url,
      BETA_API_KEY: upstreamKey,
      // The B upstream is a `modelgate simulate` server: the fault headers may go to it.
      BETA_FAULT_HEADERS: '1',
      // A and C stay on the built-in simulator, which a real B upstream turns off unless asked for.
      MODELGATE_SIMULATOR: '1',
    },
    'modelgate listening on',
  );
  const url = gateway.url;
  const hello = [{ role: 'user', content: 'Hello, canary' }];

  // Admin: create (the key appears once, here), list, read, update, usage.
  const created = await call(
    url,
    '/admin/keys',
    {
      headers: alphaAuth(admin),
      body: { name: 'canary-team', models: ['B-1', 'A-3', 'C-2'], budget_usd: 1, rpm: 20 },
    },
    'create',
  );
  assert.equal(created.status, 201, created.text);
  const createdKey = (created.json as { key: string }).key;
  answers.pop(); // the one answer allowed to carry the created key
  await call(url, '/admin/keys', { method: 'GET', headers: alphaAuth(admin) }, 'list');
  await call(url, '/admin/keys/canary-team', { method: 'GET', headers: alphaAuth(admin) }, 'get');
  await call(
    url,
    '/admin/keys/canary-team',
    { method: 'PATCH', headers: alphaAuth(admin), body: { rpm: 30 } },
    'update',
  );

  // Traffic: every surface, both keys, JSON and streams, B over HTTP to the upstream with its key.
  for (const key of [client, createdKey]) {
    for (const model of ['B-1', 'A-3', 'C-2']) {
      await call(
        url,
        '/v1/chat/completions',
        { headers: alphaAuth(key), body: { model, messages: hello, max_tokens: 16 } },
        `A ${model}`,
      );
      await call(
        url,
        '/api/alpha/v1/chat/completions',
        { headers: alphaAuth(key), body: { model, messages: hello, max_tokens: 16 } },
        `unified ${model}`,
      );
      await call(
        url,
        '/v1/messages',
        { headers: betaAuth(key), body: { model, max_tokens: 16, messages: hello } },
        `B ${model}`,
      );
      await call(
        url,
        `${gammaPath(model, false)}?key=${key}`,
        { body: { contents: [{ parts: [{ text: 'Hi' }] }] } },
        `C ?key= ${model}`,
      );
      await streamCall(
        url,
        '/v1/messages',
        betaAuth(key),
        { model, max_tokens: 16, stream: true, messages: hello },
        `B stream ${model}`,
      );
      await streamCall(
        url,
        gammaPath(model, true),
        gammaAuth(key),
        { contents: [{ parts: [{ text: 'Hi' }] }] },
        `C stream ${model}`,
      );
    }
    // Upstream failures, including the upstream refusing the gateway's key.
    for (const fault of ['401', '403', '429', '500', '529']) {
      await call(
        url,
        '/v1/messages',
        {
          headers: { ...betaAuth(key), 'x-simulate-error': fault },
          body: { model: 'B-1', max_tokens: 16, messages: hello },
        },
        `fault ${fault}`,
      );
    }
    await streamCall(
      url,
      '/v1/chat/completions',
      { ...alphaAuth(key), 'x-simulate-stream-error-after': '2' },
      { model: 'B-1', stream: true, messages: hello },
      'stream error',
    );
  }
  // Refusals: a model the key may not use, a bad body, the rate limit.
  await call(
    url,
    '/v1/messages',
    { headers: betaAuth(createdKey), body: { model: 'B-2', max_tokens: 16, messages: hello } },
    'model refused',
  );
  await call(url, '/v1/messages', { headers: betaAuth(createdKey), body: '{"model":' }, 'bad json');
  for (let index = 0; index < 32; index++) {
    await call(
      url,
      gammaPath('C-2', false),
      { headers: gammaAuth(createdKey), body: { contents: [{ parts: [{ text: 'Hi' }] }] } },
      'burst',
    );
  }
  // Hostile and misplaced credentials: keys one character off, keys in the wrong places.
  for (const near of [`${client}x`, `${admin}x`, upstreamKey, client.slice(0, -1), `${createdKey}'--`]) {
    await call(
      url,
      '/v1/chat/completions',
      { headers: alphaAuth(near), body: { model: 'A-3', messages: hello } },
      'near key',
    );
    await call(
      url,
      `${gammaPath('A-3', false)}?key=${encodeURIComponent(near)}`,
      { body: {} },
      'near key ?key=',
    );
    await call(url, '/admin/keys', { method: 'GET', headers: alphaAuth(near) }, 'near admin');
  }
  await call(
    url,
    '/v1/chat/completions',
    { headers: alphaAuth(admin), body: { model: 'A-3', messages: hello } },
    'admin key on a surface',
  );
  await call(url, '/admin/keys', { method: 'GET', headers: alphaAuth(client) }, 'client key on admin');
  await call(url, '/v1/models', { method: 'GET', headers: alphaAuth(client) }, 'models');
  await call(url, '/admin/usage?by=key', { method: 'GET', headers: alphaAuth(admin) }, 'usage');
  await call(url, '/admin/keys/canary-team', { method: 'DELETE', headers: alphaAuth(admin) }, 'revoke');
  await call(
    url,
    '/v1/messages',
    { headers: betaAuth(createdKey), body: { model: 'B-1', max_tokens: 16, messages: hello } },
    'revoked',
  );

  const keys = { client, admin, upstream: upstreamKey, created: createdKey };
  const hashes = Object.fromEntries(Object.entries(keys).map(([name, key]) => [`${name} hash`, sha256(key)]));
  const everything = { ...keys, ...hashes };
  const findings: string[] = [];
  const scan = (where: string, haystack: string, secrets: Record<string, string>): void => {
    for (const [name, secret] of Object.entries(secrets))
      if (haystack.includes(secret)) findings.push(`${name} in ${where}`);
  };

  // While running: the database and its WAL (the ledger is written within 100 ms).
  await new Promise((resolve) => setTimeout(resolve, 300));
  const walWhileRunning = databaseFiles(databasePath);
  assert.ok(
    walWhileRunning.some((file) => file.name.endsWith('-wal')),
    'the WAL was scanned',
  );
  for (const file of walWhileRunning) scan(`${file.name} (running)`, file.bytes.toString('latin1'), keys);

  gateway.child.kill('SIGTERM');
  assert.equal(await gateway.exited, 0);
  simulator.child.kill('SIGTERM');
  await simulator.exited;

  for (const answer of answers) scan(`answer "${answer.label}"`, answer.text, everything);
  scan('gateway stdout/stderr', gateway.output(), everything);
  for (const file of databaseFiles(databasePath)) scan(file.name, file.bytes.toString('latin1'), keys);
  const database = openDatabase(databasePath);
  const ledger = JSON.stringify(database.prepare('SELECT * FROM usage_ledger').all());
  const rows = (database.prepare('SELECT COUNT(*) AS n FROM usage_ledger').get() as { n: number }).n;
  const storedHashes = JSON.stringify(database.prepare('SELECT key_hash FROM client_keys').all());
  database.close();
  scan('ledger rows', ledger, everything);
  // Only the created key's hash is stored, as designed; the static, admin and upstream keys' are not.
  scan('client_keys', storedHashes, {
    'client hash': sha256(client),
    'admin hash': sha256(admin),
    'upstream hash': sha256(upstreamKey),
  });
  assert.ok(storedHashes.includes(sha256(createdKey)));

  assert.ok(answers.length > 100, `${answers.length} answers scanned`);
  assert.ok(rows > 80, `${rows} ledger rows scanned`);
  assert.ok(
    gateway.output().includes('"level":"debug"') || gateway.output().includes('"message":"request"'),
    'logs were written',
  );
  assert.deepEqual(findings, []);
});
