/**
 * `modelgate migrate [--config FILE] [--db PATH] [--json]`: applies the store's schema migrations
 * — PostgreSQL's when MODELGATE_DATABASE_URL is set, else the embedded file's — and says from which
 * version to which. `serve` applies them at start too; this runs them ahead of a deploy (and is
 * safe to run at any time, from several hosts at once: each migration is applied once).
 */
import { migrateStore } from '../store/stores.ts';
import { commandConfig, parseCommandLine, print, runCommand, UsageError } from './command.ts';

export const migrateUsage = `usage: modelgate migrate [--config FILE] [--db PATH] [--json]
Migrates PostgreSQL (MODELGATE_DATABASE_URL) or else the embedded store file (MODELGATE_DB, --db).`;

export function runMigrate(argv: string[]): Promise<void> {
  return runCommand(async () => {
    const parsed = parseCommandLine(argv, ['db', 'config'], ['json']);
    if (parsed.positional.length > 0)
      throw new UsageError(`unexpected argument ${parsed.positional[0] ?? ''}`);
    // A store from before the rollups fills them from its whole ledger: say how far it got
    // (on stderr under --json, so stdout stays one JSON document).
    const out = parsed.flags.has('json') ? process.stderr : process.stdout;
    const report = await migrateStore(commandConfig(parsed), undefined, (done, total) => {
      out.write(`rolling up the usage ledger: ${done} / ${total} rows\n`);
    });
    if (parsed.flags.has('json')) {
      const { kind, location, from, to, latest } = report;
      print({ object: 'migration', store: kind, location, from, to, latest });
      return;
    }
    const store = report.kind === 'postgres' ? 'PostgreSQL' : 'embedded store';
    process.stdout.write(
      report.from === report.to
        ? `${store} ${report.location} is up to date (schema version ${report.to}).\n`
        : `${store} ${report.location} migrated from schema version ${report.from} to ${report.to}.\n`,
    );
  }, migrateUsage);
}
