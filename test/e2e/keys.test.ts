/**
 * Client keys as operators and clients meet them: the `keys` CLI against a temp database, the
 * admin API, model restrictions in each surface's error shape, revoked and expired keys, a CLI
 * revoke reaching a running gateway within a second, and hostile keys on every credential carrier
 * (auth error, nothing changed).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import {
  alphaAuth,
  betaAuth,
  gammaAuth,
  gammaPath,
  post,
  writeTempConfig,
  type HttpAnswer,
} from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src/cli/main.ts');
const run = promisify(execFile);
const adminKey = 'mg-admin-keys-test-0123456789abcdef';

let directory: string;
let databasePath: string;
let gateway: TestGateway;
let config: { path: string; remove(): void };

before(async () => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-keys-e2e-'));
  databasePath = join(directory, 'gateway.db');
  // Heads up to 128 KiB so 64 KiB hostile keys reach the gateway instead of node's 431.
  config = writeTempConfig('keys.yaml', 'server:\n  maxHeaderBytes: 131072\n');
  gateway = await startTestGateway(
    { MODELGATE_ADMIN_KEY: adminKey, MODELGATE_DB: databasePath },
    config.path,
  );
});

after(async () => {
  await gateway.close();
  config.remove();
  rmSync(directory, { recursive: true, force: true });
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], database = databasePath): Promise<CliResult> {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(MODELGATE_|NODE_TEST)/.test(name)) environment[name] = value;
  try {
    const { stdout, stderr } = await run(process.execPath, [main, ...args], {
      cwd: root,
      env: { ...environment, MODELGATE_DB: database },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

async function admin(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
  const response = await fetch(`${gateway.url}/admin${path}`, {
    method,
    headers: { ...alphaAuth(adminKey), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text) as unknown };
}

interface KeyView {
  id: string;
  name: string;
  status: string;
  key?: string;
  models: string[] | null;
  rpm: number | null;
  budget_usd: number | null;
}

const hello = [{ role: 'user', content: 'Hello' }];

/** One chat request per surface with `key`, calling `model`. */
function surfaces(key: string, model: string): [string, () => Promise<HttpAnswer>][] {
  return [
    [
      'unified',
      () => post(gateway.url, '/api/alpha/v1/chat/completions', alphaAuth(key), { model, messages: hello }),
    ],
    ['alpha', () => post(gateway.url, '/v1/chat/completions', alphaAuth(key), { model, messages: hello })],
    [
      'beta',
      () => post(gateway.url, '/v1/messages', betaAuth(key), { model, max_tokens: 8, messages: hello }),
    ],
    [
      'gamma',
      () =>
        post(gateway.url, gammaPath(model, false), gammaAuth(key), {
          contents: [{ parts: [{ text: 'Hi' }] }],
        }),
    ],
  ];
}

/** The surface's auth error: A 401 invalid_api_key, B 401 authentication_error, C 403 PERMISSION_DENIED. */
function assertAuthError(surface: string, answer: HttpAnswer, label: string): void {
  const body = answer.json as { error: { code?: unknown; type?: string; status?: string } };
  if (surface === 'beta') {
    assert.equal(answer.status, 401, label);
    assert.equal(body.error.type, 'authentication_error', label);
  } else if (surface === 'gamma') {
    assert.equal(answer.status, 403, label);
    assert.equal(body.error.status, 'PERMISSION_DENIED', label);
  } else {
    assert.equal(answer.status, 401, label);
    assert.equal(body.error.code, 'invalid_api_key', label);
  }
}

describe('keys CLI against a temp database', () => {
  test('create prints the key once, list never shows it, update and revoke change what the gateway accepts', async () => {
    const database = join(directory, 'cli.db');
    const created = await cli(
      [
        'keys',
        'create',
        '--name',
        'team-a',
        '--models',
        'A-2,B-1',
        '--budget-usd',
        '10',
        '--rpm',
        '5',
        '--tpm',
        '5000',
        '--expires',
        '30d',
      ],
      database,
    );
    assert.equal(created.code, 0, created.stderr);
    const key = /\n {2}(mg-[A-Za-z0-9_-]{32})\n/.exec(created.stdout)?.[1];
    assert.ok(key, created.stdout);
    const listed = await cli(['keys', 'list', '--json'], database);
    assert.equal(listed.code, 0);
    assert.ok(!listed.stdout.includes(key) && !listed.stdout.includes(sha256(key)));
    const [view] = (JSON.parse(listed.stdout) as { data: KeyView[] }).data;
    assert.deepEqual(
      {
        name: view?.name,
        models: view?.models,
        budget: view?.budget_usd,
        rpm: view?.rpm,
        status: view?.status,
      },
      { name: 'team-a', models: ['A-2', 'B-1'], budget: 10, rpm: 5, status: 'active' },
    );
    const table = await cli(['keys', 'list'], database);
    assert.match(table.stdout, /^name\s+id\s+status\s+models\s+budget_usd/);
    assert.match(table.stdout, /team-a .* active +A-2,B-1 +10\.00/);
    const updated = await cli(
      ['keys', 'update', 'team-a', '--rpm', 'none', '--models', 'all', '--json'],
      database,
    );
    assert.equal(updated.code, 0, updated.stderr);
    assert.deepEqual(
      [(JSON.parse(updated.stdout) as KeyView).rpm, (JSON.parse(updated.stdout) as KeyView).models],
      [null, null],
    );
    const revoked = await cli(['keys', 'revoke', 'team-a'], database);
    assert.equal(revoked.code, 0);
    assert.match(revoked.stdout, /Revoked key "team-a"/);
    assert.match((await cli(['keys', 'list'], database)).stdout, /No keys\./);
    assert.match((await cli(['keys', 'list', '--all'], database)).stdout, /team-a .* revoked/);
    const stored = openDatabase(database);
    const dump = JSON.stringify(stored.prepare('SELECT * FROM client_keys').all());
    stored.close();
    assert.ok(!dump.includes(key), 'the store keeps only the hash');
    assert.ok(dump.includes(sha256(key)));
  });

  test('mistakes: unknown model, duplicate name, unknown key, unknown option', async () => {
    const database = join(directory, 'cli-errors.db');
    assert.equal((await cli(['keys', 'create', '--name', 'x'], database)).code, 0);
    const cases: [string[], number, RegExp][] = [
      [['keys', 'create', '--name', 'y', '--models', 'Z-9'], 1, /unknown model "Z-9"/],
      [['keys', 'create', '--name', 'x'], 1, /already exists/],
      [['keys', 'revoke', 'nobody'], 1, /no key with that name or id/],
      [['keys', 'create', '--name', 'y', '--colour', 'red'], 2, /unknown option --colour/],
      [['keys', 'create'], 2, /needs --name/],
      [['keys', 'update', 'x', '--rpm', 'lots'], 2, /--rpm takes a number/],
      [['keys', 'update', 'x', '--rpm', '0'], 1, /rpm is a whole number/],
    ];
    for (const [args, code, message] of cases) {
      const result = await cli(args, database);
      assert.equal(result.code, code, args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
    }
  });

  test('a key created and then revoked by the CLI reaches a running gateway within a second', async () => {
    const created = await cli(['keys', 'create', '--name', 'live', '--json']);
    assert.equal(created.code, 0, created.stderr);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const call = (): Promise<HttpAnswer> =>
      post(gateway.url, '/v1/chat/completions', alphaAuth(key), { model: 'A-3', messages: hello });
    assert.ok((await until(async () => (await call()).status === 200)) < 1000, 'accepted within a second');
    assert.equal((await cli(['keys', 'revoke', 'live'])).code, 0);
    const took = await until(async () => (await call()).status === 401);
    assert.ok(took < 1000, `refused ${took} ms after the revoke`);
  });
});

describe('admin API', () => {
  test('create, read, update, revoke; listings never carry key material', async () => {
    const created = await admin('POST', '/keys', {
      name: 'api-team',
      models: ['B-1'],
      rpm: 10,
      expires: '7d',
    });
    assert.equal(created.status, 201, created.text);
    const view = created.json as KeyView;
    assert.match(view.key ?? '', /^mg-/);
    const listing = await admin('GET', '/keys');
    assert.ok(!listing.text.includes(view.key!) && !listing.text.includes(sha256(view.key!)));
    assert.ok((listing.json as { data: KeyView[] }).data.some((entry) => entry.id === view.id));
    assert.equal(((await admin('GET', `/keys/${view.id}`)).json as KeyView).name, 'api-team');
    assert.equal(((await admin('GET', '/keys/api-team')).json as KeyView).id, view.id, 'by name too');
    const patched = await admin('PATCH', '/keys/api-team', { rpm: null, budget_usd: 5 });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([(patched.json as KeyView).rpm, (patched.json as KeyView).budget_usd], [null, 5]);
    const call = (): Promise<HttpAnswer> =>
      post(gateway.url, '/v1/messages', betaAuth(view.key!), {
        model: 'B-1',
        max_tokens: 8,
        messages: hello,
      });
    assert.equal((await call()).status, 200);
    const revoked = await admin('DELETE', '/keys/api-team');
    assert.equal((revoked.json as KeyView).status, 'revoked');
    assertAuthError('beta', await call(), 'revoked through the admin API: refused at once');
  });

  test('bad requests get 400/404/409 with a reason', async () => {
    await admin('POST', '/keys', { name: 'dup' });
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/keys', { name: 'dup' }, 409, 'conflict'],
      ['POST', '/keys', { name: 'm', models: ['nope'] }, 400, 'unknown_model'],
      ['POST', '/keys', { name: 'r', rpm: 0 }, 400, 'invalid_request'],
      ['POST', '/keys', { name: 'e', expires: 'someday' }, 400, 'invalid_request'],
      ['POST', '/keys', { nom: 'typo' }, 400, 'invalid_request'],
      ['GET', '/keys/nobody', undefined, 404, 'not_found'],
      ['PATCH', '/keys/nobody', { rpm: 1 }, 404, 'not_found'],
      ['GET', '/usage?by=colour', undefined, 400, 'invalid_request'],
      ['GET', '/nothing', undefined, 404, 'not_found'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await admin(method, path, body);
      assert.equal(answer.status, status, `${method} ${path}: ${answer.text}`);
      assert.equal((answer.json as { error: { code: string } }).error.code, code, `${method} ${path}`);
    }
  });

  test('client keys are refused on /admin; the admin key is refused on every model surface', async () => {
    for (const key of [gateway.key, 'nonsense', undefined]) {
      const answer = await fetch(`${gateway.url}/admin/keys`, {
        headers: key === undefined ? {} : alphaAuth(key),
      });
      assert.equal(answer.status, 401);
      assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'invalid_admin_key');
    }
    for (const [surface, call] of surfaces(adminKey, 'A-3')) assertAuthError(surface, await call(), surface);
    const models = await fetch(`${gateway.url}/v1/models`, { headers: alphaAuth(adminKey) });
    assert.equal(models.status, 401);
  });

  test('GET /admin/health serves the upstream health, to the admin key only', async () => {
    const health = await admin('GET', '/health');
    assert.equal(health.status, 200, health.text);
    assert.ok(Object.keys(health.json as object).length > 0);
    const refused = await fetch(`${gateway.url}/admin/health`, { headers: alphaAuth(gateway.key) });
    assert.equal(refused.status, 401);
  });

  test('without MODELGATE_ADMIN_KEY the admin API is closed', async () => {
    const closed = await startTestGateway();
    try {
      const answer = await fetch(`${closed.url}/admin/keys`, { headers: alphaAuth(adminKey) });
      assert.equal(answer.status, 401);
      assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'admin_disabled');
    } finally {
      await closed.close();
    }
  });
});

describe('what a key may do', () => {
  test('a key limited to some models: the family permission error on B and C, 404 model_not_found on A and the unified path', async () => {
    const { key } = (await admin('POST', '/keys', { name: 'only-b1', models: ['B-1'] })).json as {
      key: string;
    };
    for (const [surface, call] of surfaces(key, 'B-1')) assert.equal((await call()).status, 200, surface);
    for (const [surface, call] of surfaces(key, 'A-2')) {
      const answer = await call();
      const body = answer.json as {
        error: { code?: unknown; type?: string; status?: string; message: string };
      };
      assert.match(body.error.message, /not allowed to use the model `A-2`/, surface);
      if (surface === 'beta') assert.deepEqual([answer.status, body.error.type], [403, 'permission_error']);
      else if (surface === 'gamma')
        assert.deepEqual([answer.status, body.error.status], [403, 'PERMISSION_DENIED']);
      else assert.deepEqual([answer.status, body.error.code], [404, 'model_not_found'], surface);
    }
  });

  test('an expired key gets the auth error on every surface', async () => {
    const { key, status } = (await admin('POST', '/keys', { name: 'expired', expires: '2020-01-01' }))
      .json as {
      key: string;
      status: string;
    };
    assert.equal(status, 'expired');
    for (const [surface, call] of surfaces(key, 'A-3')) assertAuthError(surface, await call(), surface);
  });
});

describe('hostile keys', () => {
  const hostile = [
    ["' OR '1'='1' --", 'sql'],
    ['"; DROP TABLE client_keys; --', 'sql drop'],
    ['k'.repeat(65_536), '64 KiB'],
    ['clé-ßüñ', 'non-ASCII'],
  ] as const;

  /** The keys, and the ledger rows of requests since `since` (earlier tests' rows may still be landing). */
  function state(since: number): string {
    const database = openDatabase(databasePath);
    const snapshot = JSON.stringify([
      database.prepare('SELECT * FROM client_keys ORDER BY id').all(),
      database.prepare('SELECT COUNT(*) AS n FROM usage_ledger WHERE created_at >= ?').get(since),
    ]);
    database.close();
    return snapshot;
  }

  test("on every credential carrier: the surface's auth error, and nothing changes", async () => {
    const started = Date.now();
    const before = state(started);
    for (const [value, label] of hostile) {
      const carriers: [string, string, Record<string, string>, string][] = [
        ['alpha', '/v1/chat/completions', { authorization: `Bearer ${value}` }, 'bearer'],
        ['unified', '/api/alpha/v1/chat/completions', { authorization: `Bearer ${value}` }, 'bearer'],
        ['beta', '/v1/messages', { 'x-api-key': value, 'beta-version': '2023-06-01' }, 'x-api-key'],
        [
          'beta',
          '/v1/messages',
          { authorization: `Bearer ${value}`, 'beta-version': '2023-06-01' },
          'bearer',
        ],
        ['gamma', gammaPath('A-3', false), { 'x-gamma-api-key': value }, 'x-gamma-api-key'],
        ['gamma', `${gammaPath('A-3', false)}?key=${encodeURIComponent(value)}`, {}, '?key='],
      ];
      for (const [surface, path, headers, carrier] of carriers) {
        const answer = await post(gateway.url, path, latin1(headers), {
          model: 'A-3',
          max_tokens: 8,
          messages: hello,
        });
        assertAuthError(surface, answer, `${label} in ${carrier} (${surface})`);
        assert.ok(!answer.text.includes(value.slice(0, 64)), `${label} echoed`);
      }
      const models = await fetch(`${gateway.url}/v1/models`, {
        headers: latin1({ authorization: `Bearer ${value}` }),
      });
      assert.equal(models.status, 401, `${label} on /v1/models`);
      const adminAnswer = await fetch(`${gateway.url}/admin/keys`, {
        headers: latin1({ authorization: `Bearer ${value}` }),
      });
      assert.equal(adminAnswer.status, 401, `${label} on /admin`);
    }
    // NUL: only a URL can carry it (percent-encoded); in a header it is not HTTP at all.
    const nul = await post(
      gateway.url,
      `${gammaPath('A-3', false)}?key=${encodeURIComponent(`${gateway.key}\u0000`)}`,
      {},
      {
        contents: [{ parts: [{ text: 'Hi' }] }],
      },
    );
    assertAuthError('gamma', nul, 'NUL in ?key=');
    const raw = await rawRequest(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gateway.key}\u0000x\r\nContent-Length: 2\r\n\r\n{}`,
    );
    assert.match(raw, /^HTTP\/1\.1 400 /, 'node refuses a NUL in a header before any gateway code runs');
    assert.equal(state(started), before, 'no key changed, no ledger row was written');
  });
});

/** Header values as a ByteString (what fetch accepts): UTF-8 bytes as latin1 characters. */
function latin1(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Buffer.from(value, 'utf8').toString('latin1')]),
  );
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Milliseconds until `probe` holds (polled every 20 ms, at most 3 s). */
async function until(probe: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > 3000) throw new Error('condition not reached in 3 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - started;
}

async function rawRequest(text: string): Promise<string> {
  const url = new URL(gateway.url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer)).on('error', reject);
  });
}
