/** modelgate command line: `serve` (default), `simulate`, `keys`, `usage`. */
import { runKeys } from './keys.ts';
import { runServe } from './serve.ts';
import { runSimulate } from './simulate.ts';
import { runUsage } from './usage.ts';

const usage = `usage: modelgate [serve] [--config FILE]
       modelgate simulate [--port N] [--host H] [--ttft-ms N] [--token-delay-ms N]
       modelgate keys create|list|revoke|update …   (modelgate keys help)
       modelgate usage [--key NAME] [--since 24h] [--by model|key|day] [--json]`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command.startsWith('--')) return runServe(argv);
  if (command === 'serve') return runServe(rest);
  if (command === 'simulate') return runSimulate(rest);
  if (command === 'keys') return runKeys(rest);
  if (command === 'usage') return runUsage(rest);
  if (command === 'help' || command === '-h') {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  process.stderr.write(`modelgate: unknown command ${command}\n${usage}\n`);
  process.exitCode = 2;
  return undefined;
}

await main(process.argv.slice(2));
