"""Bots: the ``Bot`` protocol and the hand-written bots (``basic``, ``strategy``), the
determinised search (``search``) and the worlds it plays in (``worlds``), the exported-policy
bot (``bundle``), the registry of bot specs and difficulty levels (``registry``), per-hand move
history, and the shipped policies."""
