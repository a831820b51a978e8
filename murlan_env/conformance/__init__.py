"""Conformance vectors: language-neutral files, generated here, that hold another
implementation (the JavaScript client's) to this one, one module per kind: the engine's
transitions and lock-step matches (``engine``), record validation (``records``), the rule
bot's moves (``rule``) and the search's belief and rollouts (``search``)."""
