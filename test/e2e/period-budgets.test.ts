/**
 * Periodic budgets as operators set them and clients meet them: a daily budget set through the
 * admin API refuses once the day's spend reaches it, in the surface's shape, naming the period and
 * when it resets (`retry-after`: the seconds to the next UTC midnight); the next day (the
 * gateway's clock moved past midnight) the same key is served again, its lifetime budget still
 * held beside it. The CLI creates and updates periodic budgets, and the admin API refuses half a one.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { alphaAuth, betaAuth, post, type HttpAnswer } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-period-budgets-0123456789';
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('periodic budgets', () => {
  let gateway: TestGateway;
  /** The gateway's clock: a minute before midnight (UTC), moved on by the test. */
  let now = Date.parse('2026-11-27T23:59:00Z');

  before(async () => {
    gateway = await startTestGateway({ MODELGATE_ADMIN_KEY: adminKey }, undefined, { clock: () => now });
  });
  after(() => gateway.close());

  const chat = (key: string): Promise<HttpAnswer> =>
    post(gateway.url, '/v1/chat/completions', alphaAuth(key), {
      model: 'A-1',
      messages: [{ role: 'user', content: 'spend a little' }],
    });
  /** Requests until one is refused (the spend is settled just after each answer). */
  const untilRefused = async (send: () => Promise<HttpAnswer>): Promise<HttpAnswer> => {
    for (let tries = 0; tries < 50; tries++) {
      const answer = await send();
      if (answer.status !== 200) return answer;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail('never refused');
  };

  test('a spent daily budget refuses until the next UTC day, then serves again', async () => {
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'daily',
      budget_usd: 1,
      period_budget_usd: 0.00001,
      budget_period: 'daily',
    });
    assert.equal(created.status, 201, created.text);
    const key = created.json as { key: string; budget_period: string; period_budget_usd: number };
    assert.deepEqual([key.budget_period, key.period_budget_usd], ['daily', 0.00001]);

    assert.equal((await chat(key.key)).status, 200);
    const refused = await untilRefused(() => chat(key.key));
    assert.equal(refused.status, 429, refused.text);
    const message = (refused.json as { error: { message: string } }).error.message;
    assert.match(message, /daily budget: \$0\.\d+ spent of \$0\.00001 this day \(UTC\)/);
    assert.match(message, /resets at 2026-11-28T00:00:00\.000Z/);
    assert.equal(refused.headers.get('retry-after'), '60');
    // B's clients get B's shape, the same words.
    const beta = await post(gateway.url, '/v1/messages', betaAuth(key.key), {
      model: 'B-1',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'and here?' }],
    });
    assert.equal(beta.status, 429);
    assert.match((beta.json as { error: { type: string; message: string } }).error.message, /daily budget/);

    now = Date.parse('2026-11-28T00:00:01Z');
    assert.equal((await chat(key.key)).status, 200, 'a new day: the daily budget starts again');
    // Its lifetime budget is still there: the listing shows both.
    const listed = await fetch(`${gateway.url}/admin/keys/daily`, { headers: alphaAuth(adminKey) });
    const view = (await listed.json()) as { budget_usd: number; budget_period: string; spent_usd: number };
    assert.equal(view.budget_usd, 1);
    assert.equal(view.budget_period, 'daily');
  });

  test('a weekly budget refuses with the seconds to next Monday (UTC)', async () => {
    now = Date.parse('2026-11-29T23:00:00Z'); // a Sunday, an hour before the week ends
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'weekly',
      period_budget_usd: 0.00001,
      budget_period: 'weekly',
    });
    const { key } = created.json as { key: string };
    const refused = await untilRefused(() => chat(key));
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '3600');
    assert.match((refused.json as { error: { message: string } }).error.message, /weekly budget.* this week/);
  });

  test('the admin API wants both halves of a new periodic budget; an update may change one', async () => {
    const half = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'half',
      period_budget_usd: 5,
    });
    assert.equal(half.status, 400);
    assert.match(half.text, /period_budget_usd and budget_period/);
    const bad = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'hourly',
      period_budget_usd: 5,
      budget_period: 'hourly',
    });
    assert.equal(bad.status, 400);
    const patched = await fetch(`${gateway.url}/admin/keys/weekly`, {
      method: 'PATCH',
      headers: { ...alphaAuth(adminKey), 'content-type': 'application/json' },
      body: JSON.stringify({ budget_period: 'monthly' }),
    });
    const view = (await patched.json()) as { budget_period: string; period_budget_usd: number };
    assert.deepEqual([view.budget_period, view.period_budget_usd], ['monthly', 0.00001]);
    const cleared = await fetch(`${gateway.url}/admin/keys/weekly`, {
      method: 'PATCH',
      headers: { ...alphaAuth(adminKey), 'content-type': 'application/json' },
      body: JSON.stringify({ period_budget_usd: null }),
    });
    assert.equal(((await cleared.json()) as { budget_period: null }).budget_period, null);
  });
});

describe('the keys CLI sets periodic budgets', () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-period-cli-'));
  const database = join(directory, 'keys.db');
  after(() => rmSync(directory, { recursive: true, force: true }));
  const cli = async (argv: string[]): Promise<{ stdout: string; stderr: string; code: number }> => {
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [join(root, 'src/cli/main.ts'), ...argv],
        { cwd: root, env: { ...process.env, MODELGATE_DB: database } },
      );
      return { stdout, stderr, code: 0 };
    } catch (error) {
      const failed = error as { stdout: string; stderr: string; code: number };
      return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
    }
  };

  test('create with --period-budget-usd and --budget-period; update one half; list shows it', async () => {
    const created = await cli([
      'keys',
      'create',
      '--name',
      'team-p',
      '--period-budget-usd',
      '2.5',
      '--budget-period',
      'weekly',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const view = JSON.parse(created.stdout) as { budget_period: string; period_budget_usd: number };
    assert.deepEqual([view.budget_period, view.period_budget_usd], ['weekly', 2.5]);
    const updated = await cli(['keys', 'update', 'team-p', '--budget-period', 'monthly', '--json']);
    assert.equal(updated.code, 0, updated.stderr);
    const after = JSON.parse(updated.stdout) as { budget_period: string; period_budget_usd: number };
    assert.deepEqual([after.budget_period, after.period_budget_usd], ['monthly', 2.5]);
    const table = await cli(['keys', 'list']);
    assert.match(table.stdout, /period_budget/);
    assert.match(table.stdout, / 2\.50\/month/);
    const wrong = await cli([
      'keys',
      'create',
      '--name',
      'x',
      '--period-budget-usd',
      '1',
      '--budget-period',
      'hourly',
    ]);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /daily, weekly or monthly/);
    const half = await cli(['keys', 'create', '--name', 'y', '--period-budget-usd', '1']);
    assert.notEqual(half.code, 0);
    assert.match(half.stderr, /--period-budget-usd and --budget-period/);
  });
});
