"""The hostile corpus: every crafted file issue 14 found a failure with, made by code.

``python tests/hostile/make_corpus.py DIR`` writes the corpus into ``DIR`` (special files
too: a FIFO, links to ``/dev/zero``, a directory). The tests call ``build_corpus(folder)``
into a temporary folder, so nothing binary or huge is committed and every case is
described here, next to why it is hostile.

Sizes are chosen for the limits the tests set (``TEST_LIMITS``): small enough to build in
a blink, large enough to cross each limit.
"""

from __future__ import annotations

import json
import lzma
import os
import sys
from pathlib import Path

TEST_LIMITS = {"LEARN_PI_LAB_MAX_LINE_BYTES": "65536",       # 64 KiB
               "LEARN_PI_LAB_MAX_FILE_BYTES": str(4 * 2**20),  # 4 MiB
               "LEARN_PI_LAB_MAX_EXAMPLES": "20"}
"""Environment the corpus tests run with: the same code paths as the defaults, faster."""

TS = "2026-03-01T10:00:00.000Z"


def header(**changes: object) -> dict:
    return {"type": "session", "version": 3, "id": "hostile-1", "timestamp": TS, "cwd": "/w",
            **changes}


def user(entry_id: object, parent: object, text: object = "hello", **extra: object) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": TS,
            "message": {"role": "user", "content": text}, **extra}


def assistant(entry_id: str, parent: str, **message: object) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": TS,
            "message": {"role": "assistant", "provider": "p", "model": "m",
                        "content": [{"type": "text", "text": "ok"}], **message}}


def line(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def jsonl(*items: object, final_newline: bool = True) -> bytes:
    text = "\n".join(item if isinstance(item, str) else line(item) for item in items)
    return (text + ("\n" if final_newline else "")).encode("utf-8", "surrogatepass")


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


BASE = [header(), user("u1", None), assistant("a1", "u1"), user("u2", "a1"),
        assistant("a2", "u2")]


def _files() -> dict[str, bytes]:
    """name -> content, for every regular file of the corpus."""
    v1 = {"type": "session", "id": "old-1", "timestamp": TS, "cwd": "/w"}
    v1_user = {"type": "message", "timestamp": TS, "message": {"role": "user", "content": "hi"}}
    v2 = dict(v1, version=2, id="old-2")
    files: dict[str, bytes] = {
        # Numbers JSON or Python cannot carry
        "version-1e400.jsonl": jsonl(line(header()).replace('"version":3', '"version":1e400'),
                                     *BASE[1:]),
        "version-minus-1e400.jsonl": jsonl(line(header()).replace('"version":3', '"version":-1e400'),
                                           *BASE[1:]),
        "v1-first-kept-1e400.jsonl": jsonl(v1, v1_user, '{"type":"compaction","timestamp":"' + TS
                                           + '","summary":"s","firstKeptEntryIndex":1e400}', v1_user),
        "number-1e400-in-message.jsonl": jsonl(*BASE, '{"type":"message","id":"x","parentId":"a2",'
                                               '"timestamp":"' + TS + '","message":{"role":"user",'
                                               '"content":"big","n":1e400,"m":-1e999}}'),
        "usage-1e400.jsonl": jsonl(*BASE[:2], '{"type":"message","id":"a9","parentId":"u1",'
                                   '"timestamp":"' + TS + '","message":{"role":"assistant",'
                                   '"provider":"p","model":"m","content":[],"usage":{"input":1e308,'
                                   '"output":1e400,"cost":{"total":1e400}}}}',
                                   '{"type":"message","id":"a10","parentId":"a9","timestamp":"' + TS
                                   + '","message":{"role":"assistant","provider":"p","model":"m",'
                                   '"content":[],"usage":{"input":1e308,"cost":{"total":1e308}}}}'),
        "nan-and-infinity.jsonl": jsonl(*BASE, '{"type":"message","id":"x","parentId":"a2","n":NaN}',
                                        '{"type":"message","id":"y","parentId":"a2","n":Infinity}'),
        "huge-integer.jsonl": jsonl(*BASE, '{"type":"message","id":"x","parentId":"a2","n":'
                                    + "9" * 5000 + "}"),
        # Lone surrogates
        "surrogate-in-text.jsonl": jsonl(*BASE, '{"type":"message","id":"s1","parentId":"a2",'
                                         '"timestamp":"' + TS + '","message":{"role":"user",'
                                         '"content":"bad \\ud800 text \\udfff"}}'),
        "surrogate-in-header-id.jsonl": jsonl('{"type":"session","version":3,"id":"h\\ud800",'
                                              '"timestamp":"' + TS + '","cwd":"/w\\udc00"}', *BASE[1:]),
        "surrogate-in-key-and-id.jsonl": jsonl(*BASE, '{"type":"message","id":"s\\ud801",'
                                               '"parentId":"a2","\\udfff":1,"timestamp":"' + TS
                                               + '","message":{"role":"user","content":"x"}}'),
        "surrogate-v1.jsonl": jsonl('{"type":"session","id":"v1\\ud800","timestamp":"' + TS
                                    + '","cwd":"/w"}', '{"type":"message","timestamp":"' + TS
                                    + '","message":{"role":"user","content":"\\ud800"}}'),
        "surrogate-v2.jsonl": jsonl(dict(v2, id="v2"), '{"type":"message","id":"\\ud800",'
                                    '"parentId":null,"timestamp":"' + TS + '","message":{"role":'
                                    '"hookMessage","content":"\\udbff"}}'),
        "surrogate-pair-is-fine.jsonl": jsonl(*BASE, '{"type":"message","id":"e1","parentId":"a2",'
                                              '"timestamp":"' + TS + '","message":{"role":"user",'
                                              '"content":"\\ud83d\\ude00"}}'),
        # Wrong-typed ids, parents, versions, types
        "parent-is-list.jsonl": jsonl(*BASE, user("x", ["a2"])),
        "parent-is-object.jsonl": jsonl(*BASE, user("x", {"id": "a2"}), user("y", "x")),
        "parent-is-number.jsonl": jsonl(*BASE, user("x", 7), user("y", True)),
        "parent-is-empty.jsonl": jsonl(*BASE, user("x", "")),
        "id-is-list.jsonl": jsonl(*BASE, user(["x"], "a2"), user(3, "a2"), user("", "a2")),
        "version-is-string.jsonl": jsonl(header(version="3"), *BASE[1:]),
        "version-is-list.jsonl": jsonl(header(version=[3]), *BASE[1:]),
        "version-is-true.jsonl": jsonl(header(version=True), *BASE[1:]),
        "version-is-nested.jsonl": jsonl(header(version={"v": [1, {"x": 2}]}), *BASE[1:]),
        "type-is-list.jsonl": jsonl(*BASE, {"type": ["message"], "id": "x", "parentId": "a2"},
                                    {"type": None, "id": "y", "parentId": "x"},
                                    {"id": "z", "parentId": "y"}),
        "header-id-not-string.jsonl": jsonl(header(id=42), *BASE[1:]),
        "timestamp-wrong.jsonl": jsonl(header(timestamp=[1]), user("u1", None),
                                       dict(user("u2", "u1"), timestamp={"t": 1}),
                                       dict(user("u3", "u1"), timestamp=1e400)),
        "odd-payloads.jsonl": jsonl(
            *BASE,
            {"type": "message", "id": "m1", "parentId": "a2", "timestamp": TS, "message": 42},
            {"type": "message", "id": "m2", "parentId": "m1", "timestamp": TS,
             "message": {"role": ["user"], "content": {"x": 1}}},
            {"type": "message", "id": "m3", "parentId": "m2", "timestamp": TS,
             "message": {"role": "assistant", "content": "text", "usage": "lots",
                         "provider": ["p"], "model": None}},
            {"type": "model_change", "id": "m4", "parentId": "m3", "timestamp": TS,
             "provider": {"p": 1}, "modelId": 5},
            {"type": "thinking_level_change", "id": "m5", "parentId": "m4", "timestamp": TS,
             "thinkingLevel": {"x": []}},
            {"type": "session_info", "id": "m6", "parentId": "m5", "timestamp": TS,
             "name": ["n"]},
            {"type": "label", "id": "m7", "parentId": "m6", "timestamp": TS, "targetId": "u1",
             "label": ["l"]},
            {"type": "custom", "id": "m8", "parentId": "m7", "timestamp": TS,
             "customType": ["c"], "data": [1]},
            {"type": "custom_message", "id": "m9", "parentId": "m8", "timestamp": TS,
             "customType": 1, "content": [{"type": "image"}, 5, None], "display": "yes"},
            {"type": "compaction", "id": "m10", "parentId": "m9", "timestamp": TS,
             "summary": ["s"], "firstKeptEntryId": "u2", "tokensBefore": "many"},
            {"type": "branch_summary", "id": "m11", "parentId": "m10", "timestamp": TS,
             "summary": None, "fromId": "m10"}),
        # Nesting
        "v1-nested-500.jsonl": jsonl(v1, '{"type":"message","timestamp":"' + TS
                                     + '","message":{"role":"user","content":' + nested(500) + "}}"),
        "v2-nested-500.jsonl": jsonl(v2, '{"type":"message","id":"n1","parentId":null,'
                                     '"timestamp":"' + TS + '","message":{"role":"user",'
                                     '"content":' + nested(500) + "}}"),
        "v3-nested-990.jsonl": jsonl(*BASE, '{"type":"message","id":"n1","parentId":"a2",'
                                     '"timestamp":"' + TS + '","message":{"role":"user",'
                                     '"content":' + nested(990) + "}}"),
        "nested-100-is-fine.jsonl": jsonl(*BASE, '{"type":"message","id":"n1","parentId":"a2",'
                                          '"timestamp":"' + TS + '","message":{"role":"user",'
                                          '"content":' + nested(97) + "}}"),
        "nested-100000.jsonl": jsonl(*BASE, '{"a":' + "[" * 100_000),
        "brackets-in-strings.jsonl": jsonl(*BASE, user("b1", "a2", "[" * 5000 + "{" * 5000)),
        "header-nested.jsonl": jsonl(line(header())[:-1] + ',"x":' + nested(800) + "}", *BASE[1:]),
        # Length and size
        "long-line.jsonl": jsonl(*BASE, user("big", "a2", "x" * 200_000), user("after", "a2")),
        "long-last-line-unterminated.jsonl": jsonl(*BASE, "y" * 200_000, final_newline=False),
        "many-bad-lines.jsonl": jsonl(*BASE, *(["{bad"] * 5_000), user("end", "a2")),
        "many-blank-lines.jsonl": jsonl(*BASE, *([""] * 5_000), user("end", "a2")),
        # Not a session at all
        "plain-text.jsonl": b"Dear diary,\ntoday I wrote no JSON at all.\n",
        "binary.jsonl": bytes(range(256)) * 8,
        "empty.jsonl": b"",
        "blank-only.jsonl": b"\n \n\t\n",
        "torn-header.jsonl": line(header()).encode("utf-8")[:30],
        "array-first.jsonl": jsonl([1, 2], *BASE),
        "header-only.jsonl": jsonl(header()),
        # Bytes and line ends
        "torn-utf8.jsonl": jsonl(*BASE) + line(user("zh", "a2", "中文内容")).encode("utf-8")[:-5]
        + b"\n" + jsonl(user("after", "a2")),
        "invalid-utf8-everywhere.jsonl": jsonl(*BASE).replace(b"hello", b"hel\xff\xfelo"),
        "bom-crlf.jsonl": b"\xef\xbb\xbf" + jsonl(*BASE).replace(b"\n", b"\r\n"),
        "nul-bytes.jsonl": jsonl(*BASE) + b"\x00\x00\x00\n" + jsonl(user("z", "a2")),
        "glued.jsonl": jsonl(*BASE[:-1], line(BASE[-1]) + line(user("g", "a2")), user("h", "g")),
        "lone-cr-and-u2028.jsonl": jsonl(*BASE, user("c", "a2", "a\rb\u2028c\u0085d")),
        # Silent damage
        "dangling-label.jsonl": jsonl(*BASE, {"type": "label", "id": "l1", "parentId": "a2",
                                              "timestamp": TS, "targetId": "nope",
                                              "label": "x"}),
        "first-kept-missing.jsonl": jsonl(*BASE, {"type": "compaction", "id": "c1",
                                                  "parentId": "a2", "timestamp": TS,
                                                  "summary": "s", "firstKeptEntryId": "gone",
                                                  "tokensBefore": 1}),
        "first-kept-later.jsonl": jsonl(*BASE, {"type": "compaction", "id": "c1",
                                                "parentId": "a2", "timestamp": TS,
                                                "summary": "s", "firstKeptEntryId": "u9",
                                                "tokensBefore": 1}, user("u9", "c1")),
        "first-kept-itself.jsonl": jsonl(*BASE, {"type": "compaction", "id": "c1",
                                                 "parentId": "a2", "timestamp": TS,
                                                 "summary": "s", "firstKeptEntryId": "c1",
                                                 "tokensBefore": 1}),
        "from-id-unknown.jsonl": jsonl(*BASE, {"type": "branch_summary", "id": "b1",
                                               "parentId": "a2", "timestamp": TS,
                                               "summary": "s", "fromId": "elsewhere"}),
        # Markup where a page shows text (export --html must show it, never run it)
        "markup-in-text.jsonl": jsonl(
            header(cwd="</title><script>window.__pwned=1</script>"),
            user("u1", None, "</script><script>window.__pwned=2</script><!--"),
            assistant("a1", "u1", content=[{"type": "text", "text":
                                            '<img src=x onerror="window.__pwned=3">&amp;'}]),
            {"type": "label", "id": "l1", "parentId": "a1", "timestamp": TS, "targetId": "u1",
             "label": "<b onmouseover=window.__pwned=4>label</b>"},
            {"type": "model_change", "id": "m1", "parentId": "l1", "timestamp": TS,
             "provider": "<svg onload=window.__pwned=5>", "modelId": "]]></style>"},
            user("<i>id</i>", "m1", "\u2028\u2029 </SCRIPT > <script src=//x>"),
            user("u3", "missing</script>", "orphan")),
        # Tree damage
        "leaf-in-cycle.jsonl": jsonl(*BASE, user("p", "q"), user("q", "p")),
        "self-parent.jsonl": jsonl(*BASE, user("s", "s")),
        "conflicting-duplicates.jsonl": jsonl(*BASE, user("u2", "a1", "other"), user("u2", None)),
        "dangling-parent.jsonl": jsonl(*BASE, user("x", "missing"), user("y", "x")),
    }
    return files


def _xz_bomb(size: int) -> bytes:
    """One line of ``size`` zero bytes, compressed: a few kilobytes on disk."""
    compressor = lzma.LZMACompressor()
    head = compressor.compress(jsonl(header()))
    block = b"0" * 2**20
    body = b"".join(compressor.compress(block) for _ in range(size // len(block)))
    return head + body + compressor.flush()


def build_corpus(folder: Path, *, special: bool = True) -> dict[str, Path]:
    """Write every case into ``folder``; return name -> path (special files included)."""
    folder.mkdir(parents=True, exist_ok=True)
    made: dict[str, Path] = {}
    for name, content in _files().items():
        path = folder / name
        path.write_bytes(content)
        made[name] = path
    bomb = folder / "bomb.jsonl.xz"
    bomb.write_bytes(_xz_bomb(16 * 2**20))     # 16 MiB of one line, beyond both test limits
    made[bomb.name] = bomb
    broken = folder / "broken.jsonl.xz"
    broken.write_bytes(lzma.compress(jsonl(*BASE))[:-20])
    made[broken.name] = broken
    (folder / "a-directory.jsonl").mkdir(exist_ok=True)
    made["a-directory.jsonl"] = folder / "a-directory.jsonl"
    if special and hasattr(os, "mkfifo"):
        fifo = folder / "fifo.jsonl"
        if not fifo.exists():
            os.mkfifo(fifo)
        made[fifo.name] = fifo
        for name in ("dev-zero.jsonl", "dev-zero.jsonl.xz"):
            link = folder / name
            if not link.is_symlink():
                link.symlink_to("/dev/zero")
            made[name] = link
        dangling = folder / "dangling-link.jsonl"
        if not dangling.is_symlink():
            dangling.symlink_to(folder / "nowhere")
        made[dangling.name] = dangling
    return made


SPECIAL = ("fifo.jsonl", "dev-zero.jsonl", "dev-zero.jsonl.xz")
"""Files that would hang a reader that opens before it looks."""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/hostile/make_corpus.py DIR", file=sys.stderr)
        return 2
    made = build_corpus(Path(argv[0]))
    print(f"{len(made)} files in {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
