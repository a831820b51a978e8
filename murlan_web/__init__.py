"""``murlan serve``: play, replay and compare bots in the browser, from one local command.

``murlan serve [--host 127.0.0.1] [--port 8000] [--open] [--bots ckpt:runs/x]`` starts a
local web app (FastAPI on uvicorn; the pages are static HTML, CSS and JavaScript modules,
with no build step) with three pages:

- Play: a match against three bots from the menu (``catalog``), any seat, any rule variant,
  optional seed, played as ``murlan play`` plays it (``murlan_env.envs.person_match``); the bots'
  moves shown one at a time; hints from any bot with its scores; the other hands shown on
  request; the finished match saved as a murlan-record/1 file in the records folder.
- Replay: an uploaded or saved record stepped through hand by hand and play by play, with
  every hand visible and, for a chosen bot, its scores at each decision.
- Compare: a small duplicate tournament (``murlan_env.eval.arena``) with progress, table and chart.

Modules, one job each: ``app`` (routes and errors),
``schemas`` (request bodies), ``guards`` (size limit, JSON only, headers), ``catalog`` (the
bot menu), ``games``, ``replays``, ``tournaments``, ``record_files`` (the records folder),
``views`` and ``hints`` (JSON for the pages), ``sessions`` (in-memory sessions by id, owned
by a client cookie, room shared so that no client or address locks out another, expiring
when idle). The command line is ``murlan_cli.serve``, which prints and exits; this package
does neither. docs/serve.md is the user's guide, LAN mode included. murlan_env never imports
this package.
"""
