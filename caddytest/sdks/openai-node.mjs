// openai-node's Responses helpers in the tool loop of OpenAI's docs: the
// first answer's output (with the fields the helpers add to it: parsed on
// output_text parts, parsed_arguments on function calls) is sent back as
// input with the tool's output. The stream helper
// (responses.stream(...).finalResponse()) or, non-streamed,
// responses.parse().
//
//   node openai-node.mjs <base URL> <model> stream|parse
//
// Prints {"text": ...} on success; exits 1 with the error.
import OpenAI from 'openai';

const [base, model, mode] = process.argv.slice(2);
const client = new OpenAI({ baseURL: base + '/v1', apiKey: process.env.LLMBRIDGE_SDK_KEY || 'sdk-test-key', maxRetries: 0 });
const tools = [{
  type: 'function',
  name: 'get_weather',
  description: 'The current weather of a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city' } },
    required: ['city'],
    additionalProperties: false,
  },
  // Strict schemas are refused toward the upstreams that cannot enforce
  // them (docs/compatibility.md); the helpers add parsed_arguments (null)
  // to every call all the same.
  strict: false,
}];

async function turn(input) {
  if (mode === 'stream') {
    return client.responses.stream({ model, input, tools }).finalResponse();
  }
  return client.responses.parse({ model, input, tools });
}

try {
  let input = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const first = await turn(input);
  input = input.concat(first.output);
  let calls = 0;
  for (const item of first.output) {
    if (item.type === 'function_call') {
      calls++;
      const { city } = JSON.parse(item.arguments);
      input.push({ type: 'function_call_output', call_id: item.call_id, output: process.env.LLMBRIDGE_SDK_RESULT.replace('{city}', city) });
    }
  }
  if (calls === 0) throw new Error('the first answer has no function call: ' + JSON.stringify(first.output));
  const second = await turn(input);
  console.log(JSON.stringify({ text: second.output_text }));
} catch (e) {
  console.error(e?.stack || String(e));
  if (e?.error) console.error('error body: ' + JSON.stringify(e.error));
  process.exit(1);
}
