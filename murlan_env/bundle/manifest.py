"""The bundle manifest (``bot.json``): one type that writes it, reads it back and checks it.

A bundle is what an app needs to play a trained policy: the model file(s), ``bot.json`` and
``golden.json`` (test vectors, ``murlan_env.bundle.golden``). ``bot.json`` is the contract an
app developer implements from the files alone: besides the versions, hashes and file
names that ``BundleManifest`` holds, it carries a ``contract`` section generated here from the
tables the engine itself uses (``observation.PIECES``, ``combos.action_catalogue``, the
exchange and card-choice rules), so the text cannot drift from the code. ``markdown()``
renders the same contract for the docs (``docs/bundle.md``).

``BundleManifest.load`` is strict: the format, the env version and the hashes of the
observation layout and action catalogue must be those of the installed package (a network fed a
vector laid out differently would play legal but meaningless moves), and every model file
must match its sha256. An old format is refused in one line that names the fix.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from murlan_env.bundle.contract import (
    GIVE_BACK_IDS,
    OUTPUT_NAME,
    action_catalogue_hash,
    canonical_json,
    contract,
    layout_hash,
    layout_rows,
)
from murlan_env.game import observation_layout
from murlan_env.game.combos import (
    KIND,
    LENGTH,
    N_ACTIONS,
    PASS,
    Kind,
    action_catalogue,
)
from murlan_env.game.rules import RULE_CHOICES, Rules, RulesError, flag_word
from murlan_env.game.version import ENV_NAME

BUNDLE_FORMAT = "murlan-bundle/4"
# The format before this one, whose golden set still holds after the upgrade.
PREVIOUS_FORMAT = "murlan-bundle/3"
# The formats the upgrade (``bundle.upgrade_manifest``) reads, newest first.
UPGRADABLE_FORMATS = (PREVIOUS_FORMAT, "murlan-bundle/2")
GOLDEN_FORMAT = "murlan-golden/2"
# The environment version the bundle's observations and actions follow (the AEC env's name).
ENV_VERSION = ENV_NAME
MANIFEST_FILE = "bot.json"
GOLDEN_FILE = "golden.json"
MODEL_FILE = "model.onnx"
COREML_FILE = "model.mlpackage"
INPUT_NAMES = ("obs", "mask")


class BundleError(ValueError):
    """A bundle that cannot be used with the installed murlan (wrong version, hash or file)."""


# --------------------------------------------------------------------------- files


def file_sha256(path: str | Path) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# --------------------------------------------------------------------------- the manifest


@dataclasses.dataclass(frozen=True)
class ModelFile:
    """One model file of a bundle: the same network, stored at some precision."""

    file: str
    sha256: str
    bytes: int
    precision: str  # "float32" or "float16" (weights; inputs and outputs stay float32)
    tolerance: float  # max |score - golden score| on legal actions this file is held to
    opset: int

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class BundleManifest:
    """A bundle's ``bot.json``: what was exported, under which rules, in which files."""

    rules: Rules  # the rules the policy was trained under
    supported_rules: dict[str, tuple]  # flag -> values the policy is measured to play
    models: tuple[ModelFile, ...]  # models[0] is the reference (float32) model
    policy: dict[str, Any] = dataclasses.field(default_factory=dict)  # network description
    golden: dict[str, Any] | None = None  # {"file", "sha256", "positions", "seed"}
    coreml: dict[str, Any] | None = None  # {"file" or None, "note"}
    murlan_version: str = ""
    notes: tuple[str, ...] = ()
    # Every file of the bundle but bot.json: name -> {"sha256", "bytes"} (``file_list``).
    files: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    # Difficulty levels of this policy: name -> {"temperature", "mix", "search",
    # "supported_rules", "about", ...} as ``registry.levels()`` holds them, less "policy".
    levels: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        for flag, values in self.supported_rules.items():
            if flag not in RULE_CHOICES:
                raise RulesError(f"unknown rule flag {flag!r} in supported_rules")
            bad = [v for v in values if v not in RULE_CHOICES[flag]]
            if bad:
                raise RulesError(f"supported_rules: {flag} takes {list(RULE_CHOICES[flag])}")

    # ------------------------------------------------------------------ rules

    @staticmethod
    def only(rules: Rules) -> dict[str, tuple]:
        """``supported_rules`` of a policy that plays exactly ``rules``."""
        return {flag: (value,) for flag, value in rules.to_dict(all_flags=True).items()}

    def rules_conflict(self, rules: Rules) -> str | None:
        """Why this policy does not play ``rules`` (None when it does)."""
        bad = []
        for flag, value in rules.to_dict(all_flags=True).items():
            allowed = self.supported_rules.get(flag, (getattr(self.rules, flag),))
            if value not in allowed:
                bad.append(f"{flag}={flag_word(value)}")
        if not bad:
            return None
        return f"it does not play {', '.join(bad)} (it plays {self.supported_text()})"

    def narrowed(self, supported: dict[str, list]) -> BundleManifest:
        """This manifest with ``supported_rules`` cut down to ``supported`` (a level's own list);
        values the policy does not play stay out."""
        cut = {}
        for flag, values in self.supported_rules.items():
            keep = supported.get(flag, values)
            cut[flag] = tuple(v for v in values if any(type(v) is type(k) and v == k for k in keep))
        return dataclasses.replace(self, supported_rules=cut)

    def widened(self, supported: dict[str, list]) -> BundleManifest:
        """This manifest with the values of ``supported`` added to ``supported_rules``."""
        wide = {flag: tuple(values) for flag, values in self.supported_rules.items()}
        for flag, values in supported.items():
            have = wide.get(flag, (getattr(self.rules, flag),))
            extra = tuple(_flag_value(flag, v) for v in values if v not in have)
            wide[flag] = have + extra
        return dataclasses.replace(self, supported_rules=wide)

    def supported_text(self) -> str:
        """The supported rules in words, e.g. "sticky_pass=false|true, tie_rule=raise"."""
        return ", ".join(
            f"{flag}={'|'.join(flag_word(v) for v in values)}"
            for flag, values in self.supported_rules.items()
        )

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """bot.json as a JSON-ready dict: the manifest's fields and the generated contract."""
        return {
            "format": BUNDLE_FORMAT,
            "env_version": ENV_VERSION,
            "murlan_version": self.murlan_version,
            "rules": self.rules.to_dict(all_flags=True),
            "supported_rules": {f: list(v) for f, v in self.supported_rules.items()},
            "policy": self.policy,
            "models": [m.to_json() for m in self.models],
            "golden": self.golden,
            "coreml": self.coreml,
            "notes": list(self.notes),
            "files": self.files,
            "levels": self.levels,
            "contract": contract(),
        }

    @classmethod
    def from_json(cls, data: Any, where: str = MANIFEST_FILE) -> BundleManifest:
        """The manifest in ``data`` (bot.json's content), checked against the installed package.

        Raises BundleError naming what differs and the fix.
        """
        if not isinstance(data, dict):
            raise BundleError(f"{where} must hold a JSON object")
        fmt = data.get("format")
        if fmt != BUNDLE_FORMAT:
            if isinstance(fmt, str) and fmt.startswith("murlan-bundle/"):
                raise BundleError(
                    f"{where}: format {fmt}, this murlan reads {BUNDLE_FORMAT}: re-export the "
                    "checkpoint with `murlan export`, or for a bundle whose model is still good "
                    "run `murlan golden BUNDLE_DIR --upgrade`"
                )
            raise BundleError(f"{where}: format is {fmt!r}, expected {BUNDLE_FORMAT!r}")
        if data.get("env_version") != ENV_VERSION:
            raise BundleError(
                f"{where}: env_version is {data.get('env_version')!r}, the installed murlan "
                f"needs {ENV_VERSION!r}; the bundle was trained for another version of the game"
            )
        terms = data.get("contract") or {}
        layout = terms.get("observation") or {}
        if layout.get("sha256") != layout_hash():
            raise BundleError(
                f"{where}: observation layout differs from the installed engine's "
                f"({_layout_difference(layout.get('pieces'))}); the model would misread every "
                "observation: re-export it from a checkpoint trained on this layout"
            )
        actions = terms.get("actions") or {}
        if actions.get("sha256") != action_catalogue_hash():
            raise BundleError(
                f"{where}: action catalogue differs from the installed one (sha256 "
                f"{actions.get('sha256')!r} vs {action_catalogue_hash()!r}); "
                "the scores would name the wrong plays"
            )
        try:
            rules = Rules.from_dict(data.get("rules"))
            supported = {
                flag: tuple(_flag_value(flag, v) for v in values)
                for flag, values in (data.get("supported_rules") or {}).items()
            }
            models = tuple(ModelFile(**m) for m in data.get("models") or ())
            manifest = cls(
                rules=rules,
                supported_rules=supported or cls.only(rules),
                models=models,
                policy=data.get("policy") or {},
                golden=data.get("golden"),
                coreml=data.get("coreml"),
                murlan_version=data.get("murlan_version", ""),
                notes=tuple(data.get("notes") or ()),
                files=_file_entries(data.get("files"), where),
                levels=dict(data.get("levels") or {}),
            )
        except (RulesError, TypeError) as e:
            raise BundleError(f"{where}: bad rules or model entry: {e}") from None
        if not models:
            raise BundleError(f"{where}: no model file listed; re-export it with murlan export")
        return manifest

    @classmethod
    def load(cls, bundle_dir: str | Path, *, check_files: bool = True) -> BundleManifest:
        """bot.json of a bundle directory, checked (and its model files' sha256); raises
        BundleError."""
        bundle_dir = Path(bundle_dir)
        path = bundle_dir / MANIFEST_FILE
        if not path.is_file():
            raise BundleError(
                f"{bundle_dir} is not a bundle: no {MANIFEST_FILE} (write one with murlan export)"
            )
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            raise BundleError(f"{path} is not valid JSON: {e}") from None
        manifest = cls.from_json(data, str(path))
        if check_files:
            for model in manifest.models:
                manifest.check_model(bundle_dir, model)
            manifest.check_files(bundle_dir)
        return manifest

    def check_model(self, bundle_dir: Path, model: ModelFile) -> None:
        """Raise BundleError when a model file is missing or not the one bot.json lists."""
        path = Path(bundle_dir) / model.file
        if not path.is_file():
            raise BundleError(
                f"{bundle_dir}: model file {model.file} is missing; copy the whole bundle "
                "or write it again with murlan export"
            )
        if model.sha256 != file_sha256(path):
            raise BundleError(
                f"{path}: sha256 does not match bot.json (corrupt or replaced file); "
                "copy the bundle again or write it again with murlan export"
            )

    def model(self, precision: str = "float32") -> ModelFile:
        """The model file of a precision; raises BundleError when the bundle has none."""
        for m in self.models:
            if m.precision == precision:
                return m
        have = ", ".join(m.precision for m in self.models)
        raise BundleError(f"the bundle has no {precision} model (it has {have})")

    def check_files(self, bundle_dir: str | Path) -> None:
        """Raise BundleError when a file of the table is missing or not the one listed."""
        for name, entry in self.files.items():
            path = Path(bundle_dir) / name
            if not path.is_file():
                raise BundleError(
                    f"{bundle_dir}: {name} is missing; copy the whole bundle or write it again "
                    "with murlan export"
                )
            if entry["sha256"] != file_sha256(path):
                raise BundleError(
                    f"{path}: sha256 does not match bot.json's file list (corrupt or replaced "
                    "file); copy the bundle again or write it again with murlan export"
                )

    def write(self, bundle_dir: str | Path) -> dict[str, Any]:
        """Write bot.json into ``bundle_dir``, its file list made from the files there now;
        returns what was written."""
        data = dataclasses.replace(self, files=file_list(bundle_dir)).to_json()
        (Path(bundle_dir) / MANIFEST_FILE).write_text(json.dumps(data, indent=1) + "\n")
        return data


def file_list(bundle_dir: str | Path) -> dict[str, dict[str, Any]]:
    """``files`` of bot.json: every regular file in ``bundle_dir`` but bot.json, by name,
    with its sha256 and size in bytes (folders, e.g. a Core ML package, are left out)."""
    return {
        path.name: {"sha256": file_sha256(path), "bytes": path.stat().st_size}
        for path in sorted(Path(bundle_dir).iterdir())
        if path.is_file() and path.name != MANIFEST_FILE
    }


def _file_entries(files: Any, where: str) -> dict[str, dict[str, Any]]:
    """bot.json's file list, checked for shape."""
    if not isinstance(files, dict) or not all(
        isinstance(e, dict) and isinstance(e.get("sha256"), str) for e in files.values()
    ):
        raise BundleError(f"{where}: files must map each file name to its sha256 and bytes")
    return files


def _flag_value(flag: str, value: Any) -> Any:
    if flag not in RULE_CHOICES:
        raise RulesError(f"unknown rule flag {flag!r}")
    for choice in RULE_CHOICES[flag]:
        if type(choice) is type(value) and choice == value:
            return choice
    raise RulesError(f"{flag} takes {list(RULE_CHOICES[flag])}, got {value!r}")


def _layout_difference(pieces: Any) -> str:
    """Human summary of how a bundle's layout pieces differ from the installed ones."""
    if not isinstance(pieces, list):
        return "no layout pieces recorded"
    ours = {p["name"]: (p["offset"], p["size"]) for p in observation_layout.layout()}
    try:
        theirs = {p["name"]: (p["offset"], p["size"]) for p in pieces}
    except (KeyError, TypeError):
        return "unreadable layout pieces"
    diffs = [
        f"{n}: bundle {theirs.get(n)}, installed {ours.get(n)}"
        for n in sorted(set(ours) | set(theirs))
        if ours.get(n) != theirs.get(n)
    ]
    return "; ".join(diffs[:4]) or "same pieces, different hash"


# --------------------------------------------------------------------------- documentation


def markdown() -> str:
    """The contract as Markdown (the generated part of ``docs/bundle.md``)."""
    c = contract()
    obs, acts, ex, cards, dec = (
        c["observation"],
        c["actions"],
        c["exchange"],
        c["cards"],
        c["decision"],
    )
    out = [
        f"Format `{BUNDLE_FORMAT}`, golden vectors `{GOLDEN_FORMAT}`, env `{ENV_VERSION}`.",
        "",
        "### Observation",
        "",
        f"{obs['size']} float32 entries. {obs['slots']}. Ranks: {obs['ranks']}.",
        "",
        "| piece | entries | size | element order | value |",
        "|---|---|---|---|---|",
    ]
    for p in obs["pieces"]:
        span = f"{p['offset']}-{p['offset'] + p['size'] - 1}"
        out.append(f"| `{p['name']}` | {span} | {p['size']} | {p['order']} | {p['value']} |")
    out += [
        "",
        f"Layout hash: `{obs['sha256']}`, the {obs['hash_of']}.",
        "",
        f"Entries that are 0.0 at every decision: {len(obs['fixed_entries'])} "
        "(`contract.observation.fixed_entries` in bot.json lists them with the reason).",
        "",
        "### Actions",
        "",
        f"{acts['count']} actions; {acts['columns']}. Hash `{acts['sha256']}`: {acts['hash_of']}.",
        "",
        "| ids | kind | ranks |",
        "|---|---|---|",
    ]
    out += [f"| {row} |" for row in _action_ranges()]
    out += [
        "",
        f"Legal plays: {acts['legal']}.",
        "",
        "### The exchange",
        "",
        f"Action ids {ex['ids'][0]}-{ex['ids'][-1]}: {ex['meaning']}. {ex['legal']}. "
        f"Automatic parts: {ex['automatic']}.",
        "",
        "### From an action to cards",
        "",
        f"- Order: {cards['order']}.",
        f"- Plays: {cards['play']}.",
        f"- Start card: {cards['start_card']}.",
        f"- Give-back: {cards['give_back']}.",
        f"- Automatic: {cards['automatic']}.",
        f"- Written: {cards['written']}.",
        "",
        "### The decision",
        "",
        "Inputs: "
        + ", ".join(f"`{i['name']}` {i['dtype']} {i['shape']}" for i in dec["inputs"])
        + "; output: "
        + ", ".join(f"`{o['name']}` {o['dtype']} {o['shape']}" for o in dec["outputs"])
        + f". The {dec['rule'][4:]}.",
    ]
    return "\n".join(out) + "\n"


def _action_ranges() -> list[str]:
    """Rows "ids | kind | ranks" of the action catalogue, runs of one kind and length merged."""
    rows, start = [], 0
    for a in range(1, N_ACTIONS + 1):
        same = (
            a < N_ACTIONS
            and KIND[a] == KIND[start]
            and LENGTH[a] == LENGTH[start]
            and a != N_ACTIONS - 1
        )
        if same and start != PASS:
            continue
        kind = Kind(int(KIND[start])).name.lower()
        catalogue = action_catalogue()
        first, last = catalogue[start]["ranks"], catalogue[a - 1]["ranks"]
        what = kind if kind != "straight" else f"straight of {int(LENGTH[start])}"
        ids = f"{start}" if a - 1 == start else f"{start}-{a - 1}"
        ranks = first if a - 1 == start else f"{first} .. {last}"
        rows.append(f"{ids} | {what} | {ranks or '-'}")
        start = a
    return rows


__all__ = [
    "BUNDLE_FORMAT",
    "BundleError",
    "BundleManifest",
    "COREML_FILE",
    "ENV_VERSION",
    "GIVE_BACK_IDS",
    "GOLDEN_FILE",
    "GOLDEN_FORMAT",
    "MODEL_FILE",
    "ModelFile",
    "OUTPUT_NAME",
    "MANIFEST_FILE",
    "PREVIOUS_FORMAT",
    "UPGRADABLE_FORMATS",
    "action_catalogue_hash",
    "file_list",
    "canonical_json",
    "contract",
    "file_sha256",
    "layout_hash",
    "markdown",
    "layout_rows",
]
