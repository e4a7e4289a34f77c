/**
 * `modelgate usage [--key NAME] [--since 24h] [--until DATE] [--by model|key|day] [--json]`:
 * requests, tokens and cost from the usage ledger, the same figures as `GET /admin/usage`.
 */
import { usage, usageBody } from '../admin/usage-api.ts';
import { formatUsageTable } from '../usage/report.ts';
import { parseCommandLine, print, runCommand, UsageError, withStore } from './command.ts';

export const usageUsage = `usage: modelgate usage [--key NAME|ID] [--since 24h|DATE] [--until DATE] [--by model|key|day] [--json]
options: --db PATH, --config FILE`;

export function runUsage(argv: string[]): Promise<void> {
  return runCommand(async () => {
    const parsed = parseCommandLine(argv, ['key', 'since', 'until', 'by', 'db', 'config'], ['json']);
    if (parsed.positional.length > 0)
      throw new UsageError(`unexpected argument ${parsed.positional[0] ?? ''}`);
    const search = new URLSearchParams();
    for (const name of ['key', 'since', 'until', 'by']) {
      const value = parsed.options.get(name);
      if (value !== undefined) search.set(name, value);
    }
    await withStore(parsed, async ({ stores }) => {
      const report = await usage(search, { store: stores.keys, usage: stores.usage, clock: Date.now });
      if (parsed.flags.has('json')) print(usageBody(report));
      else {
        const until = report.until === undefined ? 'now' : new Date(report.until).toISOString();
        process.stdout.write(
          `Usage by ${report.by} from ${new Date(report.since).toISOString()} to ${until}\n${formatUsageTable(report)}\n`,
        );
      }
    });
  }, usageUsage);
}
