"""第 04 章练习：四个故障实验 / Chapter 04 exercises: the four failure experiments.

笔记本 notebooks/zh/04-failure-experiments.ipynb 亲手弄坏会话文件：写到一半断电（最后
一行被截断）、同一条目追加两次、父节点不存在、从中间节点继续。只追加的设计让每种损坏都有
边界：坏的只是那一行或那一个条目，而且读取器能用行号指出来。这里你写两个函数：一个把问题
按行号找出来，一个保证下一次追加不会被截断的旧行“粘住”。

The chapter 04 notebook (notebooks/en/04-failure-experiments.ipynb) damages session files on
purpose: a crash mid-write (a torn last line), the same entry appended twice, a parent that
does not exist, continuing from a middle node. The append-only design keeps each kind of
damage small: it costs that line or that entry, and a reader can point at it by line number.
Here you write the function that finds the problems with their line numbers, and the one
that makes sure the next append is not glued to a torn line.

检查 / check:  make verify EX=load-diagnostics    make verify EX=safe-append
"""

from __future__ import annotations

import os
from typing import Any

from learn_pi_lab.jsonl.reader import NotASessionFile, read_session_text  # noqa: F401


def load_diagnostics(text: str) -> list[tuple[int | None, str]]:
    """加载一个会话文件的文本（教学模式），返回发现的每个问题 ``(行号, 代码)``，按行号排序。
    Load a session file's text (teaching mode) and return every problem found as
    ``(line, code)``, in line order.

    两层问题 / Two layers of problems:

    * 文件层 / file level: ``torn-last-line``, ``corrupt-line``, ``glued-objects``,
      ``duplicate-entry``, ``conflicting-duplicate``, ``blank-line``, ``bom``, ``crlf``,
      ``not-an-object``, ``missing-id``, ``extra-header``, ``unknown-type``, ``migrated``.
      ``learn_pi_lab.jsonl.reader.read_session_text(text)`` 已经能找出这些
      （``.diagnostics``，每个有 ``.line`` 和 ``.code``）/ already finds these.
    * 树层，靠 ``parentId`` 找 / tree level, from ``parentId``: 这是你的部分 / your part:

      - ``dangling-parent``  父节点不在文件里 / the parent is not in the file
        （行号：这个子节点的行 / line: the child's line）;
      - ``self-parent``      条目自己当父节点 / the entry is its own parent;
      - ``cycle``            一个环报告一次，行号取环里最早的那一行 / one per loop, at the
        loop's earliest line.

      ``read_session_text(text).entries`` 里每项有 ``.line``（物理行号）和 ``.obj``
      （解析出的对象）/ each item has ``.line`` (the physical line) and ``.obj``.

    没有行号的问题排在最前（``None``）；根本不是会话文件的文本抛 ``NotASessionFile``。
    Problems without a line number (``None``) come first; text that is not a session at all
    raises ``NotASessionFile``.

    例子 / Example::

        header = '{"type":"session","version":3,"id":"s","timestamp":"...","cwd":"/w"}'
        lines  = [header, '{"type":"message","id":"b","parentId":"ghost",...}']
        load_diagnostics("\\n".join(lines) + "\\n")   ->  [(2, "dangling-parent")]
    """
    raise NotImplementedError(
        "练习 load-diagnostics 还没有完成 / exercise load-diagnostics is not implemented yet: "
        "write load_diagnostics in workspace/ch04_failures.py")


def append_line(path: str | os.PathLike, obj: dict[str, Any]) -> None:
    """把 ``obj`` 作为一行 JSON 追加到 ``path`` 末尾；绝不改写已经写下的字节。
    Append ``obj`` to ``path`` as one JSON line; never rewrite a byte already written.

    * 文件不存在就创建 / create the file if it does not exist;
    * 如果文件不以 ``"\\n"`` 结尾（上一次写到一半崩溃了），先写一个换行，否则新行会
      粘在被截断的旧行上，下次读取时两行一起丢失。
      if the file does not end with ``"\\n"`` (the last write was cut off), write a newline
      first; otherwise the new line is glued to the torn one and both are lost on the next
      read;
    * 像 ``JSON.stringify`` 那样写：``separators=(",", ":")``、``ensure_ascii=False``、
      UTF-8，最后以 ``"\\n"`` 结尾 / write it like ``JSON.stringify``: compact separators,
      ``ensure_ascii=False``, UTF-8, ending in ``"\\n"``.

    例子 / Example: 文件内容 / file content ``'{"a":1}\\n{"b":'``（被截断 / torn）::

        append_line(path, {"c": 3})
        # -> '{"a":1}\\n{"b":\\n{"c":3}\\n'   (the torn line is still there, untouched)
    """
    raise NotImplementedError(
        "练习 safe-append 还没有完成 / exercise safe-append is not implemented yet: "
        "write append_line in workspace/ch04_failures.py")
