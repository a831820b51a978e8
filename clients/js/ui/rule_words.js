// Generated from murlan_web/views.py's RULE_WORDS by rule_words_module(): do not edit.
// Each variant flag as a person reads it: [label, [meaning of each value], [name a
// menu shows for each value]], the values in the order of RULE_CHOICES.
export const RULE_WORDS = {
  "sticky_pass": [
    "Sticky pass",
    [
      "a player who passed may play again later in the trick",
      "a player who passes sits out the rest of the trick"
    ],
    [
      "off",
      "on"
    ]
  ],
  "joker_pair": [
    "Joker pair",
    [
      "the jokers are single cards only, never a pair",
      "the two jokers form a pair, the highest pair (not a bomb)"
    ],
    [
      "off",
      "on"
    ]
  ],
  "straight_plus_one": [
    "Straight plus one",
    [
      "a straight is beaten by any higher straight of the same length",
      "a straight is beaten only by the same length one step higher"
    ],
    [
      "off",
      "on"
    ]
  ],
  "tie_rule": [
    "Match end",
    [
      "the target rises 21, 31, 41, 51 while the top is shared; a tie at 51 draws",
      "a unique top score of 21 or more wins; a tie plays on"
    ],
    [
      "the target rises on a tie",
      "a unique top score wins"
    ]
  ],
  "start_card": [
    "Start card",
    [
      "the 3 of spades opens the match",
      "the 3 of clubs opens the match"
    ],
    [
      "3 of spades",
      "3 of clubs"
    ]
  ],
  "no_exchange": [
    "No exchange",
    [
      "the last and first players swap cards before each hand",
      "no card exchange; the previous last player leads"
    ],
    [
      "off",
      "on"
    ]
  ]
};
