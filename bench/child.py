"""One measured operation in a fresh process (``bench/compare.py`` runs it).

    python bench/child.py OPERATION FILE

Prints one JSON line on stderr: what was done (``entries``, ``messages``) and this process's
own peak resident memory (``peak_mb``, VmHWM: the interpreter, the imports and the work).
Node (``pi_bench.mjs``) reports the same way, and the parent takes CPU time from the
children's rusage, so both sides are measured alike. The garbage collector stays on, as it
is for a user.

Both sides end the same way: holding what they built (a learner's notebook keeps its session)
and leaving without freeing it object by object. Node never frees its heap at exit; a Python
process that returns normally first deallocates every object one at a time (about a quarter
of a second for 200,000 entries), work no user waits for after a load. So the result is kept
in ``KEPT`` and the child ends with ``os._exit`` once its line is written. The command-line
rows run ``cli.main`` as ``python3 -m learn_pi_lab`` does (``ending_process=True``), which
ends the same way (``cli.end_process``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from learn_pi_lab.collector import collector_paused  # noqa: E402  (standard library only)


def peak_mb() -> float:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


KEPT: list = []
"""What an operation built, alive until the process ends (see the module's docstring)."""


def bare_keep(path: str) -> dict:
    """The yardstick: parse every line and keep every object, nothing else."""
    with open(path, "rb") as handle:
        objects = [json.loads(line) for line in handle]
    KEPT.append(objects)
    return {"entries": len(objects) - 1}


def _loads_for(decoder: str) -> Callable[[bytes], Any]:
    if decoder == "msgspec":
        import msgspec
        return msgspec.json.Decoder().decode
    return json.loads


def bare_blocks(path: str, decoder: str = "stdlib") -> list:
    """The floor: the fastest plain Python we know that parses every line and keeps it.

    One decoder call per 1 MiB of lines (joined into one JSON array), as the reader does for
    a healthy block, but with no checks, no line numbers and no index: what any design that
    hands out the decoder's dicts and lists pays at least, in time and in memory. The
    garbage collector waits meanwhile, as it does in the library's loader: with it running,
    this loop costs about 0.9 s more at 200,000 entries, which is not a floor.
    """
    loads = _loads_for(decoder)
    objects: list = []
    with collector_paused(), open(path, "rb") as handle:
        handle.readline()   # the header
        while True:
            block = handle.read(1 << 20)
            if not block:
                break
            block += handle.readline()
            objects.extend(loads(b"[" + b",".join(block.rstrip(b"\n").split(b"\n")) + b"]"))
    return objects


def bare_blocks_keep(path: str, decoder: str = "stdlib") -> dict:
    objects = bare_blocks(path, decoder)
    KEPT.append(objects)
    return {"entries": len(objects)}


def bare_blocks_encode(path: str, decoder: str = "stdlib") -> dict:
    """The floor of ``context --json`` with the standard library: decode as ``bare_blocks``,
    then encode every message with the C encoder and write it, one per line."""
    objects = bare_blocks(path, decoder)
    encode = json.JSONEncoder(ensure_ascii=False).encode
    with collector_paused(), open(os.devnull, "w", encoding="utf-8") as sink:
        for obj in objects:
            message = obj.get("message")
            if message is not None:
                sink.write(encode(message))
                sink.write(",\n    ")
    KEPT.append(objects)
    return {"entries": len(objects)}


def load_context(path: str, mode: str, decoder: str = "stdlib") -> dict:
    from learn_pi_lab.pi.context import build_session_context
    from learn_pi_lab.pi.session import load_session
    session = load_session(path, mode=mode, decoder=decoder)
    context = build_session_context(session.branch())
    KEPT.append((session, context))
    return {"entries": len(session.entries), "messages": len(context.messages)}


def run_cli(*argv: str) -> dict:
    from learn_pi_lab.cli import commands as cli
    with open(os.devnull, "w", encoding="utf-8") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            code = cli.main(list(argv), ending_process=True)   # as python3 -m learn_pi_lab
        finally:
            sys.stdout = saved
    return {"exit": code}


def export_page(path: str) -> dict:
    """``export --html`` into ``PATH.ours.html`` (made anew: the command never overwrites)."""
    out = Path(path + ".ours.html")
    out.unlink(missing_ok=True)
    answer = run_cli("export", path, "--html", "--out", str(out))
    return {**answer, "page": str(out), "bytes": out.stat().st_size}


def inspect(path: str) -> dict:
    from learn_pi_lab.session_inspector import inspect_session
    return {"entries": inspect_session(path)["entries"]}


OPERATIONS = {
    "bare-keep": bare_keep,
    "bare-blocks": bare_blocks_keep,
    "bare-blocks-msgspec": lambda path: bare_blocks_keep(path, "msgspec"),
    "bare-blocks-encode": bare_blocks_encode,
    "load-context": lambda path: load_context(path, "teaching"),
    "load-context-pi": lambda path: load_context(path, "pi"),
    # The command line as installed (it reads with msgspec), and with the standard library:
    "cli-context": lambda path: run_cli("context", path, "--json"),
    "cli-context-stdlib": lambda path: run_cli("context", path, "--json", "--decoder", "stdlib"),
    "cli-context-pi": lambda path: run_cli("context", path, "--json", "--pi-compat"),
    "cli-path": lambda path: run_cli("path", path, "--json"),
    "cli-path-stdlib": lambda path: run_cli("path", path, "--json", "--decoder", "stdlib"),
    "cli-tree": lambda path: run_cli("tree", path),
    "cli-inspect": lambda path: run_cli("inspect", path),
    "cli-export": export_page,
    # The teaching API with the fast decoder (learn_pi_lab/jsonl/fast_decoder.py):
    "load-context-msgspec": lambda path: load_context(path, "teaching", "msgspec"),
    "load-context-pi-msgspec": lambda path: load_context(path, "pi", "msgspec"),
    "inspect": inspect,
}

if __name__ == "__main__":
    operation, file = sys.argv[1], sys.argv[2]
    answer = OPERATIONS[operation](file)
    print(json.dumps({**answer, "peak_mb": round(peak_mb(), 1)}), file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)   # as Node does: no object-by-object teardown of KEPT
