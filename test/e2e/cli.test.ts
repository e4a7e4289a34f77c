/**
 * The command line as a user runs it: `node src/cli/main.ts serve` and `simulate` as child
 * processes, with their printed URL parsed from stdout.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post, writeTempConfig } from '../kit/e2e.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src/cli/main.ts');

interface Cli {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Resolves with the first URL printed after `prefix`. */
  url(prefix: string): Promise<string>;
  /** Resolves once stdout matches `pattern`. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

/** A clean environment: nothing from the caller's gateway settings leaks into the child. */
function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(MODELGATE_|ALPHA_|BETA_|GAMMA_|SIMULATOR_|HOST$|PORT$|LOG_LEVEL$|NODE_TEST)/.test(name)) continue;
    environment[name] = value;
  }
  return { ...environment, HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...extra };
}

function runCli(args: string[], environment: Record<string, string>): Cli {
  const child = spawn(process.execPath, [main, ...args], {
    cwd: root,
    env: cleanEnvironment(environment),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const listeners: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stdout);
        if (match !== null) resolve(match);
      };
      listeners.push(check);
      check();
      void exited.then(({ code }) =>
        reject(new Error(`exited (${code}) before printing ${pattern}:\n${stdout}\n${stderr}`)),
      );
    });
  return {
    child,
    output: () => ({ stdout, stderr }),
    exited,
    waitFor,
    url: async (prefix) => (await waitFor(new RegExp(`${prefix} (http://[^\\s"]+)`)))[1]!,
  };
}

async function stop(cli: Cli): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  cli.child.kill('SIGTERM');
  return cli.exited;
}

/** The generated key: the indented token on its own line after the notice. */
function generatedKey(stdout: string): string | undefined {
  if (!/generated/i.test(stdout)) return undefined;
  return /^\s{2}(\S{16,})\s*$/m.exec(stdout)?.[1];
}

async function chatWorks(url: string, key: string): Promise<number> {
  const answer = await post(url, '/v1/chat/completions', alphaAuth(key), {
    model: 'A-3',
    messages: [{ role: 'user', content: 'Hello' }],
  });
  return answer.status;
}

let directory: string;

before(() => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-cli-'));
});

after(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

describe('modelgate serve', () => {
  test('no MODELGATE_KEYS: the first start prints a key once; it works; a restart prints none and it still works', async () => {
    const environment = { PORT: '0', MODELGATE_DB: join(directory, 'keys.db') };
    const first = runCli(['serve'], environment);
    const firstUrl = await first.url('modelgate listening on');
    await first.waitFor(/Use it as/);
    const key = generatedKey(first.output().stdout);
    assert.ok(key !== undefined, `a generated key is printed:\n${first.output().stdout}`);
    assert.equal(first.output().stdout.split(key).length - 1, 1, 'the key is printed exactly once');
    assert.equal(await chatWorks(firstUrl, key), 200);
    assert.equal(await chatWorks(firstUrl, 'some-other-key'), 401);
    assert.deepEqual(await stop(first), { code: 0, signal: null }, 'SIGTERM exits 0');

    const second = runCli(['serve'], environment);
    const secondUrl = await second.url('modelgate listening on');
    assert.equal(await chatWorks(secondUrl, key), 200, 'the first key still works');
    // The notice would have been written right after the listening line, long before this.
    assert.equal(generatedKey(second.output().stdout), undefined, 'no key on the second start');
    assert.ok(!second.output().stdout.includes(key), 'the first key is not printed again');
    assert.deepEqual(await stop(second), { code: 0, signal: null });
    assert.ok(!second.output().stderr.includes(key), 'the key is not logged');
  });

  test('MODELGATE_KEYS set: no key is generated; the configured key works on every surface', async () => {
    const key = 'cli-configured-key-123456';
    const cli = runCli(['serve'], {
      PORT: '0',
      MODELGATE_DB: join(directory, 'static.db'),
      MODELGATE_KEYS: key,
    });
    const url = await cli.url('modelgate listening on');
    assert.equal(generatedKey(cli.output().stdout), undefined);
    assert.equal(await chatWorks(url, key), 200);
    const beta = await post(url, '/v1/messages', betaAuth(key), {
      model: 'C-1',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(beta.status, 200, beta.text);
    const gamma = await post(url, gammaPath('B-1', false), gammaAuth(key), {
      contents: [{ parts: [{ text: 'Hi' }] }],
    });
    assert.equal(gamma.status, 200, gamma.text);
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await stop(cli), { code: 0, signal: null });
  });

  test('a bad config file exits with code 2 and a message naming the field', async () => {
    const cases = [
      { text: 'server:\n  port: "eighty"\n', field: /port/ },
      { text: 'server:\n  bodyLimitBytes: -5\n', field: /bodyLimitBytes/ },
      { text: 'models:\n  - name: A-2\n    maxOutputTokens: lots\n', field: /maxOutputTokens/ },
      { text: 'upstreams:\n  alpha:\n    baseUrl: not a url\n', field: /baseUrl/ },
      { text: 'surprise: true\n', field: /surprise/ },
    ];
    // In parallel: each case is a whole process start.
    await Promise.all(
      cases.map(async ({ text, field }) => {
        const config = writeTempConfig('bad.yaml', text);
        try {
          const cli = runCli(['serve', '--config', config.path], {
            PORT: '0',
            MODELGATE_DB: join(directory, 'bad.db'),
          });
          const { code } = await cli.exited;
          const { stdout, stderr } = cli.output();
          assert.equal(code, 2, `${text}\n${stdout}\n${stderr}`);
          assert.match(stderr, field, stderr);
          assert.doesNotMatch(stdout, /listening/);
        } finally {
          config.remove();
        }
      }),
    );
  });
});

describe('modelgate simulate', () => {
  test('--port 0 answers real HTTP on all three families, then SIGTERM exits 0', async () => {
    const cli = runCli(['simulate', '--port', '0'], {});
    const url = await cli.url('listening on');
    const alpha = await post(url, '/v1/chat/completions', alphaAuth('any'), {
      model: 'A-1',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    assert.equal(alpha.status, 200, alpha.text);
    assert.equal((alpha.json as { object: string }).object, 'chat.completion');
    const beta = await post(url, '/v1/messages', betaAuth('any'), {
      model: 'B-1',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    assert.equal(beta.status, 200, beta.text);
    assert.equal((beta.json as { type: string }).type, 'message');
    const gamma = await post(url, gammaPath('C-1', false), gammaAuth('any'), {
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
    });
    assert.equal(gamma.status, 200, gamma.text);
    assert.equal((gamma.json as { candidates: unknown[] }).candidates.length, 1);
    const stream = await post(url, gammaPath('C-1', true), gammaAuth('any'), {
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
    });
    assert.equal(stream.status, 200);
    assert.match(stream.text, /^data: /);
    assert.deepEqual(await stop(cli), { code: 0, signal: null });
  });

  test('a bad flag exits with code 2 and the usage', async () => {
    const cli = runCli(['simulate', '--port', 'abc'], {});
    const { code } = await cli.exited;
    assert.equal(code, 2);
    assert.match(cli.output().stderr, /--port/);
  });
});

describe('command-line mistakes', () => {
  test('an unknown or valueless option exits 2 with the usage, before anything starts', async () => {
    const cases: { argv: string[]; message: RegExp }[] = [
      { argv: ['serve', '--confg', 'x.yaml'], message: /--confg/ },
      { argv: ['keys', 'create', '--nmae', 'ci'], message: /--nmae[\s\S]*usage: modelgate keys/ },
      { argv: ['keys', 'create', '--name'], message: /--name[\s\S]*usage: modelgate keys/ },
      { argv: ['keys', 'list', '--rpm', '5'], message: /--rpm/ },
      { argv: ['usage', '--by'], message: /--by[\s\S]*usage: modelgate usage/ },
    ];
    for (const { argv, message } of cases) {
      const cli = runCli(argv, { MODELGATE_DB: join(directory, 'mistakes.db') });
      const { code } = await cli.exited;
      assert.equal(code, 2, `${argv.join(' ')} exits 2`);
      assert.match(cli.output().stderr, message);
    }
  });
});
