// Positions the bot must refuse rather than misplay: rules outside the bundle's
// supported_rules, and malformed positions. The positions are golden ones, changed.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadBot } from '../src/bundle/bundle.js';
import { BUNDLES, POLICIES, readJsonFile, vectorsOf } from './helpers.js';

for (const name of BUNDLES) {
  const dir = join(POLICIES, name);

  test(`${name}: a position under rules the bundle does not play is refused, naming the flag`, async () => {
    // The bundle as if its policy played only the rules it was trained under.
    const copy = mkdtempSync(join(tmpdir(), 'murlan-rules-'));
    try {
      cpSync(dir, copy, { recursive: true });
      const manifest = readJsonFile(join(copy, 'bot.json'));
      manifest.supported_rules = Object.fromEntries(Object.entries(manifest.rules).map(([f, v]) => [f, [v]]));
      writeFileSync(join(copy, 'bot.json'), JSON.stringify(manifest));
      const bot = await loadBot(copy, { weights: vectorsOf(name) });
      const { state } = readJsonFile(join(dir, manifest.golden.file)).positions.find((p) => bot.rulesConflict(p.state.rules) === null);
      let refused = 0;
      for (const [flag, values] of Object.entries(manifest.contract.rules.flags)) {
        for (const value of values) {
          const position = { ...state, rules: { ...state.rules, [flag]: value } };
          if (String(value) === String(manifest.rules[flag])) {
            assert.doesNotThrow(() => bot.encode(position));
          } else {
            await assert.rejects(bot.choose(position), new RegExp(`does not play these rules: ${flag}=${value} `));
            refused += 1;
          }
        }
      }
      assert.ok(refused > 0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test(`${name}: malformed positions are refused`, async () => {
    const bot = await loadBot(dir, { weights: vectorsOf(name) });
    const { state } = readJsonFile(join(dir, bot.manifest.golden.file)).positions[0];
    const broken = [
      { ...state, phase: 'over' },
      { ...state, cards_left: state.cards_left.slice(1) },
      { ...state, my_hand: `${state.my_hand} XX` },
      { ...state, table_action: bot.catalogue.size },
      { ...state, table_action: 1, table_seat: null },
    ];
    for (const position of broken) await assert.rejects(bot.choose(position));
  });
}
