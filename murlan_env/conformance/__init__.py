"""Conformance vectors: language-neutral files, generated here, that hold another
implementation (the JavaScript client's) to this one, one module per kind: the engine's
transitions and lock-step matches (``engine``), record validation (``records``), the rule
bot's moves (``rule``), the search's belief and rollouts (``search``) and the moves of the
levels without a search for given decision seeds (``levels``)."""
