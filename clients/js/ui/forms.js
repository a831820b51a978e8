// Set-up form pieces both pages use: the rule flags (built from `ruleOptions()` or
// /api/options, the same shape), the bot menus, the time a search level may take a move, the
// bots' pace and a field's error that clears once the field changes.
import { budgetWords, el } from './dom.js';

/**
 * The time a search level (`expert`, `search:N`) may take a move, as the set-up offers it:
 * `[ms, words]`, '0' its whole search. The default, 1 s, keeps the browser's `expert` at a
 * person's pace (p95 1.06 s a move where its whole search's is 3.09 s, on a loaded 2-core
 * machine); what it costs in strength is measured in benchmarks/README.md ("Its strength").
 */
export const BUDGETS = [['300', '0.3 s'], ['500', '0.5 s'], ['1000', '1 s'], ['0', 'no limit']];
export const BUDGET_DEFAULT = '1000';
const BUDGET_KEY = 'murlan.budget'; // localStorage: the last time a move picked, as the pace is kept

/**
 * The set-up's "time a move" control: a labelled <select> of `BUDGETS`, prefilled from the
 * page's `?budget=MS` (a value not offered is added as a choice of its own), else the last
 * choice (kept in localStorage like the bot pace), else `BUDGET_DEFAULT`.
 * @param {string} id the select's id
 * @returns {{label: HTMLElement, select: HTMLSelectElement}}
 */
export function budgetControl(id) {
  const select = /** @type {HTMLSelectElement} */ (el('select', { id, title: 'The most a search level (expert) thinks '
    + 'a move: less is quicker and a little weaker; no limit plays its whole search (a few seconds at times).' },
  BUDGETS.map(([value, text]) => el('option', { value, text }))));
  const asked = new URLSearchParams(location.search).get('budget');
  const offered = (value) => [...select.options].some((o) => o.value === value);
  if (asked !== null && Number(asked) >= 0 && Number.isFinite(Number(asked))) {
    const value = String(Number(asked));
    if (!offered(value)) select.append(el('option', { value, text: budgetWords(Number(value)) }));
    select.value = value;
  } else {
    const kept = localStorage.getItem(BUDGET_KEY);
    select.value = kept !== null && offered(kept) ? kept : BUDGET_DEFAULT;
  }
  select.addEventListener('change', () => localStorage.setItem(BUDGET_KEY, select.value));
  return { label: el('label', {}, 'Time a move (search levels) ', select), select };
}

/** The budget chosen in milliseconds, or null for a level's whole search. @param {HTMLSelectElement} select */
export const readBudget = (select) => (Number(select.value) > 0 ? Number(select.value) : null);

/** The pause before each bot move is shown (ms), as the pace menus offer it: `[ms, words]`. */
export const PACES = [['0', 'instant'], ['300', 'fast'], ['700', 'normal'], ['1400', 'slow']];
const PACE_DEFAULT = '700';
const PACE_KEY = 'murlan.pace'; // localStorage: the last pace picked
/** @type {Set<HTMLSelectElement>} every pace menu of the page: the set-up's and the table's, one choice */
const paceMenus = new Set();

/**
 * A "Bot pace" menu (`PACES`), the last pace picked (localStorage) chosen, else normal. The
 * page's pace menus are one choice: the set-up's and the table's (changeable during a match)
 * show the same pace, whichever changed it.
 * @param {string} id the select's id
 * @returns {{label: HTMLElement, select: HTMLSelectElement}}
 */
export function paceControl(id) {
  const select = /** @type {HTMLSelectElement} */ (el('select', { id, title: 'The pause before each bot move is shown' },
    PACES.map(([value, text]) => el('option', { value, text }))));
  const shown = paceMenus.values().next().value; // the page's other pace menu: the same pace
  const kept = localStorage.getItem(PACE_KEY);
  select.value = shown ? shown.value : PACES.some(([v]) => v === kept) ? kept : PACE_DEFAULT;
  paceMenus.add(select);
  select.addEventListener('change', () => setPace(select.value));
  return { label: el('label', {}, 'Bot pace ', select), select };
}

/**
 * Show every pace menu at `value` (one `PACES` offers), kept for the next visit unless `keep`
 * is false (a page's `?pace=` sets it for the visit only).
 * @param {string} value @param {{keep?: boolean}} [opts]
 */
export function setPace(value, { keep = true } = {}) {
  if (!PACES.some(([v]) => v === value)) return;
  for (const select of paceMenus) select.value = value;
  if (keep) localStorage.setItem(PACE_KEY, value);
}

/**
 * Checkboxes (yes/no flags) and selects (other flags) for every rule flag, defaults chosen;
 * each labelled in words, a choice other than the standard game's explained under it.
 * @param {HTMLElement} fieldset
 * @param {Record<string, any>} rules
 * @param {string} prefix the controls' ids: `${prefix}-rule-${flag}`
 */
export function fillRules(fieldset, rules, prefix) {
  for (const [flag, spec] of Object.entries(rules)) {
    const id = `${prefix}-rule-${flag}`;
    const label = spec.label || flag;
    const meaningOf = (value) => (spec.meanings ? spec.meanings[spec.choices.map(String).indexOf(String(value))] : '');
    // What a choice other than the standard game's means, said under it (and always as a tooltip).
    const meaning = el('span', { class: 'meaning', 'data-meaning': flag });
    const isBool = spec.choices.length === 2 && spec.choices.every((c) => typeof c === 'boolean');
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input;
    if (isBool) {
      input = /** @type {HTMLInputElement} */ (el('input', { type: 'checkbox', id, 'data-flag': flag }));
      fieldset.append(el('label', { title: meaningOf(true) }, input, ` ${label}`, meaning));
    } else {
      // Each choice by its name in words ("3 of clubs"), the value ("3C") kept for the request.
      input = /** @type {HTMLSelectElement} */ (el('select', { id, 'data-flag': flag, title: spec.meanings ? spec.meanings.join('; ') : '' },
        spec.choices.map((c, i) => el('option', { value: c, selected: c === spec.default,
          text: spec.names?.[i] ?? c, title: spec.meanings ? spec.meanings[i] : null }))));
      fieldset.append(el('label', { class: 'wide' }, `${label} `, input, meaning));
    }
    const say = () => {
      const value = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
      meaning.textContent = String(value) === String(spec.default) ? '' : meaningOf(value);
    };
    input.addEventListener('change', say);
  }
}

/**
 * The rule flags chosen in a fieldset, only those that differ from the defaults.
 * @param {HTMLElement} fieldset
 * @param {Record<string, any>} rules
 */
export function readRules(fieldset, rules) {
  const out = {};
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (fieldset.querySelectorAll('[data-flag]'))) {
    const flag = input.dataset.flag;
    const value = input.type === 'checkbox' ? input.checked : input.value;
    if (value !== rules[flag].default) out[flag] = value;
  }
  return out;
}

/**
 * A <select> of the bot menu, grouped; `filter` picks entries (default: all). Each bot:
 * `{spec, label, group, about, title?}`; an entry's tooltip is its `title`, else its whole
 * `about` (where a level's strength is measured included).
 * @param {HTMLSelectElement} select
 * @param {any[]} bots
 * @param {{selected?: string, filter?: (bot: any) => boolean, none?: string}} [opts]
 */
export function fillBotSelect(select, bots, { selected, filter = () => true, none } = {}) {
  select.replaceChildren();
  if (none) select.append(el('option', { value: '', text: none }));
  const groups = new Map();
  for (const bot of bots.filter(filter)) {
    if (!groups.has(bot.group)) groups.set(bot.group, el('optgroup', { label: bot.group }));
    groups.get(bot.group).append(el('option', { value: bot.spec, text: bot.label,
      title: bot.title || bot.about || null, selected: bot.spec === selected }));
  }
  select.append(...groups.values());
}

/**
 * Grey out the options of a bot menu that cannot play the chosen rules (`playable`: the
 * specs that can), with the reason in their label; the others are offered as before. A
 * chosen bot that cannot play them gives way to `fallback` (or the first that can).
 * @param {HTMLSelectElement} select
 * @param {string[]} playable
 * @param {string} [fallback]
 */
export function markPlayable(select, playable, fallback) {
  for (const option of /** @type {NodeListOf<HTMLOptionElement>} */ (select.querySelectorAll('option'))) {
    if (!option.value) continue;
    option.dataset.label ??= option.textContent;
    const can = playable.includes(option.value);
    option.disabled = !can;
    option.textContent = can ? option.dataset.label : `${option.dataset.label} (not for these rules)`;
  }
  const chosen = select.selectedOptions[0];
  if (chosen && chosen.disabled) select.value = playable.includes(fallback) ? fallback : playable[0];
}

/**
 * Mark every bot menu of the set-up (`selects`) for the ticked rules, and say in `help`
 * which choices had to change.
 * @param {HTMLSelectElement[]} selects
 * @param {string[]} playable
 * @param {HTMLElement} help
 * @param {string} [fallback]
 */
export function markSetupBots(selects, playable, help, fallback) {
  const swapped = [];
  for (const select of selects) {
    const before = select.selectedOptions[0]?.dataset.label ?? select.selectedOptions[0]?.textContent;
    const was = select.value;
    markPlayable(select, playable, fallback);
    if (select.value !== was) swapped.push(`${before} cannot play these rules: ${select.selectedOptions[0].dataset.label} instead`);
  }
  help.textContent = swapped.length ? `${swapped.join('; ')}.`
    : 'Bots marked "not for these rules" cannot play the rules ticked below.';
}

/**
 * A bot's description as a player reads it: without a pointer into the repository's files
 * ("...; measured in benchmarks/README.md#..."), which is for developers and stays in the
 * menu entry's tooltip.
 * @param {string} about
 */
export const playerAbout = (about) => about.replace(/;[^;]*?[\w./-]+\.md(#[\w-]*)?/g, '').trim();

/** The description of a bot, for a help line that wraps. @param {any[]} bots @param {string} spec */
export function botAbout(bots, spec) {
  const bot = bots.find((b) => b.spec === spec);
  return bot ? `${bot.label}: ${playerAbout(bot.about || '') || bot.group}` : '';
}

/**
 * A whole number from a number input (a seed, a count), or null when the field is empty;
 * else an Error whose `field` is the input (`sayError` says it as the field's error).
 * @param {HTMLInputElement} input
 */
export function readWholeNumber(input) {
  const text = input.value.trim();
  if (!text) return null;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    const name = input.labels[0]?.textContent.trim() || 'the number';
    const err = new Error(`${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER.toLocaleString('en')}`);
    throw Object.assign(err, { field: input });
  }
  return value;
}

/**
 * Say `text`, what is wrong with a set-up field (`input`, a seed), in `box`: it goes once
 * the field changes, so a corrected value never sits beside a stale error (a message said in
 * `box` since stays).
 * @param {HTMLElement} box @param {HTMLInputElement} input @param {string} text
 */
export function fieldError(box, input, text) {
  box.textContent = text;
  input.setAttribute('aria-invalid', 'true');
  const clear = () => {
    input.removeAttribute('aria-invalid');
    if (box.textContent === text) box.textContent = '';
    input.removeEventListener('input', clear);
    input.removeEventListener('change', clear);
  };
  input.addEventListener('input', clear);
  input.addEventListener('change', clear);
}

/**
 * Say an error in `box`: a field's (`readWholeNumber`'s, which names it) as `fieldError` does.
 * @param {HTMLElement} box @param {Error & {field?: HTMLInputElement}} err
 */
export function sayError(box, err) {
  if (err.field) fieldError(box, err.field, err.message);
  else box.textContent = err.message;
}
