/**
 * The variant flags of RULES.md section 7 (murlan_env/game/rules.py): their values, and
 * reading a set of flags, strictly as a record holds them (`rulesFromDict`, faults in the
 * Python side's words) or from words as bot.json and command lines write them (`makeRules`).
 * @module
 */

import { pyRepr } from '../util/pytext.js';

/** The variant flags of RULES.md 7 with their values, the default first. */
export const RULE_CHOICES = Object.freeze({
  sticky_pass: [false, true],
  joker_pair: [false, true],
  straight_plus_one: [false, true],
  tie_rule: ['raise', 'leader'],
  start_card: ['3S', '3C'],
  no_exchange: [false, true],
});

/**
 * @typedef {object} Rules every variant flag (RULES.md 7)
 * @property {boolean} sticky_pass
 * @property {boolean} joker_pair
 * @property {boolean} straight_plus_one
 * @property {string} tie_rule "raise" or "leader"
 * @property {string} start_card "3S" or "3C"
 * @property {boolean} no_exchange
 */

/** An unknown variant flag or a value it does not take. */
export class RulesError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'RulesError';
  }
}

/**
 * Every variant flag from a mapping of flags given as JSON values (absent flags take their
 * defaults), as a record's `rules` holds them; throws RulesError (in the Python side's words)
 * on an unknown flag or a value of another type or outside the flag's choices.
 * @param {object} [flags]
 * @returns {Rules}
 */
export function rulesFromDict(flags = {}) {
  const known = Object.keys(RULE_CHOICES);
  const unknown = Object.keys(flags ?? {}).filter((f) => !Object.hasOwn(RULE_CHOICES, f)).sort();
  if (unknown.length) throw new RulesError(`unknown rule flag(s) ${pyRepr(unknown)}; known flags: ${pyRepr(known)}`);
  /** @type {any} */
  const out = {};
  for (const flag of known) {
    const allowed = RULE_CHOICES[flag];
    const value = Object.hasOwn(flags ?? {}, flag) ? flags[flag] : allowed[0];
    if (!allowed.includes(value)) throw new RulesError(`rule ${pyRepr(flag)} takes one of ${pyRepr(allowed)}, got ${pyRepr(value)}`);
    out[flag] = value;
  }
  return out;
}

/**
 * A flag value written as a word ("true", "false", "leader", "3C": bot.json, golden sets and
 * command lines write them so) as its JSON value; other values pass unchanged.
 * @param {any} value
 * @returns {any}
 */
export function ruleValue(value) {
  return value === 'true' ? true : value === 'false' ? false : value;
}

/**
 * Every variant flag from a partial set, values as JSON values or as words (`ruleValue`);
 * throws RulesError.
 * @param {object} [flags]
 * @returns {Rules}
 */
export function makeRules(flags = {}) {
  return rulesFromDict(Object.fromEntries(Object.entries(flags ?? {}).map(([flag, v]) => [flag, ruleValue(v)])));
}
