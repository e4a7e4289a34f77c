/**
 * What a user sets to point each client at modelgate: the base URL and key variables (the README's
 * "Use it with…"), plus what the client itself needs to run headless and offline in a fresh HOME
 * (telemetry, update checks and auto-updaters off). No custom headers anywhere.
 */
import { clientKey } from './gateway.ts';

export interface ClientSetup {
  env: Record<string, string>;
  homeFiles: Record<string, string>;
}

export function claudeCode(gatewayUrl: string): ClientSetup {
  return {
    env: {
      ANTHROPIC_BASE_URL: gatewayUrl,
      ANTHROPIC_API_KEY: clientKey,
      // Telemetry, error reporting and the auto-updater off.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    homeFiles: {},
  };
}

export function geminiCli(gatewayUrl: string): ClientSetup {
  const settings = {
    // Gemini CLI 0.61 ignores GOOGLE_GEMINI_BASE_URL unless the API-key auth is selected.
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    telemetry: { enabled: false },
  };
  return {
    env: {
      GOOGLE_GEMINI_BASE_URL: gatewayUrl,
      GEMINI_API_KEY: clientKey,
      // Headless runs refuse an untrusted folder; a CI user says so the same way.
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    },
    homeFiles: { '.gemini/settings.json': JSON.stringify(settings, null, 2) },
  };
}

/**
 * Codex reads its provider from `$CODEX_HOME/config.toml` (default `~/.codex`): the provider only.
 * Its hosted `web_search` tool stays on, as users leave it; the gateway under test runs its default
 * configuration (see codexGatewayConfig), which leaves a tool the request only offers out with a
 * warning.
 */
export function codexCli(gatewayUrl: string, model: string): ClientSetup {
  const config = [
    `model = "${model}"`,
    'model_provider = "modelgate"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.modelgate]',
    'name = "modelgate"',
    `base_url = "${gatewayUrl}/v1"`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
  return { env: { OPENAI_API_KEY: clientKey }, homeFiles: { '.codex/config.toml': config } };
}

/**
 * Codex runs unchanged on the gateway's defaults (`responses.builtInTools: drop-unless-forced`: its
 * hosted tools left out, with a warning); nothing for the operator to set.
 */
export const codexGatewayConfig = {};

export function openAiSdkEnv(gatewayUrl: string): Record<string, string> {
  return { OPENAI_BASE_URL: `${gatewayUrl}/v1`, OPENAI_API_KEY: clientKey };
}

export function anthropicSdkEnv(gatewayUrl: string): Record<string, string> {
  return { ANTHROPIC_BASE_URL: gatewayUrl, ANTHROPIC_API_KEY: clientKey };
}
