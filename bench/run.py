"""``make bench``: the performance claims of the course, measured side by side in one run.

Each measurement prints its number, its target and PASS / FAIL (INFO when there is no
target); the run exits 1 if any target is missed. Numbers are *ratios* wherever possible
(reader vs a bare ``json.loads`` loop, 2n vs n entries), so they mean the same on a fast
laptop and a slow CI machine. Unit tests never assert timings; this script is where
timings live. ``bench/README.md`` explains every line.

    python bench/run.py                   # everything (a few minutes)
    python bench/run.py --only reader tree
    python bench/run.py --list
    python bench/run.py --grade-copies 10  # a quicker class to grade

To add a measurement, write a function that returns a list of ``Result`` and add it to
``MEASUREMENTS``: the harness timings at the end are written that way.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from learn_pi_lab.jsonl.reader import iter_entries_streaming, read_session  # noqa: E402
from learn_pi_lab.session_tree import (TranscriptEntry, TranscriptTree, path_to,  # noqa: E402
                                       validate)
from learn_pi_lab.store import MemoryBackend, SessionStore  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import compare  # noqa: E402

MB = 1024 * 1024
READER_TARGET = 0.8          # reader throughput / bare json.loads loop, at least
TREE_RATIO_TARGET = 2.3      # time(2n) / time(n), at most (linear would be 2.0)
APPEND_RATIO_TARGET = 2.2    # time(2n appends) / time(n appends), at most
APPEND_N = 4_000             # appends per run (and 2n): a copy per append would give ~4x
TREE_N = 4_000               # 2n entries (~2 MB of objects) fit in L2: the ratio is about the algorithm
TREE_N_LARGE = 200_000       # outgrows them: the same ratio, shown for information
TREE_RUNS = 31               # turns per size (best of)
TREE_REPEATS = 100           # builds per timed run, so one run is well above timer noise
DEEP_CHAIN = 1_000_000
MEMORY_TARGET_MB = 50        # inspector peak RSS, whole child process, at most
BIG_FILE_MB = 200
SMALL_FILE_MB = 20
VERIFY_TARGET_S = 15.0   # seconds: a sandboxed worker + a trusted process per exercise (docs/grading.md)
GRADE_COPIES = 50
REFERENCE_WORKSPACE = ROOT / "learn_pi_lab" / "lessons"


@dataclass
class Result:
    name: str
    value: str
    target: str = ""
    passed: bool | None = None   # None: information only

    @property
    def verdict(self) -> str:
        return "INFO" if self.passed is None else ("PASS" if self.passed else "FAIL")


# --------------------------------------------------------------------------------------
# A realistic session file of any size
# --------------------------------------------------------------------------------------

WORDS = ("the refactor moves charge into small functions so each payment method can be "
         "tested alone while refunds reuse the same fee code and the gateway client stays "
         "one object passed in from outside def class return import json path line entry "
         "parent branch leaf tree summary compaction label model thinking").split()


def _text(rng: random.Random, pool: list[str], length: int) -> str:
    chunk = pool[rng.randrange(len(pool))]
    start = rng.randrange(max(1, len(chunk) - length))
    return chunk[start:start + length]


def write_session(path: Path, target_bytes: int, seed: int = 7) -> int:
    """Write a Pi-shaped v3 session of about ``target_bytes``; return the entry count.

    Turns of user / assistant (text, thinking, a tool call) / tool result (0.2 to 6 KB of
    output), with usage on every assistant message; now and then a model change, a label
    or a compaction; every ~400 entries the leaf is moved back a few entries, so the file
    is a tree with branches, like a real long session. Deterministic for a given seed.
    """
    rng = random.Random(seed)
    pool = [" ".join(rng.choice(WORDS) for _ in range(1500)) for _ in range(32)]
    ids: list[str] = []
    taken: set[str] = set()
    clock = 1_772_359_200_000
    written = 0
    leaf: str | None = None

    def new_id() -> str:
        while True:
            candidate = f"{rng.getrandbits(32):08x}"
            if candidate not in taken:
                taken.add(candidate)
                return candidate

    with path.open("w", encoding="utf-8") as out:
        header = {"type": "session", "version": 3, "id": "bench-session",
                  "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/home/bench/project"}
        written += out.write(json.dumps(header, separators=(",", ":")) + "\n")
        while written < target_bytes:
            clock += rng.randrange(500, 20_000)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(clock // 1000)) \
                + f".{clock % 1000:03d}Z"
            entry_id = new_id()
            base = {"id": entry_id, "parentId": leaf, "timestamp": stamp}
            step = len(ids) % 3
            roll = rng.random()
            if roll < 0.01:
                obj = {"type": "model_change", **base, "provider": "anthropic",
                       "modelId": rng.choice(("claude-sonnet-4-5", "claude-opus-4-1"))}
            elif roll < 0.015 and ids:
                obj = {"type": "label", **base, "targetId": rng.choice(ids[-50:]),
                       "label": rng.choice(("checkpoint", "good", ""))}
            elif roll < 0.017 and len(ids) > 10:
                obj = {"type": "compaction", **base, "summary": _text(rng, pool, 3000),
                       "firstKeptEntryId": ids[-10], "tokensBefore": rng.randrange(50_000),
                       "details": {"readFiles": [], "modifiedFiles": []}, "fromHook": False}
            elif step == 0:
                obj = {"type": "message", **base, "message": {
                    "role": "user", "content": [{"type": "text",
                                                 "text": _text(rng, pool, rng.randrange(20, 600))}],
                    "timestamp": clock}}
            elif step == 1:
                usage_in, usage_out = rng.randrange(1000, 90_000), rng.randrange(10, 4000)
                obj = {"type": "message", **base, "message": {
                    "role": "assistant",
                    "content": [{"type": "thinking", "thinking": _text(rng, pool, 400)},
                                {"type": "text", "text": _text(rng, pool, rng.randrange(50, 1500))},
                                {"type": "toolCall", "id": f"call_{entry_id}", "name": "bash",
                                 "arguments": {"command": "pytest -q tests/"}}],
                    "api": "anthropic-messages", "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "usage": {"input": usage_in, "output": usage_out, "cacheRead": 0,
                              "cacheWrite": 0, "totalTokens": usage_in + usage_out,
                              "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0,
                                       "cacheWrite": 0, "total": 0.03}},
                    "stopReason": "toolUse", "timestamp": clock}}
            else:
                obj = {"type": "message", **base, "message": {
                    "role": "toolResult", "toolCallId": f"call_{leaf}", "toolName": "bash",
                    "content": [{"type": "text",
                                 "text": _text(rng, pool, rng.randrange(200, 6000))}],
                    "isError": False, "timestamp": clock}}
            written += out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
            ids.append(entry_id)
            leaf = entry_id
            if len(ids) % 400 == 0:
                leaf = ids[-rng.randrange(2, 30)]   # rewind: the next entry starts a branch
    return len(ids)


# --------------------------------------------------------------------------------------
# Timing helpers
# --------------------------------------------------------------------------------------

def timed(action: Callable[[], object]) -> float:
    """CPU seconds one run of ``action`` takes, with the garbage collector paused.

    CPU time of this process (``time.process_time``), not wall time: on a shared machine
    another process taking the CPU would otherwise count against whichever run it hit.
    """
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        action()
        return time.process_time() - start
    finally:
        gc.enable()


def best_of(runs: int, *actions: Callable[[], object]) -> list[float]:
    """The fastest of ``runs`` runs of each action, in seconds.

    The runs take turns (a, b, a, b, ...), so a burst of load on the machine slows all of
    them alike, and the minimum is the run least disturbed by everything else.
    """
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(runs):
        for action, measured in zip(actions, times):
            measured.append(timed(action))
    return [min(measured) for measured in times]


# --------------------------------------------------------------------------------------
# The measurements
# --------------------------------------------------------------------------------------

def measure_reader(scratch: Path) -> list[Result]:
    """Reader throughput on a file of few, large entries (information; GC paused).

    Each reader is compared with the bare loop that produces the same thing: the streaming
    reader hands out one object at a time, like a loop that parses and forgets; the
    whole-file reader returns every entry, like a loop that parses into a list. (Keeping a
    hundred thousand objects alive costs memory traffic that no reader can avoid.)
    """
    path = scratch / "throughput.jsonl"
    entries = write_session(path, SMALL_FILE_MB * MB, seed=11)
    size_mb = path.stat().st_size / MB

    def bare_loop() -> None:
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)

    def bare_list() -> list:
        with path.open("rb") as handle:
            return [json.loads(line) for line in handle]

    def streaming() -> None:
        for _ in iter_entries_streaming(path):
            pass

    def whole_file() -> None:
        read_session(path)

    bare, kept, stream, whole = best_of(5, bare_loop, bare_list, streaming, whole_file)
    stream_ratio, whole_ratio = bare / stream, kept / whole
    return [
        Result(f"bare json.loads loop ({size_mb:.0f} MB, {entries:,} entries)",
               f"{size_mb / bare:.0f} MB/s"),
        Result("bare json.loads loop into a list (keeps every object)",
               f"{size_mb / kept:.0f} MB/s"),
        Result("reader, streaming (iter_entries_streaming) vs the bare loop",
               f"{size_mb / stream:.0f} MB/s = {stream_ratio:.2f}x (was a target: "
               f">= {READER_TARGET}x; the real-sized sessions below hold the targets now)"),
        Result("reader, whole file (read_session) vs the bare loop into a list",
               f"{size_mb / whole:.0f} MB/s = {whole_ratio:.2f}x (was a target: "
               f">= {READER_TARGET}x)"),
        Result("read_session vs the bare loop that keeps nothing (for information)",
               f"{bare / whole:.2f}x"),
    ]


def branched_entries(count: int) -> list[TranscriptEntry]:
    """A chain that branches every 50 entries (a realistic tree, not a bare list)."""
    entries = []
    parent: str | None = None
    for number in range(count):
        entry_id = f"e{number:08d}"
        entries.append(TranscriptEntry(entry_id, parent))
        parent = entry_id if number % 50 else (entries[number // 2].id if number else entry_id)
    return entries


def repeated(action: Callable[[], object], times: int) -> Callable[[], None]:
    """``action`` run ``times`` times in a row, as one thing to time."""
    def run() -> None:
        for _ in range(times):
            action()
    return run


def tree_and_dict_ratios(count: int, runs: int, repeats: int) -> tuple[float, float, float]:
    """(seconds for one ``TranscriptTree`` of ``count`` entries, time(2n) / time(n) for the
    tree, the same ratio for a bare ``{id: entry}`` dict of the same entries)."""
    small, large = branched_entries(count), branched_entries(2 * count)
    tree_n, tree_2n, dict_n, dict_2n = best_of(
        runs, repeated(lambda: TranscriptTree(small), repeats),
        repeated(lambda: TranscriptTree(large), repeats),
        repeated(lambda: {entry.id: entry for entry in small}, repeats),
        repeated(lambda: {entry.id: entry for entry in large}, repeats))
    return tree_n / repeats, tree_2n / tree_n, dict_2n / dict_n


def measure_tree(scratch: Path) -> list[Result]:
    """Building (and so validating) a tree must be linear: 2n entries cost about twice n."""
    seconds, ratio, dict_ratio = tree_and_dict_ratios(TREE_N, TREE_RUNS, TREE_REPEATS)
    small, large = branched_entries(TREE_N), branched_entries(2 * TREE_N)
    validate_n, validate_2n = best_of(TREE_RUNS, repeated(lambda: validate(small), TREE_REPEATS),
                                      repeated(lambda: validate(large), TREE_REPEATS))
    validate_ratio = validate_2n / validate_n
    big_seconds, big_ratio, big_dict_ratio = tree_and_dict_ratios(TREE_N_LARGE, 5, 1)
    return [
        Result(f"TranscriptTree({TREE_N:,} entries)", f"{seconds * 1000:.2f} ms"),
        Result(f"TranscriptTree({2 * TREE_N:,} entries)", f"{ratio:.2f}x n",
               f"<= {TREE_RATIO_TARGET}x", ratio <= TREE_RATIO_TARGET),
        Result("for comparison, a bare {id: entry} dict of the same entries, 2n vs n",
               f"{dict_ratio:.2f}x"),
        Result(f"validate (the four checks, every one of them run), {2 * TREE_N:,} vs "
               f"{TREE_N:,} entries", f"{validate_ratio:.2f}x", f"<= {TREE_RATIO_TARGET}x",
               validate_ratio <= TREE_RATIO_TARGET),
        Result(f"larger than the CPU caches: TranscriptTree({2 * TREE_N_LARGE:,} vs "
               f"{TREE_N_LARGE:,} entries; {big_seconds:.3f} s for n)",
               f"{big_ratio:.2f}x, a bare dict {big_dict_ratio:.2f}x"),
    ]


def grow_tree(count: int) -> None:
    tree = TranscriptTree()
    for number in range(count):
        tree = tree.append(f"e{number:08d}")


def grow_store(count: int) -> None:
    store = SessionStore(MemoryBackend(), rng=random.Random(count), cwd="/bench")
    for _ in range(count):
        store.append("message", {"message": {"role": "user", "content": "hi"}})


def measure_append(scratch: Path) -> list[Result]:
    """Appending is O(1): 2n appends cost about twice n (a copy per append would be ~4x)."""
    results = []
    for name, grow in (("TranscriptTree.append", grow_tree),
                       ("SessionStore.append (memory backend)", grow_store)):
        once, twice = best_of(7, partial(grow, APPEND_N), partial(grow, 2 * APPEND_N))
        ratio = twice / once
        results.append(Result(f"{name}: {2 * APPEND_N:,} vs {APPEND_N:,} appends "
                              f"({once * 1e6 / APPEND_N:.1f} µs each)", f"{ratio:.2f}x",
                              f"<= {APPEND_RATIO_TARGET}x", ratio <= APPEND_RATIO_TARGET))
    return results


def measure_deep_chain(scratch: Path) -> list[Result]:
    """``path_to`` is a loop, not recursion: a million-deep chain neither overflows nor crawls."""
    by_id: dict[str, TranscriptEntry] = {}
    parent: str | None = None
    for number in range(DEEP_CHAIN):
        entry_id = f"{number:08x}"
        by_id[entry_id] = TranscriptEntry(entry_id, parent)
        parent = entry_id
    assert parent is not None
    start = time.perf_counter()
    branch = path_to(by_id, parent)
    seconds = time.perf_counter() - start
    complete = len(branch) == DEEP_CHAIN and branch[0].parent_id is None
    return [Result(f"path_to on a {DEEP_CHAIN:,}-deep chain", f"{seconds:.2f} s",
                   "completes", complete)]


CHILD_INSPECT = """
import json, resource, sys
from learn_pi_lab.session_inspector import inspect_session

def peak_kb():
    # VmHWM belongs to this program only. ru_maxrss would do elsewhere, but on Linux it
    # also remembers the parent's size at fork time, from before this program was exec'd.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak   # macOS counts bytes

report = inspect_session(sys.argv[1]) if len(sys.argv) > 1 else None
print(json.dumps({"entries": report and report["entries"], "peak_kb": peak_kb()}))
"""


def inspect_in_child(path: Path | None) -> tuple[dict, float]:
    """Run the inspector in a fresh process; its own peak RSS is the honest memory number."""
    argv = [sys.executable, "-c", CHILD_INSPECT] + ([str(path)] if path else [])
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout), time.perf_counter() - start


def measure_inspector_memory(scratch: Path) -> list[Result]:
    """Peak memory of the inspector on a ~200 MB and a ~20 MB file: flat, whatever the size."""
    baseline, _ = inspect_in_child(None)
    results = [Result("python + imports, no file (child process)",
                      f"{baseline['peak_kb'] / 1024:.1f} MB peak RSS")]
    for size_mb in (BIG_FILE_MB, SMALL_FILE_MB):
        path = scratch / f"inspect-{size_mb}mb.jsonl"
        entries = write_session(path, size_mb * MB, seed=size_mb)
        try:
            answer, seconds = inspect_in_child(path)
        finally:
            actual_mb = path.stat().st_size / MB
            path.unlink()
        peak_mb = answer["peak_kb"] / 1024
        results.append(Result(
            f"inspect_session, {actual_mb:.0f} MB file ({entries:,} entries, {seconds:.1f} s)",
            f"{peak_mb:.1f} MB peak RSS", f"< {MEMORY_TARGET_MB} MB",
            peak_mb < MEMORY_TARGET_MB and answer["entries"] == entries))
    return results


def harness_ready() -> bool:
    return (ROOT / "learn_pi_lab" / "harness" / "verify.py").is_file() \
        and REFERENCE_WORKSPACE.is_dir()


def measure_verify(scratch: Path) -> list[Result]:
    """``make verify`` over every exercise, with the reference solutions as the workspace."""
    if not harness_ready():
        return [Result("make verify (reference workspace)", "not measured: no harness yet")]
    argv = [sys.executable, "-m", "learn_pi_lab", "verify", "--workspace",
            str(REFERENCE_WORKSPACE), "--results", str(scratch / "verify.json")]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    ok = done.returncode == 0
    value = f"{seconds:.2f} s" + ("" if ok else f" (exit {done.returncode}: not all passed"
                                   f"{_not_passed(scratch / 'verify.json')})")
    return [Result("make verify, all exercises, reference solutions", value,
                   f"< {VERIFY_TARGET_S:g} s, all pass", ok and seconds < VERIFY_TARGET_S)]


def _not_passed(results: Path) -> str:
    """``: exercise status (seconds), ...`` for each exercise ``verify`` did not pass, from
    its results file (a failed line in the bench says which, and how)."""
    try:
        rows = json.loads(results.read_text(encoding="utf-8"))["results"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    failed = [f"{row.get('exercise')} {row.get('status')} ({row.get('reason') or row.get('test')},"
              f" {row.get('seconds')} s)"
              for row in rows if isinstance(row, dict) and row.get("status") != "passed"]
    return ": " + ", ".join(failed) if failed else ""


def measure_grading(scratch: Path, copies: int = GRADE_COPIES) -> list[Result]:
    """Grading a class: copies of the reference workspace (50 by default), time per copy."""
    if not (harness_ready() and (ROOT / "learn_pi_lab" / "harness" / "grade.py").is_file()):
        return [Result(f"grade {copies} submissions", "not measured: no harness yet")]
    submissions = scratch / "class"
    for number in range(copies):
        shutil.copytree(REFERENCE_WORKSPACE, submissions / f"learner{number:02d}",
                        ignore=shutil.ignore_patterns("__pycache__"))
    argv = [sys.executable, "-m", "learn_pi_lab", "grade", str(submissions),
            "--out", str(scratch / "gradebook")]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    suffix = "" if done.returncode == 0 else f" (exit {done.returncode})"
    return [Result(f"grade {copies} submissions ({os.cpu_count()} CPUs)",
                   f"{seconds:.1f} s = {seconds / copies:.2f} s per submission{suffix}")]


CLASS_SIZE = 24       # learners in the throughput class: half reference, half stubs
IDLE_LEARNERS = 3     # learners' servers started on the hub to weigh one


def measure_class_throughput(scratch: Path, learners: int = CLASS_SIZE) -> list[Result]:
    """Grading throughput of a class: learners per minute, every exercise, in the sandbox."""
    if not (harness_ready() and (ROOT / "learn_pi_lab" / "harness" / "grade.py").is_file()):
        return [Result("grading throughput", "not measured: no harness yet")]
    submissions = scratch / "class"
    for number in range(learners):
        source = REFERENCE_WORKSPACE if number % 2 == 0 else ROOT / "workspace"
        shutil.copytree(source, submissions / f"learner{number:02d}",
                        ignore=shutil.ignore_patterns("__pycache__"))
    argv = [sys.executable, "-m", "learn_pi_lab", "grade", str(submissions),
            "--out", str(scratch / "gradebook"), "--lang", "en"]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    suffix = "" if done.returncode == 0 else f" (exit {done.returncode})"
    return [Result(f"grade {learners} learners x 16 exercises (half reference, half stubs), "
                   f"{os.cpu_count()} CPUs",
                   f"{seconds:.0f} s = {learners * 60 / seconds:.1f} learners per minute{suffix}")]


def measure_similarity(scratch: Path, learners: int = 300) -> list[Result]:
    """The similarity notes for a class of 300: every exercise, half of it disguised copies."""
    sys.path.insert(0, str(ROOT / "tests"))
    from learn_pi_lab.harness import catalog, similarity
    import test_harness_similarity as disguises
    rng = random.Random(7)
    exercises = list(catalog.exercises())
    stubs = {path.name: path.read_bytes() for path in catalog.default_workspace().glob("*.py")}
    snapshots = {}
    for number in range(learners):
        files = dict(stubs)
        for exercise in exercises:
            if rng.random() < 0.5:
                source = (REFERENCE_WORKSPACE / exercise.filename).read_text(encoding="utf-8")
                disguise = rng.choice(list(disguises.DISGUISES.values()))
                files[exercise.filename] = disguise(source, exercise.function).encode()
        snapshots[f"learner{number:03d}"] = files
    statuses = {(learner, exercise.id): "passed" for learner in snapshots
                for exercise in exercises}
    start = time.perf_counter()
    similarity.notes(exercises, snapshots, statuses, "en")
    seconds = time.perf_counter() - start
    return [Result(f"similarity notes, {learners} learners x {len(exercises)} exercises",
                   f"{seconds:.1f} s")]


def measure_idle_learner_memory(scratch: Path, learners: int = IDLE_LEARNERS) -> list[Result]:
    """Memory of an idle learner's JupyterLab on the hub (and with one chapter's kernel)."""
    sys.path.insert(0, str(ROOT))
    from tests.hub_support import Class, missing
    from learn_pi_lab.harness.sandbox import memory_used, process_tree
    if missing():
        return [Result("memory per idle learner server", f"not measured: {missing()}")]
    token = os.urandom(16).hex()
    the_class = Class()
    try:
        the_class.install()
        the_class.make_users(learners)
        url = the_class.start_hub(service_token=token)
        names = sorted(name for name in the_class.passwords if name.endswith(
            tuple(f"-l{number:02d}" for number in range(1, learners + 1))))

        def api(method: str, path: str) -> dict:
            request = urllib.request.Request(f"{url}{path}", method=method,
                                             headers={"Authorization": f"token {token}"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                body = answer.read()
            return json.loads(body) if body else {}
        for name in names:
            api("POST", f"/hub/api/users/{name}")
            api("POST", f"/hub/api/users/{name}/server")
        servers, deadline = {}, time.monotonic() + 120
        while len(servers) < len(names) and time.monotonic() < deadline:
            for name in names:
                state = api("GET", f"/hub/api/users/{name}")
                if state.get("servers", {}).get("", {}).get("ready"):
                    servers[name] = state["servers"][""]["state"].get("pid")
            time.sleep(1)
        time.sleep(10)   # settled: idle
        idle = [memory_used(process_tree(pid), 1 << 40) / MB for pid in servers.values()]
        for name in names:   # a chapter's kernel, as when a learner opens one
            api("POST", f"/user/{name}/api/kernels")
        time.sleep(15)
        with_kernel = [memory_used(process_tree(pid), 1 << 40) / MB for pid in servers.values()]
    finally:
        the_class.stop()
    if not idle:
        return [Result("memory per idle learner server", "not measured: no server started")]
    return [Result(f"an idle learner's JupyterLab on the hub (PSS, mean of {len(idle)})",
                   f"{sum(idle) / len(idle):.0f} MB"),
            Result("the same with one chapter's kernel started",
                   f"{sum(with_kernel) / len(with_kernel):.0f} MB")]


MEASUREMENTS: dict[str, Callable[[Path], list[Result]]] = {
    "reader": measure_reader,
    "tree": measure_tree,
    "append": measure_append,
    "deep-chain": measure_deep_chain,
    "inspector-memory": measure_inspector_memory,
    "verify": measure_verify,
    "grading": measure_grading,
    "class-throughput": measure_class_throughput,
    "similarity": measure_similarity,
    "idle-learner": measure_idle_learner_memory,
    **compare.MEASUREMENTS,
}


# --------------------------------------------------------------------------------------
# Running and printing
# --------------------------------------------------------------------------------------

def _summary(measure: Callable[[Path], list[Result]]) -> str:
    """The first line of a measurement's docstring (through a ``partial`` too)."""
    function = getattr(measure, "func", measure)
    return (function.__doc__ or "").splitlines()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="learn-pi-lab benchmarks")
    parser.add_argument("--only", nargs="+", choices=sorted(MEASUREMENTS), metavar="NAME",
                        help="run only these measurements: " + ", ".join(MEASUREMENTS))
    parser.add_argument("--list", action="store_true", help="list the measurements and stop")
    parser.add_argument("--grade-copies", type=int, default=GRADE_COPIES, metavar="N",
                        help=f"submissions in the class to grade (default {GRADE_COPIES})")
    parser.add_argument("--quick", action="store_true",
                        help="real-sized sessions at 50k and 100k entries only, one shape, "
                             "200k-entry chain (a look, not the targets)")
    args = parser.parse_args(argv)
    if args.quick:
        MEASUREMENTS["pi-load-context"] = partial(compare.measure_load_context,
                                                  sizes=(50_000, 100_000), shapes=("linear",))
        MEASUREMENTS["pi-cli-context"] = partial(compare.measure_cli_context, shapes=("linear",))
        compare.TARGET_SIZE, compare.CHAIN, compare.BAD_LINES = 100_000, 200_000, 200_000
        compare.ROUNDS = compare.GROWTH_ROUNDS = 1
    if args.grade_copies < 1:
        parser.error("--grade-copies must be at least 1")
    MEASUREMENTS["grading"] = partial(measure_grading, copies=args.grade_copies)
    if args.list:
        for name, measure in MEASUREMENTS.items():
            print(f"{name:18} {_summary(measure)}")
        return 0

    results: list[Result] = []
    print(f"learn-pi-lab bench: Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="learn-pi-lab-bench-") as folder:
        for name in args.only or list(MEASUREMENTS):
            scratch = Path(folder) / name
            scratch.mkdir()
            print(f"\n[{name}] {_summary(MEASUREMENTS[name])}", flush=True)
            started = time.perf_counter()
            for result in MEASUREMENTS[name](scratch):
                results.append(result)
                target = f"  (target {result.target})" if result.target else ""
                print(f"  {result.verdict:4}  {result.name}: {result.value}{target}", flush=True)
            shutil.rmtree(scratch, ignore_errors=True)
            print(f"        ({time.perf_counter() - started:.1f} s)", flush=True)

    failed = [result for result in results if result.passed is False]
    checked = [result for result in results if result.passed is not None]
    print(f"\n{len(checked) - len(failed)}/{len(checked)} targets met"
          + ("" if not failed else ": missed " + "; ".join(r.name for r in failed)))
    if not args.only and not args.quick:   # the whole bench: the figures bench/README.md shows
        write_latest(results, LATEST)
        print(f"written: {LATEST.relative_to(ROOT)}")
    return 1 if failed else 0


LATEST = ROOT / "bench" / "latest.md"


def write_latest(results: list[Result], path: Path) -> None:
    """The figures of the last whole run, as the table ``bench/README.md`` links to."""
    import platform
    from datetime import datetime, timezone
    met = sum(result.passed is True for result in results)
    checked = sum(result.passed is not None for result in results)
    lines = ["# The latest figures of `make bench`", "",
             "Written by `bench/run.py` at the end of a whole run (not by hand). "
             "What each line measures: `bench/README.md`.", "",
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, Python "
             f"{platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}: "
             f"**{met}/{checked} targets met**.", "",
             "| | measurement | figure | target |", "|---|---|---|---|"]
    for result in results:
        cell = [result.verdict, result.name, result.value, result.target or ""]
        lines.append("| " + " | ".join(text.replace("|", "\\|") for text in cell) + " |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
