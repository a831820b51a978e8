// Game, the whole match an app runs: a bundle's bot plays from game.position(), moves are
// concrete cards, a refused move says why and changes nothing, every random choice follows
// the seed. (Its rules are the engine's, held to Python by engine.test.js and records.test.js.)
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Game } from '../src/game/game.js';
import { IllegalMove } from '../src/game/moves.js';
import { stateJson } from '../src/game/state_json.js';
import { loadBot } from '../src/bundle/bundle.js';
import { validate } from '../src/records/validator.js';
import { BUNDLES, POLICIES, VECTORS } from './helpers.js';

/** Play a whole match, seat 0 by `first`, the others by a random legal move. */
async function playMatch(game, first) {
  while (game.phase !== 'match_over') {
    if (game.phase === 'hand_over') {
      game.nextHand();
      continue;
    }
    if (game.turn === 0) game.play(await first(game));
    else {
      const moves = game.legalMoves();
      game.play(moves[Math.floor(game.rng() * moves.length)].play);
    }
  }
  return game;
}

test('a bundle\'s bot takes a seat: bot.choose(game.position()) plays whole matches', async () => {
  const bot = await loadBot(join(POLICIES, BUNDLES[0]), { weights: join(VECTORS, BUNDLES[0]) });
  let decisions = 0;
  const game = await playMatch(new Game({ seed: 5 }), async (g) => {
    const move = await bot.choose(g.position());
    assert.ok(g.legalMoves().some((m) => m.action === move.action), 'the bot\'s move is legal');
    decisions += 1;
    return move.cards;
  });
  assert.ok(decisions > 20 && game.winners.length >= 1);
  assert.ok(validate(game.record()).valid);
});

test('every legal move plays, and its cards make its action', () => {
  const game = new Game({ seed: 9, rules: { joker_pair: true } });
  for (let n = 0; n < 400 && game.phase !== 'match_over'; n++) {
    if (game.phase === 'hand_over') {
      game.nextHand();
      continue;
    }
    const moves = game.legalMoves();
    assert.ok(moves.length > 0);
    for (const m of moves) assert.equal(game.whyNot(m.cards), null, m.play);
    const pick = moves[n % moves.length];
    assert.equal(game.play(pick.cards).action, pick.action);
  }
});

test('a refused move throws IllegalMove with the reason and changes nothing', () => {
  const game = new Game({ seed: 2 });
  const me = game.turn;
  const other = (me + 1) % 4;
  const before = stateJson(game.state);
  const refused = [
    '', // the leader cannot pass
    game.hand(other)[0], // not held
    [game.hand(me)[0], game.hand(me).at(-1)], // lowest and highest: two ranks, no combination
  ];
  let thrown = 0;
  for (const cards of refused) {
    try {
      game.play(cards);
    } catch (err) {
      assert.ok(err instanceof IllegalMove, String(err));
      assert.equal(game.whyNot(cards), err.message);
      thrown += 1;
    }
    assert.deepEqual(stateJson(game.state), before);
  }
  assert.equal(thrown, refused.length);
  assert.deepEqual(game.record().hands[0].plays, []);
});

test('the seed decides the deals and the dealer; given hands are played as given', async () => {
  const random = async (g) => g.legalMoves()[0].cards;
  const a = await playMatch(new Game({ seed: 11 }), random);
  const b = await playMatch(new Game({ seed: 11 }), random);
  const c = await playMatch(new Game({ seed: 12 }), random);
  assert.deepEqual(a.record(), b.record());
  assert.notDeepEqual(a.record().hands[0].deal, c.record().hands[0].deal);
  const hands = a.record().hands[0].deal;
  const d = new Game({ hands });
  assert.deepEqual(d.record().hands[0].deal, hands);
  assert.equal(d.dealer, a.record().hands[0].dealer, 'the dealer follows from the sizes');
  assert.throws(() => new Game({ hands: [hands[1], hands[0], hands[2], hands[3]], dealer: a.record().hands[0].dealer }), /deals/);
});
