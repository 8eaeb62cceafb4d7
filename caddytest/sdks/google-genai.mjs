// @google/genai's Interactions client (ai.interactions.create) in the tool
// loop of Google's function-calling guide: the first interaction's
// function_call steps are answered with function_result steps. Two ways
// to continue: by history, sending the first turn's steps back with the
// results (store false, as an application that keeps its own history
// does), and chain, sending only the results with previous_interaction_id
// (store left to its default, true). Each streamed or not.
//
//   node google-genai.mjs <base URL> <model> generate|stream|chain|chain-stream
//
// Prints {"text": ...} on success; exits 1 with the error.
import { GoogleGenAI } from '@google/genai';

const [base, model, mode] = process.argv.slice(2);
const ai = new GoogleGenAI({ apiKey: process.env.LLMBRIDGE_SDK_KEY || 'sdk-test-key', httpOptions: { baseUrl: base } });
const streamed = mode === 'stream' || mode === 'chain-stream';
const chained = mode === 'chain' || mode === 'chain-stream';
const tools = [{
  type: 'function',
  name: 'get_weather',
  description: 'The current weather of a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city' } },
    required: ['city'],
  },
}];

// turn creates an interaction and returns it: streamed, as the steps the
// events built (step.start, step.delta, step.stop) and the final status
// of interaction.completed.
async function turn(params) {
  const body = { model, tools, ...params };
  if (!chained) body.store = false;
  if (!streamed) return ai.interactions.create(body);
  const stream = await ai.interactions.create({ ...body, stream: true });
  const steps = [];
  let interaction = {};
  for await (const ev of stream) {
    switch (ev.event_type) {
      case 'interaction.created':
        interaction = { ...ev.interaction };
        break;
      case 'step.start':
        steps[ev.index] = { ...ev.step };
        if (steps[ev.index].type === 'function_call') steps[ev.index].argumentsText = '';
        break;
      case 'step.delta': {
        const s = steps[ev.index];
        const d = ev.delta;
        if (d.type === 'text') {
          s.content = [{ type: 'text', text: ((s.content?.[0]?.text) ?? '') + d.text }];
        } else if (d.type === 'arguments_delta') {
          s.argumentsText += d.arguments ?? d.partial_arguments ?? '';
        } else if (d.type === 'thought_signature') {
          s.signature = d.signature;
        } else if (d.type === 'thought_summary') {
          s.summary = [...(s.summary ?? []), d.content];
        }
        break;
      }
      case 'step.stop': {
        const s = steps[ev.index];
        if (s.type === 'function_call') {
          if (s.argumentsText) s.arguments = JSON.parse(s.argumentsText);
          delete s.argumentsText;
        }
        break;
      }
      case 'interaction.completed':
        interaction = { ...interaction, ...ev.interaction };
        break;
      case 'error':
        throw new Error('error event: ' + JSON.stringify(ev.error));
    }
  }
  if (!interaction.status) throw new Error('the stream ended without interaction.completed');
  interaction.steps = steps.filter(Boolean);
  return interaction;
}

// textOf is the model_output text of an interaction's steps.
const textOf = (it) => it.output_text ?? it.steps.filter((s) => s.type === 'model_output').flatMap((s) => s.content ?? []).map((c) => c.text ?? '').join('');

try {
  const input = [{ type: 'user_input', content: [{ type: 'text', text: 'What is the weather in Paris?' }] }];
  const first = await turn({ input });
  const results = [];
  for (const step of first.steps) {
    if (step.type === 'function_call') {
      const { city } = step.arguments;
      results.push({ type: 'function_result', call_id: step.id, name: step.name, result: process.env.LLMBRIDGE_SDK_RESULT.replace('{city}', city) });
    }
  }
  if (results.length === 0) throw new Error('the first interaction has no function call: ' + JSON.stringify(first.steps));
  let second;
  if (chained) {
    second = await turn({ previous_interaction_id: first.id, input: results });
  } else {
    second = await turn({ input: input.concat(first.steps, results) });
  }
  console.log(JSON.stringify({ text: textOf(second) }));
} catch (e) {
  console.error(e?.stack || String(e));
  if (e?.error) console.error('error body: ' + JSON.stringify(e.error));
  process.exit(1);
}
