/**
 * The environment as configuration: every variable README documents, mapped onto the same raw
 * object the config file gives (`PORT` → `server.port`, `ALPHA_BASE_URL` → `upstreams.alpha.baseUrl`)
 * so one schema checks both, and a refused value names its variable. Blank is unset.
 */
import { familyCodecs } from '../surfaces/registry.ts';

export type Environment = Readonly<Record<string, string | undefined>>;

export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** Where a value sits in the raw configuration: `['settings', 'server', 'port']`. */
export type RawPath = readonly PropertyKey[];

/** One variable: where its value goes, how its text is read, and what it must be when refused. */
interface EnvironmentVariable {
  name: string;
  path: readonly string[];
  /** The text as the schema reads it; a value that cannot be read goes on as text for the schema to refuse. */
  read: (text: string) => unknown;
  /** The start's error when the schema refuses it: `PORT must be 0–65535, got 70000`. */
  refusal: (text: string) => string;
}

/** What the environment sets, and the refusal of the variable behind any path of it. */
export interface EnvironmentOverlay {
  /** `{ settings, environmentOnly }`: the file's sections the variables override, and what only they give. */
  raw: { settings: Record<string, unknown>; environmentOnly: Record<string, unknown> };
  /** The refusal naming the variable whose value sits at `path` (or above it); undefined for the file's. */
  refusalAt(path: RawPath): string | undefined;
}

export function environmentOverlay(environment: Environment): EnvironmentOverlay {
  const raw = { settings: {}, environmentOnly: {} };
  const set: { variable: EnvironmentVariable; text: string }[] = [];
  for (const variable of environmentVariables()) {
    const text = nonEmpty(environment[variable.name]);
    if (text === undefined) continue;
    setAt(raw, variable.path, variable.read(text));
    set.push({ variable, text });
  }
  return {
    raw,
    refusalAt: (path) => {
      const found = set.find(({ variable }) => variable.path.every((key, index) => path[index] === key));
      return found?.variable.refusal(found.text);
    },
  };
}

/** The variables, the families' `{PREFIX}_…` ones included (read from the registry at each load). */
function environmentVariables(): EnvironmentVariable[] {
  const settings = (name: string, path: string[], read: Reader, requirement: string): EnvironmentVariable =>
    variable(name, ['settings', ...path], read, requirement);
  const only = (name: string, path: string[], read: Reader, requirement: string): EnvironmentVariable =>
    variable(name, ['environmentOnly', ...path], read, requirement);
  return [
    settings('HOST', ['server', 'host'], asText, 'a host name'),
    {
      ...settings('PORT', ['server', 'port'], asNumber, ''),
      refusal: (text) => `PORT must be 0–65535, got ${text}`,
    },
    settings('MODELGATE_DB', ['database'], asText, 'a file path'),
    settings('MODELGATE_DATABASE_URL', ['postgres', 'url'], asText, 'a postgres:// or postgresql:// URL'),
    settings('MODELGATE_OUTBOX', ['postgres', 'outbox'], asText, 'a file path'),
    settings('MODELGATE_REDIS_URL', ['redis', 'url'], asText, 'a redis:// or rediss:// URL'),
    ...familyCodecs().flatMap(({ id, descriptor: { envPrefix } }) => [
      settings(`${envPrefix}_BASE_URL`, ['upstreams', id, 'baseUrl'], asText, httpUrl),
      settings(`${envPrefix}_API_KEY`, ['upstreams', id, 'apiKey'], asText, 'a key'),
      settings(`${envPrefix}_FAULT_HEADERS`, ['upstreams', id, 'faultHeaders'], asFlag, flag),
    ]),
    settings('MODELGATE_SIMULATOR', ['simulator', 'enabled'], asFlag, flag),
    settings('SIMULATOR_TTFT_MS', ['simulator', 'timeToFirstTokenMs'], asNumber, wholeNumber),
    settings('SIMULATOR_TOKEN_DELAY_MS', ['simulator', 'interTokenDelayMs'], asNumber, wholeNumber),
    settings('LOG_LEVEL', ['logLevel'], asText, `one of ${logLevels.join(', ')}`),
    only('MODELGATE_KEYS', ['clientKeys'], asList, 'comma-separated keys'),
    only('MODELGATE_UNLIMITED_KEYS', ['unlimitedKeys'], asList, 'comma-separated static key ids'),
    only('MODELGATE_ADMIN_KEY', ['adminKey'], asText, 'at least 16 characters'),
    only('MODELGATE_METRICS_TOKEN', ['metricsToken'], asText, 'at least 16 characters'),
    // The standard OpenTelemetry variables, read as the OpenTelemetry SDK reads them (never refused).
    only('OTEL_EXPORTER_OTLP_ENDPOINT', ['tracing', 'endpoint'], asText, 'a URL'),
    only('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['tracing', 'tracesEndpoint'], asText, 'a URL'),
    only('OTEL_SDK_DISABLED', ['tracing', 'sdkDisabled'], isTrue, 'true or false'),
    only(
      'OTEL_TRACES_EXPORTER',
      ['tracing', 'noExporter'],
      (text) => text.toLowerCase() === 'none',
      'a name',
    ),
    only('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', ['tracing', 'captureContent'], isTrue, 'true'),
  ];
}

type Reader = (text: string) => unknown;

const httpUrl = 'an http(s) URL without query or fragment';
const flag = '1, true, 0 or false';
const wholeNumber = 'a whole number ≥ 0';

function variable(name: string, path: string[], read: Reader, requirement: string): EnvironmentVariable {
  return { name, path, read, refusal: () => `${name} must be ${requirement}` };
}

function asText(text: string): string {
  return text;
}

/** A number when it reads as one; else the text, which the schema refuses. */
function asNumber(text: string): unknown {
  const value = Number(text);
  return Number.isNaN(value) ? text : value;
}

/** `1`/`true` or `0`/`false` (any case); anything else goes on as text, which the schema refuses. */
function asFlag(text: string): unknown {
  const lower = text.toLowerCase();
  if (lower === '1' || lower === 'true') return true;
  if (lower === '0' || lower === 'false') return false;
  return text;
}

function isTrue(text: string): boolean {
  return text.toLowerCase() === 'true';
}

function asList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let section = target;
  for (const key of path.slice(0, -1)) {
    const next = section[key];
    if (typeof next === 'object' && next !== null) section = next as Record<string, unknown>;
    else section = section[key] = {};
  }
  const last = path.at(-1);
  if (last !== undefined) section[last] = value;
}
