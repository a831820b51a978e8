// murlan-bot (bin/bot.js) speaking murlan-bot/1, and the levels it plays. The requests are the
// ones murlan sends at a fresh golden set's positions and the greedy bot's actions there, both
// written by Python (protocol.json, tests/make-vectors.sh); the expected moves are the golden
// positions' cards. `murlan-bot --rule` is held to the rule bot's cards at the rule vectors'
// positions (rule.json).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadBot } from '../src/bundle/bundle.js';
import { greedyAction, levelPlayer, mulberry32, sampleFromScores } from '../src/bots/levels.js';
import { BUNDLES, CLIENT, POLICIES, readJsonFile, vectorsOf, VECTORS } from './helpers.js';

const PROTOCOL = 'murlan-bot/1';

/** Start murlan-bot; `ask(message)` writes a line and resolves with the next line it writes. */
function startBot(args) {
  const child = spawn(process.execPath, [join(CLIENT, 'bin', 'bot.js'), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  const queued = [];
  lines.on('line', (line) => (waiting.length ? waiting.shift()(JSON.parse(line)) : queued.push(JSON.parse(line))));
  const next = () => (queued.length ? Promise.resolve(queued.shift()) : new Promise((resolve) => waiting.push(resolve)));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return {
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    next,
    async ask(message) {
      this.send(message);
      return next();
    },
    async close() {
      child.stdin.end(`${JSON.stringify({ type: 'bye' })}\n`);
      return exited;
    },
    exited,
    stderr: () => stderr,
  };
}

for (const name of BUNDLES) {
  const dir = join(POLICIES, name);
  const levels = Object.keys(readJsonFile(join(dir, 'bot.json')).levels);

  test(`${name}: murlan-bot answers every request with the golden move (argmax), requests pipelined`, async () => {
    const { requests } = readJsonFile(join(vectorsOf(name), 'protocol.json'));
    const golden = readJsonFile(join(vectorsOf(name), 'fresh.json'));
    const bot = startBot([dir]);
    const hello = await bot.ask({ type: 'hello', protocol: PROTOCOL, env_version: 'murlan_v1' });
    assert.equal(hello.type, 'hello');
    assert.equal(hello.protocol, PROTOCOL);
    assert.deepEqual(hello.rules, readJsonFile(join(dir, 'bot.json')).supported_rules);
    for (const request of requests) bot.send(request);
    const answers = new Map();
    for (let i = 0; i < requests.length; i++) {
      const answer = await bot.next();
      answers.set(answer.id, answer.move);
    }
    assert.equal(await bot.close(), 0);
    requests.forEach((request, i) => {
      assert.deepEqual(answers.get(request.id).join(' '), golden.positions[i].cards, `position ${i}`);
      assert.ok(request.legal.some((cards) => cards.join(' ') === golden.positions[i].cards), `position ${i}: among the legal moves`);
    });
  });

  test(`${name}: the greedy bot's actions at the golden positions are Python's`, async () => {
    const { greedy } = readJsonFile(join(vectorsOf(name), 'protocol.json'));
    const golden = readJsonFile(join(vectorsOf(name), 'fresh.json'));
    const bot = await loadBot(dir);
    golden.positions.forEach((p, i) => {
      const pos = bot.position(p.state);
      assert.equal(greedyAction(bot.catalogue, pos.hand, bot.legalMask(p.state), pos.exchange), greedy[i], `position ${i}`);
    });
  });

  test(`${name}: a level's sampling draws Python's action for the same uniform draw`, async () => {
    const { samples } = readJsonFile(join(vectorsOf(name), 'protocol.json'));
    const golden = readJsonFile(join(vectorsOf(name), 'fresh.json'));
    const size = readJsonFile(join(dir, 'bot.json')).contract.actions.count;
    assert.ok(samples.length >= 2);
    for (const { temperature, draws, actions } of samples) {
      golden.positions.forEach((p, i) => {
        const scores = new Float32Array(size).fill(-3.4028234663852886e38);
        const mask = new Uint8Array(size);
        p.legal.forEach((a, k) => {
          scores[a] = p.scores[k];
          mask[a] = 1;
        });
        assert.equal(sampleFromScores(scores, mask, temperature, () => draws[i]), actions[i], `T=${temperature}, position ${i}`);
      });
    }
  });

  for (const level of levels) {
    test(`${name}: level ${level} answers with legal moves, the same for the same seed`, async () => {
      const { requests } = readJsonFile(join(vectorsOf(name), 'protocol.json'));
      const entry = readJsonFile(join(dir, 'bot.json')).levels[level];
      // A search level reads each request's record; a small search keeps the test short.
      const bot = startBot([dir, '--level', level, ...(entry.search ? ['--rollouts', '12', '--candidates', '64'] : [])]);
      const hello = await bot.ask({ type: 'hello', protocol: PROTOCOL });
      assert.deepEqual(hello.rules, entry.supported_rules);
      const some = requests.slice(0, entry.search ? 24 : 60);
      const first = [];
      for (const request of some) first.push((await bot.ask(request)).move.join(' '));
      const again = [];
      for (const request of some) again.push((await bot.ask(request)).move.join(' '));
      assert.equal(await bot.close(), 0);
      assert.deepEqual(again, first);
      some.forEach((request, i) => assert.ok(request.legal.some((c) => c.join(' ') === first[i]), `request ${i}: ${first[i]}`));
    });
  }
}

test('murlan-bot --rule plays the Python rule bot\'s cards at every rule-vector position, requests pipelined', async () => {
  // `murlan conformance rule`: positions from real play under every variant, each with the
  // position as murlan-bot/1 sends it and the cards of Python's RuleBot.
  const { positions } = readJsonFile(join(VECTORS, 'rule.json'));
  assert.ok(positions.length >= 300);
  const bot = startBot(['--rule']);
  const hello = await bot.ask({ type: 'hello', protocol: PROTOCOL, env_version: 'murlan_v1' });
  assert.deepEqual([hello.type, hello.protocol, hello.name, hello.rules], ['hello', PROTOCOL, 'js:rule', undefined]);
  positions.forEach((p, i) => bot.send({ type: 'move', id: i, seat: p.position.seat, seed: i, state: p.position }));
  const answers = new Map();
  for (let i = 0; i < positions.length; i++) {
    const answer = await bot.next();
    answers.set(answer.id, answer.move);
  }
  assert.equal(await bot.close(), 0);
  const wrong = positions.flatMap((p, i) => (answers.get(i)?.join(' ') === p.cards ? [] : [`position ${i}: ${answers.get(i)}, Python ${p.cards}`]));
  assert.deepEqual(wrong, []);
});

test('an unknown level, a missing bundle, --rule with a bundle: one line on stderr, exit status 2', async () => {
  for (const args of [[join(POLICIES, BUNDLES[0]), '--level', 'no-such-level'], [join(CLIENT, 'no-such-bundle')], ['--rule', join(POLICIES, BUNDLES[0])]]) {
    const bot = startBot(args);
    assert.equal(await bot.exited, 2);
    assert.equal(bot.stderr().trim().split('\n').length, 1, bot.stderr());
  }
});

test('a request the bot cannot read gets an answer with an error and no move', async () => {
  const bot = startBot([join(POLICIES, BUNDLES[0])]);
  await bot.ask({ type: 'hello', protocol: PROTOCOL });
  const answer = await bot.ask({ type: 'move', id: 3, seat: 0, seed: 1, state: { phase: 'bidding' } });
  assert.equal(answer.id, 3);
  assert.equal(answer.move, undefined);
  assert.match(answer.error, /phase/);
  assert.equal(await bot.close(), 0);
});

test('sampling: temperature 0 is the argmax; a seed gives one draw sequence', () => {
  const scores = Float32Array.from([0, 3, 1, 2]);
  const mask = Uint8Array.from([0, 1, 1, 1]);
  assert.equal(sampleFromScores(scores, mask, 0, mulberry32(1)), 1);
  const draws = (seed) => {
    const rng = mulberry32(seed);
    return Array.from({ length: 50 }, () => sampleFromScores(scores, mask, 1, rng));
  };
  assert.deepEqual(draws(5), draws(5));
  assert.ok(draws(5).every((a) => mask[a]));
});

test('a level that the bundle lacks is refused, naming the ones it has', async () => {
  const dir = join(POLICIES, BUNDLES[0]);
  const bot = await loadBot(dir);
  assert.throws(() => levelPlayer(bot, 'nope'), /has no level "nope"/);
});

test('loadBot checks the files it reads against bot.json\'s file list', async () => {
  const { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const copy = mkdtempSync(join(tmpdir(), 'murlan-files-'));
  try {
    cpSync(join(POLICIES, BUNDLES[0]), copy, { recursive: true });
    await loadBot(copy); // as shipped: every file matches
    const description = JSON.parse(readFileSync(join(copy, 'weights.json'), 'utf8'));
    writeFileSync(join(copy, 'weights.json'), JSON.stringify({ ...description, byte_order: 'little ' }));
    await assert.rejects(loadBot(copy), /weights.json: sha256 does not match bot.json's file list/);
    const manifest = JSON.parse(readFileSync(join(copy, 'bot.json'), 'utf8'));
    delete manifest.files['weights.json'];
    writeFileSync(join(copy, 'bot.json'), JSON.stringify(manifest));
    await assert.rejects(loadBot(copy), /weights.json is not in its file list/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
