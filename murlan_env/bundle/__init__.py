"""The bundle format, the contract an app implements to play an exported policy: the manifest
(``manifest``) and the hashes it pins (``contract``), reading, checking and writing a bundle's
files (``files``), golden sets (``golden``) and the positions they are cut from
(``golden_positions``), the runtime-free weights (``plain_weights``) and the model in other
numbers (``quantize``). The player of a bundle is ``murlan_env.bots.policy``."""
