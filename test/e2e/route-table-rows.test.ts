/**
 * Every endpoint is a row of the one route table: the admin API's (as README's table documents
 * them), the dashboard's, the surfaces' chat paths and the families' model lists (as the registry
 * declares them). A method or path under `/admin` no row declares is still the admin API's: the
 * admin key is checked, then the same 404 as before the admin endpoints became rows.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createRouteTable } from '../../src/server/routes.ts';
import { familySurfaces, surfaces } from '../../src/surfaces/registry.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const table = createRouteTable();

/** The table's rows as `METHOD path` lines (`ANY` for a row answering every method). */
function rowLines(prefix: string): string[] {
  return table.rows
    .filter((row) => row.path === prefix || row.path.startsWith(`${prefix}/`))
    .flatMap((row) =>
      row.methods === 'any' ? [`ANY ${row.path}`] : row.methods.map((method) => `${method} ${row.path}`),
    )
    .sort();
}

/** README's admin table: `GET` / `PATCH` / `DELETE /admin/keys/{id or name}` is three endpoints. */
function documentedAdminEndpoints(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Admin API'), readme.indexOf('### Rate limits'));
  const endpoints: string[] = [];
  for (const line of section.split('\n')) {
    const cell = /^\| (`[^|]*`)\s*\|/.exec(line)?.[1];
    if (cell === undefined) continue;
    const text = cell.replaceAll('`', '');
    const path = /\/admin\S*/.exec(text)?.[0];
    if (path === undefined) continue;
    const route = path
      .replace(/\[.*$/, '')
      .replace(/\?.*$/, '')
      .replace(/\{[^}]*$/, ':key');
    for (const method of text.match(/\b(GET|POST|PATCH|DELETE)\b/g) ?? [])
      endpoints.push(`${method} ${route}`);
  }
  return endpoints.sort();
}

test('every admin endpoint README documents is a row of its own (method and path), nothing else but the 404 rows', () => {
  const documented = documentedAdminEndpoints();
  assert.ok(documented.length >= 7, documented.join('\n'));
  assert.deepEqual(rowLines('/admin'), [...documented, 'ANY /admin', 'ANY /admin/*'].sort());
});

test('every dashboard endpoint is a row of its own', () => {
  assert.deepEqual(rowLines('/dashboard'), [
    'ANY /dashboard',
    'ANY /dashboard/',
    'ANY /dashboard/*',
    'ANY /dashboard/api/models',
    'ANY /dashboard/api/overview',
    'ANY /dashboard/api/requests',
    'ANY /dashboard/api/tail',
    'ANY /dashboard/api/usage',
    'ANY /dashboard/assets/*',
    'ANY /dashboard/login',
    'ANY /dashboard/logout',
    'DELETE /dashboard/api/keys/:key',
    'GET /dashboard/api/keys',
    'GET /dashboard/api/keys/:key',
    'PATCH /dashboard/api/keys/:key',
    'POST /dashboard/api/keys',
  ]);
});

test("every surface's chat paths, unknown-path shapes and every family's model lists are rows", () => {
  const paths = new Set(table.rows.map((row) => row.path));
  const declared = [
    ...surfaces().flatMap((surface) => [
      ...surface.routes.map((route) => route.path),
      ...surface.unknownPaths,
    ]),
    ...familySurfaces().flatMap((family) => family.modelListing.paths.flatMap((path) => [path, `${path}/*`])),
  ];
  for (const path of declared) assert.ok(paths.has(path), path);
  for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/messages/count_tokens', '/v1/responses'])
    assert.ok(paths.has(path), path);
});

const adminKey = 'mg-admin-route-rows-0123456789abcdef';
let directory: string;
let gateway: TestGateway;

before(async () => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-route-rows-'));
  gateway = await startTestGateway({ MODELGATE_ADMIN_KEY: adminKey, MODELGATE_DB: join(directory, 'g.db') });
});

after(async () => {
  await gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

test('a method or path under /admin no row declares: the admin key first, then the admin 404', async () => {
  const undeclared: [string, string][] = [
    ['GET', '/admin'],
    ['GET', '/admin/'],
    ['GET', '/admin/nothing'],
    ['GET', '/admin/keys/a/b'],
    ['PUT', '/admin/keys'],
    ['POST', '/admin/usage'],
    ['DELETE', '/admin/health'],
  ];
  for (const [method, path] of undeclared) {
    const refused = await fetch(`${gateway.url}${path}`, { method });
    assert.equal(refused.status, 401, `${method} ${path}`);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_admin_key');
    const answer = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}` },
    });
    assert.equal(answer.status, 404, `${method} ${path}`);
    assert.deepEqual(await answer.json(), {
      error: {
        message: `No admin route for ${method} ${path}`,
        type: 'invalid_request_error',
        param: null,
        code: 'not_found',
      },
    });
  }
});
