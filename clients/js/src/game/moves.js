/**
 * Which concrete cards a rank-level action takes from a hand, as the Python engine takes them
 * (murlan_env/game/kernels.py `take_one` and `give_back`).
 *
 * A play takes, for each rank it uses, that rank's first suits in the order S H D C, but
 * while the start-card duty holds the start card goes first among its rank. The exchange
 * give-back (a single) is its rank's first suit other than the very card just received.
 * @module
 */

import { N_RANKS, cardRank } from './cards.js';
import { PASS } from './actions.js';

/**
 * Card ids (ascending) that `action` plays from `hand`.
 * @param {import('./actions.js').ActionTable} t
 * @param {number} action
 * @param {number[]} hand my card ids
 * @param {object} [opts]
 * @param {boolean} [opts.exchange] the action is the give-back
 * @param {number} [opts.received] card id just received in the exchange (-1: none)
 * @param {boolean} [opts.startDuty] the play must contain the start card
 * @param {number} [opts.startCard] card id of the start card
 * @returns {number[]}
 */
export function cardsOfAction(t, action, hand, { exchange = false, received = -1, startDuty = false, startCard = 0 } = {}) {
  if (action === PASS) return [];
  const held = [...hand].sort((a, b) => a - b);
  if (exchange) {
    const rank = t.singleOfRank.indexOf(action);
    const card = held.find((c) => cardRank(c) === rank && c !== received);
    if (card === undefined) throw new Error(`no card of rank ${rank} to give back`);
    return [card];
  }
  const need = Array.from(t.cost.subarray(action * N_RANKS, (action + 1) * N_RANKS));
  const taken = [];
  if (startDuty && need[cardRank(startCard)] > 0 && held.includes(startCard)) {
    taken.push(startCard);
    need[cardRank(startCard)] -= 1;
  }
  for (const c of held) {
    const r = cardRank(c);
    if (need[r] > 0 && !taken.includes(c)) {
      taken.push(c);
      need[r] -= 1;
    }
  }
  if (need.some((n) => n > 0)) throw new Error(`the hand cannot pay for action ${action}`);
  return taken.sort((a, b) => a - b);
}
