"""第 01 章练习：JSONL 与 JSON 数组 / Chapter 01 exercise: JSONL vs a JSON array.

笔记本 notebooks/zh/01-jsonl-vs-json-array.ipynb 讲了为什么 Pi 用 JSONL：每行一个
JSON 对象，追加只需写一行；读的时候一行坏了只损失这一行，而不是整个文件。
这里你来写那个“坏一行只丢一行”的读取器。

The chapter 01 notebook (notebooks/en/01-jsonl-vs-json-array.ipynb) shows why Pi stores a
session as JSONL: one JSON object per line, so appending writes one line, and a damaged line
costs that line, not the whole file. Here you write the reader that makes "one bad line
costs one line" true.

检查 / check:  make verify EX=tolerant-reader
"""

from __future__ import annotations

from typing import Any


def read_jsonl_tolerant(text: str) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    """把 JSONL 文本逐行解析；坏行记下来，不要让它拖垮整个文件。
    Parse JSONL text line by line; record bad lines instead of giving up on the file.

    行只在 ``"\\n"`` 处切分（``text.split("\\n")``，不要用 ``splitlines()``：它还会在
    ``\\r``、``\\x0c``、U+2028 等处切开，行号就对不上文件了）。
    Lines end only at ``"\\n"`` (``text.split("\\n")``, not ``splitlines()``, which also
    splits at ``\\r``, ``\\x0c``, U+2028 and more, so its line numbers miss the file's).

    返回 ``(objects, problems)`` / Returns ``(objects, problems)``:

    * ``objects``: 每个解析成功的 JSON 对象（含 header），按文件顺序。
      every JSON object that parsed (the header included), in file order.
    * ``problems``: ``[(line_no, code)]``，行号从 1 开始 / 1-based line numbers, with
      one of these codes:

      - ``"blank-line"``      空行或只有空白 / an empty or whitespace-only line;
      - ``"corrupt-line"``    中间某行解析失败 / an interior line that does not parse;
      - ``"torn-last-line"``  最后一行解析失败且没有结尾换行（写到一半崩溃了）
                              / the last line does not parse and has no final newline
                              (the writer crashed mid-line);
      - ``"not-an-object"``   能解析但不是 JSON 对象（比如 ``[1, 2]``）
                              / parses, but is not a JSON object (such as ``[1, 2]``).

    例子 / Example::

        >>> read_jsonl_tolerant('{"a":1}\\n\\n{"b":\\n{"c":')
        ([{'a': 1}], [(2, 'blank-line'), (3, 'corrupt-line'), (4, 'torn-last-line')])
    """
    raise NotImplementedError(
        "练习 tolerant-reader 还没有完成 / exercise tolerant-reader is not implemented yet: "
        "write read_jsonl_tolerant in workspace/ch01_jsonl.py")
