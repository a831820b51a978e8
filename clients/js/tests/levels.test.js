// The levels without a search, move for move: the generator's draws, and at positions from
// real play each level's action for the decision's seed, all written by Python (levels.json,
// `murlan conformance levels`; tests/make-vectors.sh). From the vectors' float32 scores every
// action must be Python's; from this client's own model, every one the vectors do not mark
// `near` (scores within the runtime's tolerance could pick another action there).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadBot } from '../src/bundle/bundle.js';
import { greedyAction, levelAction, levelPlayer } from '../src/bots/levels.js';
import { drawBits, drawUniform } from '../src/util/random.js';
import { POLICIES, readJsonFile, VECTORS } from './helpers.js';

const vectors = readJsonFile(join(VECTORS, 'levels.json'));
const FLOAT32_MIN = -3.4028234663852886e38;

test('the generator draws Python\'s bits and uniforms', () => {
  assert.ok(vectors.draws.length >= 10);
  for (const { seed, index, bits, uniform } of vectors.draws) {
    assert.equal(drawBits(seed, index).toString(16).padStart(16, '0'), bits, `seed ${seed}, draw ${index}`);
    assert.equal(drawUniform(seed, index), uniform, `seed ${seed}, draw ${index}`);
  }
  assert.throws(() => drawUniform(2 ** 32, 0), /decision seed/);
  assert.throws(() => drawUniform(-1, 0), /decision seed/);
});

/** The vectors' positions of each level, with the level's settings and its bundle loaded. */
async function levelCases() {
  const out = [];
  for (const [name, { policy }] of Object.entries(vectors.levels)) {
    const bot = await loadBot(join(POLICIES, policy));
    const positions = vectors.positions.filter((p) => p.level === name);
    out.push({ name, bot, positions });
  }
  return out;
}

test('every level makes Python\'s move from the vectors\' scores, the give-back and the mix included', async () => {
  const cases = await levelCases();
  assert.deepEqual(cases.map((c) => c.name).sort(), ['easy', 'hard', 'medium']);
  for (const { name, bot, positions } of cases) {
    const level = bot.manifest.levels[name];
    const [weak, share] = level.mix ?? [null, 0];
    assert.deepEqual([Number(level.temperature), level.mix ?? null], [vectors.levels[name].temperature, vectors.levels[name].mix]);
    const kinds = new Set();
    const wrong = [];
    positions.forEach((p, i) => {
      const size = bot.catalogue.size;
      const scores = new Float32Array(size).fill(FLOAT32_MIN);
      const mask = new Uint8Array(size);
      p.legal.forEach((a, k) => {
        scores[a] = p.scores[k];
        mask[a] = 1;
      });
      assert.deepEqual([drawUniform(p.seed, 0), drawUniform(p.seed, 1)], p.draws);
      const pos = bot.position(p.position);
      const action = levelAction(scores, mask, { temperature: Number(level.temperature), weak, share }, p.seed, () => greedyAction(bot.catalogue, pos.hand, mask, pos.exchange));
      if (action !== p.action) wrong.push(`${name} position ${i}: ${action}, Python ${p.action}`);
      kinds.add(`${p.position.phase}${p.weak ? ' weak' : ''}`);
    });
    assert.deepEqual(wrong, []);
    const expected = weak ? ['exchange', 'play', 'play weak'] : ['exchange', 'play'];
    assert.deepEqual([...kinds].filter((k) => expected.includes(k)).sort(), expected, name);
  }
});

test('every level\'s player makes Python\'s move with this client\'s own model (but near a boundary)', async () => {
  const cases = await levelCases();
  let near = 0;
  let checked = 0;
  for (const { name, bot, positions } of cases) {
    const player = levelPlayer(bot, name);
    const wrong = [];
    for (const [i, p] of positions.entries()) {
      if (p.near) {
        near += 1;
        continue;
      }
      const move = await player.choose(p.position, p.seed);
      checked += 1;
      if (move.action !== p.action) wrong.push(`${name} position ${i}: ${move.action}, Python ${p.action}`);
    }
    assert.deepEqual(wrong, []);
  }
  assert.ok(near <= checked / 20, `${near} near positions of ${near + checked}`);
});
