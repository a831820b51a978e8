/**
 * The `expert` search in JavaScript: Python's `SearchBot` as the expert level builds it
 * (murlan_env/bots/search.py, registry.py `search_options`), with the level's settings read
 * from the bundle (bot.json's `levels`, docs/bundle.md).
 *
 * For a play with a choice: worlds are dealt for the cards the seat cannot see; with the hand
 * so far (`history`) they are `candidates` uniform worlds weighed by how well each other seat's
 * model explains its moves (bots/belief.js), drawn by those weights; every legal move is then
 * played in the same worlds (`max(minWorlds, ceil(rollouts / moves))` each) and the hand rolled
 * out to its end, each seat played by its model (the policy sampled at `playoutTemperature`,
 * or another bot); the move of best mean hand points wins (ties: the move the rule of thumb
 * finds cheapest), and the policy's own move stands unless that is better by more than
 * `margin`. Forced moves and the exchange give-back are the policy's.
 *
 * What is deterministic follows Python's and is held to it by the search vectors: the
 * belief's log-likelihoods, models and weights for given worlds, a rollout's moves and points
 * for a given world and uniforms, the choice from the values. The draws come from `mulberry32`
 * seeded by the caller, not numpy's generator, so the search plays Python's in distribution,
 * not move for move. Nothing is kept between calls but the policy's weights.
 *
 * Knobs for an app (`search(..., opts)`): `rollouts`, `candidates` (fewer is faster, the
 * belief blunter) and `budgetMs`, a time budget per move: the belief scores its candidates in
 * rounds of `BELIEF_ROUND` worlds until half the budget is spent, the rollouts add rounds of
 * at most `ROLLOUT_ROUND` worlds a move until all of the level's are played or the budget is spent (at
 * least one round each), so a budgeted move depends on the machine's speed; a move cut short
 * must beat the policy's by a wider margin (`budgetMargin`).
 * @module
 */

import { ACTIONS, KINDS, PASS, actionOfCounts } from '../game/combos.js';
import { ACTION_WORDS } from '../game/bitsets.js';
import { N_RANKS, N_SEATS, cardRank, parseCards } from '../game/cards.js';
import { PLAY, State, legalActions, step } from '../game/engine.js';
import { encode } from '../game/observation.js';
import { firstLayer, hiddenOf, legalScores, policyNet, policyScratch } from './policy.js';
import { drawWorlds, logLikelihoods, positionOfState, stateOfWorld, temperedWeights, uniformWorlds, worldLogLikelihoods } from './belief.js';

/** Candidate worlds the belief scores between looks at the clock. */
export const BELIEF_ROUND = 64;
/** Worlds a move gets per round of rollouts with a time budget: one, so a budget may stop early. */
export const ROLLOUT_ROUND = 1;

/**
 * @typedef {object} SearchSettings a search level's settings (bot.json `levels`, docs/bundle.md)
 * @property {number} rollouts hands played out per decision, shared among the legal moves
 * @property {boolean} belief weigh the worlds by the hand so far
 * @property {string[]} models other bots the seats may play like (e.g. "rule")
 * @property {number} candidates uniform worlds the belief weighs
 * @property {number} alternativeCandidates of those, the ones the other models score
 * @property {number} minEss effective worlds the tempered weights keep
 * @property {number} minWorlds worlds per legal move at least
 * @property {number} margin points by which the search must prefer a move to the policy's
 * @property {number} playoutTemperature of the policy's moves in the rollouts
 */

/** A search level's fields in bot.json and the settings they give. */
const FIELDS = Object.freeze({
  search: 'rollouts',
  candidates: 'candidates',
  alternative_candidates: 'alternativeCandidates',
  min_ess: 'minEss',
  min_worlds: 'minWorlds',
  margin: 'margin',
  playout_temperature: 'playoutTemperature',
});

/**
 * A level's search settings, every one stated by the level (an older bundle's expert level,
 * without them, is refused: `murlan golden BUNDLE --upgrade` writes them). The level's
 * `arithmetic` is Python's speed setting: this search scores in float32 whatever it says.
 * @param {object} level a bot.json level with `search`
 * @returns {SearchSettings}
 */
export function searchSettings(level) {
  const missing = Object.keys(FIELDS).filter((k) => typeof level[k] !== 'number');
  if (missing.length) throw new Error(`the level does not state its search's ${missing.join(', ')} (upgrade the bundle: murlan golden BUNDLE_DIR --upgrade)`);
  const out = /** @type {any} */ ({ belief: Boolean(level.belief), models: [...(level.models ?? [])] });
  for (const [field, key] of Object.entries(FIELDS)) out[key] = level[field];
  return out;
}

/**
 * The rule of thumb's cost of each action (Python's `_PRIORITY` in search.py): roughly the
 * rank spent, longer combinations a little earlier, bombs and the joker pair last; the search
 * breaks ties between equal values by it (1e-6 points per unit, pass at 200).
 */
export const TIE_BREAK = (() => {
  const out = new Float64Array(ACTIONS.size);
  const kind = (name) => KINDS.indexOf(name);
  for (let a = 0; a < ACTIONS.size; a++) {
    let p = ACTIONS.key[a];
    const k = ACTIONS.kind[a];
    if (k === kind('straight')) p = Math.fround(ACTIONS.key[a] - 1.0 - 0.3 * ACTIONS.length[a]);
    else if (k === kind('pair')) p -= 0.5;
    else if (k === kind('triple')) p -= 1.0;
    else if (k === kind('quad')) p += 100.0;
    if (a === ACTIONS.jokerPair) p = 50.0;
    if (a === PASS) p = 200.0;
    out[a] = p * 1e-6;
  }
  return out;
})();

/**
 * The search's move from each legal move's mean points (Python's `SearchBot.search`): the
 * best value less the tie-break, unless the prior's move is within `margin` of the best.
 * @param {Float64Array} values (A) mean points, -Infinity where illegal
 * @param {number} prior the policy's move
 * @param {number} margin
 * @returns {number}
 */
export function chooseFromValues(values, prior, margin) {
  let best = -1;
  let bestScore = -Infinity;
  let top = -Infinity;
  for (let a = 0; a < values.length; a++) {
    if (values[a] === -Infinity) continue;
    top = Math.max(top, values[a]);
    const score = values[a] - TIE_BREAK[a];
    if (best < 0 || score > bestScore) {
      best = a;
      bestScore = score;
    }
  }
  return top > values[prior] + margin ? best : prior;
}

/**
 * The margin a search's move must beat the policy's by, given the worlds each legal move got:
 * the level's where the search played all `perMove` of them; where a time budget stopped it at
 * `seen`, the level's scaled by sqrt(perMove / seen) (the values' noise grows as fewer worlds
 * are averaged), and below the level's `minWorlds` the policy's move stands. A budgeted search
 * that moved on noise played worse than the policy alone (benchmarks/README.md).
 * @param {SearchSettings} settings
 * @param {number} perMove worlds a legal move gets in the level's search
 * @param {number} seen worlds each legal move got
 * @returns {number}
 */
export function budgetMargin(settings, perMove, seen) {
  if (seen >= perMove) return settings.margin;
  if (seen < settings.minWorlds) return Infinity;
  return settings.margin * Math.sqrt(perMove / seen);
}

/**
 * The policy as a seat model: its move drawn from softmax(scores / temperature) over the legal
 * moves with one uniform (Python's `SampledBot`; temperature 0: the argmax, no draw).
 * @param {import('./policy.js').PolicyNet} net
 * @param {any[]} pieces bot.json's observation pieces
 * @param {any[]} features the rules piece's entries
 * @param {number} temperature
 * @returns {import('./belief.js').SeatModel & {scores: (pos: any, legal: Int16Array, n: number, out: Float64Array) => Float64Array}}
 */
export function policyModel(net, pieces, features, temperature) {
  const scratch = policyScratch(net);
  const legal = new Int16Array(128);
  const scores = new Float64Array(128);
  const model = {
    name: 'policy',
    scores(pos, list, n, out) {
      const obs = encode(pieces, pos, features);
      return legalScores(net, hiddenOf(net, firstLayer(net, obs, scratch.first), scratch), list, n, out);
    },
    reset() {
      seen.fill(0);
    },
    act(g, words, rng) {
      let n = 0;
      for (let j = 0; j < ACTION_WORDS; j++) for (let x = words[j]; x !== 0; x &= x - 1) legal[n++] = 32 * j + (31 - Math.clz32(x & -x));
      // A seat's observation changes little between its turns in a hand: its first-layer sums
      // are updated by the entries that changed since its last turn (where `reset` was not
      // called since), not summed afresh.
      const seat = g.toAct;
      const obs = encode(pieces, positionOfState(g, view), features, fresh);
      const sums = firstSums[seat];
      if (seen[seat]) {
        const prev = lastObs[seat];
        const w = net.firstT;
        const nf = net.nFirst;
        for (let i = 0; i < obs.length; i++) {
          if (obs[i] === prev[i]) continue;
          const d = obs[i] - prev[i];
          const at = i * nf;
          for (let o = 0; o < nf; o++) sums[o] += w[at + o] * d;
        }
      } else {
        firstLayer(net, obs, sums);
        seen[seat] = 1;
      }
      lastObs[seat].set(obs);
      const acc = scratch.first;
      for (let o = 0; o < net.nFirst; o++) acc[o] = Math.fround(sums[o]);
      legalScores(net, hiddenOf(net, acc, scratch), legal, n, scores);
      return sampleLegal(scores, legal, n, temperature, temperature === 0 ? 0 : rng());
    },
  };
  const seen = new Uint8Array(N_SEATS);
  const view = positionOfState(null);
  const fresh = new Float32Array(net.nIn);
  const firstSums = Array.from({ length: N_SEATS }, () => new Float64Array(net.nFirst));
  const lastObs = Array.from({ length: N_SEATS }, () => new Float32Array(net.nIn));
  return model;
}

/**
 * Python's `sample_from_scores` over a list of legal actions in id order: the first whose
 * cumulative weight exp(s / T - top) exceeds u times the total; T 0: the first best.
 * @param {Float64Array} scores
 * @param {Int16Array} legal
 * @param {number} n
 * @param {number} temperature
 * @param {number} u
 * @returns {number}
 */
export function sampleLegal(scores, legal, n, temperature, u) {
  let top = -Infinity;
  let arg = 0;
  for (let k = 0; k < n; k++) {
    if (scores[k] > top) {
      top = scores[k];
      arg = k;
    }
  }
  if (temperature === 0) return legal[arg];
  let total = 0;
  for (let k = 0; k < n; k++) total += Math.exp(scores[k] / temperature - top / temperature);
  const pick = u * total;
  let cum = 0;
  for (let k = 0; k < n; k++) {
    cum += Math.exp(scores[k] / temperature - top / temperature);
    if (cum > pick) return legal[k];
  }
  return legal[n - 1];
}

/**
 * Play a hand out to its end from `g` (changed in place), the seat to act in each step by
 * `models[which[seat]]` where it has a choice (Python's `rollout_hand` with `seat_playouts`).
 * @param {State} g
 * @param {import('./belief.js').SeatModel[]} models
 * @param {ArrayLike<number>} which (4) model of each seat
 * @param {() => number} rng
 * @param {number[]} [moves] the actions played, appended
 * @returns {Int32Array} the hand's points per seat
 */
export function rollout(g, models, which, rng, moves) {
  const words = new Uint32Array(ACTION_WORDS);
  for (const m of models) m.reset?.();
  for (let steps = 0; g.phase === PLAY; steps++) {
    if (steps > 4 * 54 * N_SEATS) throw new Error('rollout did not finish the hand');
    legalActions(g, words);
    let n = 0;
    let only = PASS;
    for (let j = 0; j < ACTION_WORDS; j++) {
      for (let x = words[j]; x !== 0 && n < 2; x &= x - 1) {
        only = 32 * j + (31 - Math.clz32(x & -x));
        n += 1;
      }
    }
    const action = n > 1 ? models[which[g.toAct]].act(g, words, rng) : only;
    moves?.push(action);
    step(g, action);
  }
  return g.points;
}

/** @returns {number} milliseconds, from a monotonic clock where there is one */
const clock = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * A search over a bundle's policy at a level's settings.
 *
 * ```js
 * const search = new Search(bot, searchSettings(bot.manifest.levels.expert), { rule: ruleModel });
 * const { action, values } = search.search(bot.position(state), history, rng, { budgetMs: 300 });
 * ```
 */
export class Search {
  /**
   * @param {import('../bundle/bundle.js').MurlanBot} bot a bundle's bot on the plain runtime (`loadBot`
   *   without `ort`): the search runs its weights itself
   * @param {SearchSettings} settings
   * @param {Object<string, import('./belief.js').SeatModel>} [models] the seat models this
   *   client has, by the name a level gives them (e.g. `rule`); a level's model missing here
   *   is left out (`missingModels`): its seats are modelled by the policy alone
   */
  constructor(bot, settings, models = {}) {
    if (!bot.dense) throw new Error('the search runs the policy itself: load the bundle without onnxruntime (its weights.bin)');
    this.bot = bot;
    this.settings = settings;
    this.net = policyNet(bot.dense);
    this.policy = policyModel(this.net, bot.pieces, bot.features, settings.playoutTemperature);
    this.greedy = policyModel(this.net, bot.pieces, bot.features, 0);
    /** The level's models this client does not have (their seats: the policy). */
    this.missingModels = settings.models.filter((m) => !models[m]);
    /** @type {import('./belief.js').SeatModel[]} */
    this.alternatives = settings.models.filter((m) => models[m]).map((m) => models[m]);
  }

  /**
   * The policy's own move in a position (its argmax over the legal moves) and the legal moves.
   * @param {import('../game/observation.js').Position} pos a play (not the give-back)
   * @returns {{prior: number, legal: number[]}}
   */
  prior(pos) {
    const g = stateOfWorld(pos, uniformWorlds(pos, () => 0.5, 1));
    const words = legalActions(g, new Uint32Array(ACTION_WORDS));
    const legal = [];
    for (let j = 0; j < ACTION_WORDS; j++) for (let x = words[j]; x !== 0; x &= x - 1) legal.push(32 * j + (31 - Math.clz32(x & -x)));
    const scores = this.policy.scores(pos, Int16Array.from(legal), legal.length, new Float64Array(legal.length));
    return { prior: sampleLegal(scores, Int16Array.from(legal), legal.length, 0, 0), legal };
  }

  /**
   * The search's move in a play position.
   * @param {import('../game/observation.js').Position} pos the seat to act's view (`bot.position`)
   * @param {Array<[number, number]> | null} history this hand's moves so far as `[slot, action]`
   *   rows, slot 0 the seat to act (`handHistory`); null: worlds dealt uniformly
   * @param {() => number} rng the move's generator (`mulberry32(seed)`)
   * @param {object} [opts]
   * @param {number} [opts.rollouts] instead of the level's
   * @param {number} [opts.candidates] instead of the level's
   * @param {number} [opts.budgetMs] time budget for the move (module docstring)
   * @returns {{action: number, prior: number, values: Float64Array, worlds: number, candidates: number, which: Int32Array}}
   */
  search(pos, history, rng, { rollouts, candidates, budgetMs } = {}) {
    const start = clock();
    const deadline = budgetMs === undefined ? Infinity : start + budgetMs;
    const s = this.settings;
    const { prior, legal } = this.prior(pos);
    const values = new Float64Array(ACTIONS.size).fill(-Infinity);
    if (legal.length < 2) {
      values[prior] = NaN;
      return { action: prior, prior, values, worlds: 0, candidates: 0, which: new Int32Array(N_SEATS) };
    }
    const perMove = Math.max(s.minWorlds, Math.ceil((rollouts ?? s.rollouts) / legal.length));
    const models = [this.policy, ...this.alternatives];
    /** @type {Int32Array} */
    let which = new Int32Array(N_SEATS);
    let pool = null;
    let weights = null;
    let nPool = 0;
    if (s.belief && history && history.length >= 2) {
      const wanted = candidates ?? s.candidates;
      const worlds = uniformWorlds(pos, rng, wanted);
      /** @type {import('./belief.js').BeliefModel[]} */
      const models = [
        { kind: 'policy', net: this.net, pieces: this.bot.pieces, features: this.bot.features },
        ...this.alternatives.map((m) => /** @type {import('./belief.js').BeliefModel} */ ({ kind: 'bot', model: m })),
      ];
      // The policy scores the candidates in rounds until half the budget is spent; each
      // world's likelihood is its own, so the rounds give the values of one pass.
      const first = new Float64Array(wanted * N_SEATS);
      const size = N_SEATS * N_RANKS;
      do {
        const k = budgetMs === undefined ? wanted : Math.min(BELIEF_ROUND, wanted - nPool);
        const part = { pos, history, worlds: worlds.subarray(nPool * size, (nPool + k) * size), n: k };
        first.set(logLikelihoods(part, models[0]), nPool * N_SEATS);
        nPool += k;
      } while (nPool < wanted && clock() < start + (deadline - start) / 2);
      const ctx = { pos, history, worlds, n: nPool };
      const few = Math.max(1, Math.round((s.alternativeCandidates * nPool) / s.candidates));
      const { logLik, which: w } = worldLogLikelihoods(ctx, models, few, first.subarray(0, nPool * N_SEATS));
      which = w;
      pool = worlds;
      weights = temperedWeights(logLik, Math.min(s.minEss, nPool));
    }
    const totals = new Float64Array(ACTIONS.size);
    const g = new State(pos.rules);
    let seen = 0;
    const round = budgetMs === undefined ? perMove : Math.min(perMove, ROLLOUT_ROUND);
    do {
      const k = Math.min(round, perMove - seen);
      const held = pool ? pool : uniformWorlds(pos, rng, k);
      const picks = pool ? drawWorlds(weights, rng, k) : Int32Array.from({ length: k }, (_, i) => i);
      for (const a of legal) {
        for (let i = 0; i < k; i++) {
          stateOfWorld(pos, held, g, picks[i] * N_SEATS * N_RANKS);
          step(g, a);
          totals[a] += rollout(g, models, which, rng)[0];
        }
      }
      seen += k;
    } while (seen < perMove && clock() < deadline);
    for (const a of legal) values[a] = totals[a] / seen;
    return { action: chooseFromValues(values, prior, budgetMargin(s, perMove, seen)), prior, values, worlds: seen, candidates: nPool, which };
  }
}

/**
 * The hand so far as the search reads it, from a `murlan-record/1` record cut at the decision
 * (what a murlan-bot/1 move request carries, what `Game.record()` gives before a move): the
 * current hand's plays and passes in order as `[slot, action]` rows, slots counted from `seat`
 * (the seat to act: slot 0). The exchange's give-back is not a row (only its receiver sees
 * the card).
 * @param {{hands: Array<{plays: Array<[number, string]>}>}} record
 * @param {number} seat
 * @returns {Array<[number, number]>}
 */
export function handHistory(record, seat) {
  const hands = record?.hands;
  if (!Array.isArray(hands) || !hands.length) throw new Error('the record has no hand');
  return hands[hands.length - 1].plays.map(([who, play]) => {
    const counts = new Array(N_RANKS).fill(0);
    for (const c of parseCards(play)) counts[cardRank(c)] += 1;
    const action = play.trim() ? actionOfCounts(ACTIONS, counts) : PASS;
    if (action < 0) throw new Error(`the record's play ${JSON.stringify(play)} is no combination`);
    return /** @type {[number, number]} */ ([(who - seat + N_SEATS) % N_SEATS, action]);
  });
}
