/**
 * A local estimate of the input tokens a request costs, for count-tokens answers the upstream
 * cannot give: every prompt text the model reads (system, messages, tool calls and results, tool
 * definitions) through the project's tokenizer, the chat framing (3 tokens per message and 3 to
 * prime the answer, the chat-completions rule), and a fixed estimate per image (the model
 * family's `imageTokens`: the gateway does not decode images to learn their size). The texts are
 * counted as a chat request's are (`promptTokensOf`: in the shared slicer, never holding the event
 * loop, and past the work cap estimated from their bytes).
 */
import type { ChatRequest } from '../ir/index.ts';
import { promptTokensOf } from './validate-request.ts';

export interface PromptTokens {
  inputTokens: number;
  /** The images' share of `inputTokens`. */
  imageTokens: number;
}

const tokensPerMessage = 3;
const tokensToPrime = 3;

export async function estimatePromptTokens(
  request: ChatRequest,
  tokensPerImage: number,
): Promise<PromptTokens> {
  const text = (await promptTokensOf(request).count()).tokens;
  const messages = request.messages.length + (request.system.length > 0 ? 1 : 0);
  const imageTokens = countImages(request) * tokensPerImage;
  return { inputTokens: text + messages * tokensPerMessage + tokensToPrime + imageTokens, imageTokens };
}

function countImages(request: ChatRequest): number {
  let images = 0;
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'image') images++;
      else if (part.type === 'tool-result')
        for (const inner of part.content) if (inner.type === 'image') images++;
    }
  }
  return images;
}
