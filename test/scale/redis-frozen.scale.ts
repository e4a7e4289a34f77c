/**
 * Redis frozen (`SIGSTOP`) under load, at the instance level: three `serve --workers 2` instances
 * on one Redis and one store file, steady load on all three surfaces. With
 * `limits.onStoreFailure: closed` every request sent while Redis is frozen is refused in its
 * surface's shape with `retry-after`, within the command timeout (no request hangs), and service
 * comes back after `SIGCONT`. With `local` each process limits alone at limit ÷ `limits.instances`,
 * so the six processes together admit at most the limit, each such answer flagged
 * (`x-modelgate-limits: local`) and the switch logged; a key with a budget is refused (503) either
 * way: budgets always fail closed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post, type HttpAnswer } from '../kit/e2e.ts';
import { missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';
import {
  sleep,
  startInstance,
  steadyLoad,
  stopInstances,
  waitForKey,
  type Instance,
  type LoadAnswer,
} from './test-kit.ts';

const skip = missingBinary('redis-server');
const adminKey = 'mg-frozen-admin-key-0123456789abcdef';
/** Short, yet rarely reached by a live Redis on this loaded machine (the default is 50 ms). */
const commandTimeoutMs = 250;
/** How long a lease of the shared limits is used (src/limits/redis/shared-stores.ts). */
const leaseLifeMs = 50;
/** Processes sharing the limits: three instances × two workers, as the config says. */
const processes = 6;
/** How much later than the command timeout an answer may come on this loaded machine. */
const marginMs = 2_000;
const freezeMs = 4_000;
const hello = 'Hello there';

/** One request on a surface, as a client of that family sends it. */
type Surface = 'alpha' | 'beta' | 'gamma';
const surfaces: readonly Surface[] = ['alpha', 'beta', 'gamma'];

function send(surface: Surface, url: string, key: string): Promise<HttpAnswer> {
  if (surface === 'alpha')
    return post(url, '/v1/chat/completions', alphaAuth(key), {
      model: 'A-3',
      max_tokens: 4,
      messages: [{ role: 'user', content: hello }],
    });
  if (surface === 'beta')
    return post(url, '/v1/messages', betaAuth(key), {
      model: 'B-1',
      max_tokens: 4,
      messages: [{ role: 'user', content: hello }],
    });
  return post(url, gammaPath('C-1', false), gammaAuth(key), {
    contents: [{ role: 'user', parts: [{ text: hello }] }],
    generationConfig: { maxOutputTokens: 4 },
  });
}

/** The surface's own error for "unavailable": A 503 `server_error`, B 529 `overloaded_error`, C 503 `UNAVAILABLE`. */
function assertUnavailable(surface: Surface, answer: HttpAnswer): void {
  const body = answer.json as { type?: string; error?: { type?: string; status?: string } } | undefined;
  if (surface === 'alpha') {
    assert.equal(answer.status, 503, answer.text);
    assert.equal(body?.error?.type, 'server_error', answer.text);
  } else if (surface === 'beta') {
    assert.equal(answer.status, 529, answer.text);
    assert.equal(body?.type, 'error', answer.text);
    assert.equal(body.error?.type, 'overloaded_error', answer.text);
  } else {
    assert.equal(answer.status, 503, answer.text);
    assert.equal(body?.error?.status, 'UNAVAILABLE', answer.text);
  }
  assert.equal(answer.headers.get('retry-after'), '1', `${surface}: retry-after`);
}

/** Creates a key through the admin API of `url`. */
async function createKey(url: string, fields: Record<string, unknown>): Promise<string> {
  const created = await post(url, '/admin/keys', alphaAuth(adminKey), fields);
  assert.equal(created.status, 201, created.text);
  return (created.json as { key: string }).key;
}

for (const mode of ['closed', 'local'] as const)
  describe(`Redis frozen under load, onStoreFailure: ${mode}`, { skip, timeout: 300_000 }, () => {
    let redis: RealRedis;
    let directory: string;
    let instances: Instance[] = [];

    before(async () => {
      directory = mkdtempSync(join(tmpdir(), 'modelgate-frozen-'));
      writeFileSync(
        join(directory, 'config.yaml'),
        `limits:\n  instances: ${processes}\n  onStoreFailure: ${mode}\nredis:\n  commandTimeoutMs: ${commandTimeoutMs}\n`,
      );
      redis = await startRedis();
      const start = (): Promise<Instance> =>
        startInstance(
          {
            LOG_LEVEL: 'info',
            MODELGATE_ADMIN_KEY: adminKey,
            MODELGATE_DB: join(directory, 'shared.db'),
            MODELGATE_REDIS_URL: redis.url,
            MODELGATE_CONFIG: join(directory, 'config.yaml'),
          },
          { workers: 2 },
        );
      // One first: it creates the store file's schema before the others open it.
      instances = [await start()];
      instances.push(...(await Promise.all([start(), start()])));
    });

    after(async () => {
      // Never leave the server stopped, whatever failed.
      redis.thaw();
      await stopInstances(instances);
      await redis.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    test(
      mode === 'closed'
        ? 'every request sent while Redis is frozen is refused in its shape within the timeout; service returns after SIGCONT'
        : 'the processes admit at most the limit together, flagged and logged; a key with a budget is refused',
      async (t) => {
        const url = instances[0]?.url ?? '';
        const busy = await createKey(url, { name: 'busy', rpm: 1_000_000, tpm: 100_000_000 });
        const limitedRpm = 60;
        const limited = await createKey(url, { name: 'limited', rpm: limitedRpm, tpm: 100_000_000 });
        const budgeted = await createKey(url, { name: 'budgeted', budget_usd: 100, rpm: 1_000_000 });
        for (const key of [busy, limited, budgeted]) await waitForKey(instances, alphaAuth(key));
        let surfaceTurn = 0;
        const load = steadyLoad(
          () => instances,
          6,
          (target) => send(surfaces[surfaceTurn++ % 3] as Surface, target, busy),
        );
        try {
          await sleep(3_000);
          const warm = load.answers.length;
          assert.deepEqual(
            [...new Set(load.answers.map((answer) => answer.error ?? answer.status))],
            [200],
            'all 200 before the freeze',
          );
          redis.freeze();
          const frozenAt = Date.now();
          let thawedAt = 0;
          try {
            if (mode === 'closed') await closedWhileFrozen(t, instances, busy, budgeted);
            else await localWhileFrozen(t, instances, limited, limitedRpm, budgeted);
            await sleep(Math.max(0, frozenAt + freezeMs - Date.now()));
          } finally {
            redis.thaw();
            thawedAt = Date.now();
          }
          const during = load.answers.filter(
            (answer) => answer.sentAt >= frozenAt + 50 && answer.sentAt < thawedAt,
          );
          // Back within the breaker's cooldown and a probe: a few seconds under load.
          await sleep(4_000);
          await load.stop();
          const slowest = Math.max(...during.map((answer) => answer.answeredAt - answer.sentAt));
          const recovered = load.answers.filter((answer) => answer.sentAt >= thawedAt + 3_000);
          const slow = load.answers
            .filter((answer) => answer.answeredAt - answer.sentAt > commandTimeoutMs + marginMs)
            .map(
              (answer) =>
                `${answer.status} in ${answer.answeredAt - answer.sentAt} ms, sent ${answer.sentAt - frozenAt} ms after the freeze`,
            );
          if (slow.length > 0)
            t.diagnostic(
              `slow answers (thawed ${thawedAt - frozenAt} ms after the freeze): ${slow.join('; ')}`,
            );
          t.diagnostic(
            `${warm} answers before the freeze; ${during.length} sent during the ${thawedAt - frozenAt} ms freeze ` +
              `(statuses ${JSON.stringify(count(during))}, slowest ${slowest} ms); ` +
              `${recovered.length} from 3 s after SIGCONT (statuses ${JSON.stringify(count(recovered))})`,
          );
          assert.ok(during.length > 0 && recovered.length > 0);
          assert.ok(during.every((answer) => answer.error === undefined));
          assert.ok(slowest <= commandTimeoutMs + marginMs, `no request hangs: slowest ${slowest} ms`);
          if (mode === 'closed')
            assert.ok(
              during.every((answer) => answer.status === 503 || answer.status === 529),
              'every request refused while frozen',
            );
          else
            assert.ok(
              during.every(
                (answer) => answer.status === 200 && answer.headers?.get('x-modelgate-limits') === 'local',
              ),
              'decided locally, flagged',
            );
          assert.deepEqual(Object.keys(count(recovered)), ['200'], 'service is back after SIGCONT');
          // The switch is logged once per change of state in each process, not per request: an
          // instance's two workers each say it went, then that it came back (a timeout on this
          // loaded machine may add a change of its own).
          const lines = (instance: Instance, text: string): number => instance.log().split(text).length - 1;
          const went = instances.map((instance) =>
            lines(
              instance,
              mode === 'closed' ? 'requests are refused with 503' : 'rate limits are per process',
            ),
          );
          const back = instances.map((instance) => lines(instance, 'shared limits store reachable again'));
          t.diagnostic(
            `logged: unreachable ${went.join(' ')}, reachable again ${back.join(' ')} (per instance)`,
          );
          for (const [index, count] of went.entries()) {
            assert.ok(count >= 1, `instance ${index} logged the switch`);
            assert.ok(count <= (back[index] ?? 0) + 2, `instance ${index}: once per change, not per request`);
            // Spend records that could not reach Redis: said once per outage too.
            const settles = lines(instances[index] as Instance, 'budget settle failed');
            assert.ok(settles <= count, `instance ${index}: ${settles} lines about failed settles`);
          }
        } finally {
          await load.stop();
        }
      },
    );
  });

function count(answers: readonly LoadAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.error === undefined ? String(answer.status) : 'error';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Closed: one request per surface and instance, each refused in its shape, in time. */
async function closedWhileFrozen(
  t: { diagnostic(message: string): void },
  instances: readonly Instance[],
  key: string,
  budgeted: string,
): Promise<void> {
  // A lease of the busy key's shared limits taken just before the freeze still admits for its life
  // (50 ms from its request's sending): its units are already counted in Redis, so that is not a
  // request Redis was needed for. Past it, every admission needs Redis.
  await sleep(leaseLifeMs * 2);
  const started = Date.now();
  const checks = instances.flatMap((instance) =>
    surfaces.flatMap((surface) => [
      send(surface, instance.url, key).then((answer) => ({ surface, answer, ms: Date.now() - started })),
      send(surface, instance.url, budgeted).then((answer) => ({ surface, answer, ms: Date.now() - started })),
    ]),
  );
  const results = await Promise.all(checks);
  for (const { surface, answer, ms } of results) {
    assertUnavailable(surface, answer);
    assert.ok(ms <= commandTimeoutMs + marginMs, `${surface} answered in ${ms} ms`);
  }
  t.diagnostic(
    `closed: ${results.length} refusals in shape, slowest ${Math.max(...results.map((r) => r.ms))} ms`,
  );
}

/** Local: a burst on a key limited to `rpm` over every instance; a budget key refused. */
async function localWhileFrozen(
  t: { diagnostic(message: string): void },
  instances: readonly Instance[],
  limited: string,
  rpm: number,
  budgeted: string,
): Promise<void> {
  const started = Date.now();
  // Sent in waves, so the burst reaches every worker (each connection is one worker's).
  const answers: HttpAnswer[] = [];
  for (let wave = 0; wave < 10; wave++)
    answers.push(
      ...(await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          send('alpha', (instances[index % instances.length] as Instance).url, limited),
        ),
      )),
    );
  const elapsedMs = Date.now() - started;
  const admitted = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status === 429);
  // Each process's share: its window of a minute admits rpm ÷ processes (none leaves within it).
  const share = Math.floor(rpm / processes);
  assert.ok(elapsedMs < 60_000);
  t.diagnostic(
    `local: ${admitted.length} of ${answers.length} admitted in ${elapsedMs} ms (limit ${rpm} over ${processes} processes)`,
  );
  assert.equal(admitted.length + refused.length, answers.length, 'each answer a 200 or a 429');
  // limit × the processes running ÷ the processes configured (here the same: the limit).
  const running = instances.length * 2;
  assert.ok(admitted.length <= (rpm * running) / processes, 'at most the limit together');
  assert.ok(admitted.length >= share, 'each process admits its share');
  assert.ok(answers.every((answer) => answer.headers.get('x-modelgate-limits') === 'local'));
  for (const surface of surfaces)
    assertUnavailable(surface, await send(surface, instances[0]?.url ?? '', budgeted));
}
