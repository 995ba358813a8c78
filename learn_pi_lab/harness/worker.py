"""The untrusted side: the process that runs the learner's code, and nothing else.

``python -m learn_pi_lab.harness.worker WORKSPACE`` (started by ``proxy.Worker``, usually
inside the sandbox) reads requests on file descriptor 3 and answers on 4, one JSON object
per line. It imports the learner's file when asked (``load``), calls a function or a method
(``call``) and sends back the result, or the exception as its class name and fields. It
never sees a test, an expected value or a report: the verdict is made elsewhere, so there is
nothing here worth tampering with. Anything it sends is checked by the trusted side.

What the learner prints goes to this process's stdout, which the trusted side reads
separately (and cuts off at the output limit).

When a request says how many ``seconds`` are left before the trusted side gives up on it,
``faulthandler`` is set to print where the code is at that moment (``stop_report_armed``), so
an endless loop is reported with its line even though the process is then killed.
"""

from __future__ import annotations

import faulthandler
import gc
import importlib
import importlib.util
import json
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

from learn_pi_lab.harness.hiding import REFUSALS_FD, hide_the_reference, report_refusals_to
from learn_pi_lab.harness.unpickling import refuse_code_in_pickles
from learn_pi_lab.harness.wire import Decoder, Encoder, ObjectTable, paused_gc

REQUESTS_FD, REPLIES_FD = 3, 4
MESSAGE_CHARS = 1500
RESERVE_BYTES = 4 * 1024 * 1024   # set aside at start, given back when memory runs out, so
                                  # the answer "MemoryError at line 12" can still be built


def out_of_memory_reply(where: str | None = None) -> dict:
    """The answer for a ``MemoryError``: plain data, built without touching the learner's
    objects (the full list that filled the memory may still be held somewhere)."""
    return {"raised": {"module": "builtins", "name": "MemoryError", "text": "",
                       "args": [], "fields": [], "where": where}, "sync": []}


# Written out at start: when even a small answer cannot be built any more, this one is sent
# as it is, instead of the process dying with a traceback of the harness's own lines.
OUT_OF_MEMORY_LINE = json.dumps(out_of_memory_reply(), separators=(",", ":")).encode() + b"\n"


class Worker:
    def __init__(self, workspace: str) -> None:
        self.workspace = None if workspace == "reference" else Path(workspace).resolve()
        self.table = ObjectTable(sign=-1)
        self.encoder = Encoder(self.table, unknown=self.keep)
        self.decoder = Decoder(self.table)
        self.modules: dict[str, Any] = {}
        self.prefix = None if self.workspace is None else str(self.workspace) + os.sep
        self.reserve: bytearray | None = bytearray(RESERVE_BYTES)

    def keep(self, value: Any) -> list:
        """An object of the learner's own: it stays here, the trusted side gets a handle."""
        handle = self.encoder.new(value)
        return ["H", handle, type(value).__name__]

    # -- requests ------------------------------------------------------------------------

    def load(self, module: str, reference: str, token: str | None = None) -> dict:
        if self.workspace is None:
            loaded = importlib.import_module(reference)
        else:
            if token is not None:   # each refusal is put on record with the trusted side
                report_refusals_to(REFUSALS_FD, token)
            hide_the_reference(module, reference)   # before a line of the learner's runs
            refuse_code_in_pickles(self.workspace)
            if str(self.workspace) not in sys.path:   # the learner's own helper modules
                sys.path.append(str(self.workspace))  # (last: never in place of a module
            path = self.workspace / f"{module}.py"    # of Python's or the package's)
            spec = importlib.util.spec_from_file_location(f"learner_workspace.{module}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path.name}")
            loaded = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = loaded
            spec.loader.exec_module(loaded)
        key = f"{module}|{reference}"
        self.modules[key] = loaded
        names = {name: ("class" if isinstance(value, type) else "function")
                 for name, value in vars(loaded).items()
                 if callable(value) and not name.startswith("__")}
        return {"module": key, "names": names}

    def call(self, target: list, args: list, kwargs: list) -> Any:
        kind, where, name = target
        if kind == "m":
            function = getattr(self.modules[where], name)
        else:
            function = self.table.objects[where]
            if name is not None:
                function = getattr(function, name)
        with paused_gc():
            positional = [self.decoder.decode(arg) for arg in args]
            named = dict(self.decoder.pairs(kwargs))
        return function(*positional, **named)

    def handle(self, request: dict) -> dict:
        with stop_report_armed(request.get("seconds")):
            return self._handle(request)

    def _handle(self, request: dict) -> dict:
        if request.get("reset"):
            self.table.clear()
        with paused_gc():
            self.decoder.apply(request.get("sync", []))
        result: Any = None
        try:
            if request["op"] == "load":
                reply = {"ok": self.encoder.encode(
                    self.load(request["module"], request["reference"], request.get("token")))}
            else:
                result = self.call(request["target"], request["args"], request["kwargs"])
                with paused_gc():
                    reply = {"ok": self.encoder.encode(result)}
        except MemoryError as error:    # let go of what filled the memory, then answer
            result = None
            return self.out_of_memory(error)
        except BaseException as error:   # the learner's exception (or exit) is an answer
            result = None
            reply = {"raised": self.exception(error)}
        with paused_gc():
            reply["sync"] = self.encoder.sync()
        return reply

    def out_of_memory(self, error: MemoryError) -> dict:
        """The learner's code ran out of memory (the sandbox's address-space limit, usually
        an endless ``append``). Everything its frames hold is released first (the frames
        stay reachable from the traceback until cleared), and the reserve is given back, so
        the answer can be built."""
        self.reserve = None
        where = self.learner_frame(error.__traceback__)
        try:
            traceback.clear_frames(error.__traceback__)
        except Exception:
            pass
        error.__traceback__ = error.__context__ = error.__cause__ = None
        del error
        gc.collect()
        try:
            self.reserve = bytearray(RESERVE_BYTES)
        except MemoryError:
            pass
        return out_of_memory_reply(where)

    def learner_frame(self, tb: Any) -> str | None:
        """``learner_line`` for an exception raised when memory is exhausted: a walk that
        allocates as little as possible (no source lines read, no paths resolved)."""
        if self.prefix is None:
            return None
        found = None
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_filename.startswith(self.prefix):
                found = (code.co_filename, tb.tb_lineno, code.co_name)
            tb = tb.tb_next
        if found is None:
            return None
        try:
            return f"{os.path.basename(found[0])}:{found[1]} in {found[2]}"
        except MemoryError:
            return None

    # -- exceptions ----------------------------------------------------------------------

    def exception(self, error: BaseException) -> dict:
        """The exception as data: class, arguments, public fields, and the learner's line."""
        cls = type(error)
        fields = {name: value for name, value in vars(error).items()
                  if not name.startswith("_")} if hasattr(error, "__dict__") else {}
        if isinstance(error, OSError) and error.filename is not None:
            fields["filename"] = str(error.filename)
        data = {"module": cls.__module__, "name": cls.__qualname__,
                "text": safe_str(error), "where": self.learner_line(error)}
        try:
            data["args"] = [self.encoder.encode(arg) for arg in error.args]
            data["fields"] = self.encoder.items(fields)
        except Exception:   # an argument that cannot even be described: send the text only
            data["args"], data["fields"] = [data["text"]], []
        return data

    def learner_line(self, error: BaseException) -> str | None:
        """``ch02_parent_pointers.py:42 in path_to``: the innermost line in the workspace."""
        if self.workspace is None:
            return None
        if isinstance(error, SyntaxError) and error.filename:
            if Path(error.filename).resolve().is_relative_to(self.workspace):
                return f"{Path(error.filename).name}:{error.lineno}"
        found = None
        for frame in traceback.extract_tb(error.__traceback__):
            if Path(frame.filename).resolve().is_relative_to(self.workspace):
                found = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
        return found


STOP_REPORT = os.fdopen(os.dup(2), "w") if __name__ == "__main__" else sys.stderr
"""Where ``faulthandler`` writes (a copy of stderr made at start: the learner's code may
replace ``sys.stderr`` or close it, and the report must still come out)."""


class stop_report_armed:
    """Print every thread's stack if the request is still running after ``seconds``; the
    timer is cancelled when it ends. The trusted side reads the learner's line from it
    (``proxy.stopped_at``). A timer signal (``SIGALRM``) whose handler is ``faulthandler``'s
    own, written in C: it prints even in a tight loop, and needs no thread and no memory
    (an endless ``append`` that exhausts the memory must still get its line reported).
    """

    def __init__(self, seconds: Any) -> None:
        self.seconds = seconds if type(seconds) in (int, float) and seconds > 0 else None

    def __enter__(self) -> None:
        if self.seconds is not None:
            faulthandler.register(signal.SIGALRM, file=STOP_REPORT, all_threads=True)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if self.seconds is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)


def safe_str(error: BaseException) -> str:
    try:
        return str(error)[:MESSAGE_CHARS]
    except Exception:
        return type(error).__name__


def main(argv: list[str]) -> int:
    worker = Worker(argv[0])
    requests = os.fdopen(REQUESTS_FD, "rb")
    replies = os.fdopen(REPLIES_FD, "wb")
    for line in requests:
        try:
            try:
                with paused_gc():
                    request = json.loads(line)
                reply = worker.handle(request)
                # ASCII: a lone surrogate in a message or a value (json.loads('"\\ud800"'),
                # common in session data) travels as its escape; UTF-8 cannot carry it.
                data = json.dumps(reply, separators=(",", ":"))
            except MemoryError:
                raise
            except BaseException as error:   # a result that cannot be sent at all
                data = json.dumps({"raised": {"module": "builtins", "name": "TypeError",
                                              "text": f"cannot send the result back: "
                                                      f"{type(error).__name__}: "
                                                      f"{safe_str(error)}",
                                              "args": [], "fields": [], "where": None},
                                   "sync": []})
            encoded = data.encode("utf-8") + b"\n"
        except MemoryError:   # not even a short answer fits: the one written at start
            worker.reserve = reply = data = None
            encoded = OUT_OF_MEMORY_LINE
        replies.write(encoded)
        replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
