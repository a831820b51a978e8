// The expert search held to Python's where it is deterministic, by the search vectors Python
// writes (`murlan conformance search`, tests/make-vectors.sh): at positions from real play, the
// hand so far read from the record, each model's log-likelihoods, the slots' models and the
// tempered weights for fixed candidate worlds; the moves and points of rollouts for fixed
// worlds, first moves, models and uniforms.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadBot } from '../src/bundle/bundle.js';
import { mulberry32 } from '../src/bots/levels.js';
import { step } from '../src/game/engine.js';
import { Search, budgetMargin, handHistory, policyModel, rollout, searchSettings } from '../src/bots/search.js';
import { policyNet } from '../src/bots/policy.js';
import { logLikelihoods, stateOfWorld, temperedWeights, worldLogLikelihoods } from '../src/bots/belief.js';
import { ruleModel } from '../src/bots/models.js';
import { POLICIES, VECTORS, readJsonFile } from './helpers.js';

const vectors = readJsonFile(join(VECTORS, 'search.json'));
const bot = await loadBot(join(POLICIES, vectors.bundle));
const net = policyNet(bot.dense);
const policy = { kind: 'policy', net, pieces: bot.pieces, features: bot.features };
// Float32 sums in another order than onnxruntime's: log-probabilities agree to this much.
const TOLERANCE = 1e-3;

const flat = (worlds) => Int8Array.from(worlds.flat(2));

test('the hand so far is read from the record a move request carries', () => {
  for (const p of vectors.positions) {
    assert.deepEqual(handHistory(p.record, p.state.seat), p.history);
  }
});

test("the policy's log-likelihoods of the others' moves match Python's in fixed worlds", () => {
  let checked = 0;
  for (const p of vectors.positions) {
    const pos = bot.position(p.state);
    const worlds = flat(p.worlds);
    const ll = logLikelihoods({ pos, history: p.history, worlds, n: p.worlds.length }, policy);
    const want = p.log_likelihoods[0].flat();
    assert.equal(ll.length, want.length);
    for (let i = 0; i < want.length; i++) {
      assert.ok(Math.abs(ll[i] - want[i]) <= TOLERANCE * Math.max(1, Math.abs(want[i])), `${ll[i]} vs ${want[i]}`);
      if (want[i] !== 0) checked += 1;
    }
  }
  assert.ok(checked > 100, `only ${checked} nonzero log-likelihoods compared`);
});

test('the tempered weights of Python\'s world log-likelihoods match, and the policy-only models', () => {
  for (const p of vectors.positions) {
    const ll = Float64Array.from(p.world_log_likelihood, (x) => (x === null ? -Infinity : x));
    const w = temperedWeights(ll, vectors.min_ess);
    p.weights.forEach((x, i) => assert.ok(Math.abs(w[i] - x) < 1e-9, `${w[i]} vs ${x}`));
    // With the policy as the only model, every slot takes it and a world sums its slots.
    const pos = bot.position(p.state);
    const ctx = { pos, history: p.history, worlds: flat(p.worlds), n: p.worlds.length };
    const { logLik, which } = worldLogLikelihoods(ctx, [policy], vectors.alternative_candidates);
    assert.deepEqual(Array.from(which), [0, 0, 0, 0]);
    p.log_likelihoods[0].forEach((row, i) => assert.ok(Math.abs(logLik[i] - row.reduce((a, b) => a + b, 0)) < 1e-2));
  }
});

test("the rule bot's log-likelihoods, each slot's model and the worlds' log-likelihoods match Python's", () => {
  const rule = { kind: 'bot', model: ruleModel };
  const models = new Set();
  for (const p of vectors.positions) {
    const pos = bot.position(p.state);
    const ctx = { pos, history: p.history, worlds: flat(p.worlds), n: p.worlds.length };
    const ll = logLikelihoods(ctx, /** @type {any} */ (rule));
    p.log_likelihoods[1].flat().forEach((x, i) => assert.ok(Math.abs(ll[i] - x) < 1e-6, `${ll[i]} vs ${x}`));
    const { logLik, which } = worldLogLikelihoods(ctx, [policy, /** @type {any} */ (rule)], vectors.alternative_candidates);
    assert.deepEqual(Array.from(which), p.models);
    p.world_log_likelihood.forEach((x, i) => {
      if (x === null) assert.equal(logLik[i], -Infinity);
      else assert.ok(Math.abs(logLik[i] - x) <= TOLERANCE * Math.max(1, Math.abs(x)), `${logLik[i]} vs ${x}`);
    });
    models.add(p.models.join(''));
  }
  assert.ok([...models].some((m) => m.includes('1')), 'no slot took the rule bot in the vectors');
});

test("a rollout's moves and points match Python's for a fixed world, first move, models and uniforms", () => {
  const player = policyModel(net, bot.pieces, bot.features, vectors.playout_temperature);
  let compared = 0;
  for (const p of vectors.positions) {
    const pos = bot.position(p.state);
    for (const r of p.rollouts) {
      const g = stateOfWorld(pos, flat([r.world]));
      step(g, r.first);
      let i = 0;
      const moves = [];
      const points = rollout(g, [player, ruleModel], r.models, () => r.uniforms[i++], moves);
      assert.deepEqual(moves, r.moves);
      assert.deepEqual(Array.from(points), r.points);
      compared += 1;
    }
  }
  assert.ok(compared >= 3, `only ${compared} rollouts in the vectors`);
});

test('the expert search plays a legal move, the same for the same seed, from the level in bot.json', () => {
  const search = new Search(bot, searchSettings(bot.manifest.levels.expert));
  for (const p of vectors.positions.slice(0, 3)) {
    const pos = bot.position(p.state);
    const a = search.search(pos, p.history, mulberry32(5), { rollouts: 20, candidates: 64 });
    const b = search.search(pos, p.history, mulberry32(5), { rollouts: 20, candidates: 64 });
    assert.equal(a.action, b.action);
    assert.ok(Number.isFinite(a.values[a.action]));
  }
});

test('a search its budget cut short must beat the policy by more, and keeps its move below the level\'s worlds', () => {
  const settings = searchSettings(bot.manifest.levels.expert);
  assert.equal(budgetMargin(settings, 20, 20), settings.margin);
  assert.equal(budgetMargin(settings, 20, 5), settings.margin * 2);
  assert.equal(budgetMargin(settings, 20, settings.minWorlds - 1), Infinity);
  const search = new Search(bot, settings);
  assert.ok(vectors.positions.length >= 3);
  for (const p of vectors.positions.slice(0, 6)) {
    const found = search.search(bot.position(p.state), p.history, mulberry32(3), { budgetMs: 1e-6 });
    assert.equal(found.worlds, 1); // one round of one world a move, then the budget is spent
    assert.equal(found.action, found.prior);
  }
});
