/**
 * The seat models this client has for a search level's `models` (bot.json `levels`), by the
 * name a level gives them: a model plays a seat in the rollouts and says how likely that seat's
 * moves are (bots/belief.js `SeatModel`). A level's model missing here has its seats modelled
 * by the policy (the player's `missingModels`).
 *
 * `rule`: the rule bot (bots/rule.js) plays itself, drawing nothing, and is weighed as Python's
 * `MoveScores` weighs it: its move likely, every other legal move `MOVE_SLACK` times as likely.
 * @module
 */

import { newRuleView, ruleAction, ruleLogProb, viewOfState } from './rule.js';

const VIEW = newRuleView();

/** @type {import('./belief.js').SeatModel} */
export const ruleModel = Object.freeze({
  name: 'rule',
  act: (g) => ruleAction(g),
  logProb: (g, action) => ruleLogProb(viewOfState(g, VIEW), action),
});

/** @type {Object<string, import('./belief.js').SeatModel>} */
export const SEAT_MODELS = Object.freeze({ rule: ruleModel });
