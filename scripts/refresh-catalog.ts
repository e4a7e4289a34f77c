/**
 * Regenerates src/config/vendor-catalog.data.json from LiteLLM's model_prices_and_context_window.json.
 *
 *   node scripts/refresh-catalog.ts [path-or-url] [--ref TEXT] [--date ISO] [--out PATH]
 *
 * Without a source it reads LiteLLM's main branch; give a local file to work offline. `--ref` records
 * which commit (or copy) the data came from, `--date` the source's date; without `--date` the date is
 * the file's own `last_updated` (mirrors of the file add one), else the HTTP Last-Modified or Date
 * header, else the file's modification time. The output is sorted and formatted the same way every
 * time, so a regeneration from the same input is byte-identical.
 */
import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { catalogFromLitellm, litellmSourceUrl } from '../src/config/litellm-catalog.ts';

const defaultOut = fileURLToPath(new URL('../src/config/vendor-catalog.data.json', import.meta.url));

interface SourceBytes {
  text: string;
  /** The date the place it came from vouches for, if any. */
  date: string | undefined;
}

async function readSource(location: string): Promise<SourceBytes> {
  if (/^https?:\/\//.test(location)) {
    const response = await fetch(location);
    if (!response.ok) throw new Error(`${location}: HTTP ${response.status}`);
    const header = response.headers.get('last-modified') ?? response.headers.get('date');
    return { text: await response.text(), date: header === null ? undefined : isoDate(header) };
  }
  const [text, info] = await Promise.all([readFile(location, 'utf8'), stat(location)]);
  return { text, date: info.mtime.toISOString() };
}

function isoDate(value: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new Error(`not a date: ${value}`);
  return new Date(time).toISOString();
}

function ownDate(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null || !('last_updated' in parsed)) return undefined;
  return typeof parsed.last_updated === 'string' ? isoDate(parsed.last_updated) : undefined;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { ref: { type: 'string' }, date: { type: 'string' }, out: { type: 'string' } },
  });
  const location = positionals[0] ?? litellmSourceUrl;
  const { text, date } = await readSource(location);
  const parsed: unknown = JSON.parse(text);
  const sourceDate = values.date === undefined ? (ownDate(parsed) ?? date) : isoDate(values.date);
  if (sourceDate === undefined) throw new Error('the source has no date: pass --date');
  const catalog = catalogFromLitellm(parsed, {
    dataset: 'LiteLLM model_prices_and_context_window.json',
    repository: 'https://github.com/BerriAI/litellm',
    license: 'MIT',
    readFrom: /^https?:\/\//.test(location) ? location : `a local copy (${basename(location)})`,
    ref: values.ref ?? (location === litellmSourceUrl ? 'main' : 'unrecorded'),
    date: sourceDate,
    sha256: createHash('sha256').update(text).digest('hex'),
    generatedBy: 'node scripts/refresh-catalog.ts',
  });
  const out = values.out ?? defaultOut;
  await writeFile(out, `${JSON.stringify(catalog, null, 2)}\n`);
  process.stdout.write(`${out}: ${Object.keys(catalog.models).length} models from ${location}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`refresh-catalog: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
