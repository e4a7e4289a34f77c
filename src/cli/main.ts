/** modelgate command line: `serve` (default) and `simulate`. */
import { runServe } from './serve.ts';
import { runSimulate } from './simulate.ts';

const usage = `usage: modelgate [serve] [--config FILE]
       modelgate simulate [--port N] [--host H] [--ttft-ms N] [--token-delay-ms N]`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command.startsWith('--')) return runServe(argv);
  if (command === 'serve') return runServe(rest);
  if (command === 'simulate') return runSimulate(rest);
  if (command === 'help' || command === '-h') {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  process.stderr.write(`modelgate: unknown command ${command}\n${usage}\n`);
  process.exitCode = 2;
  return undefined;
}

await main(process.argv.slice(2));
