// Positions the bot must refuse rather than misplay: rules outside the bundle's
// supported_rules, and malformed positions. The positions are golden ones, changed.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadBot } from '../src/bot.js';
import { BUNDLES, POLICIES, readJsonFile, vectorsOf } from './helpers.js';

for (const name of BUNDLES) {
  const dir = join(POLICIES, name);

  test(`${name}: a position under rules the bundle does not play is refused, naming the flag`, async () => {
    const bot = await loadBot(dir, { weights: vectorsOf(name) });
    const { state } = readJsonFile(join(dir, bot.spec.golden.file)).positions[0];
    const flags = bot.spec.contract.rules.flags;
    let refused = 0;
    for (const [flag, values] of Object.entries(flags)) {
      const supported = (bot.spec.supported_rules?.[flag] ?? [bot.spec.rules[flag]]).map(String);
      for (const value of values.filter((v) => !supported.includes(String(v)))) {
        const position = { ...state, rules: { ...state.rules, [flag]: value } };
        await assert.rejects(bot.choose(position), new RegExp(`does not play these rules: ${flag}=`));
        refused += 1;
      }
      for (const value of values.filter((v) => supported.includes(String(v)))) {
        const position = { ...state, rules: { ...state.rules, [flag]: value } };
        assert.doesNotThrow(() => bot.encode(position));
      }
    }
    // Standard-rules-only bundles refuse every non-default value; none may refuse nothing
    // unless it supports every value of every flag.
    const everything = Object.entries(flags).every(([f, v]) => v.every((x) => (bot.spec.supported_rules?.[f] ?? []).map(String).includes(String(x))));
    assert.ok(refused > 0 || everything);
  });

  test(`${name}: malformed positions are refused`, async () => {
    const bot = await loadBot(dir, { weights: vectorsOf(name) });
    const { state } = readJsonFile(join(dir, bot.spec.golden.file)).positions[0];
    const broken = [
      { ...state, phase: 'over' },
      { ...state, cards_left: state.cards_left.slice(1) },
      { ...state, my_hand: `${state.my_hand} XX` },
      { ...state, table_action: bot.table.size },
      { ...state, table_action: 1, table_seat: null },
    ];
    for (const position of broken) await assert.rejects(bot.choose(position));
  });
}
