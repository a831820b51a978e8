/**
 * Difficulty levels of a bundle (bot.json's `levels`), and the random and greedy bots a level
 * mixes in, as the Python side plays them (murlan_env/bots/policy.py `BundleBot.act`,
 * murlan_env/bots/baseline.py `RandomBot`, `GreedyBot`).
 *
 * A level is `{temperature, mix: [bot, share] | null, search, supported_rules}`. One decision
 * (a play or the give-back) has a decision seed, and every random number of it is a draw of
 * that seed's stream (util/random.js `drawUniform`, the Python side's generator): draw 0 (the
 * mix draw) hands the decision to the mixed-in bot when it is below `share`; then whoever
 * plays makes draw 1 (the play draw): the policy samples softmax(scores / temperature) over
 * the legal actions with it (temperature 0: the argmax, no draw), the random bot picks with
 * it, the greedy bot makes none. So a level makes Python's moves for the same seeds (the level
 * vectors, `murlan conformance levels`, hold it to them; docs/bundle.md). A level with a search
 * (`expert`) is played by `searchPlayer` (bots/search.js), which `levelPlayer` hands it to; its
 * draws come from `mulberry32(seed)` and match Python's search in distribution only.
 * @module
 */

import { actionOfCounts, KINDS, PASS } from '../game/combos.js';
import { N_RANKS, rankCounts } from '../game/cards.js';
import { argmaxLegal } from '../bundle/bundle.js';
import { Search, handHistory, searchSettings } from './search.js';
import { drawUniform } from '../util/random.js';

/** The index of a level decision's draw that decides the mix. */
export const MIX_DRAW = 0;
/** The index of the draw whoever plays the decision makes (the policy's sample, the random bot's pick). */
export const PLAY_DRAW = 1;

/**
 * A generator of floats in [0, 1) from a 32-bit seed (mulberry32).
 * @param {number} seed
 * @returns {() => number}
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An action drawn from softmax(scores / temperature) over the legal actions (temperature 0:
 * the argmax, no draw), as murlan_env/bots/protocol.py `pick_from_scores` picks it: one draw
 * u; in doubles from the float32 scores, weights exp(s / T - max s / T); the first action
 * whose cumulative weight (in action id order) exceeds u times the total.
 * @param {Float32Array} scores
 * @param {Uint8Array} mask
 * @param {number} temperature
 * @param {() => number} rng
 * @returns {number}
 */
export function sampleFromScores(scores, mask, temperature, rng) {
  if (temperature === 0) return argmaxLegal(scores, mask);
  let top = -Infinity;
  for (let a = 0; a < mask.length; a++) if (mask[a]) top = Math.max(top, scores[a] / temperature);
  const cum = new Float64Array(mask.length);
  let total = 0;
  for (let a = 0; a < mask.length; a++) {
    if (mask[a]) total += Math.exp(scores[a] / temperature - top);
    cum[a] = total;
  }
  const pick = rng() * total;
  for (let a = 0; a < mask.length; a++) if (cum[a] > pick) return a;
  return argmaxLegal(scores, mask);
}

/**
 * A uniformly random legal action (Python's `RandomBot`).
 * @param {Uint8Array} mask
 * @param {() => number} rng
 * @returns {number}
 */
export function randomAction(mask, rng) {
  const legal = [];
  for (let a = 0; a < mask.length; a++) if (mask[a]) legal.push(a);
  return legal[Math.floor(rng() * legal.length)];
}

/**
 * The greedy bot's action (Python's `GreedyBot`, rule for rule): a play that empties the hand
 * is always made; leading, all copies of the lowest rank held outside bombs (with only bombs,
 * the lowest bomb; the first legal action when the opening duty forbids it); following, the
 * lowest legal play that uses no rank held four times and is no quad, else pass; in the
 * exchange, the first legal give-back.
 * @param {import('../game/combos.js').ActionCatalogue} t
 * @param {number[]} hand my card ids
 * @param {Uint8Array} mask
 * @param {boolean} exchange
 * @returns {number}
 */
export function greedyAction(t, hand, mask, exchange) {
  const first = mask.indexOf(1);
  if (exchange) return first;
  const counts = rankCounts(hand);
  const quad = KINDS.indexOf('quad');
  let goesOut = -1;
  let follow = -1;
  for (let a = 0; a < t.size; a++) {
    if (!mask[a]) continue;
    let exact = true;
    let touchesBomb = false;
    for (let r = 0; r < N_RANKS; r++) {
      const need = t.cost[a * N_RANKS + r];
      if (need !== counts[r]) exact = false;
      if (need > 0 && counts[r] === 4) touchesBomb = true;
    }
    if (exact && goesOut < 0) goesOut = a;
    if (a !== PASS && follow < 0 && !touchesBomb && t.kind[a] !== quad) follow = a;
  }
  if (goesOut >= 0) return goesOut;
  if (mask[PASS]) return follow >= 0 ? follow : PASS;
  const low = counts.findIndex((n) => n > 0 && n < 4);
  const bomb = counts.findIndex((n) => n === 4);
  const lead = new Array(N_RANKS).fill(0);
  if (low >= 0) lead[low] = counts[low];
  else if (bomb >= 0) lead[bomb] = 4;
  const action = low >= 0 || bomb >= 0 ? actionOfCounts(t, lead) : -1;
  return action >= 0 && mask[action] ? action : first;
}

/** The bots a level may mix in, by the name bot.json's `levels` give them. */
export const MIXABLE = Object.freeze(['random', 'greedy']);

/**
 * @typedef {object} MoveContext what a search level reads besides the position
 * @property {object} [record] the match so far, a `murlan-record/1` record cut at the decision
 *   (a murlan-bot/1 request's `record`, `Game.record()` before the move)
 * @property {number} [seat] the seat to act (absolute; default: the position's `seat`)
 * @property {Array<[number, number]>} [history] this hand's moves as `[slot, action]` rows
 *   instead of the record (search.js `handHistory`)
 */

/**
 * @typedef {object} PlayerOptions for a search level (ignored by the others)
 * @property {Object<string, import('./belief.js').SeatModel>} [models] seat models by the
 *   name a level gives them (e.g. `{ rule: ruleModel }`); a level's model missing here is
 *   played by the policy (`player.missingModels`)
 * @property {number} [budgetMs] time budget per move in ms (search.js); none: the level's
 *   whole search, the same move on every machine
 * @property {number} [rollouts] instead of the level's
 * @property {number} [candidates] belief worlds instead of the level's
 */

/**
 * @typedef {object} LevelPlayer
 * @property {string} name
 * @property {object} level the level as bot.json states it
 * @property {string[]} missingModels the level's seat models this client lacks
 * @property {(position: object, seed: number, context?: MoveContext) => Promise<import('../bundle/bundle.js').Move>} choose
 *   the level's move in a position (a golden set's or murlan-bot/1's `state`) for a decision
 *   seed in [0, 2^32) (murlan-bot/1's `seed`), every draw from the seed's stream
 *   (`levelAction`; a search level's from `mulberry32(seed)`); a search level reads `context`
 *   for the hand so far (without it, it deals its worlds uniformly)
 */

/**
 * A level of a loaded bundle as a player: `choose(position, seed, context)` gives the level's
 * move. Runs in Node and in a browser (a Web Worker for a search level, which takes about a
 * second a move): nothing here reads files or the clock but the search's budget.
 * @param {import('../bundle/bundle.js').MurlanBot} bot
 * @param {string} name a key of bot.json's `levels`
 * @param {PlayerOptions} [opts]
 * @returns {LevelPlayer}
 */
export function levelPlayer(bot, name, opts = {}) {
  const levels = bot.manifest.levels ?? {};
  const level = levels[name];
  if (!level) {
    const have = Object.keys(levels);
    throw new Error(`the bundle has no level ${JSON.stringify(name)} (it has ${have.length ? have.join(', ') : 'none'})`);
  }
  if (level.search) return searchPlayer(bot, name, level, opts);
  const [weak, share] = level.mix ?? [null, 0];
  if (weak !== null && !MIXABLE.includes(weak)) throw new Error(`level ${name} mixes in ${JSON.stringify(weak)}: this client mixes in ${MIXABLE.join(' or ')}`);
  const temperature = Number(level.temperature ?? 0);
  return {
    name,
    level,
    missingModels: [],
    async choose(position, seed) {
      const move = await bot.choose(position);
      const action = levelAction(move.scores, move.mask, { temperature, weak, share }, seed, () => {
        const pos = bot.position(position);
        return greedyAction(bot.catalogue, pos.hand, move.mask, pos.exchange);
      });
      return action === move.action ? move : bot.move(position, action, move);
    },
  };
}

/**
 * A non-search level's action for a decision seed, from the policy's scores (murlan_env/bots/
 * policy.py `BundleBot.act_for_seeds`): the mix draw first (the weaker bot plays when it is
 * below `share`), then the play draw of whoever plays.
 * @param {Float32Array} scores (A,) the policy's scores
 * @param {Uint8Array} mask (A,) the legal actions
 * @param {{temperature: number, weak: string | null, share: number}} level
 * @param {number} seed the decision seed, an integer in [0, 2^32)
 * @param {() => number} greedy the greedy bot's action here (asked only when it plays)
 * @returns {number}
 */
export function levelAction(scores, mask, { temperature, weak, share }, seed, greedy) {
  const play = () => drawUniform(seed, PLAY_DRAW);
  if (weak !== null && share > 0 && drawUniform(seed, MIX_DRAW) < share) {
    return weak === 'random' ? randomAction(mask, play) : greedy();
  }
  return sampleFromScores(scores, mask, temperature, play);
}

/**
 * A search level (`expert`) as a player (see `levelPlayer`): the give-back and forced moves
 * are the policy's; a play with a choice is the search's (search.js `Search`). The move
 * carries the search's `values` (mean hand points per action, -Infinity where illegal).
 * @param {import('../bundle/bundle.js').MurlanBot} bot on the plain runtime
 * @param {string} name
 * @param {object} level
 * @param {PlayerOptions} [opts]
 * @returns {LevelPlayer}
 */
export function searchPlayer(bot, name, level, { models = {}, budgetMs, rollouts, candidates } = {}) {
  const search = new Search(bot, searchSettings(level), models);
  return {
    name,
    level,
    missingModels: search.missingModels,
    async choose(position, seed, context = {}) {
      const base = await bot.choose(position);
      const pos = bot.position(position);
      if (pos.exchange) return base;
      const seat = context.seat ?? position.seat;
      let history = context.history ?? null;
      if (!history && context.record) {
        if (!Number.isInteger(seat)) throw new Error('a move context with a record needs the seat to act');
        history = handHistory(context.record, seat);
      }
      const found = search.search(pos, history, mulberry32(seed), { budgetMs, rollouts, candidates });
      const move = found.action === base.action ? base : bot.move(position, found.action, base);
      return { ...move, values: found.values };
    },
  };
}
