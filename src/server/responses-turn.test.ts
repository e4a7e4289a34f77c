import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject, JsonValue } from '../ir/index.ts';
import { createLogger } from '../log/logger.ts';
import { openDatabase } from '../store/sqlite/database.ts';
import { SqliteResponseStore } from '../store/sqlite/sqlite-response-store.ts';
import { readConversation } from './responses-chain.ts';
import { beginResponsesTurn, type TurnOptions } from './responses-turn.ts';

const options: TurnOptions = { builtInTools: 'reject', maxStoredBytes: 2000, maxChainChars: 100_000 };
const logger = createLogger('silent', []);

function newStore(): SqliteResponseStore {
  return new SqliteResponseStore(openDatabase(':memory:'), 86_400_000);
}

/** One turn answered with `text` and stored; its id. */
async function turn(
  store: SqliteResponseStore,
  body: JsonObject,
  text: string,
  turnOptions: TurnOptions = options,
): Promise<{ id: string; sent: JsonObject; echoed: JsonObject }> {
  const begun = await beginResponsesTurn(body, 'key-a', store, Date.now(), logger, turnOptions);
  assert.ok(begun !== undefined);
  const answer = {
    id: begun.turn.id,
    object: 'response',
    output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }],
  };
  begun.turn.onFinished?.(answer);
  await begun.finish();
  return { id: begun.turn.id, sent: begun.body, echoed: begun.turn.body };
}

test('a continuation stores only its own input and a pointer; the chain reads back whole', async () => {
  const store = newStore();
  const first = await turn(store, { model: 'A-2', input: 'one' }, 'first answer');
  const second = await turn(
    store,
    {
      model: 'A-2',
      previous_response_id: first.id,
      input: [
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'x'.repeat(500) },
        { role: 'user', content: 'two' },
      ],
    },
    'second answer',
  );
  const row = await store.get(second.id, 'key-a');
  assert.ok(row !== undefined);
  assert.equal(row.previousId, first.id);
  // Only this turn's input, and no reasoning item (no upstream receives it).
  assert.deepEqual(row.inputItems, [
    { role: 'user', content: [{ type: 'input_text', text: 'two' }], type: 'message' },
  ]);
  // The upstream still got the whole conversation.
  const sentInput = second.sent.input as JsonValue[];
  assert.equal(sentInput.length, 4);
  const chain = await readConversation(store, second.id, 'key-a', { maxDepth: 10, maxChars: 100_000 }, null);
  assert.ok(chain !== undefined);
  assert.equal(chain.before.length, 2, 'the first turn: its input and its answer');
});

test('an input larger than maxStoredBytes answers as store: false and is not kept', async () => {
  const store = newStore();
  const input = Array.from({ length: 100 }, (_, index) => ({ role: 'user', content: `item ${index}` }));
  const big = await turn(store, { model: 'A-2', input }, 'answer');
  assert.equal(big.echoed.store, false);
  assert.equal(await store.get(big.id, 'key-a'), undefined);
  const small = await turn(store, { model: 'A-2', input: 'hi' }, 'answer');
  assert.equal(small.echoed.store, undefined, 'the client body echoed unchanged');
  assert.ok((await store.get(small.id, 'key-a')) !== undefined);
});

test('an answer that makes the response larger than maxStoredBytes is not kept', async () => {
  const store = newStore();
  const large = await turn(store, { model: 'A-2', input: 'hi' }, 'y'.repeat(3000));
  assert.equal(await store.get(large.id, 'key-a'), undefined);
});

test('a chain longer than its bounds is a 400 naming the field, not an unbounded read', async () => {
  const store = newStore();
  let previous = (await turn(store, { model: 'A-2', input: 'start' }, 'a')).id;
  for (let index = 0; index < 5; index++)
    previous = (await turn(store, { model: 'A-2', previous_response_id: previous, input: 'more' }, 'a')).id;
  await assert.rejects(
    beginResponsesTurn(
      { model: 'A-2', previous_response_id: previous, input: 'x' },
      'key-a',
      store,
      0,
      logger,
      {
        ...options,
        maxChainChars: 500,
      },
    ),
    (error: unknown) =>
      error instanceof Error &&
      /too long to read back/.test(error.message) &&
      (error as { param?: string }).param === 'previous_response_id',
  );
  await assert.rejects(
    readConversation(store, previous, 'key-a', { maxDepth: 3, maxChars: 100_000 }, null),
    /more than 3 responses/,
  );
});
