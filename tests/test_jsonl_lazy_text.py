"""A healthy line's text stays in the file until it is asked for (``LoadedLine.text``).

The texts read back must be exactly the texts an eager read keeps (``read_session_text``
keeps every text in memory), on clean and damaged files, with both decoders; a file that
changed under the reader is refused with ``SourceChanged``, an appended one is fine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl.reader import LoadedLine, SourceChanged, read_session, read_session_text

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}'
LINES = [
    '{"type":"custom","id":"a","parentId":null}',
    ' {"type":"custom","id":"b","parentId":"a","note":"spaces around"}\t',
    '{"type":"custom","id":"c","parentId":"b","big":1e400}',
    '{"type":"custom","id":"d","parentId":"c","s":"\\ud800"}',
    '{"type":"custom","id":"e","parentId":"d"}{"type":"custom","id":"f","parentId":"e"}',
    '{"type":"custom","id":"g","parentId":"f","s":"é 😀"}',
    'not json',
    '{"type":"custom","id":"h","parentId":"g"}\r',
    '{"type":"custom","id":"i","parentId":"h","n":123456789012345678901234567890}',
]
CONTENT = HEADER + "\n" + "\n".join(LINES) + "\n"


def texts(file) -> list[tuple[int, str]]:
    return [(loaded.line, loaded.text) for loaded in file.entries]


@pytest.mark.parametrize("decoder", ["stdlib", "msgspec"])
def test_texts_read_back_equal_an_eager_read(tmp_path: Path, decoder: str) -> None:
    if decoder == "msgspec":
        pytest.importorskip("msgspec")
    path = tmp_path / "s.jsonl"
    path.write_bytes(CONTENT.encode("utf-8") + b'{"type":"custom","id":"j","parentId":"i","x":"\xff"}\n')
    eager = read_session_text(path.read_bytes().decode("utf-8", "replace"), decoder=decoder)
    lazy = read_session(path, decoder=decoder)
    kept_in_file = [loaded.line for loaded in lazy.entries if loaded._text is None]
    assert kept_in_file == [2, 3, 7, 10, 11]   # whole lines read as they are (not 4, 5, 6, 9)
    assert texts(lazy) == texts(eager)
    assert lazy.entries == eager.entries and lazy.diagnostics == eager.diagnostics


def test_appending_to_the_file_keeps_the_texts(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(CONTENT, encoding="utf-8")
    file = read_session(path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"type":"custom","id":"z","parentId":"i"}\n')
    assert file.entries[0].text == LINES[0]


def test_a_rewritten_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(CONTENT, encoding="utf-8")
    file = read_session(path)
    path.write_text(CONTENT.replace('"id":"a"', '"id":"A"'), encoding="utf-8")  # same size
    with pytest.raises(SourceChanged) as caught:
        file.entries[0].text
    assert caught.value.line == 2 and caught.value.path == str(path)
    assert "第 2 行" in explain(caught.value, "zh")
    assert file.entries[1].text == LINES[1]       # an unchanged line still reads back


def test_a_replaced_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(CONTENT, encoding="utf-8")
    file = read_session(path)
    other = tmp_path / "other.jsonl"
    other.write_text(CONTENT, encoding="utf-8")
    os.replace(other, path)                        # same bytes, another file
    with pytest.raises(SourceChanged):
        file.entries[0].text


def test_a_text_once_read_is_kept_and_constructing_by_hand_still_works(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(CONTENT, encoding="utf-8")
    file = read_session(path)
    first = file.entries[0].text
    path.unlink()
    assert file.entries[0].text == first           # read once, then kept
    made = LoadedLine(3, '{"a":1}', {"a": 1})
    assert (made.line, made.text, made.obj) == (3, '{"a":1}', {"a": 1})
    assert made == LoadedLine(3, '{"a":1}', {"a": 1}) != LoadedLine(4, '{"a":1}', {"a": 1})


def test_a_migrated_file_keeps_its_texts(tmp_path: Path) -> None:
    old = ('{"type":"session","id":"old","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}\n'
           '{"type":"message","timestamp":"2026-03-01T10:00:01.000Z",'
           '"message":{"role":"user","content":"hi"}}\n')
    path = tmp_path / "v1.jsonl"
    path.write_text(old, encoding="utf-8")
    file = read_session(path)
    assert file.migrated and texts(file) == texts(read_session_text(old))
    assert file.entries[0].text == old.splitlines()[1]


def test_all_texts_at_once_open_the_file_once(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(CONTENT, encoding="utf-8")
    file = read_session(path)
    expected = [text for _, text in texts(read_session_text(CONTENT))]
    import builtins
    opened: list[str] = []
    real_open = builtins.open

    def counting_open(name, *args, **kwargs):
        opened.append(str(name))
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    assert file.texts() == expected
    assert opened.count(str(path)) == 1
    untouched = read_session(path)
    path.write_text(CONTENT.replace('"id":"a"', '"id":"A"'), encoding="utf-8")
    assert file.texts() == expected                # texts once read are kept
    with pytest.raises(SourceChanged):             # the others are checked, one open or many
        untouched.texts()
