// The JavaScript engine against the Python engine, only through vectors the Python side
// writes (tests/make-vectors.sh: `murlan conformance transitions` and `murlan conformance lockstep`
// with a fresh seed): the action catalogue, single transitions from every phase and variant, and
// a short lock-step run of whole matches.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ACTION_ROWS } from '../src/game/combos.js';
import { actionIds, cardIds, cardsToWords } from '../src/game/bitsets.js';
import { formatCards, parseCards } from '../src/game/cards.js';
import { chooseCards, dealFrom, legalActions, nextHand, parseDeal, step } from '../src/game/engine.js';
import { readMove } from '../src/game/moves.js';
import { stateFromJson, stateJson } from '../src/game/state_json.js';
import { readJsonFile, VECTORS } from './helpers.js';
import { checkFile, difference } from './lockstep.js';

const transitions = readJsonFile(join(VECTORS, 'transitions.json'));

test('the action catalogue is the Python engine\'s', () => {
  assert.deepEqual(ACTION_ROWS, transitions.actions);
});

test('the vectors cover every phase, every variant and the rare hand starts', () => {
  const seen = new Set(transitions.transitions.map((t) => `${t.kind} ${t.state?.phase ?? '-'} ${t.next.phase}`));
  for (const key of ['start - play', 'next_hand hand_over exchange', 'next_hand hand_over play', 'move exchange play', 'move play play', 'move play hand_over', 'move play match_over']) {
    assert.ok(seen.has(key), key);
  }
  const flags = new Set(transitions.transitions.map((t) => JSON.stringify(t.next.rules)));
  assert.ok(flags.size >= 8, `${flags.size} sets of rules`);
  const auto = transitions.transitions.filter((t) => t.kind !== 'move' && t.next.exchange && t.next.exchange.first_gives);
  assert.ok(auto.length > 0, 'an automatic give-back');
});

test('each state reads back as the same JSON', () => {
  for (const t of transitions.transitions) {
    if (t.state) assert.deepEqual(stateJson(stateFromJson(t.state)), t.state);
    assert.deepEqual(stateJson(stateFromJson(t.next)), t.next);
  }
});

test('every transition gives the Python engine\'s next state', () => {
  const legal = new Uint32Array(4);
  transitions.transitions.forEach((t, i) => {
    let g;
    if (t.kind === 'start') {
      const { rules, deal, dealer, hand_no: handNo, scores, target, previous } = t.start;
      g = dealFrom(deal, dealer, rules, { handNo, scores, target, previous });
    } else if (t.kind === 'next_hand') {
      g = stateFromJson(t.state);
      nextHand(g, parseDeal(t.deal));
    } else {
      g = stateFromJson(t.state);
      assert.deepEqual(actionIds(legalActions(g, legal)), t.move.legal, `transition ${i}: legal actions`);
      const cards = parseCards(t.move.cards);
      assert.equal(readMove(g, cards), t.move.action, `transition ${i}: ${t.move.cards}`);
      assert.equal(formatCards(cardIds(...chooseCards(g, t.move.action))), t.move.engine_cards, `transition ${i}: the engine's cards`);
      step(g, t.move.action, cardsToWords(cards));
    }
    const d = difference(stateJson(g), t.next);
    assert.equal(d, null, `transition ${i} (${t.kind}): ${d}`);
  });
});

test('the engine\'s own cards give the same state as the cards given', () => {
  for (const t of transitions.transitions) {
    if (t.kind !== 'move' || t.move.cards !== t.move.engine_cards) continue;
    const g = stateFromJson(t.state);
    step(g, t.move.action);
    assert.deepEqual(stateJson(g), t.next);
  }
});

test('lock-step: whole matches agree with the Python engine at every decision', async () => {
  const { matches, decisions } = await checkFile(join(VECTORS, 'lockstep.jsonl'));
  assert.ok(matches >= 8 && decisions >= 5000, `${matches} matches, ${decisions} decisions`);
});
