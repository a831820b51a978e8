/**
 * The seat models this client has for a search level's `models` (bot.json `levels`), by the
 * name a level gives them: a model plays a seat in the rollouts and says how likely that seat's
 * moves are (bots/worlds.js `SeatModel`). None yet: the rule bot's port is the first to come;
 * until then a level's `rule` seats are modelled by the policy (the player's `missingModels`).
 * @module
 */

/** @type {Object<string, import('./worlds.js').SeatModel>} */
export const SEAT_MODELS = Object.freeze({});
