/**
 * Secrets in config strings: `${VAR}` and `${VAR:-default}` from the environment, `${file:/path}`
 * from a mounted secret file (its trailing newline trimmed), `$${` for a literal `${`. A secret
 * never has to be written into the file, and an error names the variable or file, never a value.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';

const reference = /\$(\$?)\{([^}]*)\}/g;
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `raw` (a parsed YAML/JSON document) with every reference in its strings replaced. */
export function expandSecrets(
  raw: unknown,
  environment: Environment,
  where: readonly PropertyKey[] = [],
): unknown {
  if (typeof raw === 'string') return expandString(raw, environment, where);
  if (Array.isArray(raw))
    return raw.map((item, index) => expandSecrets(item, environment, [...where, index]));
  if (raw !== null && typeof raw === 'object') {
    const expanded: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw))
      expanded[key] = expandSecrets(value, environment, [...where, key]);
    return expanded;
  }
  return raw;
}

function expandString(text: string, environment: Environment, where: readonly PropertyKey[]): string {
  const at = where.length === 0 ? 'the config file' : where.map(String).join('.');
  return text.replace(reference, (_match, escaped: string, body: string) => {
    if (escaped === '$') return `\${${body}}`;
    if (body.startsWith('file:')) return readSecretFile(body.slice('file:'.length), at);
    const split = body.indexOf(':-');
    const name = split === -1 ? body : body.slice(0, split);
    if (!variableName.test(name))
      throw new ConfigError(
        `${at}: \${${name}} is no variable name (write \${NAME}, \${NAME:-default} or \${file:/path})`,
      );
    const value = environment[name];
    if (value !== undefined && value !== '') return value;
    if (split !== -1) return body.slice(split + 2);
    throw new ConfigError(`${at}: environment variable ${name} is not set`);
  });
}

function readSecretFile(path: string, at: string): string {
  if (path === '') throw new ConfigError(`${at}: \${file:} needs a path`);
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    // The code (ENOENT, EACCES…), not the message: nothing read from the file may be shown.
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${at}: cannot read secret file ${path} (${code})`);
  }
}
