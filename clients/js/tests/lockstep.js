// The lock-step check: the JavaScript engine plays the matches the Python engine played
// (murlan_env/conformance/engine.py `lockstep_matches`, `murlan conformance lockstep`), the same deals
// and the same moves as cards, and must agree at every step: the legal actions before each
// decision, the action the cards make, the engine's own choice of cards for it, and the whole
// state after it. Run as a script on a JSON-lines file: `node tests/lockstep.js FILE`
// prints the decisions checked and exits 1 at the first disagreement.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { actionIds } from '../src/game/bitsets.js';
import { parseCards, formatCards } from '../src/game/cards.js';
import { cardIds, cardsToWords } from '../src/game/bitsets.js';
import { chooseCards, dealFrom, legalActions, nextHand, parseDeal, step } from '../src/game/engine.js';
import { readMove } from '../src/game/moves.js';
import { stateJson } from '../src/game/state_json.js';
import { isDeepStrictEqual } from 'node:util';

/**
 * First difference between two JSON values, as "path: a != b", or null.
 * @param {any} a
 * @param {any} b
 * @param {string} [path]
 * @returns {string | null}
 */
export function difference(a, b, path = '') {
  if (isDeepStrictEqual(a, b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = difference(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path || '.'}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
}

/**
 * Play one lock-step match; returns the decisions checked, throws at the first disagreement.
 * @param {any} match
 * @returns {number}
 */
export function checkMatch(match) {
  const g = dealFrom(match.start.deal, match.start.dealer, match.rules);
  let d = difference(stateJson(g), match.state);
  if (d) throw new Error(`match start: ${d}`);
  const legal = new Uint32Array(4);
  const chosen = new Uint32Array(2);
  let decisions = 0;
  match.events.forEach((ev, i) => {
    const where = `event ${i} (${ev.kind})`;
    if (ev.kind === 'next_hand') {
      nextHand(g, parseDeal(ev.deal));
    } else {
      const ids = actionIds(legalActions(g, legal));
      if (!isDeepStrictEqual(ids, ev.legal)) throw new Error(`${where}: legal ${JSON.stringify(ids)} != ${JSON.stringify(ev.legal)}`);
      const cards = parseCards(ev.cards);
      const action = readMove(g, cards);
      if (action !== ev.action) throw new Error(`${where}: ${ev.cards} reads as action ${action}, not ${ev.action}`);
      const mine = formatCards(cardIds(...chooseCards(g, action, chosen)));
      if (mine !== ev.engine_cards) throw new Error(`${where}: the engine chooses ${mine}, not ${ev.engine_cards}`);
      step(g, action, cardsToWords(cards));
      decisions += 1;
    }
    d = difference(stateJson(g), ev.next);
    if (d) throw new Error(`${where}: ${d}`);
  });
  return decisions;
}

/**
 * Check every match of a JSON-lines file; returns {matches, decisions}.
 * @param {string} path
 */
export async function checkFile(path) {
  let matches = 0;
  let decisions = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    try {
      decisions += checkMatch(JSON.parse(line));
    } catch (err) {
      throw new Error(`match ${matches}: ${err.message}`);
    }
    matches += 1;
  }
  return { matches, decisions };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { matches, decisions } = await checkFile(process.argv[2]);
    console.log(`${matches} matches, ${decisions} decisions: no disagreement`);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
