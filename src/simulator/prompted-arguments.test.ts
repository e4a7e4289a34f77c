import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest, ToolDefinition } from '../ir/index.ts';
import { planReply } from './plan.ts';
import { promptedArguments } from './prompted-arguments.ts';
import { TokenCountCache } from './token-cache.ts';

test('the JSON object right after the tool name is taken whole, brackets in strings included', () => {
  const text = 'Please Read {"file_path":"/tmp/a {b}.txt","limit":5} and summarise it.';
  assert.deepEqual(promptedArguments(text, 'Read'), { file_path: '/tmp/a {b}.txt', limit: 5 });
  assert.deepEqual(promptedArguments('Read {"q":"say \\"}\\" twice"}', 'Read'), { q: 'say "}" twice' });
});

test('no object, an unclosed or invalid one, or another name: nothing (the schema sample is used)', () => {
  assert.equal(promptedArguments('Use the Read tool on notes.txt', 'Read'), undefined);
  assert.equal(promptedArguments('Read {"file_path": "/tmp/x"', 'Read'), undefined);
  assert.equal(promptedArguments('Read {file_path: /tmp/x}', 'Read'), undefined);
  assert.equal(promptedArguments('Write {"a":1}', 'Read'), undefined);
  assert.equal(promptedArguments('Read {"a":1}', ''), undefined);
});

test('a later well-formed object after the name wins over an earlier broken one', () => {
  assert.deepEqual(promptedArguments('Read {oops} then Read {"file_path":"/x"}', 'Read'), {
    file_path: '/x',
  });
});

test('the simulated model calls the tool with the spelled-out arguments, others sampled', () => {
  const read: ToolDefinition = {
    name: 'Read',
    parameters: { type: 'object', properties: { file_path: { type: 'string' } } },
  };
  const grep: ToolDefinition = {
    name: 'Grep',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } } },
  };
  const request: ChatRequest = {
    model: 'sim-1',
    system: [],
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'Read {"file_path":"/work/notes.txt"} then Grep it.' }],
      },
    ],
    tools: [read, grep],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
  };
  let next = 0;
  const plan = planReply(request, { counter: new TokenCountCache(), newToolCallId: () => `call_${++next}` });
  const calls = plan.choices[0]?.calls ?? [];
  assert.deepEqual(
    calls.map((call): [string, unknown] => [call.name, JSON.parse(call.arguments)]),
    [
      ['Read', { file_path: '/work/notes.txt' }],
      ['Grep', { pattern: 'sample pattern' }],
    ],
  );
  assert.equal(calls[0]?.fragments.join(''), calls[0]?.arguments);
});
