// The table a person plays at, on both pages (`murlan serve`'s Play page and the serverless
// play page): the status line and its thinking sign, the seats around the felt, the person's
// hand and buttons, the give-back, the result, the scores and the hand's history. It draws a
// table state and turns the person's clicks and keys into calls on a driver; the driver
// makes the moves (one asks the server's API, the other plays the in-browser Game and its
// bots' worker) and hands the view each state to draw.
//
// A table state: `{seat, names, seed, board, events, hands, rules, exchange_prompt, record,
// thinking, thinking_budget_ms}` - `board` and `events` as ./table.js reads them, `hands` the finished hands'
// points (`[{hand, points}]`), `rules` the match's flags that differ from the standard game
// (said in words by ./rules.js), `exchange_prompt`
// the person's give-back (`{from, received, eligible}`) or null, `record` a saved record's
// name (for its replay link) or null, `thinking` the seat whose bot is at work or null,
// `thinking_budget_ms` the most that bot may take a move (a search level's time budget: its
// sign says "thinking… up to 1 s") or null.
//
// Nothing moves while the bots play: the status line keeps one line (ellipsis), the sign
// only turns visible, the seats keep their size and the buttons their width.
import { el, plural } from './dom.js';
import { cardElement, cardWords, cardsText } from './cards.js';
import { paceControl } from './forms.js';
import { refusalWords, rulesText } from './rules.js';
import { finishText, noExchangeText, renderBoard, renderHistory, renderScores, statusText, winnersText } from './table.js';

/**
 * @typedef {object} Driver what the view asks of a page
 * @property {(cards: string[]) => Promise<void> | void} move the person's play, pass ([]) or give-back
 * @property {() => Promise<void> | void} next deal the next hand
 * @property {() => Promise<void> | void} newMatch to the set-up (the match is over or abandoned)
 * @property {() => Promise<void> | void} [abandon] end a match that is not over (default: newMatch)
 * @property {() => Promise<boolean>} [mayAbandon] false when there is nothing left to abandon (the driver says why)
 * @property {(link: HTMLAnchorElement) => void} download point the link at the record
 * @property {(key: string) => boolean} [key] a page's own keys (true: handled)
 * @property {(cards: string[]) => string | null} [whyNot] why a selection is refused before asking
 */

export class TableView {
  /**
   * @param {HTMLElement} root the table's box; children with `data-slot` ("status",
   *   "controls", "side") are the page's own pieces, moved into place
   * @param {{prefix?: string, driver: Driver, abandonText?: string, keys?: string}} opts
   */
  constructor(root, { prefix = '', driver, abandonText = 'The match is not over. If you start a new one, this one ends.', keys = '' }) {
    this.root = root;
    this.driver = driver;
    this.prefix = prefix;
    /** @type {any} */
    this.state = null;
    this.selected = new Set();
    this.working = false;
    /** @type {Map<string, number>} the target each hand was dealt under ("seed hand" keys), to say when it rises */
    this.targets = new Map();
    const id = (name) => `${prefix}${name}`;
    const slot = (name) => [...root.querySelectorAll(`[data-slot="${name}"]`)];
    const button = (name, text, attrs = {}) => /** @type {HTMLButtonElement} */ (el('button', { type: 'button', id: id(name), text, ...attrs }));
    this.status = el('span', { id: id('status'), class: 'status', 'aria-live': 'polite' });
    this.thinking = el('span', { id: id('thinking'), class: 'thinking', role: 'status' });
    this.prompt = el('span', { id: id('prompt'), class: 'prompt' }); // in the sign's place while no one is at work
    this.variant = el('span', { id: id('variant'), class: 'variant' });
    // The bots' pace, changeable during the match: the same choice as the set-up's (forms.js).
    const pace = paceControl(id('pace'));
    /** @type {HTMLSelectElement} ms between bot moves shown */
    this.pace = pace.select;
    this.download = /** @type {HTMLAnchorElement} */ (el('a', { id: id('download'), href: '#', download: 'murlan-match.json', text: 'Download record',
      onclick: () => driver.download(this.download) }));
    this.board = el('div', { class: 'board', id: id('board') });
    this.hand = el('div', { class: 'hand', id: id('hand'), role: 'group', 'aria-label': 'your hand' });
    this.play = button('play', 'Play', { class: 'primary', title: 'P', onclick: () => this.playSelected() });
    this.pass = button('pass', 'Pass', { title: 'X', onclick: () => this.move([]) });
    this.clear = button('clear', 'Clear', { title: 'C', onclick: () => this.clearSelection() });
    this.message = el('p', { id: id('message'), class: 'message', role: 'alert' });
    this.exchangeText = el('p', { id: 'exchange-text' });
    this.exchangeCards = el('div', { class: 'hand', id: 'exchange-cards' });
    this.exchangeMessage = el('p', { id: 'exchange-message', class: 'message', role: 'alert' });
    this.exchange = /** @type {HTMLDialogElement} */ (el('dialog', { id: 'exchange-dialog', 'aria-labelledby': 'exchange-title' },
      el('h2', { id: 'exchange-title', text: 'Exchange' }), this.exchangeText, this.exchangeCards, this.exchangeMessage));
    // The give-back is required: Escape must not close it and leave the hand stuck.
    this.exchange.addEventListener('cancel', (e) => {
      e.preventDefault();
      this.exchangeMessage.textContent = 'Choose a card to give back: the hand goes on after it.';
    });
    this.result = el('div', { class: 'panel result', id: id('result'), hidden: true });
    this.scores = el('div', { class: 'panel', id: id('scores') });
    this.history = el('ol', { class: 'history', id: id('history') });
    this.abandonDialog = /** @type {HTMLDialogElement} */ (el('dialog', { id: 'abandon-dialog', 'aria-labelledby': 'abandon-title' },
      el('h2', { id: 'abandon-title', text: 'Abandon this match?' }), el('p', { text: abandonText }),
      el('div', { class: 'controls' },
        el('button', { type: 'button', id: 'abandon-yes', class: 'primary', text: 'Abandon and start a new match',
          onclick: () => { this.abandonDialog.close(); (driver.abandon ?? driver.newMatch)(); } }),
        el('button', { type: 'button', id: 'abandon-no', text: 'Keep playing', onclick: () => this.abandonDialog.close() }))));
    root.replaceChildren(
      el('div', { class: 'statusbar panel' },
        el('div', { class: 'status-line' }, this.status, this.thinking, this.prompt),
        this.variant, pace.label, slot('status'), this.download,
        button('new', 'New match', { onclick: () => this.askNewMatch() })),
      el('div', { class: 'game-grid' },
        el('div', { class: 'main-column' }, this.board,
          el('div', { class: 'panel you' }, this.hand,
            el('div', { class: 'controls', id: id('controls') }, this.play, this.pass, this.clear, el('span', { class: 'spacer' }), slot('controls')),
            this.message, this.exchange,
            el('p', { class: 'keys', text: `Keys: ← → move between cards, Space selects, P plays, X passes, C clears${keys}.` }))),
        el('aside', { class: 'side' }, this.result, slot('side'), this.scores,
          el('div', { class: 'panel' }, el('h3', { text: 'This hand' }), this.history))),
      this.abandonDialog);
    document.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** The seat the person plays. */
  get seat() {
    return this.state ? this.state.seat : 0;
  }

  /**
   * Draw a table state (see the top of this file).
   * @param {any} state
   */
  show(state) {
    this.state = state;
    const board = state.board;
    const mine = board.seats[state.seat].cards || [];
    this.selected = new Set([...this.selected].filter((c) => mine.includes(c)));
    const key = `${state.seed} ${state.names.join()} ${board.hand}`;
    if (!board.result && !this.targets.has(key)) this.targets.set(key, board.target);
    this.dealtTarget = this.targets.get(key) ?? null;
    const note = noExchangeText(board, state.rules ?? {}, state.hands ?? []);
    renderBoard(this.board, board, { bottom: state.seat, hideHandOf: state.seat, thinking: state.thinking ?? null,
      thinkingBudgetMs: state.thinking_budget_ms ?? null, note });
    renderScores(this.scores, board, state.hands);
    renderHistory(this.history, state.events, state.names);
    this.status.textContent = statusText(state.seat, state.names, state.seed, board);
    this.status.title = this.status.textContent;
    const variant = rulesText(state.rules ?? {});
    this.variant.textContent = variant.length ? `Variant: ${variant.map((v) => v.split(':')[0]).join(', ')}` : 'Standard rules';
    this.variant.title = variant.length ? variant.join('\n') : 'No variant flags: the standard game';
    this.drawHand();
    this.drawResult();
    this.drawExchange();
    this.setControls();
  }

  /**
   * Bots (or the server) at work: the person's buttons off and the sign saying `what`; null:
   * the person's turn again, the sign gone (its place kept).
   * @param {string | null} what
   */
  setWorking(what) {
    this.working = Boolean(what);
    this.setControls(what);
  }

  /** @param {string} text @param {boolean} [bad] */
  setMessage(text, bad = false) {
    this.message.textContent = cardWords(text);
    this.message.classList.toggle('bad', bad);
    if (this.exchange.open) this.exchangeMessage.textContent = bad ? cardWords(text) : '';
  }

  /** The engine's reason a move is refused, in the person's words (`refusalWords`). @param {string} text */
  refused(text) {
    this.setMessage(`Not allowed: ${refusalWords(text, this.seat)}`, true);
  }

  clearSelection() {
    this.selected.clear();
    this.setMessage('');
    this.drawHand();
  }

  /** The person's move, unless a request is on its way; a refusal the driver knows at once is said. */
  move(cards) {
    if (this.working || !this.state) return;
    const why = this.driver.whyNot ? this.driver.whyNot(cards) : null;
    if (why) { this.refused(why); return; }
    this.driver.move(cards);
  }

  playSelected() {
    if (!this.selected.size) {
      const board = this.state.board;
      const what = board.phase === 'exchange' ? 'Select the card to give back first (click it).'
        : `Select the cards to play first (click them)${board.table ? ', or press Pass' : ''}.`;
      this.setMessage(what, true);
      return;
    }
    this.move([...this.selected]);
  }

  /** The selection the person is offered (a hint's move). @param {string[]} cards */
  select(cards) {
    this.selected = new Set(cards);
    this.drawHand();
  }

  async askNewMatch() {
    const board = this.state?.board;
    if (!board || board.phase === 'match over') {
      await this.driver.newMatch();
      return;
    }
    // Asked at once; a match that turns out to be gone closes the question (the driver says why).
    this.abandonDialog.showModal();
    if (this.driver.mayAbandon && !(await this.driver.mayAbandon()) && this.abandonDialog.open) this.abandonDialog.close();
  }

  /** The person's cards: the buttons are kept while the hand is the same (a click only presses one). */
  drawHand() {
    if (!this.state) return;
    const cards = this.state.board.seats[this.state.seat].cards || [];
    const eligible = new Set(this.state.exchange_prompt?.eligible ?? []);
    const focused = /** @type {HTMLElement} */ (document.activeElement)?.dataset?.card;
    if ([...this.hand.children].map((b) => /** @type {HTMLElement} */ (b).dataset.card).join(' ') !== cards.join(' ')) {
      this.hand.replaceChildren(...cards.map((name) => cardElement(name, { onclick: () => this.toggle(name) })));
      if (focused) /** @type {HTMLElement | null} */ (this.hand.querySelector(`[data-card="${focused}"]`))?.focus();
    }
    for (const button of /** @type {HTMLElement[]} */ ([...this.hand.children])) {
      const name = button.dataset.card;
      button.setAttribute('aria-pressed', this.selected.has(name) ? 'true' : 'false');
      button.classList.toggle('eligible', eligible.has(name));
    }
  }

  /** @param {string} name */
  toggle(name) {
    if (this.state.board.phase === 'exchange' && !this.selected.has(name)) this.selected.clear(); // one card goes back
    if (this.selected.has(name)) this.selected.delete(name);
    else this.selected.add(name);
    if (this.selected.size) this.setMessage('');
    this.drawHand();
  }

  drawResult() {
    const state = this.state;
    const board = state.board;
    const box = this.result;
    if (!board.result) { box.hidden = true; box.replaceChildren(); return; }
    const over = board.phase === 'match over';
    const children = [el('h2', { text: over ? 'Match over' : `Hand ${board.hand} over` }),
      el('p', { id: 'hand-result', text: finishText(board.result, state.names) })];
    if (this.dealtTarget !== null && board.target > this.dealtTarget) {
      // The target rose this hand: say who reached it together.
      const reached = board.seats.filter((s) => board.scores[s.seat] >= this.dealtTarget);
      const who = reached.map((s) => `${s.name} (${board.scores[s.seat]})`).join(' and ');
      children.push(el('p', { id: 'target-raised', class: 'winner',
        text: `${who} reached ${this.dealtTarget} together, so no one wins yet: the target rises to ${board.target}.` }));
    }
    if (over) {
      children.push(el('p', { id: 'match-winners', class: 'winner' }, el('strong', { text: winnersText(state.names, board.winners) })),
        el('p', { class: 'note', text: `Final scores: ${board.scores.map((p, s) => `${state.names[s]} ${plural(p, 'point')}`).join(', ')} (target ${board.target}).` }));
      if (state.record) {
        children.push(el('p', { id: 'match-record' }, `Saved as ${state.record}: `,
          el('a', { href: '#replay', 'data-record': state.record, id: 'match-record-link', text: 'replay it' })));
      }
      children.push(el('button', { type: 'button', class: 'primary', id: `${this.prefix}again`, onclick: () => this.driver.newMatch(), text: 'New match' }));
    } else {
      const dealer = state.names[(board.dealer + 1) % 4];
      children.push(el('p', { class: 'note', text: `Next: hand ${board.hand + 1}, dealt by ${dealer}.` }),
        el('button', { type: 'button', class: 'primary', id: `${this.prefix}next`, onclick: () => { if (!this.working) this.driver.next(); }, text: 'Next hand' }));
    }
    box.replaceChildren(...children);
    box.hidden = false;
  }

  /** The give-back, under the hand and its buttons (which stay where they are): the card received, the cards that may go back. */
  drawExchange() {
    const prompt = this.state.exchange_prompt;
    if (!prompt) { if (this.exchange.open) this.exchange.close(); return; }
    this.exchangeText.textContent = `${this.state.names[prompt.from]} (last in the previous hand) gave you `
      + `${cardsText([prompt.received])}, their highest card. Give back one card ranked 3 to 10: click it here, `
      + 'or select it in your hand and press Give back.';
    this.exchangeMessage.textContent = '';
    this.exchangeCards.replaceChildren(...prompt.eligible.map((name) => cardElement(name, { onclick: () => this.move([name]) })));
    // Not modal: it sits under the person's hand, which stays in view while they choose.
    if (!this.exchange.open) this.exchange.show();
  }

  /** @param {string | null} [sign] what the bots (or the server) are doing, when at work */
  setControls(sign = null) {
    document.body.dataset.working = this.working ? '1' : '0';
    const state = this.state;
    if (!state) return;
    const board = state.board;
    const mine = !this.working && board.to_act === state.seat && (board.phase === 'play' || board.phase === 'exchange');
    this.play.disabled = !mine;
    this.play.textContent = board.phase === 'exchange' ? 'Give back' : 'Play';
    this.pass.disabled = !mine || board.phase !== 'play' || !board.table;
    this.clear.disabled = !mine;
    const next = /** @type {HTMLButtonElement | null} */ (this.result.querySelector(`#${this.prefix}next`));
    if (next) next.disabled = this.working;
    this.thinking.classList.toggle('on', this.working);
    this.thinking.textContent = this.working ? (sign || 'Thinking…') : '';
    this.prompt.textContent = this.working ? '' : this.waitingFor();
    document.body.dataset.phase = board.phase.replace(' ', '_');
    document.body.dataset.turn = board.to_act === null ? '' : String(board.to_act);
  }

  /** What the table waits for from the person, said where the thinking sign shows. */
  waitingFor() {
    const board = this.state.board;
    if (board.phase === 'match over') return 'Match over: New match starts another.';
    if (board.phase === 'hand over') return 'Hand over: press Next hand.';
    if (board.to_act !== this.state.seat) return '';
    if (board.phase === 'exchange') return 'Your turn: give a card back (below).';
    return board.table ? 'Your turn: beat the table, or Pass.' : 'Your turn: you lead.';
  }

  /** @param {KeyboardEvent} event */
  onKey(event) {
    if (!this.state || this.root.hidden || this.root.offsetParent === null || document.querySelector('dialog[open]:not(#exchange-dialog)')) return;
    const target = /** @type {HTMLElement} */ (event.target);
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName) || this.exchange.open) return;
    const cards = /** @type {HTMLElement[]} */ ([...this.hand.querySelectorAll('button.card')]);
    const at = cards.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    const key = event.key.toLowerCase();
    if ((key === 'arrowright' || key === 'arrowleft') && cards.length) {
      const step = key === 'arrowright' ? 1 : -1;
      cards[at < 0 ? 0 : (at + step + cards.length) % cards.length].focus();
    } else if (key === 'p' && !this.play.disabled) this.playSelected();
    else if (key === 'x' && !this.pass.disabled) this.move([]);
    else if (key === 'c') this.clearSelection();
    else if (!this.driver.key?.(key)) return;
    event.preventDefault();
  }
}
