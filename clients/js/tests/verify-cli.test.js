// The murlan-verify command: exit 0 and "all match" on a bundle's golden set, exit 1 naming
// the piece when one observation entry of the set is changed, exit 2 on an unusable bundle.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BUNDLES, CLIENT, POLICIES, readJsonFile } from './helpers.js';

const VERIFY = join(CLIENT, 'bin', 'verify.js');
const scratch = mkdtempSync(join(tmpdir(), 'murlan-verify-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const verify = (...args) => spawnSync(process.execPath, [VERIFY, ...args], { encoding: 'utf8' });
const [name] = BUNDLES;
const bundle = join(POLICIES, name);

test('verify: every part matches on a shipped golden set', () => {
  const run = verify(bundle, '--runtime', 'onnx');
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^all match$/m);
  for (const piece of readJsonFile(join(bundle, 'bot.json')).contract.observation.pieces) {
    assert.match(run.stdout, new RegExp(`^ok +obs ${piece.name} +(\\d+)/\\1$`, 'm'));
  }
});

test('verify: a changed observation entry fails, naming its piece', () => {
  const manifest = readJsonFile(join(bundle, 'bot.json'));
  const golden = readJsonFile(join(bundle, manifest.golden.file));
  // Flip the first non-zero entry of the first position to zero, and report its piece.
  const [index] = golden.positions[0].obs.shift();
  const piece = manifest.contract.observation.pieces.find((p) => p.offset <= index && index < p.offset + p.size);
  const file = join(scratch, 'changed.json');
  writeFileSync(file, JSON.stringify(golden));
  const run = verify(bundle, '--golden', file, '--runtime', 'onnx');
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, new RegExp(`^FAIL +obs ${piece.name} `, 'm'));
  assert.match(run.stdout, /^MISMATCH$/m);
});

test('verify: exit 2 on a bundle whose model file was replaced', () => {
  const copy = join(scratch, 'replaced');
  cpSync(bundle, copy, { recursive: true });
  const manifest = readJsonFile(join(copy, 'bot.json'));
  const model = join(copy, manifest.models[0].file);
  const bytes = readFileSync(model);
  bytes[bytes.length - 1] ^= 1;
  writeFileSync(model, bytes);
  const run = verify(copy, '--runtime', 'onnx');
  assert.equal(run.status, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /sha256 does not match/);
});

test('verify: exit 2 and one line naming the fix on an older bundle format', () => {
  const copy = join(scratch, 'old');
  cpSync(bundle, copy, { recursive: true });
  const manifest = readJsonFile(join(copy, 'bot.json'));
  writeFileSync(join(copy, 'bot.json'), JSON.stringify({ ...manifest, format: 'murlan-bundle/2' }));
  const run = verify(copy, '--runtime', 'onnx');
  assert.equal(run.status, 2);
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, /murlan-bundle\/2.*murlan golden BUNDLE_DIR --upgrade/);
});
