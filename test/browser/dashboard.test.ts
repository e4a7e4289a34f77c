/**
 * The dashboard in a real browser (Debian's chromium through playwright-core): an unauthenticated
 * visit lands on sign-in, a client key does not sign in, the admin key does (HttpOnly, SameSite=Strict
 * cookie with an expiry); a key created on the keys page carries traffic through all three surfaces,
 * and the overview, usage and requests pages show exactly that traffic (the numbers `modelgate
 * usage` prints); a change without the CSRF token is a 403; the key revoked on the page is refused
 * on its next request; signing out ends the session. No browser request leaves the gateway's
 * origin (every request is intercepted and checked). Screenshots of every page go to
 * test-artifacts/dashboard/. Skipped only when chromium is missing outside CI (CI installs it).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { trafficOnEverySurface } from '../kit/surface-traffic.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const inCi = process.env.CI === 'true';
const skip =
  !existsSync(chromiumPath) && !inCi
    ? 'chromium is not installed (apt-get install -y chromium); CI installs it and runs this test'
    : false;

const root = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = join(root, 'test-artifacts', 'dashboard');
const adminKey = 'mg-admin-dashboard-test-0123456789';

interface UsageJson {
  data: { model: string; requests: number; prompt_tokens: number; output_tokens: number; cost_usd: number }[];
  total: { requests: number; errors: number; prompt_tokens: number; output_tokens: number; cost_usd: number };
}

describe('the dashboard in a browser', { skip }, () => {
  let directory: string;
  let databasePath: string;
  let gateway: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let clientKey = '';
  /** Requests the browser tried to send anywhere but the gateway. */
  const foreign: string[] = [];

  before(async () => {
    assert.ok(existsSync(chromiumPath), 'CI=true: chromium must be installed (see .ci/run)');
    mkdirSync(artifacts, { recursive: true });
    directory = mkdtempSync(join(tmpdir(), 'modelgate-dashboard-'));
    databasePath = join(directory, 'gateway.db');
    gateway = await startTestGateway({ MODELGATE_ADMIN_KEY: adminKey, MODELGATE_DB: databasePath });
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const origin = new URL(gateway.url).origin;
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith('data:') || new URL(url).origin === origin) await route.continue();
      else {
        foreign.push(url);
        await route.abort();
      }
    });
    page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
  });

  after(async () => {
    await browser.close();
    await gateway.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const open = async (hash: string): Promise<void> => {
    await page.goto(`${gateway.url}/dashboard#${hash}`);
    await page.waitForSelector(`main[data-page="${hash}"]`);
  };
  const shoot = (name: string): Promise<Buffer> =>
    page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  const usageCli = async (by: string): Promise<UsageJson> => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, 'src/cli/main.ts'), 'usage', '--key', 'browser-test', '--by', by, '--json'],
      { cwd: root, env: { ...process.env, MODELGATE_DB: databasePath } },
    );
    return JSON.parse(stdout) as UsageJson;
  };
  const cellText = (row: ReturnType<Page['locator']>, column: string): Promise<string> =>
    row.locator(`td[data-column="${column}"]`).innerText();
  // The exact figure behind the cell's rounded money (shown to significant digits).
  const costValue = (row: ReturnType<Page['locator']>): Promise<string | null> =>
    row.locator('td[data-column="cost_usd"]').getAttribute('data-value');
  const number = (text: string): number => Number(text.replace(/[^0-9.]/g, ''));

  test('an unauthenticated visit lands on the sign-in page; a client key does not sign in', async () => {
    await page.goto(`${gateway.url}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    await shoot('sign-in');
    await page.fill('#key', gateway.key);
    await page.click('button[type="submit"]');
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    assert.match(await page.locator('.notice').innerText(), /not the admin key/);
    const api = await page.request.get(`${gateway.url}/dashboard/api/overview`);
    assert.equal(api.status(), 401);
  });

  test('the admin key signs in: an HttpOnly, SameSite=Strict session cookie with an expiry', async () => {
    await page.fill('#key', adminKey);
    await page.click('button[type="submit"]');
    await page.waitForSelector('main[data-page="overview"]');
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'modelgate_session');
    assert.ok(session !== undefined);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/dashboard');
    assert.ok(session.expires > Date.now() / 1000 + 3600, 'expires in hours');
  });

  test('a key created on the keys page is shown once and carries traffic on all three surfaces', async () => {
    await open('keys');
    await page.fill('form[data-form="create-key"] input[name="name"]', 'browser-test');
    await page.fill('form[data-form="create-key"] input[name="budget_usd"]', '5');
    await page.click('form[data-form="create-key"] button[type="submit"]');
    clientKey = await page.locator('[data-secret="key"]').innerText();
    assert.match(clientKey, /^mg-/);
    await shoot('keys');
    await trafficOnEverySurface(gateway.url, clientKey);
  });

  test('overview, usage and requests pages show exactly that traffic (as `modelgate usage` does)', async () => {
    // The ledger writes in batches (100 ms window): wait until every request is written.
    for (let tries = 0; tries < 100; tries++) {
      const ledger = (await (await page.request.get(`${gateway.url}/dashboard/api/requests`)).json()) as {
        data: unknown[];
      };
      if (ledger.data.length >= 5) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const byModel = await usageCli('model');
    assert.equal(byModel.total.requests, 5);
    assert.ok(byModel.total.prompt_tokens > 0 && byModel.total.output_tokens > 0);

    await open('overview');
    const metric = (name: string): Promise<string> =>
      page.locator(`[data-metric="${name}"] .value`).innerText();
    assert.equal(number(await metric('requests')), byModel.total.requests);
    assert.equal(number(await metric('prompt_tokens')), byModel.total.prompt_tokens);
    assert.equal(number(await metric('output_tokens')), byModel.total.output_tokens);
    assert.equal(await metric('error_rate'), `${((byModel.total.errors / 5) * 100).toFixed(1)}%`);
    await page.waitForSelector('[data-chart="tokens"] canvas');
    const tokenSums = JSON.parse(
      (await page.locator('[data-chart="tokens"]').getAttribute('data-sums')) ?? '[]',
    ) as number[];
    assert.deepEqual(tokenSums.slice(0, 2), [byModel.total.prompt_tokens, byModel.total.output_tokens]);
    await shoot('overview');

    await open('usage');
    await page.selectOption('select[data-control="by"]', 'model');
    await page.waitForSelector('[data-table="usage"] tbody tr');
    for (const line of byModel.data) {
      const row = page.locator('[data-table="usage"] tbody tr', { hasText: line.model });
      assert.equal(number(await cellText(row, 'requests')), line.requests, line.model);
      assert.equal(number(await cellText(row, 'prompt_tokens')), line.prompt_tokens, line.model);
      assert.equal(number(await cellText(row, 'output_tokens')), line.output_tokens, line.model);
      assert.equal(Number(await costValue(row)), line.cost_usd, line.model);
    }
    await page.selectOption('select[data-control="by"]', 'key');
    await page.waitForSelector('[data-table="usage"] tbody tr');
    const keyRow = page.locator('[data-table="usage"] tbody tr', { hasText: 'browser-test' });
    assert.equal(number(await cellText(keyRow, 'requests')), byModel.total.requests);
    assert.equal(Number(await costValue(keyRow)), byModel.total.cost_usd);
    const spendSums = JSON.parse(
      (await page.locator('[data-chart="spend"]').getAttribute('data-sums')) ?? '[]',
    ) as number[];
    assert.ok(Math.abs((spendSums[0] ?? 0) - byModel.total.cost_usd) < 1e-9);
    await page.waitForSelector('[data-chart="budget"] canvas');
    await shoot('usage');

    await open('requests');
    await page.fill('form[data-form="filter"] input[name="key"]', 'browser-test');
    await page.click('form[data-form="filter"] button[type="submit"]');
    await page.waitForSelector('[data-table="requests"] tbody tr');
    const rows = page.locator('[data-table="requests"] tbody tr');
    assert.equal(await rows.count(), 5);
    const models = new Set(
      await page.locator('[data-table="requests"] td[data-column="model"]').allInnerTexts(),
    );
    assert.deepEqual([...models].sort(), ['A-1', 'A-2', 'B-1', 'C-1']);
    assert.deepEqual(
      new Set(await page.locator('[data-table="requests"] td[data-column="surface"]').allInnerTexts()),
      new Set(['alpha', 'beta', 'gamma']),
    );
    await shoot('requests');

    await open('models');
    await page.waitForSelector('[data-table="health"] tbody tr');
    assert.match(await page.locator('[data-table="health"]').innerText(), /closed/);
    await shoot('models');
  });

  test('the live tail shows a request as it is recorded', async () => {
    await open('tail');
    await page.waitForSelector('[data-role="tail-status"]:text-is("live")');
    const openai = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'A-3', messages: [{ role: 'user', content: 'tail me' }] });
    await page.waitForSelector('[data-table="tail"] tbody tr td:text("A-3")');
    await shoot('tail');
  });

  test('a change without the CSRF token is a 403 and changes nothing', async () => {
    const answer = await page.evaluate(async () => {
      const response = await fetch('/dashboard/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'forged' }),
      });
      return { status: response.status, keys: await (await fetch('/dashboard/api/keys?all=true')).text() };
    });
    assert.equal(answer.status, 403);
    assert.doesNotMatch(answer.keys, /forged/);
    const wrong = await page.evaluate(async () => {
      const response = await fetch('/dashboard/logout', {
        method: 'POST',
        headers: { 'x-csrf-token': 'wrong' },
      });
      return response.status;
    });
    assert.equal(wrong, 403);
  });

  test('a key revoked on the keys page is refused on its next request', async () => {
    await open('keys');
    await page.click('button[data-revoke="browser-test"]');
    await page.waitForSelector('button[data-revoke="browser-test"]', { state: 'detached' });
    const row = page.locator('[data-table="keys"] tbody tr', { hasText: 'browser-test' });
    assert.equal(await cellText(row, 'status'), 'revoked');
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'A-1', messages: [{ role: 'user', content: 'still there?' }] }),
    });
    assert.equal(response.status, 401);
  });

  test('signing out ends the session; no request ever left the gateway origin', async () => {
    await open('overview');
    await page.click('#sign-out');
    await page.waitForURL(/\/dashboard\/login$/);
    await page.goto(`${gateway.url}/dashboard#keys`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    assert.deepEqual(foreign, []);
  });
});
