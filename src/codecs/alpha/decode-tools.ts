/** A `tools`/`tool_choice` and legacy `functions`/`function_call` → IR tools and tool choice. */
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
} from '../shared/validate.ts';
import { readCacheControl } from './decode-content.ts';

export interface DecodedTools {
  tools: ToolDefinition[];
  toolChoice: ToolChoice | undefined;
  legacyFunctions: boolean;
}

/** A `FunctionDefinition`; omitted `parameters` means a function without arguments. */
function decodeFunctionDefinition(value: JsonValue | undefined, path: string): ToolDefinition {
  const fn = requireObject(value, path);
  const parameters =
    fn.parameters === undefined || fn.parameters === null
      ? { type: 'object', properties: {} }
      : requireObject(fn.parameters, `${path}.parameters`);
  const tool: ToolDefinition = { name: requireString(fn.name, `${path}.name`), parameters };
  const description = optionalString(fn.description, `${path}.description`);
  if (description !== undefined) tool.description = description;
  const strict = optionalBoolean(fn.strict, `${path}.strict`);
  if (strict !== undefined) tool.strict = strict;
  return tool;
}

function decodeTool(value: JsonValue, path: string, lenient: boolean): ToolDefinition | undefined {
  const tool = requireObject(value, path);
  if (tool.type !== 'function') {
    if (lenient) return undefined;
    throw invalidRequest(`${path}.type: only "function" tools are supported`, `${path}.type`);
  }
  const definition = decodeFunctionDefinition(tool.function, `${path}.function`);
  // B's prompt-cache marker, accepted on an A tool so A clients can cache tool lists on B models.
  const cacheControl = readCacheControl(tool.cache_control, `${path}.cache_control`);
  if (cacheControl !== undefined) definition.cacheControl = cacheControl;
  return definition;
}

function decodeToolChoice(
  value: JsonValue | undefined,
  path: string,
  lenient: boolean,
): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  const choice = requireObject(value, path);
  if (choice.type !== 'function') {
    if (lenient) return undefined;
    throw invalidRequest(`${path}: expected "auto", "none", "required" or a function choice`, path);
  }
  const fn = requireObject(choice.function, `${path}.function`);
  return { type: 'tool', name: requireString(fn.name, `${path}.function.name`) };
}

/** Legacy `function_call`: `"auto" | "none" | {name}`. */
function decodeFunctionCallChoice(value: JsonValue | undefined, path: string): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none') return { type: value };
  const choice = requireObject(value, path);
  return { type: 'tool', name: requireString(choice.name, `${path}.name`) };
}

function list(value: JsonValue | undefined, path: string): JsonValue[] {
  return value === undefined || value === null ? [] : requireArray(value, path);
}

/** `lenient` (pass-through): custom tools and choices the IR cannot carry are skipped, not refused. */
export function decodeTools(body: JsonObject, lenient: boolean): DecodedTools {
  const tools: ToolDefinition[] = [];
  list(body.tools, 'tools').forEach((value, index) => {
    const tool = decodeTool(value, `tools[${index}]`, lenient);
    if (tool !== undefined) tools.push(tool);
  });
  const functions = list(body.functions, 'functions');
  for (const [index, fn] of functions.entries())
    tools.push(decodeFunctionDefinition(fn, `functions[${index}]`));
  const toolChoice =
    decodeToolChoice(body.tool_choice, 'tool_choice', lenient) ??
    decodeFunctionCallChoice(body.function_call, 'function_call');
  const legacyFunctions = body.functions !== undefined && body.functions !== null;
  return { tools, toolChoice, legacyFunctions };
}
