/**
 * Guessing the admin key at the dashboard's sign-in, as a client sees it: the dashboard on a real
 * HTTP server, its store and keys real, its clock injected (the lockout's end without sleeping a
 * minute). Ten wrong keys from one address in a minute and that address gets 429 with a
 * `retry-after` of the seconds left, even with the right key; other addresses sign in meanwhile;
 * when the minute is over it may try again; a client key never signs in, and failing with one
 * counts like any wrong key. Attempts are counted as they start, so concurrent ones cannot race
 * the check; a session made under one admin key is unknown once the key is rotated.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { createDashboard, type Dashboard } from '../../src/dashboard/dashboard-route.ts';
import type { DashboardEndpoint } from '../../src/dashboard/dashboard-endpoint.ts';
import { dashboardEndpoints } from '../../src/dashboard/dashboard-endpoints.ts';
import { LoginThrottle, loginWindowMs, maxLoginFailures } from '../../src/keys/login-throttle.ts';
import { ModelResolver } from '../../src/gateway/resolve-model.ts';
import type { AdminDependencies } from '../../src/admin/admin-request.ts';
import { AdminKey } from '../../src/keys/admin-key.ts';
import { createKeyServices, type KeyServices } from '../../src/limits/key-services.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStores, type Stores } from '../../src/store/stores.ts';

const adminKey = 'mg-admin-sign-in-test-0123456789';
const clientKey = 'mg-client-sign-in-test-0123456789';

/** The dashboard's rows, as the gateway's route table holds them. */
const router = FindMyWay();
for (const endpoint of dashboardEndpoints) {
  if (endpoint.methods === 'any') router.all(endpoint.path, () => undefined, endpoint);
  else router.on([...endpoint.methods], endpoint.path, () => undefined, endpoint);
}

async function serve(dashboard: Dashboard): Promise<Server> {
  const server = createServer((incoming, response) => {
    const url = new URL(incoming.url ?? '/', 'http://localhost');
    const found = router.find(incoming.method as HTTPMethod, url.pathname);
    if (found === null) response.writeHead(404).end();
    else
      void dashboard.serve(
        found.store as DashboardEndpoint,
        incoming,
        response,
        found.params,
        url.searchParams,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

describe('dashboard sign-in under guessing', () => {
  let directory: string;
  let stores: Stores;
  let services: KeyServices;
  let dashboard: Dashboard;
  let server: Server;
  let port: number;
  let adminDependencies: AdminDependencies;
  /** The same store's dashboard under another admin key (a restart after rotating it). */
  let rotate: (key: string) => Dashboard;
  let now = Date.parse('2026-11-24T03:00:00Z');

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelgate-sign-in-'));
    const config = loadConfig({
      MODELGATE_DB: join(directory, 'gateway.db'),
      MODELGATE_ADMIN_KEY: adminKey,
      MODELGATE_KEYS: clientKey,
    });
    const logger = createLogger('silent', [adminKey, clientKey]);
    stores = await openStores(config, logger);
    const clock = (): number => now;
    services = await createKeyServices(config, stores, logger, clock);
    const watch = services.ledger.watch;
    assert.ok(watch !== undefined);
    adminDependencies = {
      adminKey: services.adminKey,
      store: services.store,
      keys: services.keys,
      usage: stores.usage,
      models: new ModelResolver(config),
      clock,
      throttle: new LoginThrottle(clock),
    };
    rotate = (key) =>
      createDashboard(
        { ...adminDependencies, adminKey: new AdminKey(key) },
        stores.dashboard,
        { watch },
        logger,
      );
    dashboard = createDashboard(adminDependencies, stores.dashboard, { watch }, logger);
    server = await serve(dashboard);
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    dashboard.close();
    await new Promise((resolve) => server.close(resolve));
    await services.close();
    await stores.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** The sign-in form posted from `from` (a loopback address: each one is another client). */
  const signIn = (key: string, from = '127.0.0.1', bodySent?: Promise<void>): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const body = new URLSearchParams({ key }).toString();
      const outgoing = request(
        {
          host: '127.0.0.1',
          port,
          localAddress: from,
          path: '/dashboard/login',
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
          );
        },
      );
      outgoing.on('error', reject);
      if (bodySent === undefined) outgoing.end(body);
      else {
        // The head now, the form later: the attempt has begun before its form is read.
        outgoing.flushHeaders();
        void bodySent.then(() => outgoing.end(body));
      }
    });

  const signedIn = (answer: Answer): boolean =>
    answer.status === 303 &&
    answer.headers.location === '/dashboard' &&
    String(answer.headers['set-cookie']).includes('modelgate_session=');

  test('a client key never signs in: 401, no cookie', async () => {
    const answer = await signIn(clientKey, '127.0.0.9');
    assert.equal(answer.status, 401);
    assert.match(answer.text, /not the admin key/);
    assert.equal(answer.headers['set-cookie'], undefined);
    assert.ok(!answer.text.includes(clientKey));
  });

  test('ten wrong keys lock one address out for the rest of the minute, the right key included', async () => {
    const attacker = '127.0.0.2';
    // A client key is one of the wrong guesses: it counts like any other.
    for (let attempt = 0; attempt < maxLoginFailures; attempt++) {
      const answer = await signIn(attempt === 0 ? clientKey : `mg-guess-${attempt}-0123456789`, attacker);
      assert.equal(answer.status, 401, `attempt ${attempt + 1}`);
    }
    now += 15_000;
    const locked = await signIn('mg-guess-again-0123456789', attacker);
    assert.equal(locked.status, 429);
    assert.equal(locked.headers['retry-after'], '45');
    assert.match(locked.text, /Too many failed sign-ins: try again in 45 s/);
    const rightKey = await signIn(adminKey, attacker);
    assert.equal(rightKey.status, 429, 'the right key is refused during the lockout too');
    assert.equal(rightKey.headers['set-cookie'], undefined);

    // Another client is not locked out.
    assert.ok(signedIn(await signIn(adminKey, '127.0.0.3')));

    // Not a second before the minute is over...
    now += loginWindowMs - 15_000 - 1_000;
    const late = await signIn(adminKey, attacker);
    assert.equal(late.status, 429);
    assert.equal(late.headers['retry-after'], '1');
    // ...and then it may try again.
    now += 1_000;
    assert.equal((await signIn('mg-guess-after-0123456789', attacker)).status, 401);
    assert.ok(signedIn(await signIn(adminKey, attacker)));
  });

  test('a sign-in that succeeds clears the address’s failures', async () => {
    const admin = '127.0.0.4';
    for (let attempt = 0; attempt < maxLoginFailures - 1; attempt++)
      assert.equal((await signIn(`mg-typo-${attempt}-0123456789`, admin)).status, 401);
    assert.ok(signedIn(await signIn(adminKey, admin)));
    for (let attempt = 0; attempt < maxLoginFailures - 1; attempt++)
      assert.equal((await signIn(`mg-typo-again-${attempt}-0123456789`, admin)).status, 401);
    assert.ok(signedIn(await signIn(adminKey, admin)), 'nine more typos do not lock it out');
  });

  test('concurrent wrong keys cannot race the lockout: attempts are counted as they begin', async () => {
    const attacker = '127.0.0.5';
    let release = (): void => undefined;
    const bodies = new Promise<void>((resolve) => (release = resolve));
    const attempts = Array.from({ length: maxLoginFailures + 5 }, (_, index) =>
      signIn(`mg-race-${index}-0123456789`, attacker, bodies),
    );
    // Every head has reached the dashboard before any form is sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    const statuses = (await Promise.all(attempts)).map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 401).length, maxLoginFailures, String(statuses));
    assert.equal(statuses.filter((status) => status === 429).length, 5, String(statuses));
  });

  test('a session made under one admin key is refused once the key is rotated', async () => {
    const answer = await signIn(adminKey, '127.0.0.6');
    assert.ok(signedIn(answer));
    const cookie = String(answer.headers['set-cookie']).split(';')[0] ?? '';
    const overview = async (target: number): Promise<number> =>
      (await fetch(`http://127.0.0.1:${target}/dashboard/api/overview`, { headers: { cookie } })).status;
    assert.equal(await overview(port), 200, 'the session works under its own key');
    const rotated = rotate('mg-admin-rotated-0123456789');
    const rotatedServer = await serve(rotated);
    try {
      assert.equal(await overview((rotatedServer.address() as AddressInfo).port), 401);
    } finally {
      rotated.close();
      await new Promise((resolve) => rotatedServer.close(resolve));
    }
  });
});
