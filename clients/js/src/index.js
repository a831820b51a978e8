/**
 * murlan-client: the murlan game in JavaScript. The engine (`Game` for an app, the rules as
 * functions over a `State`), records (write, validate, replay) and exported bundles' bots
 * (bot.json, model.onnx or weights.bin) and the rule bot. See docs/js-client.md.
 * @module
 */

export { Game, position } from './game/game.js';
export {
  State,
  newMatch,
  dealFrom,
  nextHand,
  startHand,
  step,
  legalActions,
  legalActionMask,
  pickLegal,
  chooseCards,
  takeCards,
  matchResult,
  randomDeal,
  parseDeal,
  checkDeal,
  dealSizes,
  makeRules,
  rulesFromDict,
  compileRules,
  RulesError,
  RULE_CHOICES,
  TARGETS,
  PHASES,
  PLAY,
  EXCHANGE,
  HAND_OVER,
  MATCH_OVER,
} from './game/engine.js';
export { readMove, readPlay, readGiveBack, describe, IllegalMove, cardsOfAction } from './game/moves.js';
export { stateJson, stateFromJson } from './game/state_json.js';
export { seededRandom, drawBits, drawUniform } from './util/random.js';
export { actionIds, cardIds, cardsToWords } from './game/bitsets.js';
export { validate, replay, decisions } from './records/validator.js';
export { RecordWriter, playText, finishOrder } from './records/writer.js';
export { RECORD_FORMAT, RecordError, loads, dumps } from './records/files.js';
export { loadBot, readContract, readPosition, readRules, MurlanBot, argmaxLegal, BUNDLE_FORMAT, PLAIN_TOLERANCE, weightsName } from './bundle/bundle.js';
export { ACTIONS, ACTION_ROWS, N_ACTIONS, JOKER_PAIR, actionCatalogue, actionOfCounts, beats, legalMask, startCard, PASS } from './game/combos.js';
export { CARD_NAMES, RANKS, SUITS, CardError, cardRank, parseCard, parseCards, formatCards, rankCounts } from './game/cards.js';
export { encode, checkLayout, ruleFeatures, PIECE_SIZES } from './game/observation.js';
export { denseModel, denseScores, halfToFloat } from './bundle/plain_weights.js';
export { canonicalJson, sha256 } from './bundle/files.js';
export { levelPlayer, searchPlayer, levelAction, greedyAction, randomAction, sampleFromScores, mulberry32, MIXABLE, MIX_DRAW, PLAY_DRAW } from './bots/levels.js';
export { Search, searchSettings, handHistory, chooseFromValues, rollout, policyModel, TIE_BREAK } from './bots/search.js';
export { SEAT_MODELS, ruleModel } from './bots/models.js';
export {
  ruleMove,
  ruleAction,
  ruleLogProb,
  ruleLogProbs,
  ruleMoveOfPosition,
  newRuleView,
  viewOfState,
  viewOfPosition,
  threatsOf,
  RULE_KNOBS,
  MOVE_SLACK,
  CONTROL_CREDIT,
} from './bots/rule.js';
export { verifyGolden, allMatch, reportLines, GOLDEN_FORMAT } from './bundle/golden.js';
