/**
 * Structured JSON logs on stderr, one line each. Callers pass fields, never bodies or headers
 * wholesale; `redact` is the last guard against a secret reaching a log line.
 */
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

export function createLogger(level: LogLevel, secrets: readonly string[], write = writeStderr): Logger {
  const threshold = rank[level];
  const guarded = secrets.filter((secret) => secret.length >= 4);
  const log = (at: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (rank[at] < threshold) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields });
    write(redact(line, guarded));
  };
  return {
    enabled: (level) => rank[level] >= threshold,
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}

export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join('[redacted]');
  return result;
}

function writeStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}
