/**
 * The provider presets, one line each: a configuration's `providers.<name>.preset` names one. A new
 * vendor (or a cloud reselling one) is a folder under `providers/` and a line here.
 */
import type { Provider, ProviderPreset, ProviderSettings } from './provider.ts';
import { anthropicPreset } from './anthropic/index.ts';
import { azureOpenAIPreset } from './azure-openai/index.ts';
import { bedrockPreset } from './bedrock/index.ts';
import { geminiPreset } from './gemini/index.ts';
import { openaiPreset } from './openai/index.ts';
import { vertexPreset } from './vertex/index.ts';

export const builtInPresets: Readonly<Record<string, ProviderPreset>> = {
  openai: openaiPreset,
  anthropic: anthropicPreset,
  gemini: geminiPreset,
  'azure-openai': azureOpenAIPreset,
  vertex: vertexPreset,
  bedrock: bedrockPreset,
};

export function presetNames(): string[] {
  return Object.keys(builtInPresets).sort();
}

export function isPresetName(name: string): boolean {
  return Object.hasOwn(builtInPresets, name);
}

/** The provider the settings describe; throws a message naming the setting when it cannot be built. */
export function buildProvider(settings: ProviderSettings): Provider {
  const preset = isPresetName(settings.preset) ? builtInPresets[settings.preset] : undefined;
  if (preset === undefined)
    throw new Error(
      `providers.${settings.name}.preset: no preset ${JSON.stringify(settings.preset)} (presets: ${presetNames().join(', ')})`,
    );
  return preset(settings);
}
