// The Vercel AI SDK (ai with @ai-sdk/openai) as a web app uses it, with its
// default settings: the Responses API and store on, so that the second step
// of a tool loop refers to the first answer's items by id
// (item_reference). One weather tool; the loop runs until the model answers
// without a call.
//
// Mode chain continues by previousResponseId instead: the first step runs
// alone, and the second sends only the tool's result with the first
// answer's id (providerOptions.openai.previousResponseId).
//
//   node vercel-ai.mjs <base URL> <model> generate|stream|chain
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
  } else if (mode === 'chain') {
    const first = await generateText({ ...opts, stopWhen: stepCountIs(1) });
    const id = first.providerMetadata?.openai?.responseId;
    if (!id) throw new Error('the first answer has no response id: ' + JSON.stringify(first.providerMetadata));
    const results = first.response.messages.filter((m) => m.role === 'tool');
    if (results.length === 0) throw new Error('the first step ran no tool');
    const { prompt, ...rest } = opts;
    const r = await generateText({ ...rest, messages: results, providerOptions: { openai: { previousResponseId: id } } });
    text = r.text;
    steps = 1 + r.steps.length;
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
