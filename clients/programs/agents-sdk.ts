/**
 * A user's OpenAI Agents SDK program, configured only by the SDK's own variables: OPENAI_BASE_URL,
 * OPENAI_API_KEY (and OPENAI_AGENTS_DISABLE_TRACING, so no trace leaves the machine). AGENT_MODEL
 * picks the model; AGENT_API=chat_completions switches the SDK off its default Responses API.
 * One agent with one function tool, run plain and streamed; prints what the user would see, as JSON.
 */
import { Agent, run, setOpenAIAPI, tool } from '@openai/agents';
import { z } from 'zod';

if (process.env['AGENT_API'] === 'chat_completions') setOpenAIAPI('chat_completions');

const toolCalls: string[] = [];
const getWeather = tool({
  name: 'get_weather',
  description: 'The current weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => {
    toolCalls.push(city);
    return `forecast-7421 for ${city}: sunny, 21 C`;
  },
});

const agent = new Agent({
  name: 'Weather agent',
  instructions: 'Answer weather questions with the get_weather tool.',
  model: process.env['AGENT_MODEL'] ?? 'A-2',
  tools: [getWeather],
});

const plain = await run(agent, 'What is the weather in Paris? Use get_weather.');
const plainCalls = toolCalls.splice(0);

const streamed = await run(agent, 'And in Oslo? Use get_weather.', { stream: true });
let streamedText = '';
for await (const chunk of streamed.toTextStream()) streamedText += chunk;
await streamed.completed;

process.stdout.write(
  `${JSON.stringify({
    plain: { toolCalls: plainCalls, finalOutput: plain.finalOutput },
    streamed: { toolCalls: toolCalls.splice(0), text: streamedText, finalOutput: streamed.finalOutput },
  })}\n`,
);
