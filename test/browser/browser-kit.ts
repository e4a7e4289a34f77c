/**
 * What every dashboard browser test needs: Debian's chromium through playwright-core (skipped only
 * when it is missing outside CI), a gateway with its own database and admin key, a page signed in
 * as the admin, and every browser request outside the gateway's origin refused and noted.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const skipWithoutChromium =
  !existsSync(chromiumPath) && process.env.CI !== 'true'
    ? 'chromium is not installed (apt-get install -y chromium); CI installs it and runs this test'
    : false;

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const artifacts = join(root, 'test-artifacts', 'dashboard');

export interface SignedIn {
  gateway: TestGateway;
  databasePath: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Requests the browser tried to send anywhere but the gateway. */
  foreign: string[];
  /** Opens a page of the app (`#hash`) and waits until it is drawn. */
  open(hash: string): Promise<void>;
  close(): Promise<void>;
}

export async function signedInDashboard(
  adminKey: string,
  environment: Record<string, string> = {},
): Promise<SignedIn> {
  assert.ok(existsSync(chromiumPath), 'CI=true: chromium must be installed (see .ci/run)');
  mkdirSync(artifacts, { recursive: true });
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-dashboard-'));
  const databasePath = join(directory, 'gateway.db');
  const gateway = await startTestGateway({
    MODELGATE_ADMIN_KEY: adminKey,
    MODELGATE_DB: databasePath,
    ...environment,
  });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const origin = new URL(gateway.url).origin;
  const foreign: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || new URL(url).origin === origin) await route.continue();
    else {
      foreign.push(url);
      await route.abort();
    }
  });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${gateway.url}/dashboard/login`);
  await page.fill('#key', adminKey);
  await page.click('button[type="submit"]');
  await page.waitForSelector('main[data-page="overview"]');
  return {
    gateway,
    databasePath,
    browser,
    context,
    page,
    foreign,
    async open(hash) {
      await page.goto(`${gateway.url}/dashboard#${hash}`);
      await page.waitForSelector(`main[data-page="${hash}"]`);
    },
    async close() {
      await browser.close();
      await gateway.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Waits until the ledger holds at least `rows` rows (it writes in batches). */
export async function ledgerRows(page: Page, url: string, rows: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const ledger = (await (await page.request.get(`${url}/dashboard/api/requests`)).json()) as {
      data: unknown[];
    };
    if (ledger.data.length >= rows) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`the ledger never reached ${rows} rows`);
}
