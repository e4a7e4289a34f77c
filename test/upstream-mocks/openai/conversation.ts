/**
 * Reading a request the way the mock answers it: the last user text, whether an image came in, and which
 * tool (if any) to call. Covers both chat `messages` and Responses `input` items.
 */
import { isPlainObject } from '../kit/server.ts';
import { countTokens, mockId } from '../kit/text.ts';

export interface OfferedTool {
  name: string;
  parameters: unknown;
}

export interface PlannedToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface AnswerPlan {
  text: string;
  toolCall?: PlannedToolCall;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (isPlainObject(part) && typeof part['text'] === 'string') return part['text'];
  return '';
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map(partText).join('') : '';
}

function contentHasImage(content: unknown): boolean {
  return (
    Array.isArray(content) &&
    content.some((part) => isPlainObject(part) && /image/.test(String(part['type'])))
  );
}

/** The user turns of chat `messages` or Responses `input` (a string is one user turn). */
export function userContents(turns: unknown): unknown[] {
  if (typeof turns === 'string') return [turns];
  if (!Array.isArray(turns)) return [];
  return turns
    .filter((turn) => isPlainObject(turn) && turn['role'] === 'user')
    .map((turn) => (turn as Record<string, unknown>)['content']);
}

/** Chat tools nest the function (`{type, function: {name}}`); Responses tools are flat (`{type, name}`). */
export function offeredTools(tools: unknown): OfferedTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool): OfferedTool[] => {
    if (!isPlainObject(tool) || tool['type'] !== 'function') return [];
    const definition = isPlainObject(tool['function']) ? tool['function'] : tool;
    return typeof definition['name'] === 'string'
      ? [{ name: definition['name'], parameters: definition['parameters'] }]
      : [];
  });
}

/** The tool `tool_choice` forces, in either API's shape, or undefined for auto/none/required. */
function forcedToolName(toolChoice: unknown): string | undefined {
  if (!isPlainObject(toolChoice)) return undefined;
  const nested = toolChoice['function'];
  if (isPlainObject(nested) && typeof nested['name'] === 'string') return nested['name'];
  return typeof toolChoice['name'] === 'string' ? toolChoice['name'] : undefined;
}

/** `{}` or the schema's required string fields set to "x". */
function argumentsFor(parameters: unknown): string {
  const result: Record<string, string> = {};
  if (
    isPlainObject(parameters) &&
    Array.isArray(parameters['required']) &&
    isPlainObject(parameters['properties'])
  ) {
    const properties = parameters['properties'];
    for (const name of parameters['required']) {
      const property = properties[String(name)];
      if (isPlainObject(property) && property['type'] === 'string') result[String(name)] = 'x';
    }
  }
  return JSON.stringify(result);
}

export interface PlanInput {
  vendor: string;
  turns: unknown;
  tools: unknown;
  toolChoice: unknown;
  reasoning: boolean;
  /** Everything the prompt consists of, for the token count. */
  promptText: string;
}

export function planAnswer(input: PlanInput): AnswerPlan {
  const contents = userContents(input.turns);
  const lastUserText = contentText(contents.at(-1));
  const sawImage = contents.some(contentHasImage);
  const tools = offeredTools(input.tools);
  const forced = forcedToolName(input.toolChoice);
  const named = tools.find((tool) => lastUserText.includes(`call ${tool.name}`));
  const required = input.toolChoice === 'required' ? tools[0] : undefined;
  const chosen =
    input.toolChoice === 'none'
      ? undefined
      : (tools.find((tool) => tool.name === forced) ?? named ?? required);
  const text = `mock ${input.vendor} reply to: ${lastUserText.slice(0, 40)}${sawImage ? ' (with image)' : ''}`;
  const toolCall = chosen
    ? {
        id: mockId('call_', `${chosen.name}:${input.promptText}`),
        name: chosen.name,
        arguments: argumentsFor(chosen.parameters),
      }
    : undefined;
  const output = toolCall ? `${toolCall.name}${toolCall.arguments}` : text;
  return {
    text,
    ...(toolCall ? { toolCall } : {}),
    promptTokens: countTokens(input.promptText),
    completionTokens: countTokens(output),
    reasoningTokens: input.reasoning ? 16 : 0,
  };
}

/** Splits `text` into at least two pieces, as a real stream delivers it. */
export function splitForStream(text: string, pieces = 3): string[] {
  if (text.length < 2) return [text, ''];
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result.length >= 2 ? result : [text.slice(0, 1), text.slice(1)];
}
