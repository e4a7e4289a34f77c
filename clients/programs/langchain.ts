/**
 * A user's LangChain JS program: one chat model class (LANGCHAIN_CLASS: ChatOpenAI, ChatAnthropic
 * or ChatGoogleGenerativeAI) on LANGCHAIN_MODEL, configured the way each package reads it:
 * OPENAI_BASE_URL + OPENAI_API_KEY, ANTHROPIC_BASE_URL + ANTHROPIC_API_KEY, and for Google the
 * `baseUrl` option (the package reads no variable for it; here from GOOGLE_BASE_URL) +
 * GOOGLE_API_KEY. It calls invoke, stream and a bindTools round trip; prints what it got, as JSON.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

const model = process.env['LANGCHAIN_MODEL'] ?? '';
const className = process.env['LANGCHAIN_CLASS'] ?? '';

function chatModel(): BaseChatModel {
  if (className === 'ChatOpenAI') return new ChatOpenAI({ model });
  if (className === 'ChatAnthropic') return new ChatAnthropic({ model });
  if (className === 'ChatGoogleGenerativeAI') {
    const baseUrl = process.env['GOOGLE_BASE_URL'];
    return new ChatGoogleGenerativeAI({ model, ...(baseUrl === undefined ? {} : { baseUrl }) });
  }
  throw new Error(`unknown LANGCHAIN_CLASS ${className}`);
}

const chat = chatModel();

const invoked = await chat.invoke('Say hello to LangChain.');

let streamedText = '';
let chunks = 0;
for await (const chunk of await chat.stream('Stream a hello to LangChain.')) {
  chunks++;
  streamedText += chunk.text;
}

const getWeather = tool(({ city }: { city: string }) => `forecast-7421 for ${city}: sunny, 21 C`, {
  name: 'get_weather',
  description: 'The current weather in a city.',
  schema: z.object({ city: z.string() }),
});
if (chat.bindTools === undefined) throw new Error(`${className} has no bindTools`);
const withTools = chat.bindTools([getWeather]);
const history: BaseMessage[] = [new HumanMessage('What is the weather in Paris? Use get_weather.')];
const call = await withTools.invoke(history);
history.push(call);
for (const toolCall of call.tool_calls ?? []) {
  const result: unknown = await getWeather.invoke(toolCall);
  history.push(result instanceof ToolMessage ? result : new ToolMessage(String(result), toolCall.id ?? ''));
}
const answer = await withTools.invoke(history);

process.stdout.write(
  `${JSON.stringify({
    invoke: invoked.text,
    stream: { chunks, text: streamedText },
    tools: { calls: call.tool_calls ?? [], answer: answer.text },
  })}\n`,
);
