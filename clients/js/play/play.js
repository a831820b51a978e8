// The play page: a whole match against the bundle's bots, with no server. The engine (`Game`)
// and the record run here; the bots (`loadBot`, the runtime-free weights by default) run in a
// module Web Worker (worker.js), so a slow decision never freezes the page. The table is the
// client's view (../ui/view.js), the one `murlan serve`'s Play page draws too; this module is
// its driver over the in-browser Game and the bots' worker.
//
// Bundles: `?bundle=URL` (repeatable, relative to this page; default: the shipped bundles
// of a murlan checkout served at its root). Each bundle offers its levels (worker.js says
// which, `expert` among them). `?pace=MS` sets the pause before each bot move (else the last
// pace picked, on the set-up or beside the table, kept in localStorage); the set-up's "time a
// move" caps a search level's time a move (1 s by default, the last choice kept in
// localStorage; `?budget=MS` prefills it), and the thinking sign says it ("thinking… up to
// 1 s"). Served by `murlan serve`, the header links back to its page.
//
// One thing at a time: while the bots move (each after a visible pause, thinking in the
// worker), the person's controls are off and a sign on the seat and in the status line says
// who is thinking; the person can still read, scroll and open the rules. The match is kept in
// localStorage (its seed, rules, levels and moves), so a reload resumes it where it was. The
// page keeps its state in `window.murlan` (the Game, whether bots are at work) for tests and
// the curious; `window.murlanHooks.player`, set before the page loads, names a module that
// wraps the worker's players (worker.js; the browser tests use it).
import { Game, PASS, describe, dumps } from '../src/index.js';
import { BotWorker } from './botworker.js';
import { el, thinkingWords } from '../ui/dom.js';
import { botAbout, budgetControl, fieldError, fillBotSelect, fillRules, markSetupBots, paceControl, readBudget, readRules, setPace } from '../ui/forms.js';
import { ruleOptions, rulesDialog, rulesText } from '../ui/rules.js';
import { TableView } from '../ui/view.js';

/** @type {(id: string) => any} the page's elements by id (inputs, selects, dialogs, buttons) */
const $ = (id) => document.getElementById(id);
const DEFAULT_BUNDLES = ['../../../murlan_env/bots/policies/ppo-finetune/', '../../../murlan_env/bots/policies/ppo-strong/'];
const MATCH_KEY = 'murlan.play.match'; // localStorage: the match in progress, resumed on a reload
const RULES = ruleOptions();

const state = {
  /** @type {Array<{key: string, level: string, bundle: string, about: string}>} the worker's levels */
  choices: [],
  /** @type {BotWorker | null} */
  bots: null,
  /** @type {Game | null} */
  game: null,
  seed: 0,
  /** @type {Record<string, any>} the match's flags that differ from the standard game */
  rules: {},
  /** @type {Array<string | null>} each seat's level (a choice's key), null at the person's */
  seats: [],
  /** the set-up's time a move for search levels (ms), or null: their whole search */
  budgetMs: /** @type {number | null} */ (null),
  /** @type {Array<number | null>} each seat's cap a move as the worker took it (a search level's), else null */
  budgets: [],
  names: ['You', 'Seat 1', 'Seat 2', 'Seat 3'],
  /** the seat whose bot is thinking, or null */
  thinking: null,
  /** the hand's decisions, as the table draws them */
  events: [],
  /** the match's moves in order (cards, or null for a new deal): what a reload replays */
  moves: [],
  working: false,
  /** bumps at every new match, so a bot loop of an abandoned match stops */
  match: 0,
  decisions: 0,
};
/** @type {any} */ (window).murlan = state;

/** @type {TableView} */
let table;

async function init() {
  const params = new URLSearchParams(location.search);
  const bundles = params.getAll('bundle');
  table = new TableView($('table'), {
    driver: {
      move: (cards) => tryMove(cards),
      next: nextHand,
      newMatch: showSetup,
      download,
      whyNot: (cards) => state.game?.whyNot(cards) ?? null,
    },
    abandonText: 'The match is not over. If you start a new one, this one ends (download its record first to keep it).',
  });
  const pace = params.get('pace');
  if (pace !== null) setPace(pace, { keep: false });
  rulesDialog($('rules-open'), () => (state.game ? rulesText(state.rules) : []));
  const back = linkBack();
  try {
    const urls = (bundles.length ? bundles : DEFAULT_BUNDLES).map((source) => new URL(source.endsWith('/') ? source : `${source}/`, location.href).href);
    const hook = /** @type {any} */ (window).murlanHooks?.player;
    state.bots = new BotWorker(new URL('./worker.js', import.meta.url));
    ({ choices: state.choices } = await state.bots.request('load', { bundles: urls, hook: hook ? new URL(hook, location.href).href : null }));
  } catch (err) {
    const box = $('load-error');
    box.textContent = `${err.message}. Serve a bundle folder (bot.json, weights.json, weights.bin) and name it with ?bundle=URL (see docs/js-client.md).`;
    box.hidden = false;
    await back;
    document.body.dataset.ready = '1';
    return;
  }
  buildSetup();
  $('setup').addEventListener('submit', (e) => { e.preventDefault(); start(); });
  if (!(await resume())) showSetup();
  await back;
  document.body.dataset.ready = '1';
}

/**
 * Served by `murlan serve` (its API answers at the root the page sits under, as
 * /clients/js/play/): a link back to its page in the header. Served by any other server the
 * page has no such link, so it never shows a dead one.
 */
async function linkBack() {
  const root = new URL('../../../', location.href);
  try {
    const answer = await fetch(new URL('api/options', root), { headers: { Accept: 'application/json' } });
    if (!answer.ok || !Array.isArray((await answer.json()).bots)) return;
  } catch {
    return; // not murlan serve
  }
  const link = $('serve-link');
  link.href = new URL('#play', root).href;
  link.hidden = false;
}

// ------------------------------------------------------------------------------ set-up

/** The levels by strength, as murlan serve lists them; others (a bundle's own) after, as loaded. */
const STRENGTH = ['easy', 'medium', 'hard', 'expert'];

/**
 * The levels as the bot menus list them, weakest first. A level is named by its bundle's
 * folder only where two bundles offer it; the folder is in each entry's tooltip.
 */
function menu() {
  const ambiguous = (level) => state.choices.filter((c) => c.level === level).length > 1;
  const rank = (c) => (STRENGTH.includes(c.level) ? STRENGTH.indexOf(c.level) : STRENGTH.length);
  return [...state.choices].sort((a, b) => rank(a) - rank(b)).map((c) => ({ spec: c.key,
    label: ambiguous(c.level) ? `${c.level} (${c.bundle})` : c.level, group: 'difficulty level', about: c.about,
    title: `${c.about ? `${c.about} ` : ''}(bundle ${c.bundle})` }));
}

/** Three level menus (one per bot seat), greyed where a level cannot play the ticked rules, the time a move, and a control per variant flag. */
function buildSetup() {
  const bots = menu();
  const help = $('setup-bot-help');
  const hard = state.choices.find((c) => c.level === 'hard');
  for (let seat = 1; seat < 4; seat++) {
    const select = /** @type {HTMLSelectElement} */ (el('select', { id: `setup-bot-${seat}` }));
    fillBotSelect(select, bots, { selected: hard?.key });
    const about = () => { help.textContent = botAbout(bots, select.value); };
    select.addEventListener('change', about);
    select.addEventListener('focus', about);
    if (seat === 1) about();
    $('setup-bots').append(el('label', {}, `Seat ${seat} `, select));
  }
  $('setup-more').append(budgetControl('setup-budget').label, paceControl('setup-pace').label);
  fillRules($('setup-rules'), RULES, 'setup');
  $('setup-rules').addEventListener('change', async () => {
    const { keys } = await /** @type {BotWorker} */ (state.bots).request('playable', { rules: readRules($('setup-rules'), RULES) });
    markSetupBots([1, 2, 3].map((s) => $(`setup-bot-${s}`)), keys, help, hard?.key);
  });
}

function showSetup() {
  state.match += 1; // a bot loop still running stops at its next step
  state.game = null;
  state.working = false;
  state.thinking = null;
  localStorage.removeItem(MATCH_KEY);
  table.setWorking(null);
  if (table.exchange.open) table.exchange.close();
  $('setup').hidden = false;
  $('table').hidden = true;
}

async function start() {
  const message = $('setup-message');
  message.textContent = '';
  const seedText = /** @type {HTMLInputElement} */ ($('setup-seed')).value.trim();
  if (seedText && !/^\d+$/.test(seedText)) {
    // said until the seed is changed
    fieldError(message, $('setup-seed'), `The seed is a whole number from 0 (got ${seedText}), or empty for a random one.`);
    return;
  }
  const seed = seedText ? Number(seedText) : crypto.getRandomValues(new Uint32Array(1))[0] >>> 1;
  const seats = [null, ...[1, 2, 3].map((s) => /** @type {HTMLSelectElement} */ ($(`setup-bot-${s}`)).value)];
  $('setup-start').disabled = true;
  try {
    await begin({ seed, rules: readRules($('setup-rules'), RULES), seats, moves: [], budgetMs: readBudget($('setup-budget')) });
  } catch (err) {
    message.textContent = err.message; // a level that does not play the rules, or a stopped worker
  } finally {
    $('setup-start').disabled = false;
  }
}

/**
 * Set a match up: its players in the worker (a search level's with the match's time a move),
 * then the Game, replaying `moves` (a resumed match's), and the bots to move.
 * @param {{seed: number, rules: Record<string, any>, seats: Array<string | null>, moves: Array<string[] | null>, budgetMs?: number | null}} match
 */
async function begin({ seed, rules, seats, moves, budgetMs = null }) {
  document.body.dataset.working = '1'; // the worker sets the match's players up
  try {
    ({ budgets: state.budgets } = await /** @type {BotWorker} */ (state.bots).request('match', { seats, rules, budgetMs }));
    state.budgetMs = budgetMs;
  } finally {
    document.body.dataset.working = '0';
  }
  state.match += 1;
  const players = seats.map((key) => (key === null ? 'you' : state.choices[Number(key)].level));
  const names = players.map((who, seat) => (who === 'you' ? 'You' : `Seat ${seat} · ${who}`));
  // the record names its players ("you", each level), as murlan play and murlan serve do
  const game = new Game({ seed, rules, players });
  Object.assign(state, { game, seed, rules, seats, names, events: [], moves: [], decisions: 0 });
  for (const cards of moves) {
    if (cards === null) deal();
    else apply(cards);
  }
  table.selected.clear();
  table.setMessage('');
  $('setup').hidden = true;
  $('table').hidden = false;
  draw();
  runBots();
}

/** The match this browser was playing, from localStorage: true when it is shown again. */
async function resume() {
  let saved;
  try {
    saved = JSON.parse(localStorage.getItem(MATCH_KEY) ?? 'null');
  } catch {
    saved = null;
  }
  if (!saved) return false;
  const known = saved.seats.every((key, seat) => key === null || state.choices[Number(key)]?.level === saved.levels[seat]);
  if (!known) return false; // other bundles now: its levels are not here
  try {
    await begin(saved);
    return true;
  } catch {
    localStorage.removeItem(MATCH_KEY);
    return false;
  }
}

function save() {
  const { seed, rules, seats, moves, budgetMs } = state;
  const levels = seats.map((key) => (key === null ? null : state.choices[Number(key)].level));
  localStorage.setItem(MATCH_KEY, JSON.stringify({ seed, rules, seats, levels, moves, budgetMs }));
}

// ------------------------------------------------------------------------------ moves

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * The bots move, one at a time after the chosen pause, until the person is to act or the hand
 * ends. Each decision is the worker's (the position, a seed drawn from the match's seed and the
 * decision's number, and the match so far as murlan's bot protocol sends it): the page stays
 * free meanwhile, and the seat shows its thinking sign until its move is shown.
 */
async function runBots() {
  const match = state.match;
  const game = state.game;
  if (!game || game.turn === null || game.turn === 0) { draw(); return; }
  state.working = true;
  try {
    while (state.match === match && game.turn !== null && game.turn !== 0) {
      const seat = game.turn;
      state.thinking = seat;
      draw();
      await sleep(Number(table.pace.value) || 0);
      if (state.match !== match) return;
      const seed = (state.seed * 1_000_003 + state.decisions) >>> 0;
      const context = { record: game.record(), seat };
      const { move } = await /** @type {BotWorker} */ (state.bots).request('choose', { seat, position: game.position(), seed, context });
      if (state.match !== match) return;
      state.thinking = null;
      apply(move.cards);
      draw();
    }
  } catch (err) {
    if (state.match === match) table.setMessage(`${state.names[state.thinking ?? 0]} failed: ${err.message}`, true);
  } finally {
    if (state.match === match) {
      state.thinking = null;
      state.working = false;
      draw();
    }
  }
}

/** The seat to act moves (cards already judged legal); the hand's history and the saved match follow. */
function apply(cards) {
  const game = /** @type {Game} */ (state.game);
  const g = game.state;
  const exchange = game.phase === 'exchange';
  const before = { table: g.table, seat: g.tableSeat };
  const move = game.play(cards);
  state.decisions += 1;
  state.moves.push(move.cards);
  const place = g.place[move.seat];
  // The card given back is seen only by the two seats it passes between.
  const seen = !exchange || move.seat === 0 || g.exLast === 0;
  const kind = exchange ? 'give back' : move.cards.length ? 'play' : 'pass';
  const text = exchange ? (seen ? `gives back ${move.cards[0]}` : 'gives back a card') : move.cards.length ? describe(move.action) : 'pass';
  const cleared = before.table !== PASS && g.table === PASS && game.phase === 'play';
  state.events.push({
    seat: move.seat,
    kind,
    cards: seen ? move.cards : [],
    text,
    out: !exchange && place >= 0 && move.cards.length && game.cardsLeft()[move.seat] === 0 ? place + 1 : null,
    trick_to: cleared ? (move.cards.length ? move.seat : before.seat) : null,
  });
  save();
}

/** The person's move: refused with the engine's reason when it is not legal. */
function tryMove(cards) {
  const game = state.game;
  if (!game || state.working || game.turn !== 0) return;
  const why = game.whyNot(cards);
  if (why) {
    table.refused(why);
    return;
  }
  apply(cards);
  table.selected.clear();
  table.setMessage('');
  draw();
  runBots();
}

function deal() {
  /** @type {Game} */ (state.game).nextHand();
  state.events = [];
  state.moves.push(null);
}

function nextHand() {
  const game = state.game;
  if (!game || game.phase !== 'hand_over' || state.working) return;
  deal();
  save();
  table.selected.clear();
  table.setMessage('');
  draw();
  runBots();
}

/** @param {HTMLAnchorElement} link */
function download(link) {
  const game = state.game;
  if (!game) return;
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([dumps(game.record())], { type: 'application/json' }));
  link.download = `murlan-seed-${state.seed}.json`;
}

// ------------------------------------------------------------------------------ drawing

/** The game as a table state (../ui/view.js), in the shape `murlan serve` sends. */
function tableState() {
  const game = /** @type {Game} */ (state.game);
  const g = game.state;
  const record = game.record();
  const hand = record.hands[record.hands.length - 1];
  const phase = game.phase.replace('_', ' ');
  const over = phase === 'hand over' || phase === 'match over';
  const counts = game.cardsLeft();
  const table = game.table;
  const ex = hand.exchange;
  const involved = ex && (ex.first === 0 || ex.last === 0);
  const board = {
    hand: game.handNo + 1,
    dealer: game.dealer,
    target: game.target,
    scores: game.scores,
    phase,
    to_act: game.turn,
    start_card: g.startDuty ? game.rules.start_card : null,
    // Once a hand is over, the cards left are laid down face up.
    seats: [0, 1, 2, 3].map((seat) => ({ seat, name: state.names[seat], cards: seat === 0 || over ? game.hand(seat) : null,
      count: counts[seat], place: g.place[seat] >= 0 ? g.place[seat] + 1 : null, passed: g.passed[seat] === 1 })),
    table: table && { seat: table.seat, cards: table.play.split(' '), text: describe(g.table) },
    exchange: ex && { ...ex, first_gives: ex.first_gives === null || involved ? ex.first_gives : 'hidden' },
    result: over ? { finish: hand.finish, points: hand.points } : null,
    winners: game.winners,
  };
  const prompt = game.turn === 0 && game.phase === 'exchange'
    ? { from: g.exLast, received: game.position().exchange.received, eligible: game.hand(0).filter((c) => game.whyNot([c]) === null) }
    : null;
  return {
    seat: 0,
    names: state.names,
    seed: state.seed,
    board,
    events: state.events,
    hands: record.hands.filter((h) => h.points).map((h, i) => ({ hand: i + 1, points: h.points })),
    rules: state.rules,
    exchange_prompt: prompt,
    record: null,
    thinking: state.thinking,
    thinking_budget_ms: state.thinking === null ? null : state.budgets[state.thinking] ?? null,
  };
}

function draw() {
  if (!state.game) return;
  table.show(tableState());
  const budget = state.thinking === null ? null : state.budgets[state.thinking];
  table.setWorking(state.working ? `${state.names[state.thinking ?? 0]} is ${thinkingWords(budget)}` : null);
}

init();
