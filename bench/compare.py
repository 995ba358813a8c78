"""Real-sized sessions, measured beside Pi's own code and the bare Python loop (issue 15).

Each operation runs in a fresh process, taking turns (Python, bare loop, Pi), with the
garbage collector on, as for a user. Where a figure is judged (200,000 entries; the
smallest and largest sizes, between which the growth per doubling is taken; the
1,000,000-line files of ``tree`` and ``inspect``) every side runs ``ROUNDS`` times, the turns
interleaved, and each side's median counts; a time against Pi's is the median of the rounds'
ratios, each judged side taking its turn right next to Pi's (``paired_ratio``: one run
wanders by up to a quarter on a shared machine, mostly in slow stretches that slow both
turns of a round alike). The sizes in between run ``GROWTH_ROUNDS`` times:

* CPU seconds of the child (user + system, from the children's rusage): interpreter start,
  imports, reading, the work, and (for the command line) writing the JSON;
* peak resident memory, reported by the child itself (``VmHWM``), the same way for Python
  and Node.

Pi's side is ``bench/pi_bench.mjs`` on the published ``@earendil-works/pi-coding-agent``
(1.6.0 by default): ``$LEARN_PI_LAB_PI_PACKAGE``, else the install of ``pi-node/`` that the
Pi differential tests make (``tests/pi_node.py``, on first use). Without Node or npm the Pi
column is skipped with a message, and the targets that need it are not counted.

Each measurement is a generator, so its lines print as they are measured. Files are generated into the scratch folder (``bench/sessions.py``) and deleted afterwards.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from sessions import SHAPES  # noqa: E402
from sessions import session_file as _generated  # noqa: E402

SIZES = (50_000, 100_000, 200_000, 400_000)
TARGET_SIZE = 200_000
CHAIN = 1_000_000
BAD_LINES = 1_000_000
PI_VERSION_ALIAS = os.environ.get("LEARN_PI_LAB_PI_ALIAS", "pi16")   # 1.6.0; pi084 = 0.84.2
ROUNDS = 5             # interleaved turns per side where a figure is judged (``rounds_at``)
GROWTH_ROUNDS = 3      # at the sizes in between, shown for the growth of each doubling

# Targets (ratios measured in the same run)
VS_PI = 1.0            # the command line (as installed, with msgspec), at most Pi's time
STDLIB_VS_PI = 1.6     # `context --json` with the standard library alone, at most
CLI_MEMORY_VS_PI = 0.5 # `context --json`: peak memory, at most this share of Pi's
LOAD_VS_PI = 1.2       # the teaching API's load + context, at most (its memory: printed)
VS_BARE = 1.5          # load + context, at most the bare loop that keeps every object
GROWTH = 2.2           # time(2n) / time(n), at most
PATH_MEMORY_MB = 300   # `path --json` on the 1M chain
LARGE_MB = 60          # `tree` and `inspect` on the 1M chain and on 1M bad lines


def session_file(scratch: Path, shape: str, size: int) -> Path:
    """The generated file (``bench/sessions.py``), written out to disk before any timing.

    A file just written is still being flushed by the kernel for a second or so; the first
    child to read it would share its CPU with that work (the stdlib rows, which run first,
    came out up to a third slower than the same run a minute later). ``os.sync`` waits.
    """
    path = _generated(scratch, shape, size)
    os.sync()
    return path


@dataclass
class Run:
    cpu: float          # seconds
    peak_mb: float
    answer: dict


CHILD_ENVIRONMENT = {key: value for key, value in os.environ.items()
                     if key != "PYTHONDONTWRITEBYTECODE"}
"""A user's Python keeps its compiled modules (``__pycache__``); a machine that turns that off
(``PYTHONDONTWRITEBYTECODE``) would make every child compile the package again, about 40 ms
no user pays. ``warm_up`` writes them once, before anything is timed."""


def warm_up() -> None:
    """Compile what the children import, untimed (see ``CHILD_ENVIRONMENT``)."""
    subprocess.run([sys.executable, "-c", "import learn_pi_lab.cli.commands, learn_pi_lab.pi.session, "
                    "learn_pi_lab.session_inspector"], cwd=ROOT, env=CHILD_ENVIRONMENT,
                   check=True)


def run_child(argv: list[str]) -> Run:
    """Run one measured child; its stdout goes to /dev/null, its report is stderr's last line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=CHILD_ENVIRONMENT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = done.stderr.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    answer = json.loads(lines[-1])
    return Run(cpu, float(answer.get("peak_mb") or 0.0), answer)


def python_run(operation: str, path: Path) -> Run:
    return run_child([sys.executable, str(HERE / "child.py"), operation, str(path)])


def interleaved(sides: dict[str, Callable[[], Run]], rounds: int) -> dict[str, Run]:
    """Each side's median run (CPU time; memory likewise) over ``rounds`` interleaved turns."""
    return medians(interleaved_runs(sides, rounds))


def medians(every: dict[str, list[Run]]) -> dict[str, Run]:
    """Each side's median run, of the runs ``interleaved_runs`` gave."""
    return {label: _median_run(runs) for label, runs in every.items()}


def second_turn(sides: dict[str, Callable[[], Run]], label: str,
                run: Callable[[], Run]) -> dict[str, Callable[[], Run]]:
    """``sides`` with ``label`` taking its turn second: between the first two of ours, each
    of them takes its turn right next to it (``paired_ratio``)."""
    first, *rest = sides.items()
    return dict([first, (label, run), *rest])


def interleaved_runs(sides: dict[str, Callable[[], Run]], rounds: int) -> dict[str, list[Run]]:
    """Each side's runs, round by round: turns go side after side (in the order of ``sides``),
    round after round, so a slow minute of the machine falls on every side alike."""
    runs: dict[str, list[Run]] = {label: [] for label in sides}
    for _ in range(rounds):
        for label, run in sides.items():
            runs[label].append(run())
    return runs


def paired_ratio(ours: list[Run], theirs: list[Run]) -> float:
    """How many times the other side's CPU time ours takes: the median, over the rounds, of
    each round's ratio. The two sides of a round run one right after the other, so a slow
    stretch of the machine that lasts a round or more slows both and leaves the ratio alone,
    where it would move the median of one side's own runs (by a quarter and more here)."""
    ratios = sorted(_ratio(mine.cpu, other.cpu) for mine, other in zip(ours, theirs))
    return ratios[len(ratios) // 2]


def rounds_at(size: int, sizes: tuple[int, ...]) -> int:
    """``ROUNDS`` where a figure is judged: the target size, and the smallest and the largest
    size, between which the growth per doubling is taken; ``GROWTH_ROUNDS`` elsewhere."""
    return ROUNDS if size in (TARGET_SIZE, min(sizes), max(sizes)) else GROWTH_ROUNDS


def _median_run(runs: list[Run]) -> Run:
    middle = len(runs) // 2
    by_time = sorted(runs, key=lambda run: run.cpu)
    by_memory = sorted(run.peak_mb for run in runs)
    return Run(by_time[middle].cpu, by_memory[middle], by_time[middle].answer)


def fast_decoder_missing() -> str:
    """"" when the optional decoder (msgspec, ``learn-pi-lab[fast]``) is installed, else why not."""
    import importlib.util
    if importlib.util.find_spec("msgspec") is None:
        return "msgspec is not installed (pip install msgspec: a dependency of learn-pi-lab)"
    return ""


def variants(base: str) -> list[tuple[str, str]]:
    """(label, child operation) for the standard decoder and, when installed, msgspec."""
    found = [("stdlib", base)]
    if not fast_decoder_missing():
        found.append(("msgspec", f"{base}-msgspec"))
    return found


# --------------------------------------------------------------------------------------
# Pi's side
# --------------------------------------------------------------------------------------

def pi_package() -> tuple[Path | None, str]:
    """(the installed Pi package, "") or (None, why the Pi column is skipped).

    ``$LEARN_PI_LAB_PI_PACKAGE`` wins; otherwise the install the Pi differential tests use
    (``tests/pi_node.py``: ``npm ci`` of ``pi-node/package-lock.json`` into a cache folder,
    on first use), so a fresh clone with Node gets the Pi column too.
    """
    given = os.environ.get("LEARN_PI_LAB_PI_PACKAGE")
    if shutil.which("node") is None:
        return None, "node is not installed"
    if given:
        folder = Path(given)
    else:
        try:
            sys.path.insert(0, str(ROOT))
            from tests.pi_node import PiUnavailable, install_dir
        except ImportError as error:
            return None, f"cannot load tests/pi_node.py ({error})"
        try:
            folder = install_dir() / "node_modules" / PI_VERSION_ALIAS
        except PiUnavailable as error:
            return None, str(error).splitlines()[0]
    if not (folder / "dist" / "core" / "session-manager.js").is_file():
        return None, f"{folder} holds no dist/core/session-manager.js"
    return folder, ""


def pi_run(operation: str, path: Path, package: Path, scratch: Path) -> Run:
    sessions = scratch / "pi-sessions"
    sessions.mkdir(exist_ok=True)
    return run_child(["node", "--max-old-space-size=8192", str(HERE / "pi_bench.mjs"),
                      operation, str(package), str(path), str(sessions)])


# --------------------------------------------------------------------------------------
# Results (bench/run.py's Result, imported lazily to avoid a cycle)
# --------------------------------------------------------------------------------------

def _result(name: str, value: str, target: str = "", passed: bool | None = None):
    from run import Result
    return Result(name, value, target, passed)


def _skipped(name: str, why: str):
    return _result(name, f"SKIPPED: {why}")


def _ratio(value: float, other: float) -> float:
    return value / other if other > 0 else float("inf")


# --------------------------------------------------------------------------------------
# The measurements
# --------------------------------------------------------------------------------------

def measure_load_context(scratch: Path, sizes: tuple[int, ...] = SIZES,
                         shapes: tuple[str, ...] = tuple(SHAPES)) -> Iterator:
    """load + context vs Pi's open + buildSessionContext and the bare loop, 50k to 400k entries."""
    warm_up()
    package, why = pi_package()
    if package is None:
        yield _skipped("Pi column", why)
    if fast_decoder_missing():
        yield _skipped("msgspec columns", fast_decoder_missing())
    installed = variants("load-context")[-1][0]   # what the default decoder, auto, reads with
    ours = [(f"{mode}, {decoder}", operation)
            for mode, base in (("teaching", "load-context"), ("pi-compat", "load-context-pi"))
            for decoder, operation in variants(base)]
    targeted = [label for label, _ in ours if label.endswith(f", {installed}")]
    for shape in shapes:
        times: dict[str, dict[int, float]] = {f"{label} mode": {} for label, _ in ours}
        times.update({"bare loop": {}, "Pi": {}})
        for size in sizes:
            path = session_file(scratch, shape, size)
            mb = path.stat().st_size / 2**20
            run_of: dict[str, Callable[[], Run]] = {
                label: (lambda operation=operation: python_run(operation, path))
                for label, operation in ours}
            run_of["bare loop"] = lambda: python_run("bare-keep", path)
            if package:
                run_of["Pi"] = lambda: pi_run("load-context", path, package, scratch)
            # The judged sides take their turns right before and right after Pi's.
            order = [targeted[0], "Pi", *targeted[1:],
                     *(label for label, _ in ours if label not in targeted), "bare loop"]
            sides = {label: run_of[label] for label in order if label in run_of}
            rounds = rounds_at(size, sizes)
            every = interleaved_runs(sides, rounds)
            measured = medians(every)
            runs = [(label, measured[label]) for label, _ in ours]
            bare, pi = measured["bare loop"], measured.get("Pi")
            for label, run in runs:
                times[f"{label} mode"][size] = run.cpu
            times["bare loop"][size] = bare.cpu
            if pi is not None:
                times["Pi"][size] = pi.cpu
            label = f"{shape} {size:,} entries ({mb:.0f} MB)" + (
                f", median of {rounds}" if rounds > 1 else "")
            yield _result(f"{label}: bare loop keeping every object",
                          f"{bare.cpu:.2f} s, {bare.peak_mb:.0f} MB"
                          + (f"; Pi {pi.cpu:.2f} s, {pi.peak_mb:.0f} MB" if pi else ""))
            if size == TARGET_SIZE:
                yield from _floors(label, path, pi)
            for mode, run in runs:
                at_target = size == TARGET_SIZE and mode in targeted   # (the rest: beside it)
                name = f"{label}: load + context, {mode} mode" + (
                    " (as installed)" if mode in targeted else "")
                value = (f"{run.cpu:.2f} s = {_ratio(run.cpu, bare.cpu):.2f}x bare, "
                         f"{run.peak_mb:.0f} MB")
                vs_bare_ok = _ratio(run.cpu, bare.cpu) <= VS_BARE
                if pi is None:
                    yield _result(name, value, f"<= {VS_BARE}x bare" if at_target else "",
                                  vs_bare_ok if at_target else None)
                    continue
                time_ratio = paired_ratio(every[mode], every["Pi"])
                memory_ratio = _ratio(run.peak_mb, pi.peak_mb)
                value += f" = {time_ratio:.2f}x Pi's time, {memory_ratio:.2f}x Pi's memory"
                # (memory: no target. The teaching API hands out the decoder's dicts, which
                # alone take more than Pi's whole process: see "floor" and bench/README.md)
                passed = (time_ratio <= LOAD_VS_PI) if at_target else None
                target = f"<= {LOAD_VS_PI}x Pi's time" if at_target else ""
                yield _result(name, value, target, passed)
        yield from _growth(shape, times, sizes)


def _floors(label: str, path: Path, pi: Run | None) -> Iterator:
    """What no design that hands out the decoder's dicts can beat (``bench/child.py``'s
    ``bare_blocks``: one decoder call per 1 MiB, no checks, the collector paused), for
    information: it shows which targets the data's shape in Python allows at all."""
    floors = interleaved({decoder: (lambda operation=operation: python_run(operation, path))
                          for decoder, operation in variants("bare-blocks")}, ROUNDS)
    for decoder, floor in floors.items():
        value = f"{floor.cpu:.2f} s, {floor.peak_mb:.0f} MB"
        if pi is not None:
            value += (f" = {_ratio(floor.cpu, pi.cpu):.2f}x Pi's time, "
                      f"{_ratio(floor.peak_mb, pi.peak_mb):.2f}x Pi's memory")
        yield _result(f"{label}: floor, decode in blocks and keep, {decoder}", value)


def _growth(shape: str, times: dict[str, dict[int, float]], sizes: tuple[int, ...]) -> Iterator:
    """time(2n) / time(n): each doubling for information, and the target on the mean doubling
    from the smallest to the largest size (one run per size is noisy; the span is not)."""
    for mode, measured in times.items():
        steps = [f"{_ratio(measured[2 * n], measured[n]):.2f}x" for n in sizes if 2 * n in measured]
        small, large = min(measured), max(measured)
        if large == small:
            continue
        doublings = math.log2(large / small)
        mean = _ratio(measured[large], measured[small]) ** (1 / doublings)
        target = mode not in ("bare loop", "Pi")
        yield _result(f"{shape}, {mode}: growth per doubling, {small:,} to {large:,} "
                      f"(each: {', '.join(steps)})", f"{mean:.2f}x",
                      f"<= {GROWTH}x" if target else "", (mean <= GROWTH) if target else None)


CLI_VARIANTS = (("as installed (msgspec)", "cli-context", VS_PI),
                ("standard library alone", "cli-context-stdlib", STDLIB_VS_PI))


def measure_cli_context(scratch: Path, shapes: tuple[str, ...] = tuple(SHAPES),
                        sizes: tuple[int, ...] = SIZES) -> Iterator:
    """`context --json` end to end (read, build, encode, write) vs Pi with JSON.stringify."""
    warm_up()
    package, why = pi_package()
    if package is None:
        yield _skipped("Pi column", why)
    for shape in shapes:
        times: dict[str, dict[int, float]] = {label: {} for label, _, _ in CLI_VARIANTS}
        for size in sizes if shape == "linear" else (TARGET_SIZE,):
            path = session_file(scratch, shape, size)
            sides: dict[str, Callable[[], Run]] = {
                label: (lambda operation=operation: python_run(operation, path))
                for label, operation, _ in CLI_VARIANTS}
            if package:
                sides = second_turn(sides, "Pi", lambda: pi_run("context-json", path, package,
                                                                scratch))
            at_target = size == TARGET_SIZE
            rounds = rounds_at(size, sizes) if shape == "linear" else ROUNDS
            every = interleaved_runs(sides, rounds)
            measured = medians(every)
            pi = measured.get("Pi")
            for label, _, limit in CLI_VARIANTS:
                ours = measured[label]
                times[label][size] = ours.cpu
                name = (f"{shape} {size:,}" + (f", median of {rounds}" if rounds > 1 else "")
                        + f": context --json, {label}")
                value = f"{ours.cpu:.2f} s, {ours.peak_mb:.0f} MB"
                if pi is None or not at_target:
                    yield _result(name, value)
                    continue
                ratio = paired_ratio(every[label], every["Pi"])
                memory = _ratio(ours.peak_mb, pi.peak_mb)
                yield _result(name, f"{value} = {ratio:.2f}x Pi's time, {memory:.2f}x Pi's "
                                    f"memory (Pi {pi.cpu:.2f} s, {pi.peak_mb:.0f} MB)",
                              f"<= {limit}x Pi's time, <= {CLI_MEMORY_VS_PI}x its memory",
                              ratio <= limit and memory <= CLI_MEMORY_VS_PI)
        if shape == "linear" and len(sizes) > 1:
            yield from _growth(shape, {f"context --json, {label}": measured
                                       for label, measured in times.items()}, sizes)


def measure_path_chain(scratch: Path) -> Iterator:
    """`path --json` on a 1,000,000-entry chain vs Pi's getBranch, and its memory."""
    warm_up()
    path = session_file(scratch, "chain", CHAIN)
    package, why = pi_package()
    if package is None:
        yield _skipped("Pi column", why)
    sides: dict[str, Callable[[], Run]] = {
        "as installed (msgspec)": lambda: python_run("cli-path", path),
        "standard library alone": lambda: python_run("cli-path-stdlib", path)}
    if package:
        sides = second_turn(sides, "Pi", lambda: pi_run("path-json", path, package, scratch))
    every = interleaved_runs(sides, ROUNDS)
    measured = medians(every)
    pi = measured.get("Pi")
    for label in ("as installed (msgspec)", "standard library alone"):
        ours, checked = measured[label], label.startswith("as installed")
        name = f"path --json, {CHAIN:,}-entry chain, median of {ROUNDS}, {label}"
        value = f"{ours.cpu:.2f} s, {ours.peak_mb:.0f} MB"
        ratio = paired_ratio(every[label], every["Pi"]) if pi is not None else None
        if ratio is not None:
            value += f" = {ratio:.2f}x Pi ({pi.cpu:.2f} s, {pi.peak_mb:.0f} MB)"
        passed = None
        if checked:
            passed = ours.peak_mb < PATH_MEMORY_MB and (ratio is None or ratio <= VS_PI)
        yield _result(name, value, f"<= {VS_PI}x Pi's time, < {PATH_MEMORY_MB} MB"
                      if checked else "", passed)


def measure_tree_inspect_large(scratch: Path) -> Iterator:
    """`tree` and `inspect` on a 1,000,000-entry chain and on 1,000,000 bad lines vs Pi's open."""
    warm_up()
    package, why = pi_package()
    if package is None:
        yield _skipped("Pi column", why)
    for shape, count in (("chain", CHAIN), ("bad_lines", BAD_LINES)):
        path = session_file(scratch, shape, count)
        sides: dict[str, Callable[[], Run]] = {
            command: (lambda command=command: python_run(f"cli-{command}", path))
            for command in ("tree", "inspect")}
        if package:
            sides = second_turn(sides, "Pi", lambda: pi_run("open", path, package, scratch))
        every = interleaved_runs(sides, ROUNDS)
        measured = medians(every)
        pi = measured.get("Pi")
        for command in ("tree", "inspect"):
            ours = measured[command]
            value = f"{ours.cpu:.2f} s, {ours.peak_mb:.0f} MB"
            ratio = paired_ratio(every[command], every["Pi"]) if pi is not None else None
            if ratio is not None:
                value += f" = {ratio:.2f}x Pi's open ({pi.cpu:.2f} s)"
            passed = ours.peak_mb < LARGE_MB and (ratio is None or ratio <= VS_PI)
            yield _result(f"{command}, {count:,} {shape.replace('_', ' ')} "
                          f"({path.stat().st_size / 2**20:.0f} MB)"
                          + (f", median of {ROUNDS}" if ROUNDS > 1 else ""), value,
                          f"< {LARGE_MB} MB, <= {VS_PI}x Pi's open", passed)


EXPORT_SIZE = 10_000     # entries: the "a 10,000-entry session opens in under 2 s"
PAGE_OPEN_S = 2.0        # seconds from opening the file until the page is drawn, at most
PAGE_PER_FILE = 2.5      # the page's size, at most this many times the session file's
LARGE_PAGE_MB = 25       # a 200,000-entry session's page (the tree around the leaf), at most
PI_PAGE_OPEN_LIMIT_S = 90


def page_open_seconds(pages: dict[str, Path], rounds: int = ROUNDS,
                      limit_s: float = 30) -> dict[str, float | None]:
    """Median seconds from ``goto`` until the page has loaded and drawn two frames, in Debian's
    chromium (each page in a fresh browser context, the pages interleaved); ``None`` for a
    page that did not get there within ``limit_s``."""
    from playwright.sync_api import Error as PlaywrightError, sync_playwright
    from tests.browser_support import CHROMIUM, CHROMIUM_FLAGS
    times: dict[str, list[float]] = {label: [] for label in pages}
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            for _ in range(rounds):
                for label, page_path in pages.items():
                    context = browser.new_context(viewport={"width": 1400, "height": 900})
                    page = context.new_page()
                    page.set_default_timeout(limit_s * 1000)
                    started = time.perf_counter()
                    try:
                        page.goto(page_path.as_uri(), wait_until="load")
                        page.evaluate("() => new Promise(done => requestAnimationFrame("
                                      "() => requestAnimationFrame(done)))")
                        times[label].append(time.perf_counter() - started)
                    except PlaywrightError:
                        times[label].append(float("inf"))
                    context.close()
        finally:
            browser.close()
    medians = {label: sorted(found)[len(found) // 2] for label, found in times.items()}
    return {label: None if value == float("inf") else value for label, value in medians.items()}


def measure_export_page(scratch: Path) -> Iterator:
    """`export --html`: the page's size and the time chromium takes to open it, vs Pi's export."""
    warm_up()
    if not Path("/usr/bin/chromium").exists():
        yield _skipped("export pages", "/usr/bin/chromium is not installed")
        return
    package, why = pi_package()
    if package is None:
        yield _skipped("Pi column", why)
    for shape in ("branchy", "linear"):
        path = session_file(scratch, shape, EXPORT_SIZE)
        sides: dict[str, Callable[[], Run]] = {"ours": lambda: python_run("cli-export", path)}
        if package:
            sides["Pi"] = lambda: pi_run("export-html", path, package, scratch)
        made = interleaved(sides, ROUNDS)
        ours, pi = made["ours"], made.get("Pi")
        file_mb, page_mb = path.stat().st_size / 1e6, ours.answer["bytes"] / 1e6
        label = f"{shape} {EXPORT_SIZE:,} entries ({file_mb:.1f} MB)"
        value = f"{ours.cpu:.2f} s, {ours.peak_mb:.0f} MB"
        if pi is not None:
            value += (f" = {_ratio(ours.cpu, pi.cpu):.2f}x Pi's export ({pi.cpu:.2f} s, "
                      f"{pi.peak_mb:.0f} MB)")
        yield _result(f"{label}: export --html, median of {ROUNDS}", value)
        size = f"{page_mb:.1f} MB = {page_mb / file_mb:.2f}x the file"
        if pi is not None:
            size += f" (Pi's page: {pi.answer['bytes'] / 1e6:.1f} MB)"
        yield _result(f"{label}: the page's size", size, f"<= {PAGE_PER_FILE}x the file",
                      page_mb / file_mb <= PAGE_PER_FILE)
        pages = {"ours": Path(ours.answer["page"])}
        if pi is not None:
            pages["Pi"] = Path(pi.answer["page"])
        opened = page_open_seconds(pages, limit_s=PI_PAGE_OPEN_LIMIT_S)
        value = _seconds(opened["ours"])
        if pi is not None:
            value += f" (Pi's page: {_seconds(opened['Pi'])})"
        yield _result(f"{label}: the page opens in chromium, median of {ROUNDS}", value,
                      f"< {PAGE_OPEN_S} s", opened["ours"] is not None
                      and opened["ours"] < PAGE_OPEN_S)
    path = session_file(scratch, "branchy", TARGET_SIZE)
    ours = python_run("cli-export", path)
    page_mb = ours.answer["bytes"] / 1e6
    label = f"branchy {TARGET_SIZE:,} entries ({path.stat().st_size / 1e6:.0f} MB), around the leaf"
    value = f"{ours.cpu:.2f} s, {ours.peak_mb:.0f} MB, a page of {page_mb:.1f} MB"
    if package:
        pi = pi_run("export-html", path, package, scratch)
        value += (f" (Pi's export: {pi.cpu:.2f} s, {pi.peak_mb:.0f} MB, a page of "
                  f"{pi.answer['bytes'] / 1e6:.0f} MB)")
    yield _result(f"{label}: export --html", value, f"page <= {LARGE_PAGE_MB} MB",
                  page_mb <= LARGE_PAGE_MB)
    pages = {"ours": Path(ours.answer["page"])}
    if package:
        pages["Pi"] = Path(pi.answer["page"])
    opened = page_open_seconds(pages, rounds=1, limit_s=PI_PAGE_OPEN_LIMIT_S)
    value = _seconds(opened["ours"])
    if package:
        value += f" (Pi's page: {_seconds(opened['Pi'])})"
    yield _result(f"{label}: the page opens in chromium", value, f"< {PAGE_OPEN_S} s",
                  opened["ours"] is not None and opened["ours"] < PAGE_OPEN_S)


def _seconds(value: float | None) -> str:
    return f"not drawn within {PI_PAGE_OPEN_LIMIT_S} s" if value is None else f"{value:.2f} s"


MEASUREMENTS: dict[str, Callable[[Path], Iterator]] = {
    "pi-load-context": measure_load_context,
    "pi-cli-context": measure_cli_context,
    "pi-path-chain": measure_path_chain,
    "large-tree-inspect": measure_tree_inspect_large,
    "export-page": measure_export_page,
}
