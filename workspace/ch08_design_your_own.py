"""第 08 章练习：设计你自己的会话存储 / Chapter 08 exercises: design your own session store.

笔记本 notebooks/zh/08-design-your-own.ipynb 把 Pi 的做法变成几条可以带走的规则：
一棵树一个文件、只追加；条目自带一切（不要“第几轮”这种编号）；存储藏在接口后面，可以换
后端；有状态的扩展要从当前分支重建状态，因为用户随时可能 fork。

The chapter 08 notebook (notebooks/en/08-design-your-own.ipynb) turns Pi's choices into
rules you can take to your own programs: one tree per file, append only; self-contained
entries (no "turn number"); storage behind an interface so the backend can be swapped;
stateful extensions rebuild their state from the current branch, because the user may fork
at any moment.

后端接口只有两个方法 / A backend has just two methods::

    append(obj: dict) -> None      # 存一个对象，排在所有对象之后 / store one more object
    read_all() -> list[dict]       # 按追加顺序返回全部 / everything, in append order

检查 / check:  make verify EX=memory-backend   EX=file-backend   EX=extension-state
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from learn_pi_lab.jsonl.reader import read_jsonl_tolerant  # noqa: F401  (for FileBackend)
from learn_pi_lab.jsonl.writer import append_line  # noqa: F401  (for FileBackend)


class MemoryBackend:
    """把对象存在内存里的后端：给测试和笔记本用。
    A backend that keeps the objects in memory: for tests and notebooks.

    存进去的东西之后不能被调用者悄悄改掉：存副本，也返回副本。
    What was stored must not change behind your back: store copies and return copies.

    例子 / Example::

        backend = MemoryBackend()
        backend.append({"type": "session", "id": "s1"})
        backend.read_all()   ->  [{"type": "session", "id": "s1"}]
    """

    def __init__(self) -> None:
        raise NotImplementedError(
            "练习 memory-backend 还没有完成 / exercise memory-backend is not implemented yet: "
            "write MemoryBackend in workspace/ch08_design_your_own.py")

    def append(self, obj: dict) -> None:
        raise NotImplementedError(
            "练习 memory-backend 还没有完成 / exercise memory-backend is not implemented yet: "
            "write MemoryBackend.append")

    def read_all(self) -> list[dict]:
        raise NotImplementedError(
            "练习 memory-backend 还没有完成 / exercise memory-backend is not implemented yet: "
            "write MemoryBackend.read_all")


class FileBackend:
    """把对象存成一个只追加的 JSONL 文件的后端，接口和 ``MemoryBackend`` 一样。
    A backend that stores the objects as one append-only JSONL file; the same interface as
    ``MemoryBackend``.

    写用 ``append_line``（第 04 章），读用 ``read_jsonl_tolerant``（第 01 章）；上面已经从包里
    导入了这两个参考实现。文件还不存在时 ``read_all()`` 返回 ``[]``。
    Write with ``append_line`` (chapter 04) and read with ``read_jsonl_tolerant`` (chapter
    01); both are imported above from the package. A file that does not exist yet reads as
    ``[]``.

    例子 / Example::

        backend = FileBackend("my-session.jsonl")
        backend.append({"type": "session", "id": "s1"})
        FileBackend("my-session.jsonl").read_all()   ->  [{"type": "session", "id": "s1"}]
    """

    def __init__(self, path: str | os.PathLike) -> None:
        raise NotImplementedError(
            "练习 file-backend 还没有完成 / exercise file-backend is not implemented yet: "
            "write FileBackend in workspace/ch08_design_your_own.py")

    def append(self, obj: dict) -> None:
        raise NotImplementedError(
            "练习 file-backend 还没有完成 / exercise file-backend is not implemented yet: "
            "write FileBackend.append")

    def read_all(self) -> list[dict]:
        raise NotImplementedError(
            "练习 file-backend 还没有完成 / exercise file-backend is not implemented yet: "
            "write FileBackend.read_all")


def rebuild_extension_state(path_entries: Iterable[Mapping[str, Any]],
                            custom_type: str) -> dict:
    """一个扩展在分支末端的状态：把分支上该扩展的 ``custom`` 条目依次折叠起来。
    An extension's state at the end of a branch: fold that extension's ``custom`` entries.

    取 ``type == "custom"`` 且 ``customType == custom_type`` 的条目，按路径顺序把它们的
    ``data`` 字典 ``update`` 进一个新字典；一个都没有就返回 ``{}``。``data`` 缺失或不是
    字典的条目跳过（文件可能损坏，扩展也可能写错）。
    Take the entries with ``type == "custom"`` and ``customType == custom_type`` and
    ``update`` a fresh dict with their ``data``, in path order; ``{}`` when there are none.
    Skip an entry whose ``data`` is missing or not a dict (a file can be damaged, an
    extension can write something else).

    例子 / Example::

        rebuild_extension_state([
            {"type": "custom", "customType": "todo", "data": {"open": 3}, ...},
            {"type": "custom", "customType": "todo", "data": {"open": 2, "done": 1}, ...},
        ], "todo")
        ->  {"open": 2, "done": 1}
    """
    raise NotImplementedError(
        "练习 extension-state 还没有完成 / exercise extension-state is not implemented yet: "
        "write rebuild_extension_state in workspace/ch08_design_your_own.py")
