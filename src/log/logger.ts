/**
 * Structured JSON logs on stderr, one line each. Callers pass fields, never bodies or headers
 * wholesale; `redact` is the last guard against a secret reaching a log line.
 */
import { writeSync } from 'node:fs';
import { LogSink } from './log-sink.ts';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  /** Whether `level` is written: lets hot paths skip building fields nobody reads. */
  enabled(level: LogLevel): boolean;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(
  level: LogLevel,
  secrets: readonly string[],
  write: (line: string) => void = batchedStderr,
): Logger {
  const threshold = rank[level];
  const scrub = secretScrubber(secrets.filter((secret) => secret.length >= 4));
  const log = (at: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (rank[at] < threshold) return;
    write(scrub(logLine(at, message, fields)));
  };
  return {
    enabled: (level) => rank[level] >= threshold,
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}

/**
 * `{"time":…,"level":…,"message":…, …fields}` as one JSON line. Written by hand (fields encoded once,
 * no merged object, the time string kept for its millisecond): a line per request made this a few
 * microseconds of every request. A field named like the three fixed ones replaces it, as a merge would.
 */
function logLine(level: LogLevel, message: string, fields: Record<string, unknown> | undefined): string {
  if (fields !== undefined && ('time' in fields || 'level' in fields || 'message' in fields))
    return JSON.stringify({ time: isoNow(), level, message, ...fields });
  const head = `{"time":"${isoNow()}","level":"${level}","message":${JSON.stringify(message)}`;
  const rest = fields === undefined ? '{}' : JSON.stringify(fields);
  return rest === '{}' ? `${head}}` : `${head},${rest.slice(1)}`;
}

let isoMillisecond = -1;
let isoText = '';

function isoNow(): string {
  const now = Date.now();
  if (now !== isoMillisecond) {
    isoMillisecond = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join('[redacted]');
  return result;
}

/**
 * `redact` with these secrets, for every line: one regular expression of all of them (each taken
 * literally) first asks whether the line holds any, in one pass, where `includes` scanned the line
 * once per secret (a line per request). Only a line that holds one goes through `redact` itself, so
 * what is replaced, and in which order, is `redact`'s.
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  if (secrets.length === 0) return (text) => text;
  const anySecret = new RegExp(secrets.map(literalPattern).join('|'));
  return (text) => (anySecret.test(text) ? redact(text, secrets) : text);
}

function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Lines written within one turn of the event loop go to stderr in one write: with a line per
 * request, one write call per line cost about 3 % of a busy gateway's CPU. A full batch (64 KiB)
 * is written at once, and whatever waits is written before the process exits, so a line is lost
 * only if the process is killed (SIGKILL) within the turn that logged it — or if stderr's reader
 * stops taking lines: past 8 MiB unwritten, lines are dropped and then counted (log-sink.ts).
 */
const stderrSink = new LogSink(() => process.stderr, {
  flushAtBytes: 65_536,
  maxUnwrittenBytes: 8 * 1024 * 1024,
  droppedLine: (count) =>
    logLine('warn', 'log lines dropped: stderr was not read as fast as the gateway logged', {
      dropped: count,
    }),
});

const batchedStderr = stderrSink.write;

export function flushLogs(): void {
  stderrSink.flush();
}

// 'exit' listeners run synchronously: an asynchronous stream write might not finish there.
process.once('exit', () => {
  const pending = stderrSink.takePending();
  if (pending === '') return;
  try {
    writeSync(2, pending);
  } catch {
    // stderr already closed: nothing left to tell.
  }
});
