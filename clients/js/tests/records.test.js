// Records in JavaScript against the Python validator, through vectors the Python side writes
// (`murlan conformance records`: valid records, fuzzed and rule-level corrupted copies, each with
// Python's verdict): the same verdict, fault location and reason; the records the JavaScript
// `Game` writes validate; the golden sets' matches replay to the positions golden.json holds.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Game, position } from '../src/game/game.js';
import { decisions, validate } from '../src/records/validator.js';
import { dumps, loads } from '../src/records/files.js';
import { BUNDLES, POLICIES, VECTORS, readJsonFile } from './helpers.js';

const vectors = readJsonFile(join(VECTORS, 'records.json'));

test('record vectors: every verdict, fault and reason is the Python validator\'s', () => {
  const valid = vectors.records.filter((r) => r.valid).length;
  assert.ok(valid >= 10 && vectors.records.length - valid >= 100, `${valid} valid of ${vectors.records.length}`);
  vectors.records.forEach((r, i) => {
    const got = validate(r.record);
    const want = { valid: r.valid, fault: r.fault, reason: r.reason };
    if (r.fault === 'json' && r.reason.startsWith('not valid JSON')) {
      // the JSON reader's own words for the syntax error; the verdict and location agree
      assert.deepEqual([got.valid, got.fault], [false, 'json'], `record ${i}`);
      assert.match(got.reason ?? '', /^not valid JSON: /);
    } else {
      assert.deepEqual(got, want, `record ${i}: ${r.record.slice(0, 300)}`);
    }
  });
});

test('records read and written back keep their verdicts', () => {
  for (const r of vectors.records.slice(0, 60)) {
    if (r.fault === 'json') continue;
    assert.deepEqual(validate(dumps(loads(r.record))), { valid: r.valid, fault: r.fault, reason: r.reason });
  }
});

test('the records a Game writes are valid, at every point of a match', () => {
  for (const [seed, rules] of [[1, {}], [2, { sticky_pass: true, joker_pair: true }], [3, { no_exchange: true, tie_rule: 'leader', start_card: '3C' }]]) {
    const game = new Game({ seed, rules });
    let n = 0;
    while (game.phase !== 'match_over') {
      if (game.phase === 'hand_over') game.nextHand();
      else {
        const moves = game.legalMoves();
        game.play(moves[Math.floor(game.rng() * moves.length)].cards);
      }
      if (n++ % 97 === 0) assert.deepEqual(validate(game.record()), { valid: true, fault: null, reason: null });
    }
    const record = game.record();
    assert.deepEqual(validate(record), { valid: true, fault: null, reason: null });
    assert.deepEqual(record.winners, game.winners);
  }
});

test('a Game names its players in the record, and the validator ignores them', () => {
  const players = ['you', 'hard', 'expert', 'proc:./bot'];
  const game = new Game({ seed: 4, players });
  const record = game.record();
  assert.deepEqual(Object.keys(record).slice(0, 4), ['format', 'rules', 'players', 'hands']);
  assert.deepEqual(record.players, players);
  assert.equal(validate(record).valid, true);
  assert.equal(validate({ ...record, players: 'not a list' }).valid, true); // an optional key
  assert.equal('players' in new Game({ seed: 4 }).record(), false);
  assert.throws(() => new Game({ players: ['you', ''] }), /players names the 4 seats/);
});

for (const name of BUNDLES) {
  test(`${name}: the golden set's matches replay to its positions`, () => {
    const golden = readJsonFile(join(POLICIES, name, 'golden.json'));
    const byMatch = golden.matches.map((m) => decisions(m));
    for (const p of golden.positions) {
      const d = byMatch[p.match].find((x) => x.hand === p.hand && x.plays === p.plays && x.exchange === p.exchange);
      assert.ok(d, `position ${JSON.stringify([p.match, p.hand, p.plays])}`);
      assert.deepEqual(position(d.state), p.state);
    }
  });
}
