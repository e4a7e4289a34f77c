/**
 * Responses `tools` and `tool_choice` → IR tools. Function tools are flat here
 * (`{type:"function", name, parameters}`), not nested under `function` as on chat completions.
 * `namespace` tools (a named group of functions, as Codex sends its sub-agent tools) become one
 * function per member, named `namespace__name` (see namespaces.ts). Built-in tools (web_search,
 * file_search, code_interpreter…) run inside the provider's Responses service: no chat upstream can
 * run them, so they are a clear 400 naming the tool — or, when the operator's policy drops them
 * (`drop`, or the default `drop-unless-forced` for tools only offered), left out (the caller turns
 * what was dropped into a warning), so agents that always send them still run.
 */
import {
  invalidRequest,
  type JsonObject,
  type JsonValue,
  type ToolChoice,
  type ToolDefinition,
} from '../../ir/index.ts';
import {
  optionalBoolean,
  optionalString,
  requireArray,
  requireObject,
  requireString,
} from '../../codecs/shared/validate.ts';
import { namespacedName } from './namespaces.ts';

function builtInRefusal(type: JsonValue | undefined, path: string): never {
  throw invalidRequest(
    `${path}: ${JSON.stringify(type ?? null)} is a built-in tool of the provider's Responses service, which modelgate cannot run; only "function" tools are supported (the operator can have them left out instead: responses.builtInTools: drop)`,
    path,
  );
}

function decodeFunction(tool: JsonObject, path: string, namespace?: string): ToolDefinition {
  const parameters =
    tool.parameters === undefined || tool.parameters === null
      ? { type: 'object', properties: {} }
      : requireObject(tool.parameters, `${path}.parameters`);
  const name = requireString(tool.name, `${path}.name`);
  const definition: ToolDefinition = {
    name: namespace === undefined ? name : namespacedName(namespace, name),
    parameters,
  };
  const description = optionalString(tool.description, `${path}.description`);
  if (description !== undefined) definition.description = description;
  const strict = optionalBoolean(tool.strict, `${path}.strict`);
  if (strict !== undefined) definition.strict = strict;
  return definition;
}

/** A namespace's functions; its description leads each member's, so the model still reads it. */
function decodeNamespace(tool: JsonObject, path: string): ToolDefinition[] {
  const namespace = requireString(tool.name, `${path}.name`);
  const about = optionalString(tool.description, `${path}.description`);
  return requireArray(tool.tools, `${path}.tools`).map((member, index) => {
    const memberPath = `${path}.tools[${index}]`;
    const inner = requireObject(member, memberPath);
    if (inner.type !== 'function') {
      throw invalidRequest(
        `${memberPath}.type: only "function" tools are supported in a namespace, not ${JSON.stringify(inner.type ?? null)}`,
        `${memberPath}.type`,
      );
    }
    const definition = decodeFunction(inner, memberPath, namespace);
    if (about !== undefined && about !== '') {
      definition.description =
        definition.description === undefined ? about : `${about}\n\n${definition.description}`;
    }
    return definition;
  });
}

/** The built-in tools dropped from one request (their types), when the policy is `drop`. */
export type DroppedTools = Set<string> | undefined;

function builtInType(type: JsonValue | undefined): string {
  return typeof type === 'string' ? type : JSON.stringify(type ?? null);
}

/** `dropped` set: built-in tools are left out and named there; undefined: they are a 400. */
export function decodeTools(value: JsonValue | undefined, dropped?: DroppedTools): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  return requireArray(value, 'tools').flatMap((entry, index) => {
    const path = `tools[${index}]`;
    const tool = requireObject(entry, path);
    if (tool.type === 'function') return [decodeFunction(tool, path)];
    if (tool.type === 'namespace') return decodeNamespace(tool, path);
    if (dropped === undefined) return builtInRefusal(tool.type, `${path}.type`);
    dropped.add(builtInType(tool.type));
    return [];
  });
}

/**
 * `"auto" | "none" | "required" | {type:"function", name}`; a built-in tool's choice is a 400, or,
 * when built-in tools are dropped, no choice (the model chooses among the function tools).
 */
export function decodeToolChoice(
  value: JsonValue | undefined,
  dropped?: DroppedTools,
): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  const choice: JsonObject = requireObject(value, 'tool_choice');
  if (choice.type === 'function')
    return { type: 'tool', name: requireString(choice.name, 'tool_choice.name') };
  if (choice.type === 'allowed_tools') {
    throw invalidRequest(
      'tool_choice: "allowed_tools" is not supported; list only the allowed tools in `tools`',
      'tool_choice',
    );
  }
  if (dropped === undefined) return builtInRefusal(choice.type, 'tool_choice.type');
  dropped.add(builtInType(choice.type));
  return undefined;
}
