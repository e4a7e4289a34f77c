/** modelgate command line: `serve` (default), `simulate`, `keys`, `usage`, `migrate`. */
// Each command loads only what it needs: `keys` and `usage` start without the gateway's modules.
import { readFileSync } from 'node:fs';

const usage = `usage: modelgate [serve] [--config FILE] [--workers N|auto]
       modelgate simulate [--port N] [--host H] [--ttft-ms N] [--token-delay-ms N]
       modelgate keys create|list|revoke|update …   (modelgate keys --help)
       modelgate usage [--key NAME] [--since 24h] [--until DATE] [--by model|key|day] [--json]
       modelgate migrate [--config FILE] [--db PATH] [--json]
       modelgate --version
Each command's options: modelgate <command> --help`;

const serveUsage = `usage: modelgate [serve] [--config FILE] [--workers N|auto]
  --config   the configuration file (YAML or JSON; env MODELGATE_CONFIG); environment variables win over it
  --workers  worker processes on the one port (auto: one per core; more than one needs MODELGATE_REDIS_URL)
Stops cleanly on SIGINT/SIGTERM (requests in flight finish, up to shutdown.drainTimeoutMs).`;

const isHelp = (argument: string): boolean => argument === '--help' || argument === '-h';

/** The package's version (package.json sits two folders up from both src/cli and dist/cli). */
function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** A command's own usage, loaded only when asked for. */
async function commandUsage(command: string): Promise<string | undefined> {
  if (command === 'serve') return serveUsage;
  if (command === 'simulate') return (await import('./simulate.ts')).simulateUsage;
  if (command === 'keys') return (await import('./keys.ts')).keysUsage;
  if (command === 'usage') return (await import('./usage.ts')).usageUsage;
  if (command === 'migrate') return (await import('./migrate.ts')).migrateUsage;
  return undefined;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return undefined;
  }
  if (command === undefined) return (await import('./serve.ts')).runServe(argv);
  if (command === 'help' || isHelp(command)) {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  // `modelgate <command> --help`, and `modelgate --config x --help` (serve's).
  const own = command.startsWith('-') ? serveUsage : await commandUsage(command);
  if (own !== undefined && argv.some(isHelp)) {
    process.stdout.write(`${own}\n`);
    return undefined;
  }
  if (command.startsWith('--')) return (await import('./serve.ts')).runServe(argv);
  if (command === 'serve') return (await import('./serve.ts')).runServe(rest);
  if (command === 'simulate') return (await import('./simulate.ts')).runSimulate(rest);
  if (command === 'keys') return (await import('./keys.ts')).runKeys(rest);
  if (command === 'usage') return (await import('./usage.ts')).runUsage(rest);
  if (command === 'migrate') return (await import('./migrate.ts')).runMigrate(rest);
  process.stderr.write(`modelgate: unknown command ${command}\n${usage}\n`);
  process.exitCode = 2;
  return undefined;
}

await main(process.argv.slice(2));
