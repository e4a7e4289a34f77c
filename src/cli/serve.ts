/** `modelgate serve` (the default command): start the gateway and stop it cleanly on SIGINT/SIGTERM. */
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { startGateway } from '../server/start-gateway.ts';

export async function runServe(argv: string[]): Promise<void> {
  const configPath = optionValue(argv, '--config');
  let config;
  try {
    config = loadConfig(process.env, configPath);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`modelgate: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  const gateway = await startGateway(config);
  const served = Object.entries(config.upstreams)
    .map(([family, upstream]) => `${family}=${upstream.baseUrl === undefined ? 'simulator' : 'upstream'}`)
    .join(' ');
  process.stdout.write(`modelgate listening on ${gateway.url} (${served})\n`);
  if (gateway.generatedKey !== undefined) {
    process.stdout.write(
      `No client keys were configured, so one was generated. It is shown only this once; only its hash is stored:\n\n  ${gateway.generatedKey}\n\nUse it as: Authorization: Bearer <key>\n`,
    );
  }
  const stop = (): void => {
    void gateway.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export function optionValue(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index !== -1) return argv[index + 1];
  const prefixed = argv.find((argument) => argument.startsWith(`${name}=`));
  return prefixed?.slice(name.length + 1);
}
