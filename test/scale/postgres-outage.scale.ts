/**
 * PostgreSQL stopped for 30 s under load: two gateway instances on one PostgreSQL keep answering
 * (nothing on a request's path needs the server), their ledger rows wait in the shared outbox file
 * (memory stays flat), and after the restart every answered request's row is in PostgreSQL exactly
 * once — none lost, none twice — with the keys' spend equal to the ledger's sum.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { connectPostgres, type PgConnection } from '../../src/store/postgres/connection.ts';
import { alphaAuth, post } from '../kit/e2e.ts';
import { missingPostgres, startPostgres, type RealPostgres } from '../kit/real-servers.ts';
import { startInstance, startInstances, stopInstances, type Instance } from './test-kit.ts';

const skip = missingPostgres();
const clientKey = 'mg-outage-static-key-0123456789';
const adminKey = 'mg-outage-admin-key-0123456789abcdef';
const outageMs = Number(process.env.OUTAGE_MS ?? 30_000);
const warmMs = 5_000;
const concurrency = 16;

/** Resident memory of a process in MiB (Linux); undefined once it has exited. */
function rssMiB(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

describe('PostgreSQL stopped for 30 s under load', { skip, timeout: 300_000 }, () => {
  let postgres: RealPostgres;
  let connection: PgConnection;
  let directory: string;
  let instances: Instance[] = [];

  const start = (): Promise<Instance> =>
    startInstance({
      LOG_LEVEL: 'error',
      MODELGATE_KEYS: clientKey,
      MODELGATE_ADMIN_KEY: adminKey,
      // Metered, never refused: the load is about the ledger, not the limits.
      MODELGATE_UNLIMITED_KEYS: 'static-1',
      MODELGATE_DB: join(directory, 'local.db'),
      MODELGATE_DATABASE_URL: postgres.url,
    });

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelgate-outage-'));
    postgres = await startPostgres();
    instances = await startInstances(2, start);
    connection = await connectPostgres(postgres.url, undefined);
  });

  after(async () => {
    await stopInstances(instances);
    await connection.close();
    await postgres.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  test('0 ledger rows lost, 0 duplicated, RSS bounded; the rows arrive after the restart', async (t) => {
    const answered: string[] = [];
    const statuses = new Map<number, number>();
    let running = true;
    let sent = 0;
    const client = async (index: number): Promise<void> => {
      while (running) {
        const instance = instances[(index + sent++) % instances.length] as Instance;
        const answer = await post(instance.url, '/v1/chat/completions', alphaAuth(clientKey), {
          model: 'A-3',
          max_tokens: 8,
          messages: [{ role: 'user', content: `Hello ${index}` }],
        });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const id = answer.headers.get('x-request-id');
        if (id !== null) answered.push(id);
      }
    };
    // Peak RSS per phase: the same load with the server up (control), then while it is down.
    const rss = { warm: 0, control: 0, outage: 0, after: 0 };
    let phase: keyof typeof rss = 'warm';
    // An instance that exits mid-run is a failure of its own, with its log (not a sampler error).
    const gone: Instance[] = [];
    const sampler = setInterval(() => {
      for (const instance of instances) {
        const resident = rssMiB(instance.pid);
        if (resident === undefined) {
          if (!gone.includes(instance)) gone.push(instance);
        } else rss[phase] = Math.max(rss[phase], resident);
      }
    }, 250);
    t.after(() => clearInterval(sampler));
    const load = Promise.all(Array.from({ length: concurrency }, (_, index) => client(index)));

    await new Promise((resolve) => setTimeout(resolve, warmMs));
    phase = 'control';
    await new Promise((resolve) => setTimeout(resolve, outageMs));
    const beforeOutage = answered.length;
    phase = 'outage';
    await postgres.pause();
    const outageStarted = Date.now();
    await new Promise((resolve) => setTimeout(resolve, outageMs / 2));
    const outboxPath = join(directory, 'ledger-outbox.db');
    assert.ok(existsSync(outboxPath));
    // What needs the server says so: the admin API's key list answers 503, in time.
    const adminStarted = Date.now();
    const admin = await fetch(`${instances[0]?.url ?? ''}/admin/keys`, { headers: alphaAuth(adminKey) });
    const adminMs = Date.now() - adminStarted;
    assert.equal(admin.status, 503, await admin.text());
    assert.ok(adminMs < 10_000, `admin answered in ${adminMs} ms`);
    const outbox = new DatabaseSync(outboxPath, { readOnly: true });
    const waiting = (outbox.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
    outbox.close();
    await new Promise((resolve) => setTimeout(resolve, outageStarted + outageMs - Date.now()));
    const duringOutage = answered.length - beforeOutage;
    await postgres.start();
    phase = 'after';
    const restarted = Date.now();
    await new Promise((resolve) => setTimeout(resolve, warmMs));
    running = false;
    await load;
    clearInterval(sampler);

    // Every answered request has its row in PostgreSQL, once.
    const deadline = Date.now() + 60_000;
    let arrivedAfterMs = 0;
    for (;;) {
      const [row] = await connection.query<{ n: number }>('SELECT count(*) AS n FROM usage_ledger');
      if ((row?.n ?? 0) >= answered.length) {
        arrivedAfterMs = Date.now() - restarted;
        break;
      }
      assert.ok(Date.now() < deadline, `${row?.n ?? 0} of ${answered.length} rows in PostgreSQL`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const stored = await connection.query<{ request_id: string }>('SELECT request_id FROM usage_ledger');
    const [sums] = await connection.query<{ ledger: number; spend: number }>(
      `SELECT (SELECT coalesce(sum(cost_usd), 0) FROM usage_ledger) AS ledger,
              (SELECT coalesce(sum(spent_usd), 0) FROM key_spend) AS spend`,
    );
    t.diagnostic(
      `${answered.length} answers (${duringOutage} during the ${outageMs / 1000} s outage, ${waiting} rows waiting in the outbox halfway), ` +
        `statuses ${JSON.stringify([...statuses])}; all rows in PostgreSQL ${arrivedAfterMs} ms after the restart; ` +
        `peak RSS ${rss.warm.toFixed(0)} MiB warming up, ${rss.control.toFixed(0)} MiB with the server up, ${rss.outage.toFixed(0)} MiB while it was down, ${rss.after.toFixed(0)} MiB after`,
    );
    assert.deepEqual(
      gone.map((instance) => instance.log()),
      [],
      'no instance exited during the run (their logs above)',
    );
    assert.deepEqual([...statuses.keys()], [200], 'every request answered during the outage too');
    assert.ok(duringOutage > 0 && waiting > 0, 'rows were written during the outage and waited on disk');
    assert.equal(stored.length, answered.length, '0 lost, 0 duplicated');
    assert.deepEqual(new Set(stored.map((row) => row.request_id)), new Set(answered));
    assert.ok(Math.abs((sums?.ledger ?? 0) - (sums?.spend ?? 0)) < 1e-9, 'spend charged once');
    // V8 grows the heap under steady load whatever the store (the embedded store alone: +130 MiB
    // over a minute of this load); the outage may cost no more than the same time with the server up.
    const grewUp = rss.control - rss.warm;
    const grewDown = rss.outage - rss.control;
    assert.ok(
      grewDown <= Math.max(grewUp, 0) + 32,
      `RSS grew ${grewDown.toFixed(0)} MiB down, ${grewUp.toFixed(0)} MiB up`,
    );
    assert.ok(rss.outage < 1_024);
  });
});
