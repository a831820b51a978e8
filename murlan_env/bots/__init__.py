"""Bots, one module a kind: the protocols every bot follows and what bots with scores share
(``protocol``), the random and greedy baselines (``baseline``), the rule bot (``rule``), the
determinised search (``search``) and its belief over the hidden cards (``belief``), the
exported-policy player (``policy``) and the draws its levels make from a decision seed
(``draws``, which every client reproduces), a program speaking murlan-bot/1 (``process``), per-hand
move history (``history``), and the registry that names them all and the difficulty levels
(``registry``: a leaf, no bot imports it). The bundle format the policy player reads is
``murlan_env.bundle``."""
