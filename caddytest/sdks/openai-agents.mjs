// The OpenAI Agents SDK (@openai/agents) on the Responses API: one run
// completes the weather tool loop, and a second run continues the
// conversation by previousResponseId (the last response of the first
// run), sending only its new message.
//
//   node openai-agents.mjs <base URL> <model> chain
//
// Prints {"text": ...} with the second run's output on success; exits 1
// with the error.
import OpenAI from 'openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';

const [base, model] = process.argv.slice(2);
setDefaultOpenAIClient(new OpenAI({ baseURL: base + '/v1', apiKey: process.env.LLMBRIDGE_SDK_KEY || 'sdk-test-key', maxRetries: 0 }));
setOpenAIAPI('responses');
setTracingDisabled(true);

const getWeather = tool({
  name: 'get_weather',
  description: 'The current weather of a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: false,
  execute: async ({ city }) => process.env.LLMBRIDGE_SDK_RESULT.replace('{city}', city),
});
const agent = new Agent({ name: 'weather', instructions: 'Answer with the weather tool.', model, tools: [getWeather] });

try {
  const first = await run(agent, 'What is the weather in Paris?');
  if (!first.lastResponseId) throw new Error('the first run has no response id');
  const second = await run(agent, 'Thanks. Say it again.', { previousResponseId: first.lastResponseId });
  console.log(JSON.stringify({ text: second.finalOutput }));
} catch (e) {
  console.error(e?.stack || String(e));
  if (e?.error) console.error('error body: ' + JSON.stringify(e.error));
  process.exit(1);
}
