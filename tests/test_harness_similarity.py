"""The similarity notes, proven both ways (``harness.similarity``).

A disguised copy of the public model answer, or of a classmate's solution, is noted: with
no-op lines added, every name changed, statements reordered, the body moved into a helper
(or part of it), reformatted with comments; and all of these at once. Independent honest
solutions (``tests/similarity_cases/``, each passing its exercises) get no note, against the
model answer or each other. An attacker's review found the model answers plus one no-op line
per function scored 16/16 with no note; a classmate's code plus one no-op line too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from learn_pi_lab.harness import catalog, similarity

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "learn_pi_lab" / "lessons"
HONEST = REPO / "tests" / "similarity_cases"
EXERCISES = list(catalog.exercises())


def graded(tree: ast.Module, name: str) -> ast.AST:
    return [node for node in tree.body if getattr(node, "name", None) == name][-1]


def with_no_op_lines(source: str, name: str) -> str:
    tree = ast.parse(source)

    def padded(body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in body:
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(statement, field, padded(inner))
            out += [statement, *ast.parse("pass\n0\n_unused = 1\n").body]
        return out
    node = graded(tree, name)
    node.body = padded(node.body)   # type: ignore[attr-defined]
    return ast.unparse(tree)


def renamed(source: str, name: str) -> str:
    tree = ast.parse(source)
    kept = similarity.KEPT_NAMES | {getattr(node, "name", "") for node in tree.body} | {
        alias.asname or alias.name for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            if node.id not in kept:
                node.id = "my_" + node.id
            return node

        def visit_arg(self, node: ast.arg) -> ast.arg:
            if node.arg not in ("self", "cls"):
                node.arg = "my_" + node.arg
            return node
    Rename().visit(graded(tree, name))
    return ast.unparse(tree)


def reordered(source: str, name: str) -> str:
    """The first two neighbouring assignments of the body swapped (where there are any)."""
    tree = ast.parse(source)
    body = graded(tree, name).body   # type: ignore[attr-defined]
    for index in range(len(body) - 1):
        if all(isinstance(statement, (ast.Assign, ast.AnnAssign))
               for statement in body[index:index + 2]):
            body[index], body[index + 1] = body[index + 1], body[index]
            break
    return ast.unparse(tree)


def in_a_helper(source: str, name: str) -> str:
    """The whole body moved into a helper the graded function calls."""
    tree = ast.parse(source)
    node = graded(tree, name)
    if isinstance(node, ast.ClassDef):
        return source
    helper = ast.parse(ast.unparse(node)).body[0]
    helper.name = f"_do_{name}"   # type: ignore[attr-defined]
    parameters = ", ".join(argument.arg for argument in node.args.args)   # type: ignore[attr-defined]
    wrapper = ast.parse(f"def {name}({parameters}):\n    return _do_{name}({parameters})\n").body[0]
    at = tree.body.index(node)   # type: ignore[arg-type]
    tree.body[at:at + 1] = [helper, wrapper]
    return ast.unparse(tree)


def reformatted(source: str, name: str) -> str:
    lines = ast.unparse(ast.parse(source)).splitlines()
    return "\n".join(f"{line}  # note {number}" if line.strip() and not line.rstrip().endswith(
        ("\\", ",", "(", "[", "{")) and '"""' not in line and "'''" not in line
        else line for number, line in enumerate(lines)) + "\n"


def everything(source: str, name: str) -> str:
    return in_a_helper(renamed(with_no_op_lines(reordered(source, name), name), name), name)


DISGUISES = {"no-op lines": with_no_op_lines, "renamed": renamed, "reordered": reordered,
             "in a helper": in_a_helper, "reformatted": reformatted, "all at once": everything}

# path_to with part of its loop moved into a helper of the learner's (a partial split)
PATH_TO_SPLIT = '''
from learn_pi_lab.session_tree import ParentCycle, UnknownTranscriptEntry


def next_up(entries_by_id, entry):
    if entry.parent_id not in entries_by_id:
        raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
    return entries_by_id[entry.parent_id]


def path_to(entries_by_id, leaf_id):
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    walked = []
    position = {}
    entry = entries_by_id[leaf_id]
    while entry.id not in position:
        position[entry.id] = len(walked)
        walked.append(entry)
        if entry.parent_id is None:
            return tuple(reversed(walked))
        entry = next_up(entries_by_id, entry)
    raise ParentCycle([e.id for e in walked[position[entry.id]:]])
'''


def note_for(source: str, exercise: catalog.Exercise, extra: dict | None = None) -> str:
    files = {exercise.filename: source.encode(), **(extra or {})}
    notes = similarity.notes([exercise], {"mallory": files},
                             {("mallory", exercise.id): "passed"}, "en")
    return notes.get(("mallory", exercise.id), "")


def reference_note(note: str) -> bool:
    return "same as the reference solution" in note or (
        "resembles the reference solution" in note)


@pytest.mark.parametrize("disguise", DISGUISES)
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda exercise: exercise.id)
def test_a_disguised_model_answer_is_noted(exercise: catalog.Exercise, disguise: str) -> None:
    source = (REFERENCE / exercise.filename).read_text(encoding="utf-8")
    disguised = DISGUISES[disguise](source, exercise.function)
    compile(disguised, exercise.filename, "exec")   # still a module
    assert reference_note(note_for(disguised, exercise)), (exercise.id, disguise)


def test_a_model_answer_split_into_helpers_is_noted() -> None:
    assert reference_note(note_for(PATH_TO_SPLIT, catalog.get("path-to")))


def test_a_helper_in_another_file_of_the_learners_is_followed() -> None:
    exercise = catalog.get("resolve-labels")
    source = (REFERENCE / exercise.filename).read_text(encoding="utf-8")
    helper = source.replace("def resolve_labels(", "def fold(")
    graded = "from labels_helper import fold\n\n\ndef resolve_labels(entries):\n" \
             "    return fold(entries)\n"
    assert "same as the reference" in note_for(graded, exercise,
                                               {"labels_helper.py": helper.encode()})


def honest(folder: str) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in (HONEST / folder).glob("*.py")}


HONEST_EXERCISES = ["tolerant-reader", "path-to", "validate", "state-at", "resolve-labels"]


def test_honest_independent_solutions_get_no_note() -> None:
    exercises = [catalog.get(name) for name in HONEST_EXERCISES]
    snapshots = {"ana": honest("honest-a"), "bo": honest("honest-b")}
    statuses = {(learner, exercise.id): "passed" for learner in snapshots
                for exercise in exercises}
    assert similarity.notes(exercises, snapshots, statuses, "en") == {}
    for learner, files in snapshots.items():   # each against the model answer, scored
        for exercise in exercises:
            mine = similarity.normalised(files[exercise.filename], exercise.function, files)
            model = similarity.normalised((REFERENCE / exercise.filename).read_bytes(),
                                          exercise.function)
            assert mine is not None and model is not None
            score = similarity.resemblance(mine.fingerprints(), model.fingerprints())
            assert score is None or score < similarity.NOTED_SCORE - 0.15, (
                learner, exercise.id, score)


def test_a_classmates_copy_with_a_no_op_line_names_both() -> None:
    exercise = catalog.get("validate")
    original = (HONEST / "honest-a" / exercise.filename).read_text(encoding="utf-8")
    copied = with_no_op_lines(renamed(original, exercise.function), exercise.function)
    snapshots = {"ana": {exercise.filename: original.encode()},
                 "copycat": {exercise.filename: copied.encode()},
                 "bo": honest("honest-b")}
    statuses = {(learner, exercise.id): "passed" for learner in snapshots}
    notes = similarity.notes([exercise], snapshots, statuses, "en")
    assert "same as copycat's" in notes[("ana", exercise.id)]
    assert "same as ana's" in notes[("copycat", exercise.id)]
    assert ("bo", exercise.id) not in notes


def test_a_partly_changed_copy_of_a_classmate_is_scored() -> None:
    exercise = catalog.get("validate")
    original = (HONEST / "honest-a" / exercise.filename).read_text(encoding="utf-8")
    changed = original.replace("raise DuplicateEntryId(entry.id)",
                               "raise DuplicateEntryId(str(entry.id))")
    snapshots = {"ana": {exercise.filename: original.encode()},
                 "dee": {exercise.filename: changed.encode()}}
    statuses = {(learner, exercise.id): "passed" for learner in snapshots}
    note = similarity.notes([exercise], snapshots, statuses, "zh")[("dee", exercise.id)]
    assert note.startswith("与 ana 的相似（") and note.endswith("%）")


def test_the_stub_is_never_compared() -> None:
    for exercise in EXERCISES:
        stub = (catalog.default_workspace() / exercise.filename).read_bytes()
        assert similarity.normalised(stub, exercise.function) is None, exercise.id


def test_code_carried_in_a_literal_is_noted_and_honest_files_carry_none() -> None:
    """A model answer carried as a string (or compiled, in bytes) and run in a fresh Python
    is out of every check's sight but the teacher's: the note says where to look."""
    exercise = catalog.get("resolve-labels")
    lesson = (REFERENCE / exercise.filename).read_text(encoding="utf-8")
    in_a_string = ("import json, subprocess, sys\n\nCODE = " + repr(lesson + "\nprint(1)\n")
                   + "\n\n\ndef resolve_labels(entries):\n"
                   "    out = subprocess.run([sys.executable, '-c', CODE], text=True,\n"
                   "                         capture_output=True, input=json.dumps(entries))\n"
                   "    return json.loads(out.stdout)\n")
    assert "carries code" in note_for(in_a_string, exercise)
    pickled = (REPO / "tests" / "hostile_submissions" / "unpickles-the-lesson"
               / exercise.filename).read_bytes()
    assert similarity.carried_code(pickled) > similarity.CARRIED_BYTES
    text = "x = " + repr("a long sentence of plain words, " * 20) + "\n"
    data = "y = " + repr(b'{"type": "message", "id": "a1"}\n' * 20) + "\n"
    assert similarity.carried_code(text) == similarity.carried_code(data) == 0
    honest_files = [path for folder in ("honest-a", "honest-b")
                    for path in (HONEST / folder).glob("*.py")]
    for path in [*REFERENCE.glob("*.py"), *honest_files, *catalog.default_workspace().glob("*.py"),
                 *(REPO / "tests" / "solutions" / "wrong").rglob("*.py")]:
        assert similarity.carried_code(path.read_bytes()) == 0, path
        assert similarity.code_runners(path.read_bytes()) == [], path


FOLD = """
labels = {}
for entry in entries:
    if entry.get("type") == "label":
        labels[entry["targetId"]] = entry["label"]
"""
DOCTEST_FOLD = '''import doctest


def _fold():
    """
    >>> labels = {}
    >>> for entry in entries:
    ...     if entry.get("type") == "label":
    ...         labels[entry["targetId"]] = entry["label"]
    >>> box["out"] = labels
    """


def resolve_labels(entries):
    box = {}
    doctest.run_docstring_examples(_fold, {"entries": list(entries), "box": box})
    return box["out"]
'''
RUN_FROM_STRINGS = {   # an attacker's review: each passed, unnoted, before these notes
    "timeit": ("import timeit\n\nBODY = " + repr(FOLD + "box['out'] = labels\n")
               + "\n\n\ndef resolve_labels(entries):\n    box = {'entries': list(entries)}\n"
               "    timeit.Timer(\"entries = box['entries']\\n\" + BODY,\n"
               "                 globals={'box': box}).timeit(1)\n    return box['out']\n"),
    "doctest": DOCTEST_FOLD,
    "fresh python": ("import json\nimport subprocess\nimport sys\n\nHEAD = 'imp' + 'ort json, sys'\n"
                     "BODY = " + repr("\nentries = json.load(sys.stdin)" + FOLD
                                      + "print(json.dumps(labels))\n")
                     + "\n\n\ndef resolve_labels(entries):\n"
                     "    done = subprocess.run([sys.executable, '-c', HEAD + BODY], text=True,\n"
                     "                          input=json.dumps(list(entries)), capture_output=True)\n"
                     "    return json.loads(done.stdout)\n"),
    "os.system": "import os\n\n\ndef resolve_labels(entries):\n    os.system('true')\n    return {}\n",
}


@pytest.mark.parametrize("how", RUN_FROM_STRINGS)
def test_code_run_from_a_string_is_noted(how: str) -> None:
    source = RUN_FROM_STRINGS[how]
    compile(source, "ch05_records_and_state.py", "exec")
    note = note_for(source, catalog.get("resolve-labels"))
    assert "read whether the answer is the file's own code" in note, (how, note)
    if how != "os.system":
        assert "carries code" in note, (how, note)
