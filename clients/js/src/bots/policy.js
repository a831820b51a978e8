/**
 * The policy as the search uses it: the bundle's dense layers (bundle/plain_weights.js) laid
 * out for many forward passes, sparse inputs and only the legal actions' scores.
 *
 * A search runs the policy tens of thousands of times a move: in its rollouts (every seat's
 * move, sampled from softmax(scores / temperature)) and in its belief (every other seat's past
 * moves, replayed in each candidate world). The values are those of `denseScores` up to the
 * order of float64 sums (each layer's outputs rounded to float32 as there): the first and
 * middle layers are kept transposed, so a nonzero input adds one contiguous column, and the
 * last layer scores only the actions asked for. For the belief, the observation of a past
 * decision differs between worlds only in the pieces that follow the acting seat's hand
 * (`my_hand` and `unseen`): `firstLayerTables` sums the first layer over the shared pieces once
 * per decision and tabulates each rank's count, so a world costs 15 column sums there.
 * @module
 */

import { N_RANKS, RANK_SIZE } from '../game/cards.js';
import { THERMO } from '../game/observation.js';

/**
 * @typedef {object} PolicyNet
 * @property {number} nIn
 * @property {number} nFirst outputs of the first layer
 * @property {number} nHidden inputs of the last layer
 * @property {Float32Array} firstT (nIn * nFirst) first layer, transposed
 * @property {Float32Array} firstBias
 * @property {Array<{weightT: Float32Array, bias: Float32Array, nIn: number, nOut: number}>} middle
 * @property {Float32Array} last (A * nHidden) last layer, row-major
 * @property {Float32Array} lastBias
 */

/**
 * Lay out a dense model (bundle/plain_weights.js `denseModel`) for the search.
 * @param {import('../bundle/plain_weights.js').DenseModel} dense
 * @returns {PolicyNet}
 */
export function policyNet(dense) {
  const layers = dense.layers;
  if (layers.length < 2 || !layers.slice(0, -1).every((l) => l.relu) || layers[layers.length - 1].relu) {
    throw new Error('the search reads a policy of ReLU layers and a linear last layer');
  }
  const transpose = (l) => {
    const out = new Float32Array(l.nIn * l.nOut);
    for (let o = 0; o < l.nOut; o++) for (let i = 0; i < l.nIn; i++) out[i * l.nOut + o] = l.weight[o * l.nIn + i];
    return out;
  };
  const [first, ...rest] = layers;
  const last = rest.pop();
  return {
    nIn: first.nIn,
    nFirst: first.nOut,
    nHidden: last.nIn,
    firstT: transpose(first),
    firstBias: first.bias,
    middle: rest.map((l) => ({ weightT: transpose(l), bias: l.bias, nIn: l.nIn, nOut: l.nOut })),
    last: last.weight,
    lastBias: last.bias,
  };
}

/**
 * Scratch buffers for one caller's forward passes (a search keeps one).
 * @param {PolicyNet} net
 */
export function policyScratch(net) {
  const widest = Math.max(net.nFirst, ...net.middle.map((l) => l.nOut));
  return { acc: new Float64Array(widest), a: new Float32Array(widest), b: new Float32Array(widest), first: new Float64Array(net.nFirst), active: new Int32Array(widest) };
}

const ACTIVE = new Int32Array(4096);

/**
 * The first layer's sums (bias included, before rounding) of an observation into `acc`.
 * @param {PolicyNet} net
 * @param {Float32Array} obs
 * @param {Float64Array} acc (nFirst)
 * @returns {Float64Array}
 */
export function firstLayer(net, obs, acc) {
  const n = net.nFirst;
  const w = net.firstT;
  for (let o = 0; o < n; o++) acc[o] = net.firstBias[o];
  accumulate(w, n, obs, 0, obs.length, acc, 0, ACTIVE);
  return acc;
}

/**
 * From the first layer's sums to the last layer's input: ReLU and float32 rounding, then the
 * middle layers. Returns a buffer of `scratch`.
 * @param {PolicyNet} net
 * @param {Float64Array} firstSums (nFirst)
 * @param {ReturnType<typeof policyScratch>} scratch
 * @returns {Float32Array}
 */
export function hiddenOf(net, firstSums, scratch) {
  let x = scratch.a;
  let y = scratch.b;
  for (let o = 0; o < net.nFirst; o++) x[o] = firstSums[o] > 0 ? firstSums[o] : 0;
  for (const { weightT, bias, nIn, nOut } of net.middle) {
    const acc = scratch.acc;
    for (let o = 0; o < nOut; o++) acc[o] = bias[o];
    accumulate(weightT, nOut, x, 0, nIn, acc, 0, scratch.active);
    for (let o = 0; o < nOut; o++) y[o] = acc[o] > 0 ? acc[o] : 0;
    [x, y] = [y, x];
  }
  return x;
}

/**
 * acc[accAt + o] += sum over i of weightT[i * nOut + o] * x[xAt + i], for the nonzero inputs,
 * eight inputs a pass over the outputs (a CPU's loads and stores of `acc` are what costs).
 * @param {Float32Array} weightT (nIn * nOut)
 * @param {number} nOut
 * @param {Float32Array} x
 * @param {number} xAt
 * @param {number} nIn
 * @param {Float64Array} acc
 * @param {number} accAt
 * @param {Int32Array} active (nIn) scratch
 */
function accumulate(weightT, nOut, x, xAt, nIn, acc, accAt, active) {
  let m = 0;
  for (let i = 0; i < nIn; i++) if (x[xAt + i] !== 0) active[m++] = i;
  let k = 0;
  for (; k + 8 <= m; k += 8) {
    const v0 = x[xAt + active[k]];
    const v1 = x[xAt + active[k + 1]];
    const v2 = x[xAt + active[k + 2]];
    const v3 = x[xAt + active[k + 3]];
    const v4 = x[xAt + active[k + 4]];
    const v5 = x[xAt + active[k + 5]];
    const v6 = x[xAt + active[k + 6]];
    const v7 = x[xAt + active[k + 7]];
    const a0 = active[k] * nOut;
    const a1 = active[k + 1] * nOut;
    const a2 = active[k + 2] * nOut;
    const a3 = active[k + 3] * nOut;
    const a4 = active[k + 4] * nOut;
    const a5 = active[k + 5] * nOut;
    const a6 = active[k + 6] * nOut;
    const a7 = active[k + 7] * nOut;
    for (let o = 0; o < nOut; o++) {
      acc[accAt + o] +=
        weightT[a0 + o] * v0 + weightT[a1 + o] * v1 + weightT[a2 + o] * v2 + weightT[a3 + o] * v3 +
        weightT[a4 + o] * v4 + weightT[a5 + o] * v5 + weightT[a6 + o] * v6 + weightT[a7 + o] * v7;
    }
  }
  for (; k < m; k++) {
    const i = active[k];
    const v = x[xAt + i];
    const a = i * nOut;
    for (let o = 0; o < nOut; o++) acc[accAt + o] += weightT[a + o] * v;
  }
}

/**
 * The scores (float32 values, as float64) of the actions `legal[0..n)` into `out[0..n)`.
 * @param {PolicyNet} net
 * @param {Float32Array} hidden
 * @param {Int16Array | number[]} legal
 * @param {number} n
 * @param {Float64Array} out
 * @returns {Float64Array}
 */
export function legalScores(net, hidden, legal, n, out) {
  const h = net.nHidden;
  for (let k = 0; k < n; k++) {
    const a = legal[k];
    const at = a * h;
    let sum = net.lastBias[a];
    for (let i = 0; i < h; i++) {
      const v = hidden[i];
      if (v !== 0) sum += net.last[at + i] * v;
    }
    out[k] = Math.fround(sum);
  }
  return out;
}

/**
 * First-layer tables of one past decision (see the module docstring): for rank r and a count
 * c the acting seat may hold, `table[(r * 5 + c) * nFirst + o]` is the first layer's sum over
 * `my_hand`'s and `unseen`'s entries of rank r when it holds c (unseen: the cards of rank r
 * neither played by then nor held).
 * @param {PolicyNet} net
 * @param {{my_hand: number, unseen: number}} at the two pieces' offsets
 * @param {ArrayLike<number>} playedAll (15) cards of each rank played by every seat by then
 * @param {Float64Array} table (15 * 5 * nFirst)
 * @returns {Float64Array}
 */
export function firstLayerTables(net, at, playedAll, table) {
  const n = net.nFirst;
  const w = net.firstT;
  table.fill(0);
  for (let r = 0; r < N_RANKS; r++) {
    const avail = RANK_SIZE[r] - playedAll[r];
    for (let c = 0; c <= avail; c++) {
      const row = (r * 5 + c) * n;
      const mine = Math.min(c, THERMO);
      const unseen = Math.min(avail - c, THERMO);
      for (let k = 0; k < mine; k++) {
        const col = (at.my_hand + THERMO * r + k) * n;
        for (let o = 0; o < n; o++) table[row + o] += w[col + o];
      }
      for (let k = 0; k < unseen; k++) {
        const col = (at.unseen + THERMO * r + k) * n;
        for (let o = 0; o < n; o++) table[row + o] += w[col + o];
      }
    }
  }
  return table;
}

/** Worlds a batched pass runs together: each weight column read serves this many. */
export const BATCH = 16;

/**
 * Scratch buffers for batched passes of up to `BATCH` inputs.
 * @param {PolicyNet} net
 */
export function batchScratch(net) {
  const widest = Math.max(net.nFirst, ...net.middle.map((l) => l.nOut));
  return { x: new Float32Array(BATCH * widest), y: new Float32Array(BATCH * widest), acc: new Float64Array(BATCH * widest), active: new Int32Array(widest) };
}

/**
 * `hiddenOf` for `n` (<= BATCH) inputs at once: `firstSums` holds their first-layer sums
 * (row b at b * nFirst); returns the last layer's inputs, row b at b * width, in a buffer of
 * `scratch` (width: the last middle layer's outputs, or nFirst). Each weight column is read
 * once for the whole batch, which is what a pass costs on a CPU; the sums are those of
 * `hiddenOf`, row by row, in the same order.
 * @param {PolicyNet} net
 * @param {Float64Array} firstSums
 * @param {number} n
 * @param {ReturnType<typeof batchScratch>} scratch
 * @returns {Float32Array}
 */
export function hiddenBatch(net, firstSums, n, scratch) {
  let x = scratch.x;
  let y = scratch.y;
  let width = net.nFirst;
  for (let k = 0; k < n * width; k++) x[k] = firstSums[k] > 0 ? firstSums[k] : 0;
  for (const { weightT, bias, nIn, nOut } of net.middle) {
    const acc = scratch.acc;
    for (let b = 0; b < n; b++) for (let o = 0; o < nOut; o++) acc[b * nOut + o] = bias[o];
    for (let b = 0; b < n; b++) accumulate(weightT, nOut, x, b * nIn, nIn, acc, b * nOut, scratch.active);
    for (let k = 0; k < n * nOut; k++) y[k] = acc[k] > 0 ? acc[k] : 0;
    [x, y] = [y, x];
    width = nOut;
  }
  return x;
}
