/** modelgate command line: `serve` (default), `simulate`, `keys`, `usage`, `migrate`. */
// Each command loads only what it needs: `keys` and `usage` start without the gateway's modules.

const usage = `usage: modelgate [serve] [--config FILE] [--workers N|auto]
       modelgate simulate [--port N] [--host H] [--ttft-ms N] [--token-delay-ms N]
       modelgate keys create|list|revoke|update …   (modelgate keys help)
       modelgate usage [--key NAME] [--since 24h] [--by model|key|day] [--json]
       modelgate migrate [--config FILE] [--db PATH] [--json]`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command.startsWith('--')) return (await import('./serve.ts')).runServe(argv);
  if (command === 'serve') return (await import('./serve.ts')).runServe(rest);
  if (command === 'simulate') return (await import('./simulate.ts')).runSimulate(rest);
  if (command === 'keys') return (await import('./keys.ts')).runKeys(rest);
  if (command === 'usage') return (await import('./usage.ts')).runUsage(rest);
  if (command === 'migrate') return (await import('./migrate.ts')).runMigrate(rest);
  if (command === 'help' || command === '-h') {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  process.stderr.write(`modelgate: unknown command ${command}\n${usage}\n`);
  process.exitCode = 2;
  return undefined;
}

await main(process.argv.slice(2));
