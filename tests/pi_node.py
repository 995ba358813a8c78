"""Run Pi's own session code (both pinned versions) from the tests.

``pi-node/package.json`` + ``package-lock.json`` pin ``@earendil-works/pi-coding-agent`` 0.84.2 and
1.6.0 under two npm aliases. ``install_dir()`` runs ``npm ci`` once into a cache folder outside
git, named after the lockfile's hash (``$XDG_CACHE_HOME/learn-pi-lab/pi-node-<hash>``, else
``~/.cache/...``), so a changed lockfile gets a fresh install and an unchanged one is reused.
``ask_pi(requests)`` sends a batch of requests to ``pi-node/driver.mjs`` in one Node process.

Without ``node``/``npm`` the differential tests skip with a message, except under ``CI=true``,
where a missing Pi is a failure: CI must run them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterable

import pytest

ROOT = Path(__file__).resolve().parents[1]
PI_NODE = ROOT / "pi-node"
DRIVER = PI_NODE / "driver.mjs"
VERSIONS = ("0.84.2", "1.6.0")


class PiUnavailable(RuntimeError):
    """node/npm missing, or the npm install failed (the message says which)."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "learn-pi-lab"


def install_dir() -> Path:
    """The folder holding both Pi versions, installed with ``npm ci`` on first use."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        raise PiUnavailable("node and npm are needed to run Pi's own code "
                            f"(node: {node or 'missing'}, npm: {npm or 'missing'})")
    lock = (PI_NODE / "package-lock.json").read_bytes()
    target = cache_root() / f"pi-node-{hashlib.sha256(lock).hexdigest()[:16]}"
    if (target / ".installed").exists():
        return target
    # Install beside the target, then rename: two test runs at once never see half an install.
    staging = target.with_name(f"{target.name}.installing-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(PI_NODE / name, staging / name)
    run = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund",
                          "--loglevel=error"], cwd=staging, capture_output=True, text=True,
                         timeout=900)
    if run.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise PiUnavailable(f"npm ci failed in {staging}:\n{run.stderr[-2000:]}")
    (staging / ".installed").write_text("ok\n", encoding="utf-8")
    try:
        staging.rename(target)
    except OSError:               # another run finished first (or an old partial folder)
        if not (target / ".installed").exists():
            shutil.rmtree(target, ignore_errors=True)
            staging.rename(target)
        else:
            shutil.rmtree(staging, ignore_errors=True)
    return target


def pi_or_skip() -> Path:
    """The install folder, or skip (a failure under CI=true: there the check must run)."""
    try:
        return install_dir()
    except PiUnavailable as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but Pi's code cannot run: {error}")
        pytest.skip(f"differential tests against Pi need Node: {error}")


def read_request(data: bytes, version: str) -> dict[str, Any]:
    return {"op": "read", "version": version, "b64": base64.b64encode(data).decode("ascii")}


def write_request(program: dict, seed: str, start_ms: int | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"op": "write", "seed": seed, "program": program}
    if start_ms is not None:
        request["startMs"] = start_ms
    return request


def ask_pi(installed: Path, requests: Iterable[dict[str, Any]], timeout: float = 1800
           ) -> list[dict[str, Any]]:
    """One Node process answers every request, in order."""
    payload = "".join(json.dumps(request) + "\n" for request in requests)
    run = subprocess.run(["node", str(DRIVER), str(installed)], input=payload,
                         capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0:
        raise RuntimeError(f"pi-node driver failed ({run.returncode}):\n{run.stderr[-3000:]}")
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    expected = payload.count("\n")
    if len(answers) != expected:
        raise RuntimeError(f"driver answered {len(answers)} of {expected} requests:\n"
                           f"{run.stderr[-3000:]}")
    return answers


def probe_pi(installed: Path, requests: list[dict[str, Any]], timeout: float = 300
             ) -> list[dict[str, Any]]:
    """``pi-node/probe.mjs``: what Pi's ``/fork`` writes and what ``/tree`` lists (its order,
    the current branch's marks, where its cursor starts), for a few small files whose tree
    Pi can build (``{"op": "fork"|"tree", "version", "text"[, "leafId"]}``)."""
    run = subprocess.run(["node", str(PI_NODE / "probe.mjs"), str(installed)],
                         input=json.dumps(requests), capture_output=True, text=True,
                         timeout=timeout)
    if run.returncode != 0:
        raise RuntimeError(f"pi-node probe failed ({run.returncode}):\n{run.stderr[-3000:]}")
    answers = json.loads(run.stdout)
    thrown = [answer["thrown"] for answer in answers if "thrown" in answer]
    if thrown:
        raise RuntimeError(f"Pi threw: {thrown}")
    return answers


def label_ids_renamed(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fork lines with the random ids of re-created labels renamed ``label-1``, ``label-2``...
    in order (and the parents that name them), so two forks can be compared line by line."""
    names: dict[str, str] = {}
    renamed = []
    for entry in entries:
        entry = dict(entry)
        if entry.get("type") == "label":
            names[entry["id"]] = entry["id"] = f"label-{len(names) + 1}"
        entry["parentId"] = names.get(entry.get("parentId"), entry.get("parentId"))
        renamed.append(entry)
    return renamed


# --------------------------------------------------------------------------------------
# Comparing the library with one of Pi's answers
# --------------------------------------------------------------------------------------

def as_json(value: Any) -> Any:
    """What survives a trip through JSON (Pi's answers made that trip)."""
    return json.loads(json.dumps(value))


def _model(model: dict | None) -> dict | None:
    """JavaScript leaves an ``undefined`` provider or model id out of JSON; Python says None."""
    if model is None:
        return None
    return {key: value for key, value in model.items() if value is not None}


def compare_with_pi(path: Path, version: str, answer: dict[str, Any], mode: str = "pi"
                    ) -> tuple[str, list[str]]:
    """``(outcome, differences)`` between the library on ``path`` and Pi's ``answer``.

    outcome: ``same`` (Pi answered; compared in full), ``pi-rejects`` (Pi refused the file;
    the library must raise ``NotASessionFile``), ``pi-throws`` (one of Pi's functions threw a
    TypeError on a damaged entry; the library must report it as a problem or give no name),
    ``pi-hangs`` (Pi's parent walk never ended; the library must raise ``ParentCycle``;
    ``pi-hangs-predicted`` once the driver has seen enough of them, see driver.mjs),
    ``known-gap-repeated-id`` (labels or name differ only because an id was repeated: Pi folds
    the superseded line too; the rest is still compared).
    """
    from learn_pi_lab.jsonl.reader import NotASessionFile
    from learn_pi_lab.pi.session import load_session
    from learn_pi_lab.session_tree import ParentCycle

    differences: list[str] = []
    thrown = answer.get("thrown", {})
    trouble = thrown.get("driver") or (answer.get("hang", "") if "worker" in answer.get("hang", "")
                                       or "no answer within" in answer.get("hang", "") else "")
    if trouble:   # the driver itself failed: say so instead of comparing half an answer
        return "driver-error", [f"the Pi driver did not answer properly: {trouble}"]
    try:
        session = load_session(path, mode=mode, pi_version=version)
    except NotASessionFile as error:
        if "open" in thrown:
            return "pi-rejects", []
        if error.reason == "empty-file" and answer.get("leaf") is None:
            return "pi-rejects", []  # Pi writes a fresh header into an empty file; we never write
        return "mismatch", [f"library refused the file ({error.reason}), Pi opened it"]
    if "open" in thrown:
        return "mismatch", [f"Pi refused the file ({thrown['open']}), the library loaded it"]

    ids = {}
    if session.file.migrated:   # Pi's migration ids are its own: map them by file position
        ids = dict(zip(answer["entryIds"], [entry.get("id") for entry in session.entries]))
    rename = (lambda value: ids.get(value, value)) if ids else (lambda value: value)

    def check(what: str, ours: Any, theirs: Any) -> None:
        if as_json(ours) != as_json(theirs):
            differences.append(f"{what}: library {as_json(ours)!r} != Pi {theirs!r}")

    check("leaf", session.leaf_id, rename(answer["leaf"]))
    outcome = "same"
    # Known gap (docs/diagnostics.md, `duplicate-entry`): when an id repeats, Pi's label and
    # name fold still reads the superseded line, which our reader drops. Counted, not hidden.
    before = len(differences)
    check("labels", session.labels(), {rename(k): v for k, v in answer["labels"].items()})
    if "name" not in thrown:
        check("name", session.name(), answer["name"])
    repeated = any(d.code in ("duplicate-entry", "conflicting-duplicate")
                   for d in session.diagnostics)
    if len(differences) > before and repeated and mode == "pi":
        del differences[before:]
        outcome = "known-gap-repeated-id"
    if "name" in thrown:
        outcome = "pi-throws"
        if session.name() is not None:
            differences.append(f"Pi's getSessionName threw ({thrown['name']}), "
                               f"library named it {session.name()!r}")

    if "hang" in answer:      # the context walk never returned; getBranch may have
        walks = [("context", session.context)]
        if answer.get("pathHang"):
            walks.append(("branch", session.branch))
        else:
            check("path", [entry.get("id") for entry in session.branch()],
                  [rename(entry_id) for entry_id in answer["path"]])
        for what, call in walks:
            try:
                call()
            except ParentCycle:
                continue
            differences.append(f"Pi's walk never returned ({answer['hang']}); library {what} "
                               "did not raise ParentCycle")
        return "pi-hangs-predicted" if answer.get("hangPredicted") else "pi-hangs", differences

    check("path", [entry.get("id") for entry in session.branch()],
          [rename(entry_id) for entry_id in answer["path"]])
    context = session.context()
    if "context" in thrown:
        if not context.problems:
            differences.append(f"Pi threw ({thrown['context']}); library reported no problem")
        return "pi-throws", differences
    for message in answer["messages"]:
        message["entryId"] = rename(message.get("entryId"))
    check("model", _model(context.model), answer["model"])
    check("thinkingLevel", context.thinking_level, answer["thinkingLevel"])
    ours, theirs = as_json(context.messages), answer["messages"]
    if ours != theirs:
        first = next((index for index, (a, b) in enumerate(zip(ours, theirs)) if a != b),
                     min(len(ours), len(theirs)))
        differences.append(f"messages differ at #{first} ({len(ours)} vs {len(theirs)}): "
                           f"library {ours[first:first + 1]!r} Pi {theirs[first:first + 1]!r}")
    return outcome, differences
