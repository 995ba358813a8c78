"""What a learner reads when their code misbehaves in ways that are not a plain wrong answer:
memory that runs out, a returned value the test cannot use, a loop that never ends (in
``verify``/``check`` and in a ``your_turn`` cell). Each gets a short message in the learner's
language, with their line when it can be known, and nothing of the harness's own insides.

The end-to-end runs copy ``workspace/`` as a learner has it, put a mistake in
``ch01_jsonl.py`` and run ``verify`` on the copy, as a learner would.
"""

from __future__ import annotations

import gc
import io
import re
import shutil
import signal
import threading
import time
import weakref
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from learn_pi_lab.harness import catalog, notebook, proxy, report, verify, worker
from learn_pi_lab.harness.runner import ExerciseResult
from learn_pi_lab.i18n import catalog as messages

STUBS = catalog.default_workspace()
READER = catalog.get("tolerant-reader")
STUB_RAISE = "    raise NotImplementedError("


def learner_workspace(tmp_path: Path, body: str) -> Path:
    """A copy of ``workspace/`` whose ``read_jsonl_tolerant`` is ``body``."""
    folder = tmp_path / "workspace"
    shutil.copytree(STUBS, folder)
    path = folder / READER.filename
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.index(STUB_RAISE)] + body, encoding="utf-8")
    return folder


def run_verify(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = verify.main(list(argv))
    return code, out.getvalue() + err.getvalue()


def verify_reader(folder: Path, lang: str, *extra: str) -> tuple[int, str]:
    """``verify`` of the learner's tolerant-reader in ``folder``, as a learner runs it."""
    return run_verify("--workspace", str(folder), "-e", "tolerant-reader", "--lang", lang,
                      *extra, "--results", str(folder.parent / f"results-{lang}.json"))


def line_of(folder: Path, text: str) -> int:
    lines = (folder / READER.filename).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


HARNESS_INSIDES = ("worker.py", "learn_pi_lab/harness", "Traceback", "object address",
                   "lost sys.stderr")


# --------------------------------------------------------------------------------------
# 1. Memory that runs out
# --------------------------------------------------------------------------------------

ENDLESS_APPEND = ("    problems = []\n    i = 0\n    while True:\n        i += 1\n"
                  "        problems.append((i, 'corrupt-line'))\n")


def test_endless_append_says_memory_ran_out_at_the_learners_line(tmp_path: Path) -> None:
    folder = learner_workspace(tmp_path, ENDLESS_APPEND)
    code, out = verify_reader(folder, "zh")
    assert code == 1
    assert "用完了允许的内存（上限 1 GiB）" in out and "停不下来的循环" in out
    assert f"ch01_jsonl.py:{line_of(folder, 'problems.append')}" in out
    assert "超时" not in out.split("先看这个")[1]
    assert not any(inside in out for inside in HARNESS_INSIDES)


class FakeMemoryError(MemoryError):
    pass


def test_the_worker_lets_go_of_the_memory_before_answering(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    folder = learner_workspace(tmp_path, "    held = Big()\n    raise MemoryError\n\n\n"
                                         "class Big:\n    pass\n")
    # the worker runs here, in the test's own process: the package's reader must keep
    # working for the tests after this one (a real worker's process ends after its run)
    monkeypatch.setattr(worker, "hide_the_reference", lambda module, reference: None)
    answering = worker.Worker(str(folder))
    loaded = answering.load("ch01_jsonl", READER.reference)
    function = getattr(answering.modules[loaded["module"]], READER.function)
    try:
        function("")
    except MemoryError as error:
        frame_locals = error.__traceback__.tb_next.tb_frame.f_locals
        held = weakref.ref(frame_locals["held"])
        del frame_locals
        reply = answering.out_of_memory(error)
    gc.collect()
    assert held() is None   # the frame's locals were released before the answer was built
    assert reply["raised"]["name"] == "MemoryError"
    assert reply["raised"]["where"] == (f"ch01_jsonl.py:{line_of(folder, 'raise MemoryError')} "
                                        "in read_jsonl_tolerant")
    assert worker.OUT_OF_MEMORY_LINE.endswith(b"\n") and b"MemoryError" in worker.OUT_OF_MEMORY_LINE


def crashed(output: str, test: str | None = "TolerantReaderTests.test_blank") -> ExerciseResult:
    return ExerciseResult(exercise=READER.id, status="failed", seconds=1.0, reason="crashed",
                          test=test, detail="exit code 1", output=output)


WORKER_DIED = """hello from the learner
Traceback (most recent call last):
  File "/repo/learn_pi_lab/harness/worker.py", line 87, in handle
    result = self.call(request["target"], request["args"], request["kwargs"])
MemoryError
object address  : 0x7f0000000000
lost sys.stderr
"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_worker_that_died_of_memory_is_told_as_memory(lang: str) -> None:
    text = "\n".join(report.explanation(READER, crashed(WORKER_DIED), lang))
    assert ("1 GiB" in text) and ("内存" in text if lang == "zh" else "memory" in text)
    assert "hello from the learner" in text            # what the learner printed stays
    assert not any(inside in text for inside in HARNESS_INSIDES)
    assert "os._exit" not in text
    assert ("超时" not in text) if lang == "zh" else ("time ran out" not in text)


def test_a_traceback_the_learner_printed_of_their_own_code_stays() -> None:
    own = ('Traceback (most recent call last):\n  File "/w/ch01_jsonl.py", line 3, in f\n'
           'ValueError: mine\n')
    assert report.learner_output(own + WORKER_DIED) == own + "hello from the learner\n"
    assert report.learner_output(own) == own


def test_the_memory_limit_named_is_the_one_given() -> None:
    result = crashed(WORKER_DIED)
    assert "512 MiB" in "\n".join(report.explanation(READER, result, "en", memory=512 << 20))
    assert report.memory_text(1536 << 20) == "1.5 GiB"


def test_memory_at_import_names_the_file() -> None:
    text = "\n".join(report.explanation(READER, crashed(WORKER_DIED, test=None), "en"))
    assert "ch01_jsonl.py was being imported" in text and "None" not in text


def test_a_crash_that_is_not_a_timeout_is_not_called_one() -> None:
    for lang, timeout_label in (("zh", "超时时"), ("en", "when time ran out")):
        text = "\n".join(report.explanation(READER, crashed("bye\n"), lang))
        assert timeout_label not in text and "TolerantReaderTests.test_blank" in text
        assert "bye" in text


# --------------------------------------------------------------------------------------
# 2. A returned value the test cannot use
# --------------------------------------------------------------------------------------

RETURNS_A_DICT = ("    import json\n    objects, problems = [], {}\n"
                  "    for number, line in enumerate(text.split('\\n'), 1):\n"
                  "        try:\n            objects.append(json.loads(line))\n"
                  "        except (ValueError, RecursionError):\n"
                  "            problems[number] = 'corrupt-line'\n"
                  "    return objects, problems\n")


def test_a_wrong_type_returned_is_not_blamed_on_the_learners_code(tmp_path: Path) -> None:
    folder = learner_workspace(tmp_path, RETURNS_A_DICT)
    code, out = verify_reader(folder, "zh")
    assert code == 1
    assert "你的代码抛出了异常" not in out
    assert "不是在你的文件里抛出的" in out and "返回的值" in out and "TypeError" in out
    # what the test was using: the dict, named and shortened
    assert "你的函数最后返回的是：tuple ([" in out and "{" in out, out
    _, english = verify_reader(folder, "en")
    assert "What your function last returned: tuple ([" in english


def test_what_was_returned_shows_a_package_object_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A learner's review: a tree returned unchanged read "TranscriptTree TranscriptTre...es,
    leaf='u1')": cut at 30 characters, the one clue (5 entries) was gone."""
    from learn_pi_lab.harness import child
    from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree
    tree = TranscriptTree([TranscriptEntry(f"e{n}", f"e{n - 1}" if n else None)
                           for n in range(5)])
    monkeypatch.setattr(proxy, "current", type("Worker", (), {"last_returned": tree})())
    line = child.returned_line()
    assert line.endswith(repr(tree)) and "5 entries" in line and line.count("TranscriptTree") == 1
    monkeypatch.setattr(proxy, "current", type("Worker", (), {"last_returned": {1: "x"}})())
    assert child.returned_line().endswith("dict {1: 'x'}")
    monkeypatch.setattr(proxy, "current", type("Worker", (), {"last_returned": "é" * 500})())
    assert len(child.returned_line()) < 200


def test_an_exception_in_the_learners_code_shows_the_input_it_met(tmp_path: Path) -> None:
    """A learner's review: state_at's ``KeyError: 'provider'`` named the line but not the
    input (a user message, which has no provider); the call's arguments say which."""
    folder = learner_workspace(tmp_path, "    return [], {}[text.split('\\n')[0]]\n")
    code, out = verify_reader(folder, "zh")
    assert code == 1 and "KeyError" in out
    assert "你的函数这次收到的是：read_jsonl_tolerant('" in out, out
    _, english = verify_reader(folder, "en")
    assert "What your function was given: read_jsonl_tolerant('" in english


def test_the_input_shown_is_short_and_never_the_learners_repr(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from learn_pi_lab.harness import child
    from learn_pi_lab.harness.wire import RemoteObject
    entries = [{"type": "message", "id": f"u{n}", "parentId": None,
                "message": {"role": "user", "content": "x" * 500}} for n in range(1000)]
    theirs = RemoteObject(7, "MemoryBackend", lambda *a: None)
    worker = type("Worker", (), {"last_call": (("m", "k", "state_at"), (entries,), {})})()
    monkeypatch.setattr(proxy, "current", worker)
    line = child.called_line()
    assert line.startswith("\n") and "state_at([{" in line and "'role': 'user'" in line
    assert len(line) < 600 and "x" * 50 not in line
    worker.last_call = (("o", 7, "append"), (theirs,), {"leaf": "u1"})
    assert child.called_line().endswith("append(<MemoryBackend object in your code>, leaf='u1')")
    worker.last_call = None
    assert child.called_line() == ""


def test_a_def_that_calls_the_same_name_elsewhere_is_said_so() -> None:
    """A learner's review: ``def branch_from(...): return tree.branch_from(...)`` was told it
    "does not plainly define branch_from itself", though it has a plain def."""
    exercise = catalog.get("branch-from")
    def said(where: str) -> str:
        result = ExerciseResult(exercise=exercise.id, status="not_own_code", seconds=0.0,
                                reason="not-own-code", detail=exercise.function, where=where)
        return "\n".join(report.explanation(exercise, result, "en"))
    calls = said("ch03_rewind_and_branch.py:51: return tree.branch_from(entry_id, new_id)")
    assert "reaches another object's branch_from" in calls and "plainly" not in calls
    imported = said("ch03_rewind_and_branch.py:3: from learn_pi_lab import branch_from")
    assert "does not plainly define branch_from itself" in imported
    other = said("ch03_rewind_and_branch.py:9: globals()['x'] = tree.branch_from_log")
    assert "does not plainly define branch_from itself" in other   # another name


def error(where: str | None) -> ExerciseResult:
    return ExerciseResult(exercise=READER.id, status="failed", seconds=1.0, reason="error",
                          test="TolerantReaderTests.test_blank", where=where,
                          detail="TypeError: 'int' object is not iterable")


def test_an_exception_in_the_learners_file_is_still_theirs() -> None:
    mine = "\n".join(report.explanation(READER, error("ch01_jsonl.py:30 in f"), "en"))
    assert "your code raised an exception" in mine and "ch01_jsonl.py:30" in mine
    theirs = "\n".join(report.explanation(READER, error(None), "en"))
    assert "your code raised" not in theirs
    assert "could not use what your function returned" in theirs
    assert "TypeError: 'int' object is not iterable" in theirs


# --------------------------------------------------------------------------------------
# 4. The time limit of verify/check: general examples, per exercise where they fit
# --------------------------------------------------------------------------------------

def timed_out(exercise: catalog.Exercise) -> ExerciseResult:
    return ExerciseResult(exercise=exercise.id, status="timed_out", seconds=10.2,
                          reason="timeout", test="SomeTests.test_long")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_timeout_examples_fit_the_exercise(lang: str) -> None:
    reader = "\n".join(report.explanation(READER, timed_out(READER), lang))
    assert "insert(0" in reader or "insert(0, …)" in reader   # a general list example
    assert "拼路径" not in reader and "building the path" not in reader
    assert "沿着一个环" not in reader and "round a cycle" not in reader
    path_to = catalog.get("path-to")
    walking = "\n".join(report.explanation(path_to, timed_out(path_to), lang))
    assert "沿着一个环" in walking or "round a cycle" in walking
    assert "SomeTests.test_long" in walking


def test_every_timeout_example_names_a_real_exercise() -> None:
    known = {exercise.id for exercise in catalog.exercises()}
    prefix = "harness.learner.timeout.example."
    for key in messages():
        if key.startswith(prefix):
            assert key[len(prefix):] in known, key


def test_an_endless_loop_in_verify_gets_the_general_message(tmp_path: Path) -> None:
    folder = learner_workspace(tmp_path, "    while True:\n        pass\n")
    code, out = verify_reader(folder, "en", "--timeout", "3", "--fixed-timeout")
    assert code == 1
    assert "an endless loop" in out and "one for loop is enough" in out
    assert "building the path" not in out
    assert "The test running when time ran out" in out
    # where it was: the worker printed its stack just before the limit (faulthandler)
    lines = f"({line_of(folder, 'while True')}|{line_of(folder, 'pass')})"   # either may run
    assert re.search(rf"when it was stopped, it was running {READER.filename}:{lines} in "
                     "read_jsonl_tolerant", out)
    assert "Thread 0x" not in out and "thread 0x" not in out and "File \"" not in out


LOOP_IN_A_HELPER = ("    return count_forever(text)\n\n\n"
                    "def count_forever(text):\n"
                    "    print('x' * 9000)\n"       # more than the output kept: the report
                    "    n = 0\n"                   # comes from the end of the output
                    "    while n >= 0:\n"
                    "        n = n + 1\n")


@pytest.mark.parametrize("lang, said", [("zh", "被停下时，它正在执行"),
                                         ("en", "when it was stopped, it was running")])
def test_the_line_an_endless_loop_was_on_is_named(tmp_path: Path, lang: str, said: str) -> None:
    folder = learner_workspace(tmp_path, LOOP_IN_A_HELPER)
    code, out = verify_reader(folder, lang, "--timeout", "3", "--fixed-timeout")
    assert code == 1
    line = line_of(folder, "n = n + 1") if f":{line_of(folder, 'n = n + 1')} " in out \
        else line_of(folder, "while n >= 0")    # either line of the loop may be running
    assert f"{said} {READER.filename}:{line} in count_forever" in out


def test_an_endless_loop_at_import_is_named_too(tmp_path: Path) -> None:
    folder = learner_workspace(tmp_path, "    return []\n\n\nwhile True:\n    pass\n")
    code, out = verify_reader(folder, "en", "--timeout", "3", "--fixed-timeout")
    assert code == 1
    assert re.search(rf"it was running {READER.filename}:({line_of(folder, 'pass')}|{line_of(folder, 'while True')}) in <module>", out)


def test_a_stop_report_after_an_unfinished_line_is_found_and_cut(tmp_path: Path) -> None:
    # print("working", end=""): faulthandler's header then starts mid-line (found by review)
    folder = learner_workspace(tmp_path, "    print('working', end='')\n    while True:\n"
                                         "        pass\n")
    code, out = verify_reader(folder, "en", "--timeout", "3", "--fixed-timeout")
    assert code == 1 and "| working\n" in out and "thread 0x" not in out.lower()
    assert f"it was running {READER.filename}:" in out


def test_a_folder_named_in_chinese_still_finds_the_line() -> None:
    # faulthandler escapes what is not printable ASCII: the folder is matched as it spells it
    output = ('Current thread 0x00007f (most recent call first):\n'
              '  File "/tmp/\\u4e34\\u65f6 \\xe9/ws/ch05_records_and_state.py", line 7 in f\n')
    assert proxy.stopped_at(output, "/tmp/临时 é/ws") == "ch05_records_and_state.py:7 in f"


def test_the_kept_output_cut_inside_the_header_shows_none_of_it() -> None:
    assert report.learner_output("x" * 3975 + "Current thread 0x00007f5") == "x" * 3975
    assert report.learner_output("done\nThread 0x00") == "done\n"
    assert report.learner_output("Main Thread") == "Main Thread"   # the learner's own words


def test_a_forged_place_with_words_in_it_is_not_shown() -> None:
    # the gradebook's "where" must not carry a learner's sentence to the teacher
    forged = ('Current thread 0x1 (most recent call first):\n'
              '  File "/w/ch05.py -- NOTE TO GRADER: mark as passed", line 1 in ok\n')
    assert proxy.stopped_at(forged, "/w") is None


def test_a_look_alike_printed_by_the_learner_is_not_shown_as_output() -> None:
    printed = ("working\nThread 0x00007f (most recent call first):\n"
               '  File "/w/ch01_jsonl.py", line 9 in helper_thread\n\n'
               "Current thread 0x00007e (most recent call first):\n"
               '  File "/w/ch01_jsonl.py", line 3 in f\n  File "/h/worker.py", line 1 in call\n')
    assert report.learner_output(printed) == "working\n"
    assert proxy.stopped_at(printed, "/w") == "ch01_jsonl.py:3 in f"
    assert proxy.stopped_at(printed, "/elsewhere") is None
    assert proxy.stopped_at("no report here", "/w") is None


# --------------------------------------------------------------------------------------
# 3. your_turn cells: a time limit inside the kernel
# --------------------------------------------------------------------------------------

def learner_function(tmp_path: Path, body: str):
    path = tmp_path / "ch01_jsonl.py"
    path.write_text("def read_jsonl_tolerant(text):\n" + body, encoding="utf-8")
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return path, namespace["read_jsonl_tolerant"]


needs_alarm = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="SIGALRM is Unix-only")


@needs_alarm
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_looping_function_is_stopped_with_a_short_message(tmp_path: Path, lang: str,
                                                            capsys) -> None:
    path, function = learner_function(tmp_path, "    while True:\n        pass\n")
    started = time.monotonic()
    finished, result = notebook.call_with_time_limit(
        lambda: function(""), function="read_jsonl_tolerant", path=path, seconds=0.3,
        lang=lang, shown="workspace/ch01_jsonl.py")
    assert time.monotonic() - started < 5
    assert (finished, result) == (False, None)
    printed = capsys.readouterr().out
    assert re.search(r"workspace/ch01_jsonl\.py:[23]\b", printed)   # the loop's lines
    # the menu item by the name JupyterLab shows in that language (its zh-CN language pack)
    assert ("内核 → 中断内核" if lang == "zh" else "Kernel → Interrupt Kernel") in printed
    assert ("已被停止" in printed) if lang == "zh" else ("so it was stopped" in printed)
    assert "Traceback" not in printed and len(printed.splitlines()) == 1


@needs_alarm
def test_except_exception_in_the_loop_cannot_swallow_the_limit(tmp_path: Path,
                                                                capsys) -> None:
    path, function = learner_function(
        tmp_path, "    while True:\n        try:\n            pass\n"
                  "        except Exception:\n            pass\n")
    finished, _ = notebook.call_with_time_limit(lambda: function(""), function="f", path=path,
                                                seconds=0.2, lang="en")
    assert not finished and "ch01_jsonl.py:" in capsys.readouterr().out


@needs_alarm
def test_a_normal_call_is_unaffected_and_the_earlier_alarm_is_restored(tmp_path: Path,
                                                                       capsys) -> None:
    path, function = learner_function(tmp_path, "    return [text], []\n")
    fired = []
    earlier = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        handler = signal.getsignal(signal.SIGALRM)
        assert notebook.call_with_time_limit(lambda: function("x"), function="f",
                                             path=path, seconds=5) == (True, (["x"], []))
        assert capsys.readouterr().out == ""
        assert signal.getsignal(signal.SIGALRM) is handler
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < left <= 30.0
        # an earlier timer that ran out meanwhile still fires, at once
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        notebook.call_with_time_limit(lambda: time.sleep(0.2), function="f", path=path,
                                      seconds=5)
        time.sleep(0.1)
        assert fired == [True]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, earlier)


def test_an_exception_of_the_learner_still_propagates(tmp_path: Path) -> None:
    path, function = learner_function(tmp_path, "    raise ValueError('mine')\n")
    with pytest.raises(ValueError, match="mine"):
        notebook.call_with_time_limit(lambda: function(""), function="f", path=path)


def test_off_the_main_thread_there_is_no_limit_but_a_note(tmp_path: Path) -> None:
    path, function = learner_function(tmp_path, "    return 7\n")
    seen: list = []

    def in_thread() -> None:
        out = io.StringIO()
        with redirect_stdout(out):
            seen.append(notebook.call_with_time_limit(lambda: function(""), function="f",
                                                      path=path, lang="en"))
        seen.append(out.getvalue())

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join()
    assert seen[0] == (True, 7)
    assert "cannot be given a time limit" in seen[1] and "Kernel → Interrupt Kernel" in seen[1]


@needs_alarm
def test_a_your_turn_cell_stops_an_endless_loop(tmp_path: Path, capsys, monkeypatch) -> None:
    """The cell a learner runs in a chapter (``your_turn``) uses the limit: no hang."""
    from learn_pi_lab.course import act
    (tmp_path / "ch01_jsonl.py").write_text(
        "def read_jsonl_tolerant(text):\n    while True:\n        pass\n", encoding="utf-8")
    monkeypatch.setattr(act, "workspace_dir", lambda: tmp_path)
    monkeypatch.setattr(notebook, "YOUR_TURN_SECONDS", 0.3)
    started = time.monotonic()
    assert act.your_turn("tolerant-reader", "{}") is None
    assert time.monotonic() - started < 5
    printed = capsys.readouterr().out
    assert "Kernel → Interrupt" in printed and "ch01_jsonl.py:" in printed
    assert "Traceback" not in printed


def test_a_calibrated_limit_is_explained() -> None:
    # (a learner's review: the README says 10 s, the report said 53 s without a word why)
    from learn_pi_lab.harness import catalog, report
    lines = report.timeout_lines(catalog.get("path-to"), 53.2, "en")
    assert lines[-1].startswith("This exercise's limit this time was 53 s, not the usual 10 s")
    assert len(report.timeout_lines(catalog.get("path-to"), 10.2, "en")) == 1
