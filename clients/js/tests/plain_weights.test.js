// The runtime-free forward pass against onnxruntime-node on random observations and masks:
// the expected scores are onnxruntime's, computed here from the shipped model.onnx.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { argmaxLegal, loadBot, PLAIN_TOLERANCE } from '../src/bundle/bundle.js';
import { BUNDLES, POLICIES, readJsonFile, vectorsOf } from './helpers.js';

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

for (const name of BUNDLES) {
  const { models } = readJsonFile(join(POLICIES, name, 'bot.json'));
  test(`${name}: plain scores equal onnxruntime's within the tolerance on random inputs, every model file`, async () => {
   for (const { precision } of models) {
    const dir = join(POLICIES, name);
    const plain = await loadBot(dir, { weights: vectorsOf(name), precision });
    const onnx = await loadBot(dir, { ort, precision });
    const rand = random(12345);
    const size = plain.pieces.reduce((n, p) => n + p.size, 0);
    let maxDiff = 0;
    for (let k = 0; k < 200; k++) {
      // Dense random inputs in [0, 1], and sparse 0/1 ones like real observations.
      const obs = Float32Array.from({ length: size }, () => (k % 2 ? rand() : rand() < 0.15 ? 1 : 0));
      const mask = Uint8Array.from({ length: plain.catalogue.size }, () => (rand() < 0.3 ? 1 : 0));
      mask[1 + (k % 15)] = 1;
      const [a, b] = [await plain.scores(obs, mask), await onnx.scores(obs, mask)];
      for (let i = 0; i < a.length; i++) {
        if (!mask[i]) assert.equal(a[i], b[i], 'illegal actions score float32 min in both');
        else maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
      }
      assert.equal(argmaxLegal(a, mask), argmaxLegal(b, mask));
    }
    assert.ok(maxDiff <= PLAIN_TOLERANCE, `${precision}: max |diff| ${maxDiff}`);
   }
  });
}
