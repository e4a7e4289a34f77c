/**
 * The command line as people expect it: help and version flags, one line (not a stack) for a
 * port in use or a Node too old, a reversed `usage` range named as a mistake, and the unknown
 * model's 404 with the closest names and how to reach an uncatalogued model.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { alphaAuth, post } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const root = join(import.meta.dirname, '../..');
const bin = join(root, 'bin/modelgate.js');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
let directory: string;

before(() => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-cli-basics-'));
});

after(() => {
  rmSync(directory, { recursive: true, force: true });
});

function run(
  args: string[],
  environment: Record<string, string> = {},
  nodeFlags: string[] = [],
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...nodeFlags, bin, ...args], {
    cwd: directory,
    env: { PATH: process.env.PATH ?? '', MODELGATE_DB: join(directory, 'cli.db'), ...environment },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('--help, -h and help print the usage and exit 0', () => {
  for (const flag of ['--help', '-h', 'help']) {
    const result = run([flag]);
    assert.equal(result.status, 0, `${flag}: ${result.stderr}`);
    assert.match(result.stdout, /^usage: modelgate \[serve\]/);
    assert.match(result.stdout, /modelgate migrate/);
  }
});

test('<command> --help prints that command’s usage and exits 0', () => {
  const expected: Record<string, RegExp> = {
    serve: /usage: modelgate \[serve\][\s\S]*--workers/,
    simulate: /usage: modelgate simulate[\s\S]*--ttft-ms/,
    keys: /usage: modelgate keys create/,
    usage: /usage: modelgate usage/,
    migrate: /usage: modelgate migrate/,
  };
  for (const [command, pattern] of Object.entries(expected)) {
    for (const flag of ['--help', '-h']) {
      const result = run([command, flag]);
      assert.equal(result.status, 0, `${command} ${flag}: ${result.stderr}`);
      assert.match(result.stdout, pattern, `${command} ${flag}`);
    }
  }
});

test('--version, -v and version print the package version', () => {
  for (const flag of ['--version', '-v', 'version']) {
    const result = run([flag]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `${version}\n`);
  }
});

test('a port in use: one line naming it, exit 1, no stack', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as { port: number }).port;
  try {
    const result = run(['serve'], {
      HOST: '127.0.0.1',
      PORT: String(port),
      MODELGATE_KEYS: 'mg-cli-basics-key-0123456789',
    });
    assert.equal(result.status, 1);
    assert.equal(result.stderr, `modelgate: port ${port} is in use (set PORT or server.port)\n`);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});

test('a Node older than 24: one line naming the version needed, exit 1', () => {
  const pretend = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'22.12.0'})`;
  const result = run(['--version'], {}, ['--import', pretend]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^modelgate: Node\.js 24 or newer is needed \(this is 22\.12\.0\)/);
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.equal(result.stdout, '');
});

test('usage --until before --since: a clear error, not an empty table', () => {
  const result = run(['usage', '--since', '2026-01-02', '--until', '2026-01-01']);
  assert.equal(result.status, 1);
  assert.match(
    result.stderr,
    /until \(2026-01-01T00:00:00\.000Z\) is before since \(2026-01-02T00:00:00\.000Z\)/,
  );
  assert.equal(result.stdout, '');
});

test('an unknown model: the closest catalog names and the family/<id> form', async () => {
  const gateway: TestGateway = await startTestGateway();
  try {
    const answer = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'A2',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    assert.equal(answer.status, 404);
    const message = (answer.json as { error: { message: string } }).error.message;
    assert.match(message, /Did you mean `A-2`/);
    assert.match(message, /`alpha\/<id>`/);
  } finally {
    await gateway.close();
  }
});
