/**
 * The worlds the search plays in and its belief over them (Python's murlan_env/bots/belief.py,
 * held to it by the search vectors, tests/search.test.js).
 *
 * A world gives every seat a hand as cards per rank: `held[slot * 15 + r]`, slot 0 the seat to
 * act (its own hand), slots 1-3 the others with the cards it cannot see dealt among them, each
 * as many as it holds. `stateOfWorld` rebuilds an engine state of the current hand from a
 * position and a world, the seat to act at seat 0 (seats are the position's slots). The
 * belief replays the hand so far (`history`: `[slot, action]` rows) in every candidate world
 * and scores each other seat's moves under each model (`logLikelihoods`), gives each seat the
 * model that explains it best (`bestModels`) and weighs the worlds by their likelihood
 * tempered to keep `minEss` effective worlds (`temperedWeights`). The draws (uniform deals,
 * worlds by weight) use the search's seeded generator, not numpy's.
 * @module
 */

import { ACTION_WORDS, popcount } from '../game/bitsets.js';
import { N_RANKS, N_SEATS, RANK_SIZE, cardRank } from '../game/cards.js';
import { PASS, PLAY, State, legalActions, step } from '../game/engine.js';
import { encode } from '../game/observation.js';
import { BATCH, batchScratch, firstLayer, firstLayerTables, hiddenBatch, legalScores } from './policy.js';

const W = N_SEATS * N_RANKS;

/**
 * The card sets (8 words) of per-rank counts (60): for each rank, seat 0 takes its lowest
 * suits, then seat 1 ... (Python's `_cards_from_counts`).
 * @param {ArrayLike<number>} held (60)
 * @param {Uint32Array} out (8)
 * @param {number} [at] offset of the world in `held`
 * @returns {Uint32Array}
 */
export function cardsOfCounts(held, out, at = 0) {
  out.fill(0);
  for (let r = 0; r < 13; r++) {
    let suit = 0;
    for (let s = 0; s < N_SEATS; s++) {
      for (let k = held[at + s * N_RANKS + r]; k > 0; k--, suit++) {
        const c = 4 * r + suit;
        if (c < 32) out[2 * s] |= 1 << c;
        else out[2 * s + 1] |= 1 << (c - 32);
      }
    }
  }
  for (let s = 0; s < N_SEATS; s++) {
    if (held[at + s * N_RANKS + 13] > 0) out[2 * s + 1] |= 1 << 20;
    if (held[at + s * N_RANKS + 14] > 0) out[2 * s + 1] |= 1 << 21;
  }
  return out;
}

/**
 * Copy every field of `src` into `dst` (same rules), allocating nothing.
 * @param {State} dst
 * @param {State} src
 */
export function copyState(dst, src) {
  for (const key of Object.keys(src)) {
    const value = src[key];
    if (ArrayBuffer.isView(value)) /** @type {any} */ (dst[key]).set(/** @type {any} */ (value));
    else if (key !== 'rules' && key !== 'tables') dst[key] = value;
  }
}

/**
 * The engine state of a position with the hidden hands of a world (Python's
 * `state_from_observation`): the seat to act at seat 0 and to act; what a position does not
 * carry (dealer, hand number, this hand's exchange) at neutral values that do not change how
 * the hand plays on.
 * @param {import('../game/observation.js').Position} pos
 * @param {ArrayLike<number>} held (60) a world
 * @param {State} [g] a state to fill (its rules must be the position's)
 * @param {number} [at] offset of the world in `held`
 * @returns {State}
 */
export function stateOfWorld(pos, held, g = new State(pos.rules), at = 0) {
  cardsOfCounts(held, g.hands, at);
  g.deal.set(g.hands);
  for (let s = 0; s < N_SEATS; s++) {
    for (let r = 0; r < N_RANKS; r++) g.played[s * N_RANKS + r] = pos.played[s][r];
    g.passed[s] = pos.passed[s] ? 1 : 0;
    g.place[s] = pos.places[s];
    g.scores[s] = pos.scores[s];
  }
  g.points.fill(0);
  g.winners.fill(0);
  g.lastCards.fill(0);
  g.phase = PLAY;
  g.toAct = 0;
  g.table = pos.table;
  g.tableSeat = pos.table === PASS ? -1 : pos.tableSlot;
  g.startDuty = pos.startDuty;
  g.handNo = pos.startDuty ? 0 : 1;
  g.dealer = N_SEATS - 1;
  g.target = pos.target;
  g.exLast = -1;
  g.exFirst = -1;
  g.exLastGives = -1;
  g.exFirstGives = -1;
  g.lastSeat = -1;
  g.lastAction = -1;
  return g;
}

/**
 * What the seat to act of an engine state sees, as the encoder reads it (the numeric twin of
 * game.js `position`); this hand's exchange is left out, as the rebuilt states carry none.
 * `into`: a position this returned before, filled again in place (a search reads thousands a
 * move); `g` null: a blank one to fill.
 * @param {State | null} g
 * @param {import('../game/observation.js').Position} [into]
 * @returns {import('../game/observation.js').Position}
 */
export function positionOfState(g, into) {
  const pos = into ?? {
    hand: [],
    played: [0, 1, 2, 3].map(() => new Array(N_RANKS).fill(0)),
    cardsLeft: [0, 0, 0, 0],
    table: PASS,
    tableSlot: -1,
    passed: [false, false, false, false],
    places: [-1, -1, -1, -1],
    scores: [0, 0, 0, 0],
    target: 21,
    exchange: false,
    startDuty: false,
    received: -1,
    gave: -1,
    rules: {},
  };
  if (!g) return pos;
  const me = g.toAct;
  pos.hand.length = 0;
  for (let x = g.hands[2 * me]; x !== 0; x &= x - 1) pos.hand.push(31 - Math.clz32(x & -x));
  for (let x = g.hands[2 * me + 1]; x !== 0; x &= x - 1) pos.hand.push(32 + (31 - Math.clz32(x & -x)));
  for (let k = 0; k < N_SEATS; k++) {
    const s = (me + k) % N_SEATS;
    for (let r = 0; r < N_RANKS; r++) pos.played[k][r] = g.played[s * N_RANKS + r];
    pos.cardsLeft[k] = popcount(g.hands[2 * s]) + popcount(g.hands[2 * s + 1]);
    pos.passed[k] = g.passed[s] === 1;
    pos.places[k] = g.place[s];
    pos.scores[k] = g.scores[s];
  }
  pos.table = g.table;
  pos.tableSlot = g.table === PASS ? -1 : (g.tableSeat - me + N_SEATS) % N_SEATS;
  pos.target = g.target;
  pos.startDuty = g.startDuty;
  pos.rules = g.rules;
  return pos;
}

/**
 * `n` worlds dealt uniformly (Python's `sample_hidden_hands` without facts): slot 0 the
 * position's hand, the unseen cards shuffled (Fisher-Yates, `rng`) and dealt to slots 1-3 in
 * turn, each as many as it holds.
 * @param {import('../game/observation.js').Position} pos
 * @param {() => number} rng
 * @param {number} n
 * @returns {Int8Array} (n * 60)
 */
export function uniformWorlds(pos, rng, n) {
  const mine = new Array(N_RANKS).fill(0);
  for (const c of pos.hand) mine[cardRank(c)] += 1;
  const tokens = [];
  for (let r = 0; r < N_RANKS; r++) {
    let left = RANK_SIZE[r] - mine[r];
    for (let s = 0; s < N_SEATS; s++) left -= pos.played[s][r];
    for (let k = 0; k < left; k++) tokens.push(r);
  }
  const others = pos.cardsLeft[1] + pos.cardsLeft[2] + pos.cardsLeft[3];
  if (tokens.length !== others) throw new Error(`${tokens.length} unseen cards but the others hold ${others}`);
  const out = new Int8Array(n * W);
  const deck = Int8Array.from(tokens);
  for (let w = 0; w < n; w++) {
    for (let i = deck.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      const t = deck[i];
      deck[i] = deck[j];
      deck[j] = t;
    }
    const at = w * W;
    for (let r = 0; r < N_RANKS; r++) out[at + r] = mine[r];
    let k = 0;
    for (let s = 1; s < N_SEATS; s++) for (let m = 0; m < pos.cardsLeft[s]; m++) out[at + s * N_RANKS + deck[k++]] += 1;
  }
  return out;
}

/**
 * @typedef {object} SeatModel how the search models a seat (the policy or another bot)
 * @property {string} name
 * @property {(g: State, legal: Uint32Array, rng: () => number) => number} act the seat to
 *   act's move in a rollout (`legal`: its legal actions, more than one); a model that draws
 *   takes one uniform from `rng`
 * @property {(g: State, action: number) => number} [logProb] log-probability of the seat to
 *   act's `action` (more than one legal); the policy has a batched path of its own instead
 * @property {() => void} [reset] called as a rollout starts (a model that keeps what it saw
 *   within one hand forgets it)
 */

/**
 * @typedef {{kind: 'policy', net: import('./policy.js').PolicyNet, pieces: any[], features: any[]} | {kind: 'bot', model: SeatModel}} BeliefModel
 * a model the belief scores moves by: the policy (batched passes) or another seat model
 */

/**
 * (n * 4) float64 log-probability of each slot's moves so far this hand in each of `n` worlds
 * (Python's `log_likelihoods` for one game): each world's hands at the hand's start (held now
 * plus played) are played through `history`, and every move of slots 1-3 after the first
 * where the seat had a choice is scored by the model (softmax over its legal moves); slot 0's
 * column stays 0.
 * @param {object} ctx
 * @param {import('../game/observation.js').Position} ctx.pos
 * @param {Array<ArrayLike<number>>} ctx.history `[slot, action]` rows
 * @param {Int8Array} ctx.worlds (>= n * 60)
 * @param {number} ctx.n
 * @param {BeliefModel} model
 * @returns {Float64Array}
 */
export function logLikelihoods({ pos, history, worlds, n }, model) {
  const out = new Float64Array(n * N_SEATS);
  if (history.length < 2) return out;
  // The public replay: world 0's start hands stepped through the history. Every world has the
  // same public facts at each step (the moves, who is out); only the hidden hands differ.
  const start = new Int8Array(W);
  for (let i = 0; i < W; i++) start[i] = worlds[i] + pos.played[Math.floor(i / N_RANKS)][i % N_RANKS];
  const g = new State(pos.rules);
  cardsOfCounts(start, g.hands);
  g.deal.set(g.hands);
  g.scores.set(pos.scores);
  g.target = pos.target;
  g.handNo = 1;
  g.dealer = N_SEATS - 1;
  g.toAct = history[0][0];
  const trial = new State(pos.rules);
  const words = new Uint32Array(ACTION_WORDS);
  const legal = new Int16Array(128);
  const scores = new Float64Array(128);
  const hand = new Int8Array(N_RANKS);
  const playedAll = new Int8Array(N_RANKS);
  const policy = model.kind === 'policy' ? model : null;
  const batch = policy ? batchScratch(policy.net) : null;
  const batchSums = policy ? new Float64Array(BATCH * policy.net.nFirst) : null;
  const batchLegal = new Int16Array(BATCH * 128);
  const batchN = new Int32Array(BATCH);
  const batchPick = new Int32Array(BATCH);
  const batchWorld = new Int32Array(BATCH);
  /** @type {Map<number, number>} the first world of each hand the seat may hold then */
  const firstWorld = new Map();
  /** @type {number[]} pairs (world, the earlier world with the same hand) */
  const copies = [];
  const added = new Float64Array(n);
  const tables = policy ? new Float64Array(N_RANKS * 5 * policy.net.nFirst) : null;
  const shared = policy ? new Float64Array(policy.net.nFirst) : null;
  const at = policy ? Object.fromEntries(policy.pieces.map((p) => [p.name, p.offset])) : null;
  for (let t = 0; t < history.length; t++) {
    const slot = history[t][0];
    const action = history[t][1];
    if (g.toAct !== slot || g.phase !== PLAY) throw new Error(`move ${t} of the history does not fit the position`);
    if (t > 0 && slot > 0) {
      firstWorld.clear();
      copies.length = 0;
      if (policy) {
        const view = positionOfState(g);
        const obs = encode(policy.pieces, view, policy.features);
        obs.fill(0, at.my_hand, at.my_hand + 4 * N_RANKS);
        obs.fill(0, at.unseen, at.unseen + 4 * N_RANKS);
        firstLayer(policy.net, obs, shared);
        for (let r = 0; r < N_RANKS; r++) {
          playedAll[r] = 0;
          for (let s = 0; s < N_SEATS; s++) playedAll[r] += g.played[s * N_RANKS + r];
        }
        firstLayerTables(policy.net, at, playedAll, tables);
      } else {
        copyState(trial, g);
      }
      let queued = 0;
      const flush = () => {
        const width = policy.net.middle.length ? policy.net.middle[policy.net.middle.length - 1].nOut : policy.net.nFirst;
        const hidden = hiddenBatch(policy.net, batchSums, queued, batch);
        for (let b = 0; b < queued; b++) {
          const list = batchLegal.subarray(b * 128, b * 128 + batchN[b]);
          legalScores(policy.net, hidden.subarray(b * width, (b + 1) * width), list, batchN[b], scores);
          added[batchWorld[b]] = logSoftmaxAt(scores, batchN[b], batchPick[b]);
          out[batchWorld[b] * N_SEATS + slot] += added[batchWorld[b]];
        }
        queued = 0;
      };
      for (let w = 0; w < n; w++) {
        // The seat's hand then: held now plus what it played since.
        const base = w * W + slot * N_RANKS;
        for (let r = 0; r < N_RANKS; r++) hand[r] = worlds[base + r] + pos.played[slot][r] - g.played[slot * N_RANKS + r];
        if (policy) {
          cardsOfCounts1(hand, trial.hands, slot);
          trial.phase = PLAY;
          trial.toAct = slot;
          trial.table = g.table;
          trial.startDuty = false;
          legalActions(trial, words);
        } else {
          for (let s = 0; s < N_SEATS; s++) {
            const b = w * W + s * N_RANKS;
            for (let r = 0; r < N_RANKS; r++) hand[r] = worlds[b + r] + pos.played[s][r] - g.played[s * N_RANKS + r];
            cardsOfCounts1(hand, trial.hands, s);
          }
          legalActions(trial, words);
        }
        let nLegal = 0;
        let pick = -1;
        for (let j = 0; j < ACTION_WORDS; j++) {
          for (let x = words[j]; x !== 0; x &= x - 1) {
            const a = 32 * j + (31 - Math.clz32(x & -x));
            if (a === action) pick = nLegal;
            legal[nLegal++] = a;
          }
        }
        if (pick < 0) throw new Error(`move ${t} of the history is not legal in world ${w}`);
        if (nLegal < 2) continue;
        // Worlds where the seat held the same cards then see the same: scored once.
        let key = 0;
        for (let r = 0; r < N_RANKS; r++) key = key * 5 + hand[r];
        const same = policy ? firstWorld.get(key) : undefined;
        if (same !== undefined) {
          copies.push(w, same);
          continue;
        }
        if (policy) firstWorld.set(key, w);
        if (!policy) {
          out[w * N_SEATS + slot] += /** @type {any} */ (model).model.logProb(trial, action);
          continue;
        }
        const nf = policy.net.nFirst;
        const acc = batchSums.subarray(queued * nf, (queued + 1) * nf);
        for (let o = 0; o < nf; o++) acc[o] = shared[o];
        for (let r = 0; r < N_RANKS; r++) {
          const row = (r * 5 + hand[r]) * nf;
          for (let o = 0; o < nf; o++) acc[o] += tables[row + o];
        }
        for (let o = 0; o < nf; o++) acc[o] = Math.fround(acc[o]);
        batchLegal.set(legal.subarray(0, nLegal), queued * 128);
        batchN[queued] = nLegal;
        batchPick[queued] = pick;
        batchWorld[queued] = w;
        queued += 1;
        if (queued === BATCH) flush();
      }
      if (policy && queued) flush();
      for (let k = 0; k < copies.length; k += 2) out[copies[k] * N_SEATS + slot] += added[copies[k + 1]];
    }
    step(g, action);
  }
  return out;
}

/**
 * One seat's card set from its per-rank counts (its lowest suits), into `hands`.
 * @param {ArrayLike<number>} counts (15)
 * @param {Uint32Array} hands (8)
 * @param {number} s
 */
function cardsOfCounts1(counts, hands, s) {
  let lo = 0;
  let hi = 0;
  for (let r = 0; r < 13; r++) {
    const bits = (1 << counts[r]) - 1;
    if (r < 8) lo |= bits << (4 * r);
    else hi |= bits << (4 * (r - 8));
  }
  if (counts[13] > 0) hi |= 1 << 20;
  if (counts[14] > 0) hi |= 1 << 21;
  hands[2 * s] = lo >>> 0;
  hands[2 * s + 1] = hi >>> 0;
}

/**
 * log softmax of `scores[0..n)` at `k` (Python's `legal_log_probs`).
 * @param {Float64Array} scores
 * @param {number} n
 * @param {number} k
 * @returns {number}
 */
export function logSoftmaxAt(scores, n, k) {
  let top = -Infinity;
  for (let i = 0; i < n; i++) if (scores[i] > top) top = scores[i];
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(scores[i] - top);
  return scores[k] - top - Math.log(sum);
}

/**
 * For each slot the index of the model that explains its moves best (Python's `best_models`):
 * `logLiks[m]` is model m's (n * 4) log-likelihoods in the same n worlds; a model's evidence
 * is the log of the mean likelihood over the worlds; the first model wins ties.
 * @param {Float64Array[]} logLiks
 * @param {number} n
 * @returns {Int32Array} (4)
 */
export function bestModels(logLiks, n) {
  const out = new Int32Array(N_SEATS);
  for (let s = 0; s < N_SEATS; s++) {
    let best = -Infinity;
    logLiks.forEach((ll, m) => {
      let top = -Infinity;
      for (let w = 0; w < n; w++) top = Math.max(top, ll[w * N_SEATS + s]);
      let sum = 0;
      for (let w = 0; w < n; w++) sum += Math.exp(ll[w * N_SEATS + s] - top);
      const evidence = top + Math.log(sum / n);
      if (evidence > best) {
        best = evidence;
        out[s] = m;
      }
    });
  }
  return out;
}

/**
 * Weights proportional to exp(beta * logLik), summing to 1 (-Infinity: weight 0).
 * @param {Float64Array} logLik
 * @param {number} beta
 * @param {Float64Array} [out]
 * @returns {Float64Array}
 */
function weightsAt(logLik, beta, out = new Float64Array(logLik.length)) {
  let top = -Infinity;
  for (const x of logLik) if (Number.isFinite(x) && x > top) top = x;
  let sum = 0;
  for (let i = 0; i < logLik.length; i++) {
    out[i] = Number.isFinite(logLik[i]) ? Math.exp(beta * (logLik[i] - top)) : 0;
    sum += out[i];
  }
  for (let i = 0; i < out.length; i++) out[i] /= sum;
  return out;
}

/**
 * The largest beta in [0, 1] whose weights keep an effective sample size 1 / sum(w^2) of at
 * least `minEss` (Python's `tempering`: 1 when the plain likelihoods keep that many, else 30
 * halvings).
 * @param {Float64Array} logLik
 * @param {number} minEss
 * @returns {number}
 */
export function tempering(logLik, minEss) {
  const buf = new Float64Array(logLik.length);
  const ess = (beta) => {
    weightsAt(logLik, beta, buf);
    let s = 0;
    for (const w of buf) s += w * w;
    return 1 / s;
  };
  if (ess(1) >= minEss) return 1;
  let low = 0;
  let high = 1;
  for (let i = 0; i < 30; i++) {
    const mid = (low + high) / 2;
    if (ess(mid) >= minEss) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * Weights proportional to exp(beta * logLik) with beta `tempering(logLik, minEss)`.
 * @param {Float64Array} logLik
 * @param {number} minEss
 * @returns {Float64Array}
 */
export function temperedWeights(logLik, minEss) {
  return weightsAt(logLik, tempering(logLik, minEss));
}

/**
 * Each world's log-likelihood of the others' moves and each slot's model (Python's
 * `world_log_likelihoods` for one game): every slot is scored under every model (models after
 * the first on the first `few` worlds only) and takes the one that explains it best; a
 * world's log-likelihood sums its slots under their models; where a slot takes another model
 * than the first, the worlds past `few` are left out (-Infinity).
 * @param {object} ctx as `logLikelihoods`'s
 * @param {Array<Parameters<typeof logLikelihoods>[1]>} models
 * @param {number} few
 * @param {Float64Array} [first] the first model's log-likelihoods (n * 4), when known
 * @returns {{logLik: Float64Array, which: Int32Array, perModel: Float64Array[]}}
 */
export function worldLogLikelihoods(ctx, models, few, first) {
  const n = ctx.n;
  few = Math.min(few, n);
  first ??= logLikelihoods(ctx, models[0]);
  const others = models.slice(1).map((m) => logLikelihoods({ ...ctx, n: few }, m));
  const which = bestModels([first.subarray(0, few * N_SEATS), ...others], few);
  const logLik = new Float64Array(n);
  const all = [first, ...others];
  const any = which.some((m) => m !== 0);
  for (let w = 0; w < n; w++) {
    if (any && w >= few) {
      logLik[w] = -Infinity;
      continue;
    }
    let sum = 0;
    for (let s = 0; s < N_SEATS; s++) sum += all[any ? which[s] : 0][w * N_SEATS + s];
    logLik[w] = sum;
  }
  return { logLik, which, perModel: all };
}

/**
 * `n` world indices drawn with replacement by `weights` (inverse CDF, `rng`).
 * @param {Float64Array} weights
 * @param {() => number} rng
 * @param {number} n
 * @returns {Int32Array}
 */
export function drawWorlds(weights, rng, n) {
  const cum = new Float64Array(weights.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) cum[i] = total += weights[i];
  const out = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const u = rng() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    out[k] = lo;
  }
  return out;
}

