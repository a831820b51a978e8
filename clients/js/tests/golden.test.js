// Every shipped bundle's golden set, and a fresh set regenerated with another seed, against
// this client: encoder (piece by piece), legal mask, cards, and both runtimes (the plain
// JavaScript forward pass and onnxruntime-node). Every expected value comes from golden files.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { loadBot } from '../src/bundle/bundle.js';
import { allMatch, reportLines, verifyGolden } from '../src/bundle/golden.js';
import { BUNDLES, POLICIES, readJsonFile, vectorsOf } from './helpers.js';

async function checkSet(name, goldenPath, minPositions, precision = 'float32') {
  const dir = join(POLICIES, name);
  const bots = [await loadBot(dir, { weights: vectorsOf(name), precision }), await loadBot(dir, { ort, precision })];
  const golden = readJsonFile(goldenPath);
  assert.ok(golden.positions.length >= minPositions, `${goldenPath}: ${golden.positions.length} positions`);
  const report = await verifyGolden(bots, golden);
  assert.ok(allMatch(report), reportLines(report).join('\n'));
  assert.deepEqual(Object.keys(report.runtimes), ['plain', 'onnxruntime']);
}

test('shipped bundles exist', () => {
  assert.ok(BUNDLES.length >= 1);
});

for (const name of BUNDLES) {
  test(`${name}: the shipped golden set`, async () => {
    await checkSet(name, join(POLICIES, name, readJsonFile(join(POLICIES, name, 'bot.json')).golden.file), 1);
  });
  test(`${name}: the shipped golden set with every other model file (float16), within its tolerance`, async () => {
    const manifest = readJsonFile(join(POLICIES, name, 'bot.json'));
    for (const { precision } of manifest.models.slice(1)) await checkSet(name, join(POLICIES, name, manifest.golden.file), 1, precision);
  });
  test(`${name}: a fresh golden set of at least 400 positions`, async () => {
    const fresh = join(vectorsOf(name), 'fresh.json');
    const shipped = readJsonFile(join(POLICIES, name, 'golden.json'));
    assert.notEqual(readJsonFile(fresh).seed, shipped.seed, 'the fresh set must use another seed');
    await checkSet(name, fresh, 400);
  });
}
