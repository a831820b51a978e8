// The play page's bots, off the page's thread: one module Web Worker holds the loaded bundles
// and the players of the match, so a slow decision (a level with a search) never freezes the
// page. play.js talks to it by messages, each `{id, type, ...}` answered by `{id, ...}` or
// `{id, error}`:
//
//   load    {bundles: [URL], hook: URL | null} -> {choices: [{key, level, bundle, about}]}
//   playable {rules} -> {keys: [key]}, the levels that play these rules (the set-up greys the others)
//   match   {seats: [key | null, ...], rules, budgetMs: MS | null} -> {budgets: [MS | null, ...]},
//           or {error} for a level that does not play the rules (the flags it cannot play in
//           words, ../ui/rules.js); null: a person's seat (the
//           page's seat 0; benchmarks/browser_moves.py seats bots in all four); `budgetMs` caps a
//           search level's time a move (the set-up's "time a move"; null: its whole search),
//           and `budgets` says, seat by seat, the cap its player took (null: none, not a search)
//   choose  {seat, position, seed, context: {record, seat}} -> {move: {cards, action}}
//
// It keeps nothing but the bundles and the current match's players (made anew for each
// match, so nothing carries over), so its memory does not grow with the games played. `hook`
// names a module whose default export wraps each player (`(player, {seat, level}) =>
// player`): the browser tests make a player slow or failing through it; the page sets it
// only from `window.murlanHooks`.
import { SEAT_MODELS, levelPlayer, loadBot } from '../src/index.js';
import { flagText } from '../ui/rules.js';

/** @type {Array<{key: string, level: string, bundle: string, about: string, bot: any}>} */
let choices = [];
/** @type {any[]} the match's players by seat (null at a person's seat) */
let players = [];
/** @type {((player: any, info: object) => any) | null} */
let hook = null;

/**
 * The levels a bundle plays here: every level bot.json names (`levelPlayer` plays their
 * temperature and mix, and a search level's search, `expert`), or, for a bundle that names
 * none, its argmax policy as `hard`.
 * @param {any} manifest bot.json
 * @returns {Array<[string, any]>}
 */
function levelsOf(manifest) {
  const named = Object.entries(manifest.levels ?? {});
  return named.length ? named : [['hard', { about: "the policy's best move" }]];
}

/**
 * A level of a loaded bundle as a player: `choose(position, seed, context)` gives its move;
 * `context` is `{record, seat}`, the match so far as murlan's bot protocol sends it (a search
 * level reads the hand so far from it). A search level's seat models are the client's
 * (`SEAT_MODELS`); `budgetMs` caps its time a move (none: the level's whole search).
 * @returns {{choose: (position: object, seed: number, context: object) => Promise<any>}}
 */
const playerOf = (bot, level, budgetMs) =>
  bot.manifest.levels?.[level] ? levelPlayer(bot, level, { models: SEAT_MODELS, budgetMs }) : { choose: (position) => bot.choose(position) };

async function load({ bundles, hook: hookUrl }) {
  hook = hookUrl ? (await import(hookUrl)).default : null;
  choices = [];
  for (const url of bundles) {
    let bot;
    try {
      bot = await loadBot(new URL(url));
    } catch (err) {
      throw new Error(`cannot load the bundle at ${url}: ${err.message}`);
    }
    const bundle = new URL(url).pathname.split('/').filter(Boolean).pop() ?? String(url);
    for (const [level, about] of levelsOf(bot.manifest)) {
      choices.push({ key: `${choices.length}`, level, bundle, about: about.about ?? '', bot });
    }
  }
  return { choices: choices.map(({ bot, ...choice }) => choice) };
}

/** Why a level does not play `rules` (null when it does). */
const conflict = (choice, rules) => choice.bot.rulesConflict(rules, choice.bot.manifest.levels?.[choice.level]?.supported_rules);

function playable({ rules }) {
  return { keys: choices.filter((choice) => !conflict(choice, rules)).map((choice) => choice.key) };
}

function match({ seats, rules, budgetMs = null }) {
  const next = [];
  const budgets = [];
  for (let seat = 0; seat < seats.length; seat++) {
    next.push(null);
    budgets.push(null);
    if (seats[seat] === null) continue; // a person's seat
    const choice = choices[Number(seats[seat])];
    if (conflict(choice, rules)) {
      // In words, as murlan serve refuses such a bot: the flags it cannot play (the set-up
      // greys such a level, so this is the last resort).
      const flags = Object.entries(rules).filter(([flag, value]) => conflict(choice, { [flag]: value }));
      const which = flags.map(([flag, value]) => flagText(flag, value)).join('; ');
      throw new Error(`Seat ${seat}'s bot (${choice.level}) cannot play these rules (${which}): it was made for other rules. `
        + 'Choose a level the menu does not mark as unable, or change the rules.');
    }
    const search = Boolean(choice.bot.manifest.levels?.[choice.level]?.search);
    if (search && budgetMs) budgets[seat] = budgetMs;
    const player = playerOf(choice.bot, choice.level, budgets[seat] ?? undefined);
    next[seat] = hook ? hook(player, { seat, level: choice.level, budgetMs: budgets[seat] }) : player;
  }
  players = next;
  return { budgets };
}

async function choose({ seat, position, seed, context }) {
  const move = await players[seat].choose(position, seed, context);
  return { move: { cards: move.cards, action: move.action } };
}

const HANDLERS = { load, playable, match, choose };

self.addEventListener('message', async (event) => {
  const { id, type } = event.data;
  try {
    self.postMessage({ id, ...(await HANDLERS[type](event.data)) });
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
