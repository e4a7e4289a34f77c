/**
 * Upstream answers in each family's real wire shape, written by hand the way the providers send
 * them: A streams tool calls as `index`-keyed fragments (id and name first,
 * text and a call's first fragment sharing a chunk, empty `tool_calls: []` from compatible
 * servers); B streams `content_block_start` + `input_json_delta` pieces (the first one empty) and
 * a cumulative `message_delta`; C sends whole `functionCall` parts and running usage. Streams are
 * then cut into network chunks at fixed offsets that land inside JSON, so every answer also
 * checks that the gateway reassembles bytes split anywhere.
 */
import type { ScriptedAnswer } from '../kit/recording-upstream.ts';
import type { Answer, Json, JsonObject } from './scenarios.ts';
import type { SpecFamily } from '../kit/spec-families.ts';

export function upstreamAnswer(family: SpecFamily, answer: Answer, stream: boolean): ScriptedAnswer {
  if (!stream) return { status: 200, body: JSON.stringify(json[family](answer)) };
  return { status: 200, body: cut(sse[family](answer)) };
}

/** Argument JSON cut into uneven pieces (as models emit them), never splitting a surrogate pair. */
function pieces(text: string, sizes: readonly number[] = [1, 7, 3, 11, 5]): string[] {
  const out: string[] = [];
  let at = 0;
  let turn = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + (sizes[turn++ % sizes.length] ?? 4));
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** Network chunks of 53 characters: boundaries fall inside events and inside JSON strings. */
function cut(text: string): string[] {
  const chunks: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + 53);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
    chunks.push(text.slice(at, end));
    at = end;
  }
  return chunks;
}

const data = (value: Json): string => `data: ${JSON.stringify(value)}\n\n`;
const event = (name: string, value: JsonObject): string =>
  `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`;

// ------------------------------------------------------------------ A

function alphaUsage(answer: Answer): JsonObject {
  const usage = answer.usage;
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function alphaJson(answer: Answer): JsonObject {
  const message: JsonObject = {
    role: 'assistant',
    content: answer.text ?? null,
    refusal: null,
    annotations: [],
  };
  const legacyCall = answer.legacy === true ? answer.calls[0] : undefined;
  if (legacyCall !== undefined) {
    message.function_call = { name: legacyCall.name, arguments: JSON.stringify(legacyCall.args) };
  } else if (answer.calls.length > 0) {
    message.tool_calls = answer.calls.map((call, index) => ({
      id: `call_up${index}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
  }
  return {
    id: 'chatcmpl-up1',
    object: 'chat.completion',
    created: 1731000000,
    model: 'a-upstream',
    choices: [{ index: 0, message, logprobs: null, finish_reason: alphaFinish(answer) }],
    usage: alphaUsage(answer),
    service_tier: 'default',
    system_fingerprint: 'fp_up',
  };
}

function alphaFinish(answer: Answer): string {
  if (answer.calls.length === 0) return 'stop';
  return answer.legacy === true ? 'function_call' : 'tool_calls';
}

function alphaSse(answer: Answer): string {
  const chunk = (delta: JsonObject, finish: string | null = null): string =>
    data({
      id: 'chatcmpl-up1',
      object: 'chat.completion.chunk',
      created: 1731000000,
      model: 'a-upstream',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
    });
  let out = chunk({ role: 'assistant', content: '', refusal: null });
  const texts = answer.text === undefined ? [] : pieces(answer.text, [6, 9, 4]);
  // Text-only answers come with `tool_calls: []` on every delta, as some compatible servers send.
  const emptyCalls = answer.calls.length === 0 ? { tool_calls: [] } : {};
  texts.forEach((text, position) => {
    const last = position === texts.length - 1;
    const first = answer.calls[0];
    if (last && first !== undefined) {
      // The last text piece and the first call's opening fragment share one chunk.
      out += chunk({
        content: text,
        tool_calls: [
          { index: 0, id: 'call_up0', type: 'function', function: { name: first.name, arguments: '' } },
        ],
      });
    } else out += chunk({ content: text, ...emptyCalls });
  });
  const legacyCall = answer.legacy === true ? answer.calls[0] : undefined;
  if (legacyCall !== undefined) {
    // Legacy `function_call` fragments: the name first, then argument pieces.
    out += chunk({ function_call: { name: legacyCall.name, arguments: '' } });
    for (const fragment of pieces(JSON.stringify(legacyCall.args)))
      out += chunk({ function_call: { arguments: fragment } });
  }
  (legacyCall === undefined ? answer.calls : []).forEach((call, index) => {
    if (index > 0 || texts.length === 0) {
      out += chunk({
        tool_calls: [
          { index, id: `call_up${index}`, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      });
    }
    for (const fragment of pieces(JSON.stringify(call.args)))
      out += chunk({ tool_calls: [{ index, function: { arguments: fragment } }] });
  });
  out += chunk({}, alphaFinish(answer));
  out += data({
    id: 'chatcmpl-up1',
    object: 'chat.completion.chunk',
    created: 1731000000,
    model: 'a-upstream',
    choices: [],
    usage: alphaUsage(answer),
  });
  return `${out}data: [DONE]\n\n`;
}

// ------------------------------------------------------------------ B

function betaUsage(answer: Answer): JsonObject {
  const usage = answer.usage;
  return {
    input_tokens: usage.input - usage.cacheRead - usage.cacheWrite,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: usage.output,
    service_tier: 'standard',
  };
}

function betaJson(answer: Answer): JsonObject {
  const content: Json[] = [];
  if (answer.text !== undefined) content.push({ type: 'text', text: answer.text });
  answer.calls.forEach((call, index) => {
    content.push({ type: 'tool_use', id: `toolu_up${index}`, name: call.name, input: call.args });
  });
  return {
    id: 'msg_up1',
    type: 'message',
    role: 'assistant',
    model: 'b-upstream',
    content,
    stop_reason: answer.calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: betaUsage(answer),
  };
}

function betaSse(answer: Answer): string {
  const startUsage = { ...betaUsage(answer), output_tokens: 1 };
  let out = event('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_up1',
      type: 'message',
      role: 'assistant',
      model: 'b-upstream',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage,
    },
  });
  let index = 0;
  if (answer.text !== undefined) {
    out += event('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text: '' },
    });
    out += event('ping', { type: 'ping' });
    for (const text of pieces(answer.text, [6, 9, 4]))
      out += event('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text },
      });
    out += event('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  answer.calls.forEach((call, position) => {
    out += event('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: `toolu_up${position}`, name: call.name, input: {} },
    });
    out += event('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: '' },
    });
    for (const fragment of pieces(JSON.stringify(call.args))) {
      out += event('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: fragment },
      });
    }
    out += event('content_block_stop', { type: 'content_block_stop', index });
    index++;
  });
  out += event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: answer.calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: answer.usage.output },
  });
  return out + event('message_stop', { type: 'message_stop' });
}

// ------------------------------------------------------------------ C

function gammaUsage(answer: Answer, output = answer.usage.output): JsonObject {
  const usage = answer.usage;
  const metadata: JsonObject = {
    promptTokenCount: usage.input,
    candidatesTokenCount: output,
    totalTokenCount: usage.input + output,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.input }],
  };
  if (usage.cacheRead > 0) {
    metadata.cachedContentTokenCount = usage.cacheRead;
    metadata.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: usage.cacheRead }];
  }
  return metadata;
}

function gammaParts(answer: Answer): Json[] {
  const parts: Json[] = [];
  if (answer.text !== undefined) parts.push({ text: answer.text });
  answer.calls.forEach((call, index) => {
    parts.push(
      index === 0
        ? { functionCall: { name: call.name, args: call.args }, thoughtSignature: 'c2lnbmF0dXJl' }
        : { functionCall: { name: call.name, args: call.args } },
    );
  });
  return parts;
}

function gammaJson(answer: Answer): JsonObject {
  return {
    candidates: [{ content: { role: 'model', parts: gammaParts(answer) }, finishReason: 'STOP', index: 0 }],
    usageMetadata: gammaUsage(answer),
    modelVersion: 'c-upstream-001',
    responseId: 'resp-up1',
  };
}

function gammaSse(answer: Answer): string {
  const chunk = (parts: Json[], output: number, finish?: string): string =>
    data({
      candidates: [
        {
          content: { role: 'model', parts },
          ...(finish === undefined ? {} : { finishReason: finish }),
          index: 0,
        },
      ],
      usageMetadata: gammaUsage(answer, output),
      modelVersion: 'c-upstream-001',
      responseId: 'resp-up1',
    });
  let out = '';
  const texts = answer.text === undefined ? [] : pieces(answer.text, [12, 20]);
  texts.forEach((text, position) => {
    out += chunk([{ text }], Math.ceil((answer.usage.output * (position + 1)) / (texts.length + 1)));
  });
  // Calls arrive whole, all in the closing chunk with the finish reason.
  const calls = gammaParts({ ...answer, text: undefined });
  return out + chunk(calls.length > 0 ? calls : [{ text: '' }], answer.usage.output, 'STOP');
}

const json: Record<SpecFamily, (answer: Answer) => JsonObject> = {
  alpha: alphaJson,
  beta: betaJson,
  gamma: gammaJson,
};
const sse: Record<SpecFamily, (answer: Answer) => string> = {
  alpha: alphaSse,
  beta: betaSse,
  gamma: gammaSse,
};
