"""The trusted side of a grading run: the learner's module as a proxy, the worker on a leash.

``tests/targets.py`` asks ``load(...)`` for the module under test. During grading that is a
``RemoteModule``: ``impl.path_to(entries, "c")`` sends the call to the worker process (which
alone imports the learner's file) and returns the answer rebuilt from plain data (``wire``).
The tests are the same tests that prove the reference; they never hold a learner's object.

``Worker`` owns the worker process and the clock. Every wait has a deadline; a worker that
stalls, dies, floods its output or sends something malformed ends the run with
``WorkerGone`` and a reason, never with a pass. ``WorkerGone`` is a ``BaseException`` so that
no ``except Exception`` in a test can swallow it.
"""

from __future__ import annotations

import builtins
import json
import os
import queue
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any, Callable

from learn_pi_lab.harness import files, sandbox
from learn_pi_lab.harness.hiding import REFUSALS_FD
from learn_pi_lab.harness.wire import (Decoder, Encoder, ObjectTable, RemoteObject, WireError,
                                       expect, package_module, paused_gc)

REPLY_LIMIT = 64 * 1024 * 1024    # bytes in one answer: a 500,000-entry path is ~4 MB
OUTPUT_KEPT = 4000                # characters of printed output kept for the feedback
KILL_WAIT = 5.0
NOTHING_RETURNED = object()      # no call of the learner's code has returned in this test
OUTPUT_DRAIN_SECONDS = 5.0        # after the worker ended: the rest of what it printed
PROCESS_POLL = 0.2                # seconds between two counts of the worker's processes
SANDBOX_OVERHEAD = 2              # bwrap's own two processes are not the learner's
STOP_REPORT_AHEAD = 0.3           # the worker prints where it is this long before the limit
STOP_REPORT_WAIT = 0.5            # at the limit: how long to wait for that report to arrive
TAIL_KEPT = 64 * 1024             # the end of the output, where that report is
REFUSALS_KEPT = 64 * 1024         # bytes of refusal records read (a few names, honestly)
REFUSED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){1,10}")


class WorkerGone(BaseException):
    """The worker cannot answer any more. ``reason``: ``timeout``, ``output-limit``,
    ``crashed`` (it died: a kill by a limit, ``os._exit``) or ``protocol`` (it sent
    something that is not an answer)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


STOP_REPORT_START = re.compile(r"(Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):")
STOP_REPORT_FRAME = re.compile(r'^  File "(.*)", line (\d+) in (\S+)$', re.MULTILINE)
# What a learner may see of a frame's place: a plain relative file name and a function name
# (the text comes from the learner's process, so anything else is not shown).
SHOWN_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,150}\.py")
SHOWN_NAME = re.compile(r"[A-Za-z_<][A-Za-z0-9_<>]{0,80}")


def faulthandler_spelling(text: str) -> str:
    """``text`` as faulthandler writes it: printable ASCII kept, anything else escaped
    (``\xe9``, ``\u4e34``, ``\U0001f600``), so a folder named in Chinese still matches."""
    return "".join(char if " " <= char <= "~" else
                   f"\\x{ord(char):02x}" if ord(char) <= 0xFF else
                   f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
                   for char in text)


def stopped_at(output: str, folder: str | None) -> str | None:
    """``ch05_state.py:12 in state_at``: the learner's innermost line in the last stack
    report the worker printed when its time ran out (``worker.stop_report_armed``), or None.

    The report lists each thread's frames, most recent first, under ``Current thread 0x…``
    (the one the timer interrupted: the learner's call) or ``Thread 0x…``, and may start in
    the middle of a line the learner left unfinished; the first frame of the current thread
    in the learner's ``folder`` is the line that was running. (The learner could print a
    look-alike: it would only name another line of theirs, never change the verdict.)
    """
    starts = list(STOP_REPORT_START.finditer(output))
    if folder is None or not starts:
        return None
    current = [start for start in starts if start.group(1) == "Current thread"]
    prefix = faulthandler_spelling(folder.rstrip("/") + "/")
    for frame in STOP_REPORT_FRAME.finditer(output, (current or starts)[-1].end()):
        path, line, name = frame.groups()
        if path.startswith(prefix):
            relative = path[len(prefix):]
            if SHOWN_FILE.fullmatch(relative) and SHOWN_NAME.fullmatch(name):
                return f"{relative}:{line} in {name}"
            return None
    return None


def before_stop_report(output: str) -> str:
    """What was printed before the worker's stack report (``stopped_at``), which may start
    in the middle of a line; a report cut short by the output kept is dropped too."""
    found = STOP_REPORT_START.search(output)
    if found is not None:
        return output[:found.start()]
    for marker in ("Current thread 0x", "Thread 0x"):   # the kept output ends inside it
        for size in range(len(marker), 8, -1):
            if output.endswith(marker[:size]):
                return output[:-size]
    cut = re.search(r"(Current thread|Thread) 0x[0-9a-f]*( \(most recent call first\)?)?$",
                    output)
    return output[:cut.start()] if cut else output


class LearnerException(Exception):
    """An exception of a class the trusted side does not rebuild (one the learner defined,
    or ``SystemExit``): it keeps the name and the message, nothing else."""

    type_name = "Exception"

    def __str__(self) -> str:
        return self.args[0] if self.args else ""


_learner_classes: dict[str, type] = {}


def learner_exception(name: str) -> type:
    """A stand-in class with the learner's exception's name, so messages read naturally."""
    name = name if name.isidentifier() and len(name) <= 100 else "LearnerException"
    if name not in _learner_classes:
        _learner_classes[name] = type(name, (LearnerException,), {"type_name": name})
    return _learner_classes[name]


def rebuildable(module: str, name: str) -> type | None:
    """The real class for an exception of the standard library's builtins or of the package
    (a module of it already imported here);
    ``None`` for anything else (including ``unittest.SkipTest``: a learner must not be able
    to skip a test). ``SystemExit`` and friends are not ``Exception``s: not rebuilt either."""
    if module == "builtins":
        cls = getattr(builtins, name, None)
    elif module.startswith("learn_pi_lab.") and name.isidentifier():
        cls = getattr(package_module(module), name, None)   # never a module that runs
    else:
        cls = None
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls
    return None


class Worker:
    """One worker process: started once per exercise run, asked to load and to call."""

    def __init__(self, command: list[str], *, env: dict[str, str], cwd: Path, deadline: float,
                 output_limit: int, preexec: Callable[[], None] | None = None,
                 max_processes: int | None = None, shared: Path | None = None,
                 learner_folder: str | None = None, writable: list[Path] | None = None,
                 max_disk: int | None = None, max_memory: int | None = None,
                 hand_over: bool = False) -> None:
        self.deadline = deadline
        self.waited = 0.0   # seconds its threads waited, ready, for a processor (at most)
        self.hand_over = hand_over   # the test's files go to the worker's uid (``sandbox``)
        self.learner_folder = learner_folder   # where the learner's files are (stopped_at)
        self.tail = bytearray()                # the last TAIL_KEPT bytes printed
        self.shared = shared
        self.max_processes = max_processes
        self.too_many = threading.Event()
        self.writable, self.max_disk = writable or [], max_disk
        self.too_much_disk = threading.Event()
        self.max_memory = max_memory   # all its processes together (``sandbox.memory_used``)
        self.too_much_memory = threading.Event()
        self.output_limit = output_limit
        self.table = ObjectTable(sign=+1)
        self.encoder = Encoder(self.table)
        self.decoder = Decoder(self.table, remote=self.remote_object)
        self.reset_pending = False
        self.gone: WorkerGone | None = None
        self.last_returned: Any = NOTHING_RETURNED   # by the learner's code, in this test
        self.last_call: tuple | None = None   # (target, args, kwargs) of the latest call there
        self.output = bytearray()
        self.flooded = threading.Event()
        to_worker_read, self.to_worker = os.pipe()
        self.from_worker, from_worker_write = os.pipe()
        refusals_read, refusals_write = os.pipe()
        self.token = secrets.token_hex(16)   # what a refusal's record starts with
        self.refusals: list[str] = []        # the package's answers that refused, in order
        # the worker reads requests on fd 3, writes answers on fd 4 and refusals on fd 6
        self.process = sandbox.start(
            command, fds={3: to_worker_read, 4: from_worker_write,
                          REFUSALS_FD: refusals_write}, then=preexec, env=env,
            cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True)
        os.close(to_worker_read)
        os.close(from_worker_write)
        os.close(refusals_write)
        self.refusals_reader = threading.Thread(target=self._read_refusals,
                                                args=(refusals_read,), daemon=True)
        self.refusals_reader.start()
        self.replies: queue.Queue = queue.Queue()
        threading.Thread(target=self._read_replies, daemon=True).start()
        self.drain = threading.Thread(target=self._drain_output, daemon=True)
        self.drain.start()
        if max_processes is not None or max_disk is not None or max_memory is not None:
            threading.Thread(target=self._watch_limits, daemon=True).start()

    # -- the threads that read and watch -------------------------------------------------

    def _read_replies(self) -> None:
        """One line per answer; a line longer than ``REPLY_LIMIT`` is a flood."""
        buffer = bytearray()
        with os.fdopen(self.from_worker, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(1 << 20)
                if not chunk:
                    self.replies.put(None)
                    return
                searched = len(buffer)   # look for the end of a line in the new bytes only
                buffer += chunk
                while (end := buffer.find(b"\n", searched)) >= 0:
                    self.replies.put(bytes(buffer[:end]))
                    del buffer[:end + 1]
                    searched = 0
                if len(buffer) > REPLY_LIMIT:
                    self.replies.put(b"")   # too long to be an answer
                    return

    def _read_refusals(self, fd: int) -> None:
        """The refusals the worker put on record (``hiding.refusal``): lines ``TOKEN NAME``.
        A line without this run's token, or whose name is not a dotted name, is not a
        record; at most ``REFUSALS_KEPT`` bytes are looked at (the rest is drained)."""
        buffer, looked = b"", 0
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65536):
                if looked >= REFUSALS_KEPT:
                    continue
                looked += len(chunk)
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    token, _, name = line.decode("utf-8", "replace").partition(" ")
                    if token == self.token and REFUSED_NAME.fullmatch(name) \
                            and name not in self.refusals:
                        self.refusals.append(name)

    def _drain_output(self) -> None:
        total = 0
        assert self.process.stdout is not None
        while chunk := self.process.stdout.read1(65536):
            total += len(chunk)
            if len(self.output) < OUTPUT_KEPT * 4:
                self.output.extend(chunk[:OUTPUT_KEPT * 4 - len(self.output)])
            self.tail.extend(chunk)
            del self.tail[:-TAIL_KEPT]
            if total > self.output_limit:
                self.flooded.set()
                self.replies.put(None)
                self.kill()
                return

    def _watch_limits(self) -> None:
        """Every ``PROCESS_POLL`` seconds: more processes than allowed, more kept on disk
        in the folders it can write (``sandbox.disk_used``), or more memory held by all its
        processes together than one may have (``sandbox.memory_used``), ends the run."""
        while self.process.poll() is None:
            pids = sandbox.process_tree(self.process.pid)   # one walk of /proc for all three
            self.note_waiting(pids)
            for over, past in ((self.too_many, self._too_many_processes),
                               (self.too_much_disk, self._too_much_on_disk),
                               (self.too_much_memory, self._too_much_memory)):
                if past(pids):
                    over.set()
                    self.replies.put(None)
                    self.kill()
                    return
            time.sleep(PROCESS_POLL)

    def note_waiting(self, pids: list[int] | None = None) -> None:
        """Keep the longest the worker's threads have waited for a processor, as far as a
        reading sees (``sandbox.waited_seconds``): a run that timed out while it waited
        long was crowded by other work, and ``grade`` runs it again."""
        if pids is None:
            pids = sandbox.process_tree(self.process.pid)
        self.waited = max(self.waited, sandbox.waited_seconds(pids))

    def _too_many_processes(self, pids: list[int]) -> bool:
        return self.max_processes is not None and \
            sandbox.thread_count(pids) > self.max_processes + SANDBOX_OVERHEAD

    def _too_much_memory(self, pids: list[int]) -> bool:
        return self.max_memory is not None and \
            sandbox.memory_used(pids, self.max_memory) > self.max_memory

    def _too_much_on_disk(self, pids: list[int]) -> bool:
        """What the folders it can write hold, and the files its processes keep open after
        removing them (``sandbox.held_unlinked``: in no folder, still on the disk)."""
        if self.max_disk is None:
            return False
        used = sandbox.disk_used(self.writable, self.max_disk)
        if used > self.max_disk:
            return True
        held = sandbox.held_unlinked(pids, self.max_disk - used)
        return used + held > self.max_disk

    # -- asking --------------------------------------------------------------------------

    def ask(self, request: dict) -> dict:
        with paused_gc():
            return self._ask(request)

    def _ask(self, request: dict) -> dict:
        if self.gone is not None:
            raise self.gone
        if self.reset_pending:
            request["reset"], self.reset_pending = True, False
        # the worker reports where it is just before the limit (worker.stop_report_armed)
        request["seconds"] = round(max(self.deadline - time.monotonic() - STOP_REPORT_AHEAD,
                                       0.05), 3)
        try:
            request["sync"] = self.encoder.sync()
            line = json.dumps(request, separators=(",", ":"))   # ASCII: lone surrogates cross
        except (WireError, ValueError, TypeError, RecursionError) as error:
            raise TypeError(f"the test sent a value that cannot cross: {error}") from None
        if self.hand_over and self.shared is not None:
            sandbox.hand_over([self.shared])   # what the test wrote there, for it to read
        sandbox.thaw(self.process.pid)   # the worker's turn (see ``freeze``)
        try:
            os.write(self.to_worker, line.encode("utf-8") + b"\n") if len(line) < 65536 \
                else self._write_all(line.encode("utf-8") + b"\n")
        except OSError:
            self.ended()
        remaining = self.deadline - time.monotonic()
        try:
            raw = self.replies.get(timeout=max(remaining, 0.001))
        except queue.Empty:
            self.note_waiting()   # (the last reading, just before the worker is stopped)
            self.fail("timeout", where=self.wait_for_stop_report())
        if raw is None:
            self.ended()
        try:
            reply = json.loads(raw)
            expect(type(reply) is dict and ("ok" in reply) != ("raised" in reply),
                   "an answer is {ok} or {raised}")
            self.decoder.apply(reply.get("sync", []))
        except (ValueError, RecursionError) as error:
            self.fail("protocol", str(error)[:200])
        self.freeze()
        self.check_shared_files()
        return reply

    def freeze(self) -> None:
        """The trusted side's turn: every process of the worker is stopped until the next
        request (``sandbox.freeze``), so nothing the learner's code left running can touch
        the test's files while the test writes or reads them."""
        if not sandbox.freeze(self.process.pid):
            self.fail("process-limit", "its processes could not be paused")

    def check_shared_files(self) -> None:
        """The tests read what the learner's code wrote in their temporary folders. Only
        regular files and folders may be there: a symbolic link (to a file the teacher can
        read) or a pipe (a read that never ends) is not an answer."""
        if self.shared is None:
            return
        for name in files.special_entries(self.shared):
            self.fail("protocol", f"{os.path.basename(name)!r} in the test's folder is not a "
                                  "regular file")

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self.to_worker, view)
            view = view[written:]

    def wait_for_stop_report(self) -> str | None:
        """At the time limit: the learner's line from the worker's stack report, waiting a
        little for it to come through the pipe (``stopped_at``); None if none came."""
        if self.learner_folder is None:
            return None
        give_up = time.monotonic() + STOP_REPORT_WAIT
        while True:
            where = stopped_at(self.tail.decode("utf-8", errors="replace"), self.learner_folder)
            if where is not None or time.monotonic() > give_up:
                return where
            time.sleep(0.02)

    def ended(self) -> None:
        """The worker is gone: say why, a limit a watching thread saw (also when it ended the
        worker during the trusted side's turn) or, failing that, that it died."""
        if self.flooded.is_set():
            self.fail("output-limit")
        if self.too_many.is_set():
            self.fail("process-limit", f"more than {self.max_processes} processes")
        if self.too_much_disk.is_set():
            assert self.max_disk is not None
            self.fail("disk-limit", f"more than {self.max_disk // sandbox.MiB} MiB")
        if self.too_much_memory.is_set():
            assert self.max_memory is not None
            self.fail("memory-limit", f"more than {self.max_memory // sandbox.MiB} MiB "
                                      f"in all its processes together")
        self.fail("crashed", self.exit_detail())

    def fail(self, reason: str, detail: str = "", *, where: str | None = None) -> None:
        self.gone = WorkerGone(reason, detail)
        self.gone.learner_where = where   # type: ignore[attr-defined]
        self.kill()
        raise self.gone

    def value(self, reply: dict) -> Any:
        """The answer's value, or its exception raised here."""
        with paused_gc():
            return self._value(reply)

    def _value(self, reply: dict) -> Any:
        try:
            if "ok" in reply:
                return self.decoder.decode(reply["ok"])
            error = self.exception(reply["raised"])
        except (WireError, RecursionError) as problem:
            self.fail("protocol", str(problem)[:200])
        raise error

    def exception(self, data: Any) -> BaseException:
        expect(type(data) is dict, "an exception is an object")
        module, name, text = data.get("module"), data.get("name"), data.get("text")
        expect(all(type(part) is str for part in (module, name, text)), "an exception is named")
        args = data.get("args", [])
        expect(type(args) is list, "exception arguments are a list")
        cls = rebuildable(module, name)
        if cls is None:
            error: BaseException = learner_exception(name)(str(text))
        else:
            arguments = tuple(self.decoder.decode(arg) for arg in args)
            error = cls.__new__(cls)
            if module == "builtins":   # their own __init__ fills errno, strerror, ...
                try:
                    error = cls(*arguments)
                except Exception:
                    pass
            error.args = arguments
            for field, value in self.decoder.pairs(data.get("fields", [])):
                if type(field) is str and field.isidentifier() and not field.startswith("_"):
                    try:
                        setattr(error, field, value)
                    except (AttributeError, TypeError):
                        pass
        where = data.get("where")
        error.learner_where = where if type(where) is str else None   # type: ignore[attr-defined]
        return error

    def remote_object(self, handle: int, class_name: str) -> RemoteObject:
        return RemoteObject(handle, class_name, self.call)

    def call(self, target: tuple, args: tuple, kwargs: dict) -> Any:
        request = {"op": "call", "target": list(target)}
        self.last_call = (target, args, kwargs)   # if the learner's code raises, the report shows it
        with paused_gc():
            self.encode_arguments(request, args, kwargs)
        value = self.value(self.ask(request))
        self.last_returned = value   # if the test then fails using it, the report shows it
        return value

    def encode_arguments(self, request: dict, args: tuple, kwargs: dict) -> None:
        try:
            request["args"] = [self.encoder.encode(arg) for arg in args]
            request["kwargs"] = self.encoder.items(kwargs)
        except WireError as error:
            raise TypeError(f"the test sent a value that cannot cross: {error}") from None

    def load(self, module: str, reference: str) -> "RemoteModule":
        reply = self.ask({"op": "load", "module": module, "reference": reference,
                          "token": self.token})
        answer = self.value(reply)
        if not (type(answer) is dict and type(answer.get("module")) is str
                and type(answer.get("names")) is dict):
            self.fail("protocol", "a load answer names the module's functions")
        return RemoteModule(self, module, answer["module"],
                            {name: kind for name, kind in answer["names"].items()
                             if type(name) is str})

    def new_test(self) -> None:
        """A test starts: both sides forget the objects of the previous one."""
        self.table.clear()
        self.reset_pending = True
        self.last_returned = NOTHING_RETURNED
        self.last_call = None

    # -- ending --------------------------------------------------------------------------

    def exit_detail(self) -> str:
        try:
            code = self.process.wait(timeout=KILL_WAIT)
        except subprocess.TimeoutExpired:
            return ""
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def kill(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> str:
        """Stop the worker (and, in the sandbox, everything it started); its output so far."""
        sandbox.thaw(self.process.pid)   # a stopped worker could not see its input end
        try:
            os.close(self.to_worker)
        except OSError:
            pass
        try:
            self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        self.process.wait()
        # What it printed just before it ended may still be in the pipe: read to the end
        # (bounded: a process it left behind could hold the pipe open); so may a refusal
        self.drain.join(timeout=OUTPUT_DRAIN_SECONDS)
        self.refusals_reader.join(timeout=OUTPUT_DRAIN_SECONDS)
        return self.output.decode("utf-8", errors="replace")[:OUTPUT_KEPT]


class RemoteModule(types.ModuleType):
    """The learner's module as the tests see it: each function is a call into the worker."""

    def __init__(self, worker: Worker, name: str, key: str, names: dict[str, str]) -> None:
        super().__init__(f"learner_workspace.{name}")
        self._worker, self._key, self._names = worker, key, names

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        worker, key = self._worker, self._key

        def remote(*args: Any, **kwargs: Any) -> Any:
            return worker.call(("m", key, name), args, kwargs)
        remote.__name__ = name
        return remote


# --------------------------------------------------------------------------------------
# The one worker of this grading process (set by ``child``), and what tests/targets.py asks
# --------------------------------------------------------------------------------------

current: Worker | None = None
_loaded: dict[tuple[str, str], RemoteModule] = {}


def active() -> bool:
    return current is not None


def load(workspace_module: str, reference_module: str) -> RemoteModule:
    key = (workspace_module, reference_module)
    if key not in _loaded:
        assert current is not None
        _loaded[key] = current.load(workspace_module, reference_module)
    return _loaded[key]


def worker_command(workspace: str) -> list[str]:
    return [sys.executable, "-m", "learn_pi_lab.harness.worker", workspace]
