/**
 * The dashboard shows what the ledger holds, readably, in a real browser: no stray `null` on the
 * requests page, money to significant digits (never float noise), static keys listed on the keys
 * page (marked, not editable), the error-rate chart from 0 to at most 100 %, a small budget and
 * its refusal in significant digits, periodic budgets on the keys page, and a request row that
 * opens every ledger field of that request, its upstream status among them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { staticKeyId } from '../../src/keys/client-keys.ts';
import { formatUsd } from '../../src/usage/money.ts';
import { trafficOnEverySurface } from '../kit/surface-traffic.ts';
import {
  artifacts,
  ledgerRows,
  signedInDashboard,
  skipWithoutChromium,
  type SignedIn,
} from './browser-kit.ts';

const adminKey = 'mg-admin-dashboard-figures-0123456789';
/** Money as the one formatter prints it: a currency sign, digits, no run of noise digits. */
const readableMoney = /^-?\$\d{1,3}(,\d{3})*\.\d{1,7}$/;

describe('the dashboard shows figures readably', { skip: skipWithoutChromium }, () => {
  let board: SignedIn;

  before(async () => {
    board = await signedInDashboard(adminKey);
  });
  after(() => board.close());

  const yRange = async (chart: string): Promise<[number, number]> => {
    const holder = board.page.locator(`[data-chart="${chart}"][data-y-range]`);
    await holder.waitFor();
    return JSON.parse((await holder.getAttribute('data-y-range')) ?? '[]') as [number, number];
  };

  test('an empty error-rate chart is drawn from 0 to at most 100 %', async () => {
    const [low, high] = await yRange('errors');
    assert.equal(low, 0);
    assert.ok(high > 0 && high <= 1, `top of the axis at ${high * 100} %`);
  });

  test('the keys page lists the static keys, marked static, with nothing to change', async () => {
    await board.open('keys');
    const table = board.page.locator('[data-table="keys"]');
    await table.waitFor();
    const id = staticKeyId(board.gateway.key);
    const row = board.page.locator('[data-table="keys"] tbody tr', { hasText: id });
    assert.equal(await row.locator(`[data-static="${id}"]`).innerText(), 'static');
    assert.equal(await row.locator('button').count(), 0, 'no revoke button on a static key');
    assert.doesNotMatch(await board.page.locator('main').innerText(), /Nothing in this range yet/);
  });

  test('traffic: money to significant digits, the error-rate axis within 100 %, no stray null', async () => {
    const { gateway, page } = board;
    await trafficOnEverySurface(gateway.url, gateway.key);
    await ledgerRows(page, gateway.url, 5);

    await board.open('overview');
    const [low, high] = await yRange('errors');
    assert.equal(low, 0);
    assert.ok(high > 0 && high <= 1, `top of the axis at ${high * 100} %`);
    for (const card of ['cost_usd', 'spend_today', 'spend_month'])
      assert.match(await page.locator(`[data-metric="${card}"] .value`).innerText(), readableMoney, card);

    await board.open('usage');
    await page.waitForSelector('[data-table="usage"] tbody tr');
    for (const cell of await page.locator('[data-table="usage"] td[data-column="cost_usd"]').all()) {
      const exact = Number(await cell.getAttribute('data-value'));
      assert.equal(await cell.innerText(), formatUsd(exact));
      assert.match(await cell.innerText(), readableMoney);
    }

    await board.open('requests');
    await page.waitForSelector('[data-table="requests"] tbody tr');
    assert.doesNotMatch(await page.locator('main').innerText(), /\bnull\b|\bundefined\b/);
    for (const text of await page
      .locator('[data-table="requests"] td[data-column="cost_usd"]')
      .allInnerTexts())
      assert.match(text, readableMoney);
    await board.open('tail');
    await page.screenshot({ path: join(artifacts, 'figures-tail.png') });
  });

  test('a request row opens its detail: every ledger field, the upstream status among them', async () => {
    const { page } = board;
    await board.open('requests');
    const header = await page.locator('[data-table="requests"] thead').innerText();
    assert.match(header, /upstream/);
    // The request the upstream failed (the simulator's fault): its upstream status is shown.
    const failed = page.locator('[data-table="requests"] tbody tr', { hasText: 'failed' }).first();
    const upstream = await failed.locator('td[data-column="upstream_status"]').innerText();
    assert.match(upstream, /^[45]\d\d$/);
    await failed.click();
    const detail = page.locator('[data-role="request-detail"]');
    await detail.waitFor();
    const field = (name: string): Promise<string> => detail.locator(`dd[data-field="${name}"]`).innerText();
    assert.equal(await field('upstream status'), upstream);
    for (const name of [
      'request id',
      'model',
      'key',
      'deployment',
      'status',
      'prompt tokens',
      'cached tokens',
      'cache write tokens',
      'output tokens',
      'cost',
      'latency',
      'time to first token',
      'error',
    ])
      assert.ok((await field(name)).length > 0, name);
    assert.equal(await field('key'), staticKeyId(board.gateway.key));
    assert.notEqual(await field('error'), '–');
    assert.match(await field('cost'), readableMoney);
    await page.screenshot({ path: join(artifacts, 'request-detail.png'), fullPage: true });
    await detail.locator('[data-action="close-detail"]').click();
    await detail.waitFor({ state: 'detached' });
  });

  test('a small budget and its refusal read in significant digits', async () => {
    const { gateway, page } = board;
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content')) ?? '';
    const created = await page.evaluate(async (csrf) => {
      const response = await fetch('/dashboard/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ name: 'tiny', budget_usd: 0.00001 }),
      });
      return (await response.json()) as { key: string };
    }, csrf);
    const ask = (): Promise<Response> =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'A-1', messages: [{ role: 'user', content: 'spend a little' }] }),
      });
    assert.equal((await ask()).status, 200);
    let refusal: Response | undefined;
    for (let tries = 0; tries < 50 && refusal === undefined; tries++) {
      const answer = await ask();
      if (answer.status === 429) refusal = answer;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(refusal !== undefined, 'the spent budget refuses');
    const { error } = (await refusal.json()) as { error: { message: string } };
    assert.match(error.message, / \$0\.\d{1,7} spent of \$0\.00001\b/);

    await board.open('keys');
    const row = page.locator('[data-table="keys"] tbody tr', { hasText: 'tiny' });
    assert.equal(await row.locator('td[data-column="budget_usd"]').innerText(), '$0.00001');
    const spent = row.locator('td[data-column="spent_usd"]');
    assert.equal(await spent.innerText(), formatUsd(Number(await spent.getAttribute('data-value'))));
    assert.match(await spent.innerText(), readableMoney);
  });

  test('a periodic budget set on the keys page is shown with its period and this period’s spend', async () => {
    const { page } = board;
    await board.open('keys');
    await page.fill('form[data-form="create-key"] input[name="name"]', 'daily-team');
    await page.fill('form[data-form="create-key"] input[name="period_budget_usd"]', '1.5');
    await page.selectOption('form[data-form="create-key"] select[name="budget_period"]', 'daily');
    await page.click('form[data-form="create-key"] button[type="submit"]');
    await page.locator('[data-secret="key"]').waitFor();
    const row = page.locator('[data-table="keys"] tbody tr', { hasText: 'daily-team' });
    assert.equal(await row.locator('td[data-column="period_budget"]').innerText(), '$1.50 / day');
    assert.equal(await row.locator('td[data-column="period_spent_usd"]').innerText(), '$0.00');
    assert.equal(await row.locator('td[data-column="budget_usd"]').innerText(), '–');
    await page.screenshot({ path: join(artifacts, 'keys-periodic.png'), fullPage: true });
  });
});
