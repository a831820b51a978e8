// The rule bot (src/bots/rule.js) against Python's RuleBot and MoveScores, only through the
// vectors the Python side writes (tests/make-vectors.sh: `murlan conformance rule` with a fresh
// seed): positions from real play under every variant, exchanges included, each with the
// Python bot's move, its cards and the log-probability of every legal action, and the moves of
// RuleBot with other knobs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { actionIds } from '../src/game/bitsets.js';
import { legalActions } from '../src/game/engine.js';
import { stateFromJson } from '../src/game/state_json.js';
import {
  RULE_KNOBS,
  newRuleView,
  ruleAction,
  ruleLogProb,
  ruleLogProbs,
  ruleMove,
  ruleMoveOfPosition,
  viewOfPosition,
  viewOfState,
} from '../src/bots/rule.js';
import { readJsonFile, VECTORS } from './helpers.js';

const vectors = readJsonFile(join(VECTORS, 'rule.json'));
const positions = vectors.positions;
// Python scores in float32 and normalises in float64; the same sums in another order.
const TOLERANCE = 1e-9;

test('the rule vectors cover every variant, exchanges, leads and follows', () => {
  assert.equal(vectors.format, 'murlan-rule-vectors/1');
  assert.ok(positions.length >= 300, `${positions.length} positions`);
  assert.ok(new Set(positions.map((p) => JSON.stringify(p.state.rules))).size >= 8);
  const kinds = new Set(positions.map((p) => (p.state.phase === 'exchange' ? 'exchange' : p.state.table === 0 ? 'lead' : 'follow')));
  assert.deepEqual([...kinds].sort(), ['exchange', 'follow', 'lead']);
  assert.ok(positions.some((p) => p.state.start_duty));
  assert.ok(positions.some((p) => p.move === 0), 'a pass');
});

test('on every position the rule bot makes the Python rule bot\'s move, from the engine state', () => {
  const view = newRuleView();
  const words = new Uint32Array(4);
  const wrong = [];
  positions.forEach((p, i) => {
    const g = stateFromJson(p.state);
    assert.deepEqual(actionIds(legalActions(g, words)), p.legal, `position ${i}: legal actions`);
    const move = ruleMove(viewOfState(g, view));
    if (move !== p.move) wrong.push(`position ${i}: ${move}, Python ${p.move}`);
    assert.equal(ruleAction(g), move);
  });
  assert.deepEqual(wrong, []);
});

test('on every position the rule bot makes the Python rule bot\'s move and cards, from the position as seen', () => {
  const wrong = [];
  positions.forEach((p, i) => {
    const move = ruleMoveOfPosition(p.position);
    if (move.action !== p.move || move.play !== p.cards) wrong.push(`position ${i}: ${move.action} "${move.play}", Python ${p.move} "${p.cards}"`);
  });
  assert.deepEqual(wrong, []);
});

test('with other knobs the rule bot makes the moves of Python\'s RuleBot with those knobs', () => {
  assert.ok(vectors.knobs.length >= 2);
  const view = newRuleView();
  const wrong = [];
  vectors.knobs.forEach((set, k) => {
    const knobs = { ...RULE_KNOBS, ...set };
    assert.equal(Object.keys(knobs).length, Object.keys(RULE_KNOBS).length, `knobs ${JSON.stringify(set)}: names Python's`);
    let differs = 0;
    positions.forEach((p, i) => {
      const move = ruleMove(viewOfState(stateFromJson(p.state), view), knobs);
      if (move !== p.knob_moves[k]) wrong.push(`knobs ${JSON.stringify(set)}, position ${i}: ${move}, Python ${p.knob_moves[k]}`);
      if (p.knob_moves[k] !== p.move) differs += 1;
    });
    assert.ok(differs > 0, `knobs ${JSON.stringify(set)} change no move`);
  });
  assert.deepEqual(wrong, []);
});

test('the log-probabilities of every legal action are MoveScores\', illegal ones -Infinity', () => {
  const view = newRuleView();
  const out = new Float64Array(view.threats.length / 4);
  let worst = 0;
  positions.forEach((p, i) => {
    viewOfState(stateFromJson(p.state), view);
    ruleLogProbs(view, out, vectors.slack);
    p.legal.forEach((a, k) => {
      worst = Math.max(worst, Math.abs(out[a] - p.log_probs[k]));
      assert.ok(Math.abs(ruleLogProb(view, a, { slack: vectors.slack }) - p.log_probs[k]) <= TOLERANCE, `position ${i}, action ${a}`);
    });
    for (let a = 0; a < out.length; a++) if (!p.legal.includes(a)) assert.equal(out[a], -Infinity);
    // The position as seen gives the same view.
    assert.equal(ruleLogProb(viewOfPosition(p.position), p.move, { slack: vectors.slack }), out[p.move]);
  });
  assert.ok(worst <= TOLERANCE, `largest difference ${worst}`);
});
