// The Vercel AI SDK (ai with @ai-sdk/openai) as a web app uses it, with its
// default settings: the Responses API and store on, so that the second step
// of a tool loop refers to the first answer's items by id
// (item_reference). One weather tool; the loop runs until the model answers
// without a call.
//
//   node vercel-ai.mjs <base URL> <model> generate|stream
//
// Prints {"text": ..., "steps": n} on success; exits 1 with the error.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';

const [base, model, mode] = process.argv.slice(2);
const openai = createOpenAI({ baseURL: base + '/v1', apiKey: process.env.LLMBRIDGE_SDK_KEY || 'sdk-test-key' });
const tools = {
  get_weather: tool({
    description: 'The current weather of a city.',
    inputSchema: jsonSchema({
      type: 'object',
      properties: { city: { type: 'string', description: 'The city' } },
      required: ['city'],
      additionalProperties: false,
    }),
    execute: async ({ city }) => process.env.LLMBRIDGE_SDK_RESULT.replace('{city}', city),
  }),
};
const opts = { model: openai(model), tools, stopWhen: stepCountIs(4), prompt: 'What is the weather in Paris?', maxRetries: 0 };

try {
  let text, steps;
  if (mode === 'stream') {
    let failure;
    const r = streamText({ ...opts, onError: ({ error }) => { failure = error; } });
    text = await r.text;
    steps = (await r.steps).length;
    if (failure) throw failure;
  } else {
    const r = await generateText(opts);
    text = r.text;
    steps = r.steps.length;
  }
  console.log(JSON.stringify({ text, steps }));
} catch (e) {
  console.error(e?.stack || String(e));
  if (e?.responseBody) console.error('response body: ' + e.responseBody);
  process.exit(1);
}
