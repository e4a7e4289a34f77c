/**
 * `namespace` tools group functions under a name (Codex sends its sub-agent tools so); calls name
 * the function and its namespace separately. Chat upstreams know only flat function names, so a
 * member goes upstream as `namespace__name` (valid in every family's tool names) and its calls are
 * split back for the client; a replayed call joins them again, so the history matches.
 */
import { isJsonObject, type JsonObject } from '../../ir/index.ts';

const separator = '__';

export function namespacedName(namespace: string, name: string): string {
  return `${namespace}${separator}${name}`;
}

export interface NamespacedCall {
  namespace: string;
  name: string;
}

/**
 * The flat names of the request's namespaced functions; undefined when it has none (the common
 * case costs one scan of the tool list and no allocation).
 */
export function namespacesOf(body: JsonObject | undefined): Map<string, NamespacedCall> | undefined {
  const tools = body?.tools;
  if (!Array.isArray(tools)) return undefined;
  let names: Map<string, NamespacedCall> | undefined;
  for (const tool of tools) {
    if (!isJsonObject(tool) || tool.type !== 'namespace' || typeof tool.name !== 'string') continue;
    if (!Array.isArray(tool.tools)) continue;
    for (const member of tool.tools) {
      if (!isJsonObject(member) || typeof member.name !== 'string') continue;
      names ??= new Map();
      names.set(namespacedName(tool.name, member.name), { namespace: tool.name, name: member.name });
    }
  }
  return names;
}
