// The play page: a whole match against the bundle's bots, with no server. The engine (`Game`)
// and the record run here; the bots (`loadBot`, the runtime-free weights by default) run in a
// module Web Worker (worker.js), so a slow decision never freezes the page.
//
// Bundles: `?bundle=URL` (repeatable, relative to this page; default: the shipped bundles
// of a murlan checkout served at its root). Each bundle offers its levels (worker.js says
// which, `expert` among them). `?pace=MS` sets the pause before each bot move (else the last
// pace picked, kept in localStorage); `?budget=MS` caps a search level's time a move (else
// its whole search).
//
// One thing at a time: while the bots move (each after a visible pause, thinking in the
// worker), the person's controls are off and a sign on the seat and above the hand says who
// is thinking; the person can still read, scroll and open the rules. The page keeps its state
// in `window.murlan` (the Game, whether bots are at work) for tests and the curious;
// `window.murlanHooks.player`, set before the page loads, names a module that wraps the
// worker's players (worker.js; the browser tests use it).
import { Game, RULE_CHOICES, describe, dumps, rulesFromDict } from '../src/index.js';
import { BotWorker } from './botworker.js';
import { cardElement, cardsText, el, finishText, plural, renderBoard, renderHistory, renderScores, words } from './view.js';

/** @type {(id: string) => any} the page's elements by id (inputs, selects, dialogs, buttons) */
const $ = (id) => document.getElementById(id);
const DEFAULT_BUNDLES = ['../../../murlan_env/bots/policies/ppo-finetune/', '../../../murlan_env/bots/policies/ppo-strong/'];
const PACE_KEY = 'murlan.pace';

const state = {
  /** @type {Array<{key: string, level: string, bundle: string, about: string}>} the worker's levels */
  choices: [],
  /** @type {BotWorker | null} */
  bots: null,
  /** @type {Game | null} */
  game: null,
  seed: 0,
  names: ['You', 'Seat 1', 'Seat 2', 'Seat 3'],
  /** the seat whose bot is thinking, or null */
  thinking: null,
  /** the hand's moves, for its history */
  events: [],
  selected: new Set(),
  working: false,
  /** bumps at every new match, so a bot loop of an abandoned match stops */
  match: 0,
  decisions: 0,
};
/** @type {any} */ (window).murlan = state;

async function init() {
  const params = new URLSearchParams(location.search);
  const bundles = params.getAll('bundle');
  const pace = params.get('pace') ?? localStorage.getItem(PACE_KEY) ?? '700';
  $('pace').value = [...$('pace').options].some((o) => o.value === pace) ? pace : '700';
  $('pace').addEventListener('change', () => localStorage.setItem(PACE_KEY, $('pace').value));
  try {
    const urls = (bundles.length ? bundles : DEFAULT_BUNDLES).map((source) => new URL(source.endsWith('/') ? source : `${source}/`, location.href).href);
    const hook = /** @type {any} */ (window).murlanHooks?.player;
    state.bots = new BotWorker(new URL('./worker.js', import.meta.url));
    const budget = Number(params.get('budget'));
    const budgetMs = budget > 0 ? budget : null;
    ({ choices: state.choices } = await state.bots.request('load', { bundles: urls, hook: hook ? new URL(hook, location.href).href : null, budgetMs }));
  } catch (err) {
    const box = $('load-error');
    box.textContent = `${err.message}. Serve a bundle folder (bot.json, weights.json, weights.bin) and name it with ?bundle=URL (see docs/js-client.md).`;
    box.hidden = false;
    document.body.dataset.ready = '1';
    return;
  }
  buildSetup();
  $('setup').addEventListener('submit', (e) => { e.preventDefault(); start(); });
  $('play').addEventListener('click', playSelected);
  $('pass').addEventListener('click', () => tryMove([]));
  $('clear').addEventListener('click', () => { state.selected.clear(); setMessage(''); drawHand(); });
  $('next-hand').addEventListener('click', nextHand);
  $('new-match').addEventListener('click', askNewMatch);
  $('abandon-yes').addEventListener('click', () => { $('abandon-dialog').close(); showSetup(); });
  $('abandon-no').addEventListener('click', () => $('abandon-dialog').close());
  $('download').addEventListener('click', download);
  $('rules-open').addEventListener('click', () => {
    const variant = state.game ? variantWords(state.game.rules) : [];
    $('rules-variant').textContent = variant.length ? `This match's variant: ${variant.join('; ')}.` : '';
    $('rules-dialog').showModal();
  });
  $('rules-close').addEventListener('click', () => $('rules-dialog').close());
  document.addEventListener('keydown', onKey);
  showSetup();
  document.body.dataset.ready = '1';
}

// ------------------------------------------------------------------------------ set-up

/** Three level menus (one per bot seat), the seed and a control per variant flag. */
function buildSetup() {
  const ambiguous = (level) => state.choices.filter((c) => c.level === level).length > 1;
  const help = $('setup-bot-help');
  for (let seat = 1; seat < 4; seat++) {
    const select = /** @type {HTMLSelectElement} */ (el('select', { id: `setup-bot-${seat}` }, state.choices.map((c) =>
      el('option', { value: c.key, text: ambiguous(c.level) ? `${c.level} (${c.bundle})` : c.level }))));
    const hard = state.choices.find((c) => c.level === 'hard');
    if (hard) select.value = hard.key;
    const about = () => { const c = state.choices[Number(select.value)]; help.textContent = `${c.level} (${c.bundle}): ${c.about}`; };
    select.addEventListener('change', about);
    select.addEventListener('focus', about);
    if (seat === 1) about();
    $('setup-bots').append(el('label', {}, `Seat ${seat} `, select));
  }
  const rules = $('setup-rules');
  for (const [flag, values] of Object.entries(RULE_CHOICES)) {
    if (typeof values[0] === 'boolean') {
      rules.append(el('label', {}, el('input', { type: 'checkbox', id: `rule-${flag}` }), ` ${flag}`));
    } else {
      rules.append(el('label', {}, `${flag} `, el('select', { id: `rule-${flag}` }, values.map((v) => el('option', { value: v, text: String(v) })))));
    }
  }
}

function readRules() {
  return rulesFromDict(Object.fromEntries(Object.entries(RULE_CHOICES).map(([flag, values]) => {
    const input = /** @type {HTMLInputElement} */ ($(`rule-${flag}`));
    return [flag, typeof values[0] === 'boolean' ? input.checked : input.value];
  })));
}

/** The flags that differ from the standard game, as words. */
function variantWords(rules) {
  return Object.entries(rules).filter(([flag, v]) => RULE_CHOICES[flag][0] !== v).map(([flag, v]) => (v === true ? flag : `${flag}=${v}`));
}

function showSetup() {
  state.match += 1; // a bot loop still running stops at its next step
  state.game = null;
  state.working = false;
  state.thinking = null;
  document.body.dataset.working = '0';
  $('setup').hidden = false;
  $('table').hidden = true;
}

function askNewMatch() {
  if (!state.game || state.game.phase === 'match_over') showSetup();
  else $('abandon-dialog').showModal();
}

async function start() {
  const message = $('setup-message');
  message.textContent = '';
  const seedText = /** @type {HTMLInputElement} */ ($('setup-seed')).value.trim();
  if (seedText && !/^\d+$/.test(seedText)) {
    message.textContent = `The seed is a whole number from 0 (got ${seedText}), or empty for a random one.`;
    return;
  }
  const seed = seedText ? Number(seedText) : crypto.getRandomValues(new Uint32Array(1))[0] >>> 1;
  const rules = readRules();
  const seats = [null];
  const names = ['You'];
  for (let seat = 1; seat < 4; seat++) {
    const choice = state.choices[Number(/** @type {HTMLSelectElement} */ ($(`setup-bot-${seat}`)).value)];
    seats.push(choice.key);
    names.push(`Seat ${seat} · ${choice.level}`);
  }
  $('setup-start').disabled = true;
  document.body.dataset.working = '1'; // the worker sets the match's players up
  try {
    await /** @type {BotWorker} */ (state.bots).request('match', { seats, rules });
  } catch (err) {
    message.textContent = err.message; // a level that does not play the rules, or a stopped worker
    return;
  } finally {
    $('setup-start').disabled = false;
    document.body.dataset.working = '0';
  }
  state.match += 1;
  Object.assign(state, { game: new Game({ seed, rules }), seed, names, events: [], decisions: 0 });
  state.selected.clear();
  setMessage('');
  $('setup').hidden = true;
  $('table').hidden = false;
  const variant = variantWords(rules);
  $('variant').textContent = variant.length ? `Variant: ${variant.join(', ')}` : 'Standard rules';
  draw();
  runBots();
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
  setControls();
  const sign = $('thinking');
  try {
    while (state.match === match && game.turn !== null && game.turn !== 0) {
      const seat = game.turn;
      state.thinking = seat;
      sign.textContent = `${state.names[seat]} is thinking…`;
      sign.classList.add('on');
      draw();
      await sleep(Number($('pace').value) || 0);
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
    if (state.match === match) setMessage(`${state.names[state.thinking ?? 0]} failed: ${err.message}`, true);
  } finally {
    if (state.match === match) {
      sign.textContent = '';
      sign.classList.remove('on');
      state.thinking = null;
      state.working = false;
      draw();
    }
  }
}

/** The seat to act moves (cards already judged legal); the hand's history follows. */
function apply(cards) {
  const game = /** @type {Game} */ (state.game);
  const exchange = game.phase === 'exchange';
  const tableBefore = game.state.table;
  const move = game.play(cards);
  state.decisions += 1;
  const place = game.state.place[move.seat];
  const leads = !exchange && game.phase === 'play' && game.table === null && game.state.table !== tableBefore ? game.turn : null;
  state.events.push({
    seat: move.seat,
    cards: move.cards,
    kind: exchange ? 'give back' : words(describe(move.action)),
    out: !exchange && place >= 0 && move.cards.length && game.cardsLeft()[move.seat] === 0 ? place : null,
    leads: game.phase === 'play' ? leads : null,
    toYou: exchange && game.state.exLast === 0,
  });
}

/** The person's move: refused with the engine's reason when it is not legal. */
function tryMove(cards) {
  const game = state.game;
  if (!game || state.working || game.turn !== 0) return;
  const why = game.whyNot(cards);
  if (why) {
    setMessage(`Not allowed: ${why}`, true);
    return;
  }
  apply(cards);
  state.selected.clear();
  setMessage('');
  draw();
  runBots();
}

function playSelected() {
  if (!state.selected.size) {
    const exchange = state.game?.phase === 'exchange';
    setMessage(exchange ? 'Select the card to give back first (click it).' : 'Select the cards to play first (click them), or press Pass.', true);
    return;
  }
  tryMove([...state.selected]);
}

function nextHand() {
  const game = state.game;
  if (!game || game.phase !== 'hand_over' || state.working) return;
  game.nextHand();
  state.events = [];
  state.selected.clear();
  setMessage('');
  draw();
  runBots();
}

function download(event) {
  const game = state.game;
  const link = /** @type {HTMLAnchorElement} */ (event.currentTarget);
  if (!game) { event.preventDefault(); return; }
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([dumps(game.record())], { type: 'application/json' }));
  link.download = `murlan-seed-${state.seed}.json`;
}

// ------------------------------------------------------------------------------ drawing

function setMessage(text, bad = false) {
  $('message').textContent = text;
  $('message').classList.toggle('bad', bad);
}

/** What the board shows, read from the game. */
function tableView() {
  const game = /** @type {Game} */ (state.game);
  const g = game.state;
  const record = game.record();
  const hand = record.hands[record.hands.length - 1];
  const over = game.phase === 'hand_over' || game.phase === 'match_over';
  const counts = game.cardsLeft();
  const table = game.table;
  return {
    phase: game.phase,
    turn: game.turn,
    hand: game.handNo + 1,
    thinking: state.thinking,
    dealer: game.dealer,
    target: game.target,
    seats: [0, 1, 2, 3].map((seat) => ({ seat, name: state.names[seat], count: counts[seat], score: game.scores[seat], place: g.place[seat] >= 0 ? g.place[seat] : null, passed: g.passed[seat] === 1 })),
    table: table && { seat: table.seat, cards: table.play.split(' '), words: words(describe(g.table)) },
    startCard: g.startDuty ? game.rules.start_card : null,
    exchange: hand.exchange,
    result: over ? { finish: hand.finish, points: hand.points } : null,
    hands: record.hands.filter((h) => h.points).map((h) => h.points),
  };
}

function draw() {
  const game = state.game;
  if (!game) return;
  const view = tableView();
  const mine = new Set(game.hand(0));
  state.selected = new Set([...state.selected].filter((c) => mine.has(c)));
  renderBoard($('board'), view);
  renderScores($('scores'), view);
  renderHistory($('history'), state.events, state.names);
  $('status').textContent = statusText(view);
  drawHand();
  drawExchange();
  drawResult(view);
  setControls();
}

function statusText(view) {
  const bits = [`Hand ${view.hand}`, `target ${view.target}`, `seed ${state.seed}`];
  if (view.phase === 'match_over') bits.push('match over');
  else if (view.phase === 'hand_over') bits.push('hand over');
  else if (view.turn === 0) bits.push(view.phase === 'exchange' ? 'give a card back' : 'your turn');
  else bits.push(`${state.names[view.turn]} to ${view.phase === 'exchange' ? 'give a card back' : 'play'}`);
  return bits.join(' · ');
}

/** The person's cards: the buttons are kept while the hand is the same (a click only presses one). */
function drawHand() {
  const game = state.game;
  if (!game) return;
  const box = $('hand');
  const cards = game.hand(0);
  const eligible = new Set(giveBackCards(game));
  const buttons = /** @type {HTMLElement[]} */ ([...box.children]);
  if (buttons.map((b) => b.dataset.card).join(' ') !== cards.join(' ')) {
    box.replaceChildren(...cards.map((name) => cardElement(name, { onclick: () => toggle(name) })));
  }
  for (const button of /** @type {HTMLElement[]} */ ([...box.children])) {
    const name = /** @type {string} */ (button.dataset.card);
    button.setAttribute('aria-pressed', state.selected.has(name) ? 'true' : 'false');
    button.classList.toggle('eligible', eligible.has(name));
  }
}

function toggle(name) {
  if (state.game?.phase === 'exchange' && !state.selected.has(name)) state.selected.clear(); // one card goes back
  if (state.selected.has(name)) state.selected.delete(name);
  else state.selected.add(name);
  setMessage('');
  drawHand();
}

/** The person's cards that may go back in the exchange (any suit of an allowed rank). */
function giveBackCards(game) {
  if (game.turn !== 0 || game.phase !== 'exchange') return [];
  return game.hand(0).filter((name) => game.whyNot([name]) === null);
}

/** The give-back, under the hand (the hand stays in sight): the card received, the cards that may go back. */
function drawExchange() {
  const game = /** @type {Game} */ (state.game);
  const box = $('exchange');
  if (game.turn !== 0 || game.phase !== 'exchange') { box.hidden = true; return; }
  const { received } = game.position().exchange;
  const from = game.state.exLast;
  $('exchange-text').textContent = `${state.names[from]} (last in the previous hand) gave you ${cardsText([received])}, their highest card. Give back one card ranked 3 to 10: click it here, or select it in your hand and press Give back.`;
  $('exchange-cards').replaceChildren(...giveBackCards(game).map((name) => cardElement(name, { onclick: () => tryMove([name]) })));
  box.hidden = false;
}

function drawResult(view) {
  const box = $('result');
  if (!view.result) { box.hidden = true; box.replaceChildren(); return; }
  const game = /** @type {Game} */ (state.game);
  const children = [el('h2', { text: view.phase === 'match_over' ? 'Match over' : `Hand ${view.hand} over` }),
    el('p', { id: 'hand-result', text: finishText(view.result, state.names) })];
  if (view.phase === 'match_over') {
    const winners = game.winners;
    const text = winners.length === 1 ? (winners[0] === 0 ? 'You win the match!' : `${state.names[winners[0]]} wins the match.`)
      : `${winners.map((s) => state.names[s]).join(' and ')} draw.`;
    children.push(el('p', { id: 'match-winners', class: 'winner' }, el('strong', { text })),
      el('p', { class: 'note', text: `Final scores: ${game.scores.map((p, s) => `${state.names[s]} ${plural(p, 'point')}`).join(', ')} (target ${game.target}).` }),
      el('button', { type: 'button', class: 'primary', id: 'again', onclick: showSetup, text: 'New match' }));
  } else {
    children.push(el('p', { class: 'note', text: `Next: hand ${view.hand + 1}, dealt by ${state.names[(game.dealer + 1) % 4]}.` }));
  }
  box.replaceChildren(...children);
  box.hidden = false;
}

function setControls() {
  const game = state.game;
  if (!game) return;
  const mine = !state.working && game.turn === 0;
  $('play').disabled = !mine;
  $('play').textContent = game.phase === 'exchange' ? 'Give back' : 'Play';
  $('pass').disabled = !mine || game.phase !== 'play' || game.table === null;
  $('clear').disabled = !mine;
  $('next-hand').hidden = game.phase !== 'hand_over';
  $('next-hand').disabled = state.working;
  if (!state.working) $('thinking').textContent = prompt(game);
  document.body.dataset.working = state.working ? '1' : '0';
  document.body.dataset.phase = game.phase;
  document.body.dataset.turn = game.turn === null ? '' : String(game.turn);
}

/** What the page waits for from the person, in the line the bots' sign uses. */
function prompt(game) {
  if (game.phase === 'match_over') return 'Match over.';
  if (game.phase === 'hand_over') return 'Hand over: press Next hand.';
  if (game.turn !== 0) return '';
  if (game.phase === 'exchange') return 'Your turn: give a card back (below).';
  return game.table === null ? 'Your turn: you lead.' : 'Your turn: beat the table, or Pass.';
}

function onKey(event) {
  if (!state.game || $('table').hidden || document.querySelector('dialog[open]')) return;
  const target = /** @type {HTMLElement} */ (event.target);
  if (['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName)) return;
  const cards = [...$('hand').querySelectorAll('button.card')];
  const at = cards.indexOf(/** @type {HTMLElement} */ (document.activeElement));
  const key = event.key.toLowerCase();
  if ((key === 'arrowright' || key === 'arrowleft') && cards.length) {
    const step = key === 'arrowright' ? 1 : -1;
    /** @type {HTMLElement} */ (cards[at < 0 ? 0 : (at + step + cards.length) % cards.length]).focus();
  } else if (key === 'p' && !$('play').disabled) playSelected();
  else if (key === 'x' && !$('pass').disabled) tryMove([]);
  else if (key === 'c') { state.selected.clear(); drawHand(); }
  else return;
  event.preventDefault();
}

init();
