// murlan-replay on records the Python side wrote with its verdicts (`murlan conformance records`):
// exit 0 for a valid record, 1 with the Python validator's fault and reason, 2 for no record.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLIENT, VECTORS, readJsonFile } from './helpers.js';

const vectors = readJsonFile(join(VECTORS, 'records.json')).records;
const dir = mkdtempSync(join(tmpdir(), 'murlan-replay-'));

function replay(args, input) {
  return spawnSync(process.execPath, [join(CLIENT, 'bin', 'replay.js'), ...args], { encoding: 'utf8', input });
}

test('a valid record: exit 0 and a summary', () => {
  const r = vectors.find((v) => v.valid);
  const file = join(dir, 'valid.json');
  writeFileSync(file, r.record);
  const out = replay([file]);
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /valid murlan-record\/1, \d+ hand\(s\)/);
});

test('invalid records: exit 1 with the first fault, as the Python validator names it', () => {
  const bad = vectors.filter((v) => !v.valid && v.fault !== 'json').slice(0, 12);
  assert.ok(bad.length >= 10);
  bad.forEach((r, i) => {
    const file = join(dir, `bad${i}.json`);
    writeFileSync(file, r.record);
    const out = replay([file]);
    assert.equal(out.status, 1, out.stderr);
    assert.equal(out.stdout.trim(), `${file}: invalid record at ${r.fault}: ${r.reason}`);
  });
});

test('standard input, and no record at all: exit 2 with one line on stderr', () => {
  const r = vectors.find((v) => v.valid);
  assert.equal(replay(['-'], r.record).status, 0);
  for (const text of vectors.filter((v) => v.fault === 'json').map((v) => v.record)) {
    const out = replay(['-'], text);
    assert.equal(out.status, 2);
    assert.equal(out.stderr.trim().split('\n').length, 1);
    assert.equal(out.stdout, '');
  }
  const missing = replay([join(dir, 'missing.json')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read/);
  assert.equal(replay([]).status, 2);
});
