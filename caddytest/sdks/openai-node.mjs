// openai-node's Responses helpers in the tool loop of OpenAI's docs: the
// first answer's output (with the fields the helpers add to it: parsed on
// output_text parts, parsed_arguments on function calls) is sent back as
// input with the tool's output. The stream helper
// (responses.stream(...).finalResponse()) or, non-streamed,
// responses.parse(). Two modes continue by previous_response_id instead,
// sending only the tool's output: chain over HTTP (responses.create), and
// websocket over one Responses WebSocket (ResponsesWS, on ws), with
// store false as Codex sends it.
//
//   node openai-node.mjs <base URL> <model> stream|parse|chain|websocket
//
// Prints {"text": ...} on success; exits 1 with the error.
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';

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

// socket is the Responses WebSocket of mode websocket.
const socket = mode === 'websocket' ? new ResponsesWS(client) : null;

// socketTurn sends a response.create event and waits for its answer.
function socketTurn(params) {
  return new Promise((resolve, reject) => {
    const done = (f, v) => { socket.off('event', onEvent); socket.off('error', onError); f(v); };
    const onEvent = (ev) => {
      if (ev.type === 'response.completed') done(resolve, ev.response);
      else if (ev.type === 'error' || ev.type === 'response.failed') done(reject, new Error(JSON.stringify(ev)));
    };
    const onError = (err) => done(reject, err);
    socket.on('event', onEvent);
    socket.on('error', onError);
    socket.send({ type: 'response.create', store: false, ...params });
  });
}

async function turn(params) {
  switch (mode) {
    case 'stream':
      return client.responses.stream({ model, tools, ...params }).finalResponse();
    case 'chain':
      return client.responses.create({ model, tools, ...params });
    case 'websocket':
      return socketTurn({ model, tools, ...params });
  }
  return client.responses.parse({ model, tools, ...params });
}

try {
  let input = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const first = await turn({ input });
  const outputs = [];
  for (const item of first.output) {
    if (item.type === 'function_call') {
      const { city } = JSON.parse(item.arguments);
      outputs.push({ type: 'function_call_output', call_id: item.call_id, output: process.env.LLMBRIDGE_SDK_RESULT.replace('{city}', city) });
    }
  }
  if (outputs.length === 0) throw new Error('the first answer has no function call: ' + JSON.stringify(first.output));
  let second;
  if (mode === 'chain' || mode === 'websocket') {
    second = await turn({ previous_response_id: first.id, input: outputs });
  } else {
    second = await turn({ input: input.concat(first.output, outputs) });
  }
  socket?.close({ code: 1000, reason: 'done' });
  console.log(JSON.stringify({ text: second.output_text ?? second.output.flatMap((o) => o.content ?? []).map((c) => c.text ?? '').join('') }));
} catch (e) {
  console.error(e?.stack || String(e));
  if (e?.error) console.error('error body: ' + JSON.stringify(e.error));
  process.exit(1);
}
