/**
 * Every `providers:` example in the README's "Providers" section is a configuration the gateway
 * loads: the config loader takes it (schema, `${VAR}` secrets, provider references) and every
 * provider it declares is built by its preset (settings checked as at start-up).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { buildProvider } from '../../src/providers/registry.ts';
import { writeTempConfig } from '../kit/e2e.ts';
import { generateServiceAccountKey } from '../upstream-mocks/vertex/oauth.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = /\n## Providers\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
/** The YAML examples of the section, without the annotated outline (`<name>` placeholders). */
const examples = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)]
  .map((match) => match[1] ?? '')
  .filter((text) => !text.includes('<name>'));

test('the Providers section has an example for every preset', () => {
  for (const preset of ['openai', 'anthropic', 'gemini', 'azure-openai', 'vertex', 'bedrock'])
    assert.ok(
      examples.some((text) => new RegExp(`preset: ${preset}\\b`).test(text)),
      `an example with preset ${preset}`,
    );
});

for (const [index, text] of examples.entries()) {
  const presets = [...text.matchAll(/preset: ([a-z-]+)/g)].map((match) => match[1]).join(', ');
  test(`README providers example ${index + 1} (${presets}) loads and its providers build`, () => {
    const config = writeTempConfig('readme.yaml', text);
    try {
      // The `${VAR}` secrets it names, set as an operator would.
      const environment: Record<string, string> = {};
      for (const [, name = ''] of text.matchAll(/\$\{([A-Z0-9_]+)\}/g)) environment[name] = `test-${name}`;
      const loaded = loadConfig(environment, config.path);
      assert.ok(Object.keys(loaded.providers).length > 0);
      for (const provider of Object.values(loaded.providers)) {
        const keyFile = provider.credentials?.keyFile;
        // The example's key file path exists on the operator's machine: a real key stands in for it.
        const credentials =
          keyFile === undefined
            ? provider.credentials
            : { ...provider.credentials, keyFile: writeServiceAccountKey(config.path, provider.project) };
        const built = buildProvider({ ...provider, ...(credentials ? { credentials } : {}) });
        assert.equal(built.preset, provider.preset);
      }
      for (const [, name = ''] of text.matchAll(/- name: (\S+)/g))
        assert.ok(
          loaded.models.some((model) => model.name === name),
          `model ${name} is in the catalog`,
        );
    } finally {
      config.remove();
    }
  });
}

function writeServiceAccountKey(configPath: string, project = 'readme-project'): string {
  const path = join(configPath, '..', 'service-account.json');
  const { key } = generateServiceAccountKey('https://oauth2.googleapis.com/token', project);
  writeFileSync(path, JSON.stringify(key));
  return path;
}
