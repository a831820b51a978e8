"""Bad input on the command line is refused clearly: exit status 2 and ONE line on stderr that
names the problem (and the fix), never a traceback.

One table row per kind of bad input: corrupted, truncated, foreign or missing checkpoints;
bundles with a wrong hash, a missing model or no bot.json; training configs that are not YAML,
not a mapping, or give a value of the wrong type; records that are not JSON or not JSON
objects; rule flags with unknown names or values; bot specs that name no bot. Each row runs the
command in-process (``murlan_cli.main``) on files a fixture writes.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import murlan_cli
from agents import presets
from agents.checkpoint import load as load_checkpoint
from agents.export import export_bundle
from agents.networks import build_network, make_arch


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """One file or folder per kind of bad input, by name."""
    root = tmp_path_factory.mktemp("bad")
    torch.manual_seed(0)
    net = build_network(make_arch("ppo", [16])).eval()
    state = {"spec": net.arch, "model": net.state_dict()}
    torch.save({**state, "config": {"algorithm": "ppo"}}, good := root / "good.pt")
    data = good.read_bytes()
    contents = {
        "truncated_ckpt": ("truncated.pt", data[: len(data) // 2]),
        "empty_ckpt": ("empty.pt", b""),
        "garbage_ckpt": ("garbage.pt", b"this is not a checkpoint at all\n"),
        "not_json_record": ("not_json.json", b"{ not json"),
        "list_record": ("list.json", b"[1, 2, 3]"),
        "list_yaml": ("list.yaml", b"- algorithm\n- ppo\n"),
        "broken_yaml": ("broken.yaml", b"algorithm: ppo\nhidden: [64, 64\n"),
        "hidden_int_yaml": ("hidden_int.yaml", b"algorithm: ppo\nhidden: 256\n"),
        "rules_list_yaml": ("rules_list.yaml", b"algorithm: ppo\nrules: [sticky_pass]\n"),
        "bots_str_yaml": ("bots_str.yaml", b"algorithm: ppo\nbots: rule\n"),
    }
    paths = {"good_ckpt": good}
    for key, (name, content) in contents.items():
        paths[key] = root / name
        paths[key].write_bytes(content)
    torch.save([1, 2, 3], paths.setdefault("foreign_ckpt", root / "foreign.pt"))
    torch.save(state, paths.setdefault("no_config_ckpt", root / "no_config.pt"))
    bundle = root / "bundle"
    export_bundle(net, bundle, coreml=False, n_positions=0)
    paths["bundle"] = bundle
    paths["wrong_hash"] = shutil.copytree(bundle, root / "wrong_hash")
    with open(paths["wrong_hash"] / "model.onnx", "ab") as f:
        f.write(b"\0")
    paths["no_model"] = shutil.copytree(bundle, root / "no_model")
    (paths["no_model"] / "model.onnx").unlink()
    paths["no_spec"] = root / "no_spec"
    paths["no_spec"].mkdir()
    paths["missing"] = root / "missing"
    return paths


def murlan(*argv: str) -> Callable[[dict[str, Path]], int]:
    """A row's command: ``murlan ARGV`` where ``{name}`` is the path of fixture file ``name``."""
    return lambda files: murlan_cli.main([a.format(**files) for a in argv])


def train_py(*argv: str) -> Callable[[dict[str, Path]], int]:
    """A row's command: ``murlan train ARGV``, which ``python train.py ARGV`` runs."""
    return murlan("train", *argv)


# (what is wrong, the command, words stderr must hold: the problem and the fix)
ROWS = [
    # --- checkpoints: ckpt:PATH bots (agents.networks.load_policy), murlan export, --resume
    ("truncated checkpoint, arena",
     murlan("arena", "random", "ckpt:{truncated_ckpt}", "--boards", "1"),
     ["murlan arena: error:", "cannot read checkpoint", "truncated.pt", "truncated or corrupted",
      "re-train", "pick another checkpoint"]),
    ("empty checkpoint, play", murlan("play", "--bots", "ckpt:{empty_ckpt}"),
     ["murlan play: error:", "cannot read checkpoint", "empty.pt", "re-train"]),
    ("garbage checkpoint, export", murlan("export", "{garbage_ckpt}", "--out", "{missing}"),
     ["murlan export: error:", "cannot read checkpoint", "garbage.pt", "re-train"]),
    ("foreign checkpoint, export", murlan("export", "{foreign_ckpt}", "--out", "{missing}"),
     ["murlan export: error:", "is not a murlan training checkpoint", "python train.py"]),
    ("missing checkpoint, arena", murlan("arena", "random", "ckpt:{missing}", "--boards", "1"),
     ["murlan arena: error:", "no checkpoint at", "python train.py writes one"]),
    ("missing checkpoint, export", murlan("export", "{missing}", "--out", "{missing}"),
     ["murlan export: error:", "no checkpoint at", "python train.py writes one"]),
    ("truncated checkpoint, resume", train_py("--resume", "{truncated_ckpt}"),
     ["murlan train: error: --resume:", "cannot read checkpoint", "re-train"]),
    ("missing checkpoint, resume", train_py("--resume", "{missing}"),
     ["murlan train: error: --resume:", "no checkpoint at"]),
    ("checkpoint without a config, resume", train_py("--resume", "{no_config_ckpt}"),
     ["murlan train: error: --resume:", "holds no training config", "run directory of train.py"]),
    ("truncated checkpoint, training opponent",
     train_py("--config", "quick", "bots=[ckpt:{truncated_ckpt}]"),
     ["murlan train: error: config key 'bots':", "cannot read checkpoint", "re-train"]),
    # --- bundles (murlan_env.bundle.files.BundleError)
    ("bundle with a wrong hash", murlan("arena", "random", "bundle:{wrong_hash}", "--boards", "1"),
     ["murlan arena: error:", "sha256 does not match bot.json", "murlan export"]),
    ("bundle without its model", murlan("play", "--bots", "bundle:{no_model}"),
     ["murlan play: error:", "model file model.onnx is missing", "murlan export"]),
    ("folder that is no bundle", murlan("arena", "random", "bundle:{no_spec}", "--boards", "1"),
     ["murlan arena: error:", "is not a bundle: no bot.json", "murlan export"]),
    ("bundle under rules it does not play",
     murlan("arena", "bundle:{bundle}", "rule", "--rules", "sticky_pass=true", "--boards", "1"),
     ["murlan arena: error:", "cannot play sticky_pass=true", "it plays sticky_pass=false"]),
    ("checkpoint under rules it was not trained under",
     murlan("arena", "ckpt:{good_ckpt}", "rule", "--rules", "joker_pair=true", "--boards", "1"),
     ["murlan arena: error:", "cannot play joker_pair=true", "trained under the standard rules"]),
    ("search over a bundle under rules it does not play",
     murlan("play", "--bots", "search:8:bundle:{bundle}", "--rules", "joker_pair=true"),
     ["murlan play: error:", "cannot play joker_pair=true", "does not play joker_pair=true"]),
    # --- training configs (agents.config.ConfigError)
    ("config that is not a mapping", train_py("--config", "{list_yaml}"),
     ["murlan train: error:", "a config is a mapping of keys to values", "got a YAML list"]),
    ("config that is not YAML", train_py("--config", "{broken_yaml}"),
     ["murlan train: error:", "broken.yaml is not valid YAML", "line 3", "fix the file"]),
    ("missing config", train_py("--config", "{missing}.yaml"),
     ["murlan train: error:", "no config", "give a YAML path or one of", "quick"]),
    ("list key given a number", train_py("--config", "{hidden_int_yaml}"),
     ["murlan train: error:", "config key 'hidden' takes a list, e.g. [256, 256], got 256"]),
    ("list key given a string", train_py("--config", "{bots_str_yaml}"),
     ["murlan train: error:", "config key 'bots' takes a list", "got 'rule'"]),
    ("dict key given a list", train_py("--config", "{rules_list_yaml}"),
     ["murlan train: error:", "config key 'rules' takes a mapping of names to values"]),
    ("list of the wrong items", train_py("--config", "quick", "hidden=[64, wide]"),
     ["murlan train: error:", "config key 'hidden' takes a list of int values", "'wide'"]),
    ("string key given a number", train_py("--config", "quick", "reward=3"),
     ["murlan train: error:", "config key 'reward' takes a string", "got 3"]),
    ("number key given a word", train_py("--config", "quick", "num_envs=many"),
     ["murlan train: error:", "config key 'num_envs' takes a number", "'many'"]),
    ("flag key given a word", train_py("--config", "quick", "progress=sometimes"),
     ["murlan train: error:", "config key 'progress' takes true or false"]),
    ("override that is not YAML", train_py("--config", "quick", "hidden=[1,"),
     ["murlan train: error:", "override 'hidden=[1,'", "not valid YAML"]),
    ("a reward DMC cannot learn from", train_py("--config", "dmc", "reward=match"),
     ["murlan train: error:", "reward must be 'hand'", "got 'match'"]),
    ("keys distill does not read", train_py("--config", "distill", "workers=ray", "num_envs=4096"),
     ["murlan train: error:", "unknown distill config key(s) ['num_envs', 'workers']"]),
    ("a negative seed option, train", train_py("--config", "quick", "--seed", "-1"),
     ["murlan train: error: argument --seed:", "a seed is a whole number from 0, got -1"]),
    ("a negative seed override, train", train_py("--config", "quick", "seed=-1"),
     ["murlan train: error:", "config key 'seed' must be at least 0, got -1"]),
    ("a negative evaluation seed, train", train_py("--config", "quick", "eval_seed=-4"),
     ["murlan train: error:", "config key 'eval_seed' must be at least 0, got -4"]),
    ("a fraction for a count, train", train_py("--config", "quick", "total_decisions=1.5e0"),
     ["murlan train: error:", "config key 'total_decisions' takes an integer, got 1.5"]),
    ("a count below one", train_py("--config", "quick", "num_envs=0"),
     ["murlan train: error:", "config key 'num_envs' must be at least 1, got 0"]),
    ("shares of opponents above one", train_py("--config", "quick", "snapshot_share=0.6"),
     ["murlan train: error:", "snapshot_share + bot_share", "at most 1, got 0.6 + 0.5"]),
    ("an unknown device", train_py("--config", "quick", "--device", "tpu"),
     ["murlan train: error:", "device must be one of", "'tpu'"]),
    ("a CUDA device this torch lacks", train_py("--config", "quick", "--device", "cuda:99"),
     ["murlan train: error:", "device 'cuda:99'", "device=cpu"]),
    # --- records (murlan replay: no record at all is bad input; an invalid record exits 1)
    ("record that is not JSON", murlan("replay", "{not_json_record}"),
     ["murlan replay: error:", "is not a game record (not valid JSON",
      "murlan-record/1 JSON file"]),
    ("record that is not an object", murlan("replay", "{list_record}"),
     ["murlan replay: error:", "a record is a JSON object, got a JSON list"]),
    ("record that cannot be read", murlan("replay", "{missing}"),
     ["murlan replay: error:", "cannot read", "No such file or directory"]),
    # --- rule flags (murlan_env.game.rules.Rules.parse): every command line, one syntax
    ("rule value, selfplay", murlan("selfplay", "--rules", "sticky_pass=maybe"),
     ["murlan selfplay: error: --rules:", "sticky_pass takes false or true", "'maybe'"]),
    ("rule value, play", murlan("play", "--rules", "tie_rule=never"),
     ["murlan play: error:", "tie_rule takes raise or leader", "'never'"]),
    ("rule name, arena", murlan("arena", "random", "rule", "--rules", "sticky=true"),
     ["murlan arena: error:", "unknown rule flag 'sticky'", "flags: sticky_pass=false|true"]),
    ("rule syntax, train.py", train_py("--config", "quick", "--rules", "joker_pair"),
     ["murlan train: error: --rules:", "write rule flags as FLAG=VALUE"]),
    ("rule value, training config",
     train_py("--config", "quick", "rules={{start_card: 3D}}"),
     ["murlan train: error: config key 'rules':", "start_card", "'3S', '3C'"]),
    # --- bot specs (murlan_env.bots.registry.BotSpecError)
    ("unknown bot, arena", murlan("arena", "random", "wizard", "--boards", "1"),
     ["murlan arena: error:", "unknown bot 'wizard'", "valid bots:", "search:N", "ckpt:ARG"]),
    ("bad search budget, play", murlan("play", "--bots", "search:-5"),
     ["murlan play: error:", "bad bot spec 'search:-5'", "positive number of rollouts"]),
    ("unknown bot, training config", train_py("--config", "quick", "eval_bots=[rule, wizard]"),
     ["murlan train: error: config key 'eval_bots':", "unknown bot 'wizard'", "valid bots:"]),
    ("two bots for three seats, play", murlan("play", "--bots", "rule,greedy"),
     ["murlan play: error:", "--bots takes one spec or three, got 2"]),
    # --- counts and options of earlier versions
    ("no boards, arena", murlan("arena", "random", "rule", "--boards", "0"),
     ["murlan arena: error:", "--boards must be at least 1, got 0"]),
    ("one bot, arena", murlan("arena", "random"),
     ["murlan arena: error:", "an arena needs at least 2 bots"]),
    ("an option that is gone, arena", murlan("arena", "random", "rule", "--lanes", "4"),
     ["murlan arena: error:", "--lanes is gone: use --boards N", "--max-hands K"]),
    # --- what argparse itself refuses: one line naming the --help to read, no usage block
    ("no command", murlan(), ["murlan: error:", "required: COMMAND", "see 'murlan --help'"]),
    ("unknown command", murlan("tournament"),
     ["murlan: error:", "invalid choice: 'tournament'", "'arena'", "see 'murlan --help'"]),
    ("unknown option, arena", murlan("arena", "random", "rule", "--fast"),
     ["murlan: error:", "unrecognized arguments: --fast"]),
    ("missing record argument, replay", murlan("replay"),
     ["murlan replay: error:", "required: file", "see 'murlan replay --help'"]),
    ("no bots, arena", murlan("arena", "--boards", "2"),
     ["murlan arena: error:", "required: bots"]),
    ("word for a number, arena", murlan("arena", "random", "rule", "--boards", "many"),
     ["murlan arena: error: argument --boards:", "invalid int value: 'many'"]),
    ("seat out of range, play", murlan("play", "--seat", "4"),
     ["murlan play: error: argument --seat:", "invalid choice: 4"]),
    ("flag given a value, actions", murlan("actions", "--json=yes"),
     ["murlan actions: error: argument --json:", "ignored explicit argument 'yes'"]),
    # --- seeds, counts and output files, checked before any work starts
    ("negative seed, arena", murlan("arena", "random", "rule", "--seed", "-3"),
     ["murlan arena: error: argument --seed:", "a seed is a whole number from 0, got -3"]),
    ("negative seed, selfplay", murlan("selfplay", "--seed", "-1"),
     ["murlan selfplay: error: argument --seed:", "from 0, got -1"]),
    ("word for a seed, play", murlan("play", "--seed", "lucky"),
     ["murlan play: error: argument --seed:", "from 0, got 'lucky'"]),
    ("negative seed, golden", murlan("golden", "{bundle}", "--seed", "-2"),
     ["murlan golden: error: argument --seed:", "got -2"]),
    ("negative seed, export", murlan("export", "{good_ckpt}", "--out", "{missing}", "--seed", "-1"),
     ["murlan export: error: argument --seed:", "got -1"]),
    ("no golden positions, export",
     murlan("export", "{good_ckpt}", "--out", "{missing}", "--positions", "0"),
     ["murlan export: error: argument --positions:", "must be at least 1, got 0"]),
    ("no golden positions, golden", murlan("golden", "{bundle}", "--positions", "0"),
     ["murlan golden: error:", "--positions must be at least 1, got 0"]),
    ("too few golden positions to cover the game, golden",
     murlan("golden", "{bundle}", "--positions", "50"),
     ["murlan golden: error:", "50 positions cannot cover the game", "ask for --positions"]),
    ("no hands, play", murlan("play", "--hands", "0"),
     ["murlan play: error: argument --hands:", "must be at least 1, got 0"]),
    ("no hands, selfplay", murlan("selfplay", "--max-hands", "0"),
     ["murlan selfplay: error:", "--max-hands must be at least 1, got 0"]),
    ("no hands, arena", murlan("arena", "random", "rule", "--max-hands", "0"),
     ["murlan arena: error:", "--max-hands must be at least 1, got 0"]),
    ("chart into a missing folder, arena",
     murlan("arena", "random", "rule", "--png", "{missing}/chart.png"),
     ["murlan arena: error: argument --png:", "chart.png", "there is no folder"]),
    ("chart that is not a PNG, arena",
     murlan("arena", "random", "rule", "--boards", "1", "--png", "{missing}.txt"),
     ["murlan arena: error: argument --png:", "name a .png file", "missing.txt"]),
    ("bundle into a file, export",
     murlan("export", "{good_ckpt}", "--out", "{not_json_record}"),
     ["murlan export: error: argument --out:", "not_json.json: it is a file; name a folder"]),
    ("report into a folder, arena", murlan("arena", "random", "rule", "--json", "{no_spec}"),
     ["murlan arena: error: argument --json:", "it is a folder; name a file"]),
    ("record into a missing folder, play", murlan("play", "--record", "{missing}/game.json"),
     ["murlan play: error: argument --record:", "there is no folder"]),
    ("record into a missing folder, selfplay",
     murlan("selfplay", "--max-hands", "1", "--out", "{missing}/game.json"),
     ["murlan selfplay: error:", "cannot write", "game.json"]),
    ("golden set into a missing folder, golden",
     murlan("golden", "{bundle}", "--out", "{missing}/golden.json"),
     ["murlan golden: error: argument --out:", "there is no folder"]),
    ("golden set into a folder, golden", murlan("golden", "{bundle}", "--out", "{no_spec}"),
     ["murlan golden: error: argument --out:", "it is a folder; name a file"]),
    ("record that is a folder, replay", murlan("replay", "{no_spec}"),
     ["murlan replay: error:", "cannot read", "Is a directory"]),
    ("port out of range, serve", murlan("serve", "--port", "70000"),
     ["murlan serve: error:", "--port takes 0-65535, got 70000"]),
    ("time limit of zero, serve", murlan("serve", "--game-hours", "0"),
     ["murlan serve: error:", "time limits must be above 0"]),
    ("unknown bot, serve", murlan("serve", "--bots", "wizard"),
     ["murlan serve: error:", "unknown bot 'wizard'"]),
    ("no matches, conformance", murlan("conformance", "lockstep", "--matches", "0"),
     ["murlan conformance: error:", "--matches must be at least 1, got 0"]),
    ("unknown kind, conformance", murlan("conformance", "moves"),
     ["murlan conformance: error: argument kind:", "invalid choice: 'moves'",
      "see 'murlan conformance --help'"]),
]  # fmt: skip


@pytest.mark.parametrize(("problem", "run", "words"), ROWS, ids=[row[0] for row in ROWS])
def test_bad_input_is_one_line_and_exit_2(problem, run, words, files, capsys):
    status = run(files)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert status == 2, f"{problem}: exit status {status}; stderr: {err}"
    assert err.endswith("\n") and err.count("\n") == 1, f"{problem}: not one line: {err!r}"
    for word in words:
        assert word in err, f"{problem}: {word!r} not in {err!r}"


@pytest.mark.parametrize(
    ("argv", "bots"),
    [
        (["arena", "random", "--boards", "1", "greedy"], ["random", "greedy"]),
        (["arena", "--boards", "1", "random", "greedy", "--seed", "3", "rule"],
         ["random", "greedy", "rule"]),
        (["arena", "random", "greedy", "--boards", "1"], ["random", "greedy"]),
    ],
)  # fmt: skip
def test_options_and_positionals_in_any_order(argv, bots):
    """``murlan arena random --boards 1 greedy`` reads as the same arena as with the option
    last (argparse's intermixed parsing), rather than stopping at ``greedy``."""
    args = murlan_cli.build_parser().parse_args(argv)
    assert args.bots == bots and args.boards == 1


def test_integral_floats_are_accepted_for_integer_keys():
    """``total_decisions=1e3`` and ``5e6`` in a YAML file are the integers 1000 and 5000000:
    YAML 1.1 (PyYAML's default) would read them as strings, which a count refuses."""
    raw = presets.load_preset("quick")
    raw.update(presets.parse_overrides(["total_decisions=1e3", "num_envs=5E2", "name=x"]))
    _, cfg = presets.build_config(raw)
    assert (cfg.total_decisions, cfg.num_envs) == (1000, 500)
    assert type(cfg.total_decisions) is int
    assert presets.read_yaml("budget: 5e6\nrate: 3e-4\nword: 1e3x") == {
        "budget": 5e6,
        "rate": 3e-4,
        "word": "1e3x",
    }


def test_the_good_files_are_accepted(files):
    """The bad inputs above are made from good ones, which are accepted: each row tests its
    fault, not something else that happens to fail."""
    from murlan_env.bots.registry import make_bot

    assert make_bot(f"ckpt:{files['good_ckpt']}").name == f"ckpt:{files['good_ckpt']}"
    assert make_bot(f"bundle:{files['bundle']}").name
    assert load_checkpoint(files["good_ckpt"]).config == {"algorithm": "ppo"}
    raw = presets.load_preset("quick")
    raw.update(
        presets.parse_overrides(
            ["hidden=[64, 32]", "bots=[rule, ckpt:" + str(files["good_ckpt"]) + "]"]
        )
    )
    raw.update(rules={"start_card": "3C"}, reward="hand", num_envs=8.0, progress=False)
    algorithm, cfg = presets.build_config(raw)
    assert (cfg.hidden, cfg.rules, cfg.num_envs) == ([64, 32], {"start_card": "3C"}, 8)
