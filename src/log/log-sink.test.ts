import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LogSink, type LogStream } from './log-sink.ts';

/**
 * A real Writable whose reader takes nothing until `release()`: what a stopped log shipper is.
 * `written` is every text handed to it, taken or waiting.
 */
function stalledStream(): { stream: LogStream; written: string[]; release: () => void } {
  const written: string[] = [];
  let waiting: (() => void)[] = [];
  let stalled = true;
  const stream = new Writable({
    decodeStrings: false,
    write(_chunk: string, _encoding, done) {
      if (stalled) waiting.push(() => done());
      else done();
    },
  });
  const release = (): void => {
    stalled = false;
    const callbacks = waiting;
    waiting = [];
    for (const callback of callbacks) callback();
  };
  const handed: LogStream = {
    get writableLength() {
      return stream.writableLength;
    },
    write(text: string) {
      written.push(text);
      return stream.write(text);
    },
  };
  return { stream: handed, written, release };
}

const options = {
  flushAtBytes: 100,
  maxUnwrittenBytes: 1_000,
  droppedLine: (count: number) => `{"message":"dropped","dropped":${count}}`,
};

test('lines of one turn are written together, at the end of the turn', async () => {
  const { stream, written, release } = stalledStream();
  release();
  const sink = new LogSink(() => stream, options);
  sink.write('{"a":1}');
  sink.write('{"a":2}');
  assert.deepEqual(written, []);
  await nextTurn();
  assert.deepEqual(written, ['{"a":1}\n{"a":2}\n']);
});

test('a reader that stops holds at most the bound; the lost lines are counted and reported', async () => {
  const { stream, written, release } = stalledStream();
  const sink = new LogSink(() => stream, options);
  const line = `{"line":"${'x'.repeat(40)}"}`; // 51 bytes with its newline
  for (let index = 0; index < 1_000; index++) sink.write(line);
  await nextTurn();
  assert.ok(
    stream.writableLength <= options.maxUnwrittenBytes + options.flushAtBytes + line.length + 1,
    `unwritten: ${stream.writableLength}`,
  );
  const kept = written.join('').split('\n').length - 1;
  assert.equal(kept + sink.dropped, 1_000);
  assert.ok(sink.dropped > 900);

  const lost = sink.dropped;
  release();
  sink.write('{"after":true}');
  await nextTurn();
  assert.deepEqual(written.slice(-2), [`{"message":"dropped","dropped":${lost}}\n`, '{"after":true}\n']);
  assert.equal(sink.dropped, 0);
});

test('a stderr pipe nobody reads keeps the process at the bound, not at everything it logged', async () => {
  const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));
  // ~16 MB of lines to a pipe the parent does not read until the child reports what it holds.
  const program = `import { createLogger } from ${JSON.stringify(logger)};
    const log = createLogger('info', []);
    const pad = 'x'.repeat(120);
    let sent = 0;
    const burst = () => {
      for (let index = 0; index < 10_000; index++) log.info('line', { index, pad });
      if (++sent < 12) setImmediate(burst);
      else setTimeout(() => process.stdout.write(String(process.stderr.writableLength) + '\\n'), 20);
    };
    burst();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.pause();
  const reported = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.trim());
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`exited ${code} before reporting`)));
  });
  let received = 0;
  child.stderr.on('data', (chunk: Buffer) => {
    received += chunk.length;
  });
  child.stderr.resume();
  await new Promise((resolve) => child.on('close', resolve));
  const bound = 8 * 1024 * 1024 + 2 * 65_536;
  const unwritten = Number(reported);
  assert.ok(unwritten <= bound, `unwritten: ${unwritten}`);
  assert.ok(unwritten > 1024 * 1024, `the pipe never filled: ${unwritten}`);
  // Everything the child kept arrived once read; the rest (~16 MB were logged) was dropped.
  assert.ok(received >= unwritten && received <= bound + 65_536 * 2, `received: ${received}`);
});
