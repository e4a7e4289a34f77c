import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { indexOfQuoted, renameOnlyTopLevelField, renameStringField } from './rename-field.ts';

test('replaces the string value of the key at the given depth only', () => {
  assert.equal(renameStringField('{"a":1,"model":"x"}', 'model', 1, 'y'), '{"a":1,"model":"y"}');
  assert.equal(
    renameStringField('{"m":{"model":"x"},"model":"z"}', 'model', 1, 'y'),
    '{"m":{"model":"x"},"model":"y"}',
  );
  assert.equal(
    renameStringField('{"m":{"model":"x"},"model":"z"}', 'model', 2, 'y'),
    '{"m":{"model":"y"},"model":"z"}',
  );
  // Objects inside arrays are deeper than their array's owner.
  assert.equal(renameStringField('{"c":[{"model":"x"}]}', 'model', 1, 'y'), '{"c":[{"model":"x"}]}');
});

test('never matches inside strings; honours escapes; spaced JSON works', () => {
  const tricky = '{"text":"\\"model\\":\\"x\\" \\\\","model" : "a\\"b"}';
  assert.equal(
    renameStringField(tricky, 'model', 1, 'n$&'),
    '{"text":"\\"model\\":\\"x\\" \\\\","model" : "n$&"}',
  );
  assert.equal(renameStringField('{"model":"x\\\\"}', 'model', 1, 'q"'), '{"model":"q\\""}');
});

test('leaves the text alone when there is nothing to rename', () => {
  const same = '{"model":"y"}';
  assert.equal(renameStringField(same, 'model', 1, 'y'), same);
  assert.equal(renameStringField('{"model":null}', 'model', 1, 'y'), '{"model":null}');
  assert.equal(renameStringField('{"other":"x"}', 'model', 1, 'y'), '{"other":"x"}');
  assert.equal(renameStringField('{"model":"unterminated', 'model', 1, 'y'), '{"model":"unterminated');
  assert.equal(renameStringField('', 'model', 1, 'y'), '');
});

test('any object, compact or spaced: the top-level string field is renamed, nothing else changes', () => {
  const tricky = fc.constantFrom('model', 'a"model', 'model\\', '{', '[', '"model":', 'x\\"model\\"', 'id');
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    tricky,
    fc.dictionary(tricky, fc.jsonValue({ maxDepth: 1 })),
  );
  fc.assert(
    fc.property(fc.dictionary(fc.oneof(tricky, fc.string()), value), fc.boolean(), (object, spaced) => {
      const text = spaced ? JSON.stringify(object, null, 1) : JSON.stringify(object);
      const renamed = renameStringField(text, 'model', 1, 'new "name"');
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const expected = typeof parsed.model === 'string' ? { ...parsed, model: 'new "name"' } : parsed;
      assert.deepEqual(JSON.parse(renamed), expected);
      // Only the value changed: the rest of the text is the upstream's own.
      if (typeof object.model !== 'string') assert.equal(renamed, text);
    }),
    { numRuns: 500 },
  );
});

test('indexOfQuoted finds what indexOf finds, from any start', () => {
  const piece = fc.constantFrom('"', '\\', 'model', 'mod', 'el', '"model"', 'model"', ':', '{', ' ', 'x');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 16 }), fc.nat(40), (pieces, from) => {
      const text = pieces.join('');
      for (const quoted of ['"model"', '"a\\"b"', '"m"'])
        assert.equal(
          indexOfQuoted(text, quoted, from),
          text.indexOf(quoted, from),
          `${text} ${quoted} ${from}`,
        );
    }),
    { numRuns: 2000 },
  );
  assert.equal(indexOfQuoted('"model"', '"model"'), 0);
  assert.equal(indexOfQuoted('x"model"', '"model"', 1), 1);
  assert.equal(indexOfQuoted('model"', '"model"'), -1);
});

test('renameOnlyTopLevelField: one top-level model renamed in place; a second "model" anywhere, the whole answer re-encoded', () => {
  const answer = '{"id":"c","model":"gpt-4o-mini","choices":[{"message":{"content":"say \\"model\\""}}]}';
  assert.equal(renameOnlyTopLevelField(answer, 'model', 'A-3'), answer.replace('"gpt-4o-mini"', '"A-3"'));
  // An escaped quote just before the name is an occurrence too, as a plain search finds it.
  assert.equal(renameOnlyTopLevelField('{"a":"\\"model","model":"m"}', 'model', 'A-3'), undefined);
  assert.equal(renameOnlyTopLevelField('{"a":"model","model":"m"}', 'model', 'A-3'), undefined);
  assert.equal(renameOnlyTopLevelField('{"a":{"model":"x"},"model":"m"}', 'model', 'A-3'), undefined);
  assert.equal(renameOnlyTopLevelField('{"model":"A-3"}', 'model', 'A-3'), '{"model":"A-3"}');
  assert.equal(renameOnlyTopLevelField('{"model" : "A-3"}', 'model', 'A-3'), undefined);
  assert.equal(renameOnlyTopLevelField('{"other":1}', 'model', 'A-3'), undefined);
});
