"""Chapter 07: reading real Pi session files (course-design idea 7)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("07", "real-sessions",
                  zh="真实的会话文件：读 Pi 写下的东西",
                  en="Real sessions: reading what Pi actually wrote")

CELLS = [
    md(zh="""
## 学习目标

前六章用的是课程自己生成的小文件。这一章换成**真实的文件**：Pi 自己的测试夹具（fixture）、别人的项目里收集的 Pi 输出，以及（如果你用过 Pi）你自己机器上的会话（session）。学完之后你能：

- 用检查器（inspector）`inspect_session` 和命令行 `python3 -m learn_pi_lab` 读懂任何一个会话文件：多少条目（entry）、什么类型、几个根（root）和叶子（leaf）、树有多深、哪些模型回答过、哪里有问题；
- 在内存里把 v1/v2 的旧文件迁移（migration）到 v3，看清迁移改了什么，并证明源文件一个字节都没动；
- 解释为什么不认识的记录类型（unknown record type）必须原样保留、原样写回；
- 复述 Pi 加载文件的规则：叶子就是最后一行，不管它是什么；
- 说出 Pi 和教学模型在同一个文件上哪里不一样；
- 判断一个文件是哪个 Pi 版本写的（0.x 还是 1.x），说出这会改变什么，并用 1.6.0 的规则正确读你自己的 1.x 会话；
- 画出一个 1,000 多个条目的真实会话，并知道在哪里找你自己的会话文件；
- 量出读一个几万条目的会话要花多少 CPU 时间和内存，并解释原因：垃圾回收器白费的扫描、Python 对象比 V8 的大；说出课程和 Pi 自己的代码比起来处在哪里；
- 完成练习 `inspect_session`。
""", en="""
## Learning goals

The first six chapters used small files the course generates itself. This chapter switches to **real files**: Pi's own test fixture, Pi output collected in other people's projects, and (if you use Pi) the sessions on your own machine. By the end you can:

- read any session file with the inspector `inspect_session` and the command line `python3 -m learn_pi_lab`: how many entries, of which types, how many roots and leaves, how deep the tree is, which models answered, and where the problems are;
- migrate an old v1/v2 file to v3 in memory, see exactly what migration changes, and prove that the source file did not change by a single byte;
- explain why an unknown record type must be kept as it is and written back as it was;
- state Pi's loading rule: the leaf is the last line, whatever that line is;
- say where Pi and the teaching model differ on the same file;
- tell which Pi version wrote a file (0.x or 1.x), say what that changes, and read your own 1.x sessions correctly with 1.6.0's rules;
- draw a real session of more than 1,000 entries, and know where to find your own session files;
- measure the CPU time and memory it takes to read a session of tens of thousands of entries, and explain why: the garbage collector's wasted scans, Python objects larger than V8's; and say where the course stands against Pi's own code;
- complete the exercise `inspect_session`.
"""),
    md(zh="""
## 本章的真实文件从哪里来

`data/pi/` 里有五个公开的 Pi 会话文件，都是原样复制（逐字节），出处和许可证记在 `data/README.md` 里，下面的单元格直接从那张表里读出来，并核对每个文件的 sha256：

- `pi-mono/large-session.jsonl.xz`：Pi 仓库自己的测试夹具，一个**真实的 v1 文件**（树出现之前的格式），约 1 MB，用 xz 压缩存放；
- `agent-sessions/small.jsonl`：真正由 Pi 写出的 v3 文件（用的是假的模型提供商，provider），里面有两次压缩（compaction）；
- `pi-session-inspector/` 下的三个小文件：另一个检查工具的测试夹具，专门挑了难读的形状：分叉加上最后一行是未知类型、未知类型夹在链的中间、出错的助手消息。

这些文件我们只读不写。需要“动手”的实验，都在副本上做。
""", en="""
## Where this chapter's real files come from

`data/pi/` holds five public Pi session files, copied verbatim (byte for byte). Their origins and licences are recorded in `data/README.md`; the next cell reads them straight out of that table and checks every file's sha256:

- `pi-mono/large-session.jsonl.xz`: a test fixture from Pi's own repository, a **real v1 file** (the format from before trees existed), about 1 MB, stored xz-compressed;
- `agent-sessions/small.jsonl`: a v3 file actually written by Pi (with a fake model provider), containing two compactions;
- three small files under `pi-session-inspector/`: test fixtures of another inspection tool, chosen for awkward shapes: a fork whose last line has an unknown type, an unknown type in the middle of a chain, and an assistant message that failed.

We only read these files. Every experiment that changes something works on a copy.
"""),
    code(r'''
import hashlib
import re

from learn_pi_lab.course.act import predict, reveal, your_turn
from learn_pi_lab.course.paths import data_file, repo_root, show_path
from learn_pi_lab.course.text import L, figure_fonts, pad
from learn_pi_lab.jsonl.reader import iter_physical_lines

figure_fonts()   # zh: 让图里的中文用上 CJK 字体 # en: figures can draw Chinese labels too

PI_FILES = {
    "large": data_file("pi/pi-mono/large-session.jsonl.xz"),
    "small": data_file("pi/agent-sessions/small.jsonl"),
    "branching": data_file("pi/pi-session-inspector/branching.jsonl"),
    "ancestry": data_file("pi/pi-session-inspector/unknown-entry-ancestry.jsonl"),
    "error": data_file("pi/pi-session-inspector/error-message.jsonl"),
}


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# zh: data/README.md 里的来源表：| file | raw bytes | sha256 | origin | licence |
# en: the origin table of data/README.md: | file | raw bytes | sha256 | origin | licence |
origins = {}
for row in (repo_root() / "data" / "README.md").read_text(encoding="utf-8").splitlines():
    cells = [cell.strip().replace("`", "") for cell in row.split("|")]
    if len(cells) == 7 and cells[5] == "MIT":
        origin = re.sub(r"\b([0-9a-f]{8})[0-9a-f]{32}\b", r"\1", cells[4])  # zh: 提交号只留前 8 位 # en: short commits
        origins[cells[1]] = {"sha256": cells[3], "origin": origin}

for name, path in PI_FILES.items():
    key = path.relative_to(data_file("pi/README.md").parent).as_posix()
    lines = sum(1 for _ in iter_physical_lines(path))
    print(f"{name:<9} {show_path(path)}")
    print(L(f"{'':<9} 磁盘上 {path.stat().st_size:>7,} 字节，{lines:>5,} 行，"
            f"sha256 与 data/README.md 一致：{sha256(path) == origins[key]['sha256']}",
            f"{'':<9} {path.stat().st_size:>7,} bytes on disk, {lines:>5,} lines, "
            f"sha256 as in data/README.md: {sha256(path) == origins[key]['sha256']}"))
    print(L(f"{'':<9} 来自 {origins[key]['origin'].replace('same repository', '同一仓库')} (MIT)",
            f"{'':<9} from {origins[key]['origin']} (MIT)"))
'''),
    md(zh="""
大文件在磁盘上是 `.xz`，可是上面数行数时并没有先解压：`iter_physical_lines` 见到 `.xz` 结尾就**边读边解压**，一次只把一行放进内存。所以检查器、加载器、命令行都可以直接指向压缩文件，报告里的行号是解压后文本的行号。
""", en="""
The large file is `.xz` on disk, yet the line count above did not unpack it first: `iter_physical_lines` sees the `.xz` ending and **decompresses as it reads**, holding one line in memory at a time. So the inspector, the loader and the command line can all point straight at the compressed file, and line numbers in reports are line numbers of the decompressed text.
"""),
    code(r'''
lines = list(iter_physical_lines(PI_FILES["large"]))
raw_bytes = sum(len(text.encode("utf-8")) + terminated for _, text, terminated in lines)
disk_bytes = PI_FILES["large"].stat().st_size
print(L(f"磁盘上（xz）：{disk_bytes:>9,} 字节", f"on disk (xz): {disk_bytes:>9,} bytes"))
print(L(f"解压后：      {raw_bytes:>9,} 字节，{len(lines):,} 行"
        f"（xz 只占原大小的 {disk_bytes / raw_bytes:.0%}）",
        f"decompressed: {raw_bytes:>9,} bytes, {len(lines):,} lines "
        f"(xz keeps {disk_bytes / raw_bytes:.0%} of the size)"))
print(L("第 1 行：", "line 1:"), lines[0][1][:120], "...")
'''),
    md(zh="""
## 检查器：一遍读完，只读不写

`learn_pi_lab.session_inspector.inspect_session(path)` 对一个会话文件做一份“体检报告”。它对你许下两个承诺，因为人们会拿它去读自己**正在用**的会话：

1. **只读**。文件只以读的方式打开，内容只当 JSON 解析，从不执行；字节和修改时间都不变。
2. **内存平稳**。真实会话可以有几百 MB（上游有人报告过 200 MB 以上的文件，见 §13）。检查器一遍流式读完，每个条目数完就忘掉，只为树留下几个紧凑的数组，每个条目大约 200 字节（`session_inspector.py` 的文档列出了这些数组，`make bench` 会实测）。

报告是一个字典；`render_report` 把它排成几行文字。先看那个真实的 v1 文件。

**先预测。** 这个文件有 1018 个条目。它有几个叶子（leaf，没有孩子的条目）？把你的数字写进下一个单元格的 `my_guess`，运行它，再运行报告那个单元格。
""", en="""
## The inspector: one pass, read-only

`learn_pi_lab.session_inspector.inspect_session(path)` writes a "health report" on one session file. It makes you two promises, because people point it at sessions they are **still using**:

1. **Read-only.** The file is opened for reading only, its content is parsed as JSON and never executed; its bytes and modification time stay as they were.
2. **Flat memory.** A real session can be hundreds of MB (upstream reports mention files over 200 MB, §13). The inspector streams through once, forgets each entry as soon as it has been counted, and keeps only a few compact arrays for the tree: about 200 bytes per entry (the docstring of `session_inspector.py` lists them, and `make bench` measures it).

The report is a dict; `render_report` lays it out as a few lines of text. First, the real v1 file.

**Predict first.** This file holds 1018 entries. How many leaves (entries with no child) does it have? Put your number in `my_guess` in the next cell, run it, then run the report cell.
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 一个整数，比如 1、12 或 100 # en: a whole number, e.g. 1, 12 or 100
predict("ch07-p1", my_guess)
""", tags=("predict",)),
    code(r'''
from learn_pi_lab.cli.report_text import render_report
from learn_pi_lab.session_inspector import inspect_session

report = inspect_session(PI_FILES["large"])
print(render_report(report))
print()
reveal("ch07-p1", len(report["leaves"]))
'''),
    md(zh="""
读这份报告：

- **v1**，而且唯一的“问题”是一条 `info`：文件在内存里被迁移到了 v3，磁盘上的文件没变（后面细看）。
- **1 个根、1 个叶子、0 个分叉点（branch point），最大深度 1017**：1018 个条目排成一条直线。v1 时代（Pi ≤ v0.30）根本没有树，会话就是一条线性日志。
- 103 次 `thinking_level_change`：这是一个测试夹具，作者在反复切换思考级别（thinking level）。
- 两个模型回答过；花费按每条助手消息里的 `usage.cost` 加起来，约 30 美元（所有分支（branch）合计）。

报告里的前十六个键就是本章末尾的练习要你返回的东西，其余是参考实现（reference implementation）额外给的。下面把五个文件的关键数字排成一张表，同时兑现“只读”的承诺：读之前和读之后，每个文件的 sha256 和修改时间都一样。
""", en="""
Reading the report:

- **v1**, and the only "problem" is an `info`: the file was migrated to v3 in memory, and the file on disk is unchanged (more on that below).
- **1 root, 1 leaf, 0 branch points, maximum depth 1017**: 1018 entries in a straight line. The v1 era (Pi ≤ v0.30) had no trees at all; a session was a linear log.
- 103 `thinking_level_change` entries: this is a test fixture, and its author kept switching the thinking level.
- Two models answered; the cost, added up from the `usage.cost` of every assistant message, is about 30 dollars (all branches together).

The first sixteen keys of the report are exactly what the exercise at the end of this chapter asks you to return; the rest are extras of the reference implementation. Below, the key numbers of all five files in one table, keeping the read-only promise at the same time: every file's sha256 and modification time are the same before and after.
"""),
    code(r'''
EXERCISE_KEYS = ["version", "session_id", "cwd", "parent_session", "entries", "by_type",
                 "by_role", "compactions", "branch_summaries", "labels", "name", "roots",
                 "leaves", "max_depth", "models", "diagnostics"]
print(L("练习要求的键都在报告里：", "the exercise's keys are all in the report:"), set(EXERCISE_KEYS) <= set(report))
print(L("参考实现多出的键：", "extras of the reference:"), sorted(set(report) - set(EXERCISE_KEYS)))
print()

print(L(f"{'文件':<8}{'v':>2}{'条目':>6}{'根':>5}{'叶子':>5}{'深度':>4}{'压缩':>6}  诊断",
        f"{'file':<10}{'v':>2}{'entries':>8}{'roots':>6}{'leaves':>7}{'depth':>6}"
        f"{'compact':>8}  diagnostics"))
for name, path in PI_FILES.items():
    before = (sha256(path), path.stat().st_mtime_ns)
    found = inspect_session(path)
    unchanged = (sha256(path), path.stat().st_mtime_ns) == before
    codes = ", ".join(f"{line}:{code}" for line, code in found["diagnostics"]) or "-"
    print(f"{name:<10}{found['version']:>2}{found['entries']:>8}{len(found['roots']):>6}"
          f"{len(found['leaves']):>7}{found['max_depth']:>6}{found['compactions']:>8}  "
          f"{codes}   " + L(f"（文件没变：{unchanged}）", f"(file unchanged: {unchanged})"))
'''),
    md(zh="""
还有一个真实文件才有的细节：会话头（header）的时间戳不一定是最早的。这个 v1 文件的会话头比第一个条目**晚了约 49 秒**。资料里记录过真实文件的这种现象，比如经过导出或分支操作写出的文件（§4）。不管原因是什么，结论都一样：“按时间排序”永远不能代替“按文件顺序”和 `parentId`。
""", en="""
One more detail only real files show: the header's timestamp is not necessarily the earliest. This v1 file's header is about **49 seconds later** than its first entry. The notes record this in real files, for instance in files written by export or branch operations (§4). Whatever the cause, the conclusion is the same: "sorted by time" can never replace "file order" plus `parentId`.
"""),
    code(r'''
from datetime import datetime

from learn_pi_lab.jsonl.reader import read_session

large_file = read_session(PI_FILES["large"])


def when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


header_time = large_file.header["timestamp"]
first_time = large_file.entries[0].obj["timestamp"]
print(L("会话头的时间戳：    ", "header timestamp:     "), header_time)
print(L("第一个条目的时间戳：", "first entry timestamp:"), first_time)
late = (when(header_time) - when(first_time)).total_seconds()
print(L(f"会话头晚了 {late:.1f} 秒", f"header is later by {late:.1f} s"))
'''),
    md(zh="""
## 三个小样本，三条加载规则

### 1. 叶子就是最后一行，不管它是什么

`branching.jsonl` 有两个分支，从同一个 `model_change` 分出来；它的**最后一行**是一个 `future_entry`，课程和 Pi v0.84.2 都不认识的类型。Pi 加载时，每读一行就把叶子设成这一行的 id（§6），所以加载完的叶子就是这个陌生条目。

用命令行看。下面的单元格在子进程里运行 `python3 -m learn_pi_lab tree ...`，就像你在终端里敲的一样（它说的语言跟着本笔记本走）。`●` 是当前分支（current branch）上的条目，`○` 是别的分支：
""", en="""
## Three small samples, three loading rules

### 1. The leaf is the last line, whatever it is

`branching.jsonl` has two branches growing from the same `model_change`; its **last line** is a `future_entry`, a type neither the course nor Pi v0.84.2 knows. When Pi loads a file it sets the leaf to each line's id as it reads it (§6), so after loading, the leaf is this unfamiliar entry.

Let's use the command line. The next cell runs `python3 -m learn_pi_lab tree ...` in a subprocess, just as you would type it in a terminal (it speaks this notebook's language). `●` marks entries on the current branch, `○` those on the other branch:
"""),
    code(r'''
import subprocess
import sys


def run_cli(*args: str) -> None:
    # zh: 在仓库文件夹里运行 `python3 -m learn_pi_lab --lang zh ARGS`，把它打印的内容显示出来
    # en: run `python3 -m learn_pi_lab --lang en ARGS` from the repository folder and show what it prints
    command = ["--lang", L("zh", "en"), *args]   # zh: 和这本笔记本同一种语言 # en: the notebook's own language
    print("$ python3 -m learn_pi_lab", " ".join(command))
    done = subprocess.run([sys.executable, "-m", "learn_pi_lab", *command], cwd=repo_root(),
                          capture_output=True, text=True, encoding="utf-8")
    print(done.stdout + done.stderr, end="")
    if done.returncode:
        print(L(f"（退出码 {done.returncode}）", f"(exit code {done.returncode})"))


BRANCHING = show_path(PI_FILES["branching"])
run_cli("tree", BRANCHING)
'''),
    md(zh="""
当前分支是 `e1 → e2 → e7 → e8`，叶子 `e8` 就是那条 `future_entry`。另一个分支 `e3 … e6` 里有一次压缩，但它不在当前分支上，所以对现在的上下文（context）没有影响。`path` 和 `context` 两个命令分别给出“当前分支”和“模型看到的东西”（第 06 章的区别）：不认识的 `e8` 在路径上，却不产生任何消息。
""", en="""
The current branch is `e1 → e2 → e7 → e8`, and the leaf `e8` is that `future_entry`. The other branch, `e3 … e6`, holds a compaction, but it is not on the current branch, so it does not affect the current context. The `path` and `context` commands give "the current branch" and "what the model sees" respectively (chapter 06's distinction): the unknown `e8` is on the path but produces no message.
"""),
    code(r'''
run_cli("path", BRANCHING, "--json")
print()
run_cli("context", BRANCHING)
'''),
    md(zh="""
### 2. 未知类型夹在中间：路径穿过它

`unknown-entry-ancestry.jsonl` 把未知类型放在链的**中间**：`known-leaf` 的父节点（parent）是一个 `future_entry`。如果读取器把不认识的条目扔掉，`known-leaf` 就成了孤儿（orphan），整条历史断成两截。正确的做法（Pi 和教学模型都这样）是：不认识的条目照样是树上的节点，有 id、有 `parentId`，路径从它身上穿过去，只是构建上下文时跳过它。

命令行也可以不开子进程，直接在本进程里调用 `learn_pi_lab.cli.commands.main(参数列表)`，它返回退出码。（本进程的工作目录是 `notebooks/<语言>/`，所以路径写成相对于这里的样子。）
""", en="""
### 2. An unknown type in the middle: the path goes through it

`unknown-entry-ancestry.jsonl` puts the unknown type in the **middle** of a chain: `known-leaf`'s parent is a `future_entry`. A reader that threw unknown records away would make `known-leaf` an orphan and cut the history in two. The right way (Pi's and the teaching model's) is that an unknown record is still a node of the tree, with an id and a `parentId`; the path goes through it, and only context building skips it.

The command line also runs without a subprocess: call `learn_pi_lab.cli.commands.main(list_of_arguments)` in this process; it returns the exit code. (This process's working directory is `notebooks/<language>/`, so paths are written relative to that.)
"""),
    code(r'''
import os

from learn_pi_lab.cli import commands as cli

ANCESTRY = os.path.relpath(PI_FILES["ancestry"])   # zh: 相对于本笔记本所在的文件夹 # en: relative to this notebook's folder
print(L("退出码：", "exit code:"), cli.main(["path", ANCESTRY]))
print()
print(L("退出码：", "exit code:"), cli.main(["context", ANCESTRY]))
'''),
    md(zh="""
### 3. 残缺的形状也要读得下去

`error-message.jsonl` 很短，却把真实文件里常见的“不完整”集中在一起：一条 `stopReason: "error"` 的助手消息，`content` 是空列表，只有 `errorMessage`；一条工具结果（toolResult）的 `content` 是**字符串**而不是块列表，而且没有 `toolName`；`usage` 只有 `totalTokens` 和 `cost.total`。

读取器不能因为某个字段缺了就拒绝整个文件。上下文照常构建，出错的助手消息也在里面：把它丢掉是**发给模型提供商之前**那一层做的事（§8.1：`error` 和 `aborted` 的助手消息被跳过），而不是存储层的事。检查器的用量统计也只加它能找到的数字。
""", en="""
### 3. Incomplete shapes must still read

`error-message.jsonl` is short but packs together the kinds of incompleteness real files are full of: an assistant message with `stopReason: "error"`, empty `content` and only an `errorMessage`; a toolResult whose `content` is a **string** rather than a list of blocks, with no `toolName`; `usage` with only `totalTokens` and `cost.total`.

A reader must not reject a whole file because a field is missing. The context is built as usual, and the failed assistant message is in it: dropping it is the job of the layer that talks to the model provider (§8.1: assistant messages with `error` or `aborted` are skipped), not of storage. The inspector's usage totals likewise add up only the numbers they can find.
"""),
    code(r'''
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.session import load_session

error_session = load_session(PI_FILES["error"])
context = build_session_context(error_session.branch())
for message in context.messages:
    content = message.get("content")
    shape = L("字符串", "string") if isinstance(content, str) else L(f"{len(content)} 个块的列表",
                                                                     f"list of {len(content)} block(s)")
    print(f"{message['entryId']}  {message['role']:<11} stopReason={message.get('stopReason', '-'):<8}"
          f" content: {shape}")
print(L("检查器统计的 usage：", "usage the inspector found:"), inspect_session(PI_FILES["error"])["usage"])
'''),
    md(zh="""
## 和 Pi 自己的答案对一对

说“教学模型像 Pi 一样读文件”需要证据。`data/pi/expected/` 里存着 Pi v0.84.2 **自己的代码**（`SessionManager.open` 之后调用 `getLeafId`、`getBranch`、`buildSessionContext` 等）对这五个文件给出的答案。下面用课程的加载器在两种模式下重算一遍，逐项比较：叶子、路径、会话名、标签（label）、模型、思考级别，以及上下文里每条消息的角色和来源条目。

v1 文件有一个例外：Pi 迁移时给每个条目**随机**发 id，所以只能比较路径长度和角色序列，不能比较 id（下一节细讲）。
""", en="""
## Checking against Pi's own answers

Saying "the teaching model reads files the way Pi does" needs evidence. `data/pi/expected/` stores what Pi v0.84.2's **own code** (`SessionManager.open`, then `getLeafId`, `getBranch`, `buildSessionContext`, ...) answered for each of the five files. Below, the course's loader recomputes everything in both modes and compares item by item: leaf, path, name, labels, model, thinking level, and the role and source entry of every context message.

The v1 file is the exception: Pi gives every entry a **random** id when it migrates, so there we can compare the path length and the sequence of roles, not the ids (the next section explains).
"""),
    code(r'''
import json


def compare_with_pi(answer: dict, mode: str) -> dict[str, bool]:
    session = load_session(data_file("pi/" + answer["file"]), mode=mode)
    branch = session.branch()
    context = build_session_context(branch)
    random_ids = answer["leaf"] is None            # zh: v1 文件：Pi 的 id 是随机的 # en: a v1 file: Pi's ids are random
    return {
        "leaf": random_ids or session.leaf_id == answer["leaf"],
        "path": (len(branch) == answer["path"] if random_ids
                 else [e["id"] for e in branch] == answer["path"]),
        "name+labels": session.name() == answer["sessionName"] and session.labels() == answer["labels"],
        "model+thinking": (context.model, context.thinking_level) == (answer["model"], answer["thinkingLevel"]),
        "context": ([m["role"] for m in context.messages] if random_ids
                    else [[m["role"], m["entryId"]] for m in context.messages]) == answer["context"],
        "migrated": session.file.migrated == answer["migratedOnOpen"],
    }


answers = sorted(data_file("pi/README.md").parent.joinpath("expected").glob("*.json"))
print(L(f"{pad('文件', 50)} {pad('教学模式', 9)} {pad('pi 模式', 7)} 上下文消息数",
        f"{'file':<50} {'teaching':<9} {'pi':<7} context messages"))
for answer_path in answers:
    answer = json.loads(answer_path.read_text(encoding="utf-8"))
    verdict = {mode: all(compare_with_pi(answer, mode).values()) for mode in ("teaching", "pi")}
    print(f"{answer['file']:<50} {str(verdict['teaching']):<9} {str(verdict['pi']):<7} "
          f"{len(answer['context'])}")
'''),
    md(zh="""
五个文件、两种模式，全部一致。（这些文件没有损坏，所以两种模式本来就应当一样；它们在损坏的文件上才分道扬镳，见后面。）

## 旧版本：只在内存里迁移

Pi 的会话格式有过三个版本（§5）：

| 版本 | Pi 版本 | 变化 |
|---|---|---|
| v1 | ≤ v0.30 | 线性日志：没有 `version`，条目没有 `id`/`parentId`；压缩用 `firstKeptEntryIndex`（行的位置，会话头算第 0 个） |
| v2 | v0.31 – v0.34 | 加上 `id`/`parentId`，树出现了；扩展（extension）消息的角色叫 `hookMessage` |
| v3 | ≥ v0.35 | 只改了一处：`hookMessage` 改名为 `custom` |

迁移算法很短：v1 的每个条目依次拿到新 id，`parentId` 指向前一条，串成一条链；`firstKeptEntryIndex` 换成它指向的那个条目的 id（并删掉原字段）；然后把 `hookMessage` 改名；会话头的 `version` 设为 3。新键都**加在末尾**，原有的键和顺序一个不动。

看一个课程生成的小 v1 文件：原始的第 7 行（一次压缩）和迁移后的同一个条目并排放：
""", en="""
Five files, two modes, all in agreement. (These files are undamaged, so the two modes should agree; they part ways on damaged files, shown further down.)

## Old versions: migrated in memory only

Pi's session format has had three versions (§5):

| Version | Pi releases | Change |
|---|---|---|
| v1 | ≤ v0.30 | a linear log: no `version`, entries without `id`/`parentId`; compaction uses `firstKeptEntryIndex` (a line position, the header counted as 0) |
| v2 | v0.31 – v0.34 | adds `id`/`parentId`: trees arrive; extension messages have the role `hookMessage` |
| v3 | ≥ v0.35 | one change: `hookMessage` is renamed `custom` |

The migration algorithm is short: each v1 entry in turn gets a new id and a `parentId` pointing at the previous one, forming one chain; `firstKeptEntryIndex` becomes the id of the entry it points to (and the old field is deleted); then `hookMessage` is renamed; the header's `version` becomes 3. New keys are **appended at the end**; existing keys and their order are untouched.

Here is a small v1 file the course generates: the raw line 7 (a compaction) next to the same entry after migration:
"""),
    code(r'''
v1 = read_session(data_file("v1.jsonl"))
print(L("源版本：", "source version:"), v1.source_version, L("| 已迁移：", "| migrated:"), v1.migrated,
      L("| 诊断：", "| diagnostics:"), [(d.line, d.code) for d in v1.diagnostics])
print()
print(L("磁盘上会话头的键：", "header keys on disk: "), list(json.loads(v1.header_line.text)))
print(L("迁移后会话头的键：", "header keys migrated:"), list(v1.header))
print()
compaction = next(loaded for loaded in v1.entries if loaded.obj["type"] == "compaction")
raw = json.loads(compaction.text)
print(L(f"第 {compaction.line} 行，磁盘上：", f"line {compaction.line} on disk:  "),
      {k: raw[k] for k in raw if k != "summary"})
print(L(f"第 {compaction.line} 行，迁移后：", f"line {compaction.line} migrated: "),
      {k: compaction.obj[k] for k in compaction.obj if k != "summary"})
kept_line = next(loaded.line for loaded in v1.entries if loaded.obj["id"] == compaction.obj["firstKeptEntryId"])
print(L(f"firstKeptEntryIndex {raw['firstKeptEntryIndex']}（会话头 = 0）就是第 {kept_line} 行："
        f"{kept_line == raw['firstKeptEntryIndex'] + 1}",
        f"firstKeptEntryIndex {raw['firstKeptEntryIndex']} (header = 0) is line {kept_line}: "
        f"{kept_line == raw['firstKeptEntryIndex'] + 1}"))
'''),
    md(zh="""
v2 文件已经有 `id` 和 `parentId`，迁移到 v3 只改一处：扩展消息的角色 `hookMessage` 改名为 `custom`。`data/v2.jsonl` 里正好有一条这样的消息：
""", en="""
A v2 file already has `id` and `parentId`, so migrating it to v3 changes one thing only: the extension-message role `hookMessage` becomes `custom`. `data/v2.jsonl` holds one such message:
"""),
    code('''
v2 = read_session(data_file("v2.jsonl"))
print(L("源版本：", "source version:"), v2.source_version, L("| 已迁移：", "| migrated:"), v2.migrated,
      L("| id 没变：", "| ids unchanged:"), all(json.loads(loaded.text)["id"] == loaded.obj["id"] for loaded in v2.entries))
for loaded in v2.entries:
    if json.loads(loaded.text).get("message", {}).get("role") == "hookMessage":
        print(L(f"第 {loaded.line} 行：磁盘上的角色 'hookMessage' -> 内存里是 {loaded.obj['message']['role']!r}",
                f"line {loaded.line}: role 'hookMessage' on disk -> {loaded.obj['message']['role']!r} in memory"))
context = build_session_context(load_session(data_file("v2.jsonl")).branch())
print(L("上下文里的角色：", "roles in the context:"), [message["role"] for message in context.messages])
'''),
    md(zh="""
Pi 迁移时用随机数发 id，所以同一个 v1 文件每次被 Pi 打开都会得到**不同的** id，这就是上面比较答案时 v1 只能比角色的原因。Pi 不在乎，因为它紧接着就把迁移结果**写回原文件**，id 从此固定下来。

教学模型不写回，所以它需要另一种办法让 id 稳定：用会话 id 作种子的随机数发生器。同一个文件读两次，得到同样的 id；笔记本的输出因此每次都一样。在真实的大 v1 文件上验证：
""", en="""
Pi hands out ids from a random generator when it migrates, so the same v1 file gets **different** ids every time Pi opens it; that is why the comparison above could only check roles for the v1 file. Pi does not mind, because right after migrating it **writes the result back over the original file**, and from then on the ids are fixed.

The teaching model never writes back, so it needs another way to keep ids stable: a random generator seeded with the session id. Read the same file twice and you get the same ids, which is also why this notebook's output is the same on every run. Checking on the real large v1 file:
"""),
    code(r'''
again = read_session(PI_FILES["large"])
first_ids = [loaded.obj["id"] for loaded in large_file.entries]
print(L("迁移后的前三个 id：", "first three migrated ids:"), first_ids[:3])
print(L("再读一遍，id 相同：", "the same ids on a second read:"), first_ids == [loaded.obj["id"] for loaded in again.entries])
print(L("连成一条链（每个 parentId 都是上一个 id）：", "one chain (each parentId is the previous id):"),
      all(loaded.obj["parentId"] == (first_ids[i - 1] if i else None)
          for i, loaded in enumerate(large_file.entries)))
print(L("迁移后条目的键（id 和 parentId 加在最后）：", "keys of a migrated entry (id and parentId appended last):"), list(large_file.entries[0].obj))
'''),
    md(zh="""
如果你想要一个 v3 的文件（比如交给别的工具），用 `migrate` 命令写一个**新文件**。它从不改源文件，也拒绝覆盖已经存在的输出文件。我们用哈希值和修改时间来证明源文件没动，输出放在本章的临时目录 `scratch_dir("ch07")` 里：
""", en="""
If you want a v3 file (to hand to another tool, say), the `migrate` command writes a **new file**. It never changes the source and refuses to overwrite an output file that already exists. We prove the source was not touched with its hash and modification time; the output goes into this chapter's scratch folder `scratch_dir("ch07")`:
"""),
    code(r'''
from learn_pi_lab.course.paths import scratch_dir

SCRATCH = scratch_dir("ch07")
source = data_file("v1.jsonl")
target = SCRATCH / "v1-as-v3.jsonl"

before = (sha256(source), source.stat().st_mtime_ns)
run_cli("migrate", show_path(source), "--out", show_path(target))
print(L("源文件的字节和修改时间都没变：", "source bytes and mtime unchanged:"), (sha256(source), source.stat().st_mtime_ns) == before)
print()
run_cli("migrate", show_path(source), "--out", show_path(target))   # zh: 第二次：拒绝 # en: a second time: refused
print()
migrated_file = read_session(target)
print(L("新文件在磁盘上就是 v3：", "the new file is v3 on disk:"), migrated_file.source_version == 3 and not migrated_file.migrated)
print(L("条目和 id 都与内存里的迁移相同：", "same entries, same ids as the in-memory migration:"),
      migrated_file.objects() == v1.objects())
'''),
    md(zh="""
## 不认识的条目：保留，并且原样写回

为什么不能丢掉不认识的条目？因为它可能是**更新版本的 Pi** 写的。`future_entry` 今天没人认识，明天的 Pi 也许靠它工作。一个“帮你整理会话”的工具如果把它删了，或者只写回它认识的字段，就等于悄悄毁掉了新版本的数据，而且树也可能被剪断（上面的 `unknown-middle`）。

所以规则是：读的时候整行保留（`records.parse_entry` 给出 `UnknownEntry`，里面存着整个对象），写的时候逐字节照抄原来的那一行。`migrate` 在一个本来就是 v3 的文件上就是这样做的：没有什么要改，每一行原样复制。新文件和源文件的哈希值应当完全相同：
""", en="""
## Unknown entries: kept, and written back as they were

Why not drop records you do not know? Because a **newer Pi** may have written them. Nobody knows `future_entry` today; tomorrow's Pi may depend on it. A "tidy up your session" tool that deleted it, or wrote back only the fields it understands, would quietly destroy a newer version's data, and could cut the tree too (the `unknown-middle` case above).

So the rule is: on reading, keep the whole line (`records.parse_entry` gives an `UnknownEntry` holding the whole object); on writing, copy the original line byte for byte. That is what `migrate` does on a file that is already v3: there is nothing to change, so every line is copied as it is. The new file and the source should have exactly the same hash:
"""),
    code(r'''
from learn_pi_lab.jsonl.records import UnknownEntry, parse_entry
from learn_pi_lab.jsonl.writer import to_json_line

copy_path = SCRATCH / "branching-copy.jsonl"
run_cli("migrate", BRANCHING, "--out", show_path(copy_path))
print(L("逐字节相同的副本（sha256 相同）：", "byte-identical copy (same sha256):"), sha256(copy_path) == sha256(PI_FILES["branching"]))

branching_file = read_session(PI_FILES["branching"])
unknown_line = branching_file.entries[-1]
record = parse_entry(unknown_line.obj)
print(L("最后一行解析成：", "last line parses as:"), type(record).__name__, L("| 类型：", "| kind:"), record.kind)
print(L("每个字段都保留了，连 'secret' 也在：", "every field kept, even 'secret':"), record.to_json() == json.loads(unknown_line.text))
print(L("再序列化一次，文本不变：", "serialised again, the same text:"), to_json_line(record.to_json()) == unknown_line.text)
'''),
    md(zh="""
## Pi 的加载规则，在副本上试一试

第 03 章讲过 `/tree` 只是移动叶子。把它和“叶子就是最后一行”放在一起，会得到两个在真实使用中很容易踩到的后果（§6）：

1. **叶子的移动不会被保存。** 在 `/tree` 里跳到别处，什么都不追加就退出，下次打开时叶子又回到最后一行。
2. **下一次追加接在最后一行后面**，哪怕最后一行是一个不认识的条目：新条目的 `parentId` 就是它。

在 `branching.jsonl` 的副本上验证这两条（追加用的时钟和随机数都是固定的）：
""", en="""
## Pi's loading rules, tried on a copy

Chapter 03 showed that `/tree` only moves the leaf. Combine that with "the leaf is the last line" and you get two consequences that are easy to trip over in real use (§6):

1. **A leaf move is not saved.** Jump somewhere in `/tree`, quit without appending anything, and next time the leaf is back on the last line.
2. **The next append hangs below the last line**, even when the last line is a record nobody knows: the new entry's `parentId` is that record.

Checking both on a copy of `branching.jsonl` (the clock and the randomness of the append are fixed):
"""),
    code(r'''
import random
from datetime import timezone

from learn_pi_lab.jsonl.writer import SessionWriter
from learn_pi_lab.pi.navigation import navigate

session = load_session(copy_path)
print(L("加载后的叶子：          ", "leaf after loading:            "),
      session.leaf_id + L(f"（{session.entry(session.leaf_id)['type']}）", f" ({session.entry(session.leaf_id)['type']})"))
navigate(session, "e6")                                  # zh: /tree：跳到另一条分支 # en: /tree: jump to the other branch
print(L("/tree 跳到 e6 后的叶子：", "leaf after /tree to e6:        "), session.leaf_id)
print(L("再次加载后的叶子：      ", "leaf after loading again:      "), load_session(copy_path).leaf_id,
      L("（这次移动没有保存）", "(the move was not saved)"))

writer = SessionWriter(copy_path, clock=lambda: datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc),
                       rng=random.Random(7))
written = writer.append({"type": "message", "message": {
    "role": "user", "content": [{"type": "text", "text": "Continue."}], "timestamp": 1772359200000}})
print(L(f"追加了 {written['id']}，它的 parentId：{written['parentId']}",
        f"appended {written['id']} with parentId: {written['parentId']}"))
reloaded = load_session(copy_path)
print(L("新的叶子：", "new leaf:"), reloaded.leaf_id, L("| 分支：", "| branch:"), " -> ".join(e["id"] for e in reloaded.branch()))
'''),
    md(zh="""
## Pi 和教学模型在哪里不一样

在干净的真实文件上，两种模式的结果完全一样（上面的对照表）。差别出现在三类地方：

| 情况 | Pi v0.84.2 | 教学模型 |
|---|---|---|
| 打开 v1/v2 文件 | 迁移，然后**整个重写原文件**，不是原子操作（没有临时文件加改名）；id 随机 | 只在内存里迁移，报告 `migrated`（info）；id 由会话 id 决定，可重复；要 v3 文件就用 `migrate --out` 写新文件 |
| 一行里粘着两个对象 | 整行解析失败，两个对象都丢；下一行成了孤儿根 | 两个对象都找回，报告 `glued-objects` |
| 父节点不存在 | 孤儿变成额外的根，路径和上下文到它为止 | 报告 `dangling-parent`，走这条路径时抛出带 id 的错误 |

第二行不是假设：Pi 仓库历史里就有两个真实文件出现过“粘连行”（glued line）（§6、§12，一条助手消息和一次压缩挤在同一行）。它们太大，没有收进来；`data/glued-line.jsonl` 按同样的形状生成。第 04 章已经细讲了各种损坏，这里只在同一个文件上把两种模式并排跑一遍，再用命令行的 `--pi-compat` 开关看同样的差别：
""", en="""
## Where Pi and the teaching model differ

On clean real files the two modes give identical results (the comparison above). They differ in three kinds of places:

| Situation | Pi v0.84.2 | Teaching model |
|---|---|---|
| opening a v1/v2 file | migrates, then **rewrites the whole original file**, not atomically (no temp file and rename); ids are random | migrates in memory only, reports `migrated` (info); ids follow from the session id, repeatable; for a v3 file, `migrate --out` writes a new one |
| two objects glued on one line | the line fails to parse and both objects are lost; the next line becomes an orphan root | both objects recovered, reported as `glued-objects` |
| a parent that does not exist | the orphan becomes an extra root; the path and the context stop there | reported as `dangling-parent`; walking that path raises an error naming the id |

The second row is not hypothetical: Pi's repository history contains two real files with glued lines (§6, §12: an assistant message and a compaction squeezed onto one line). They are too large to ship; `data/glued-line.jsonl` is generated in the same shape. Chapter 04 covered damage in detail, so here we just run both modes side by side on the same files, then see the same difference through the command line's `--pi-compat` switch:
"""),
    code(r'''
SIDE_BY_SIDE = [*PI_FILES.values(), data_file("glued-line.jsonl"), data_file("failure-dangling-parent.jsonl")]


def outcome(path, mode: str) -> str:
    session = load_session(path, mode=mode)
    try:
        branch = L(f"分支长 {len(session.branch())}", f"branch of {len(session.branch())}")
    except Exception as error:           # zh: 教学模型不肯穿过损坏处 # en: the teaching model refuses to walk through damage
        branch = type(error).__name__
    return L(f"{len(session.tree)} 个条目，{branch}", f"{len(session.tree)} entries, {branch}")


print(f"{pad(L('文件', 'file'), 33)} {pad(L('教学模式', 'teaching mode'), 38)} {L('pi 模式', 'pi mode')}")
for path in SIDE_BY_SIDE:
    print(f"{path.name:<33} {pad(outcome(path, 'teaching'), 38)} {outcome(path, 'pi')}")
'''),
    code(r'''
run_cli("path", "data/glued-line.jsonl")
print()
run_cli("path", "data/glued-line.jsonl", "--pi-compat")
print()
run_cli("path", "data/failure-dangling-parent.jsonl")
'''),
    md(zh="""
同一个粘连文件：教学模式（teaching mode）找回了全部 7 条，路径从根走到叶子；`--pi-compat` 像 Pi 一样丢掉粘连的那一行，第 7 行成了孤儿，当前分支只剩它自己。缺父节点的文件：教学模式不肯假装没事，用一行话说明哪个条目指向了哪个不存在的 id，退出码 2，没有任何回溯栈。

## 画一个真实的会话

`draw_session` 画出整棵树，长长的直线段会被**折叠**成一个虚线框，写着里面有多少条。对这个 1018 个条目的 v1 会话，结果一目了然：
""", en="""
The same glued file: teaching mode recovers all 7 entries and the path runs from the root to the leaf; `--pi-compat` drops the glued line as Pi does, line 7 becomes an orphan, and the current branch is just that one entry. The file with a missing parent: teaching mode will not pretend all is well; one line says which entry names which missing id, exit code 2, no traceback.

## Drawing a real session

`draw_session` draws the whole tree and **folds** long straight runs into one dashed box that says how many entries it holds. For this 1018-entry v1 session the result says it all:
"""),
    code(r'''
from learn_pi_lab.drawing import draw_session

large_session = load_session(PI_FILES["large"])
draw_session(large_session)
'''),
    md(zh="""
一个根、一个叶子，中间 1016 条折成一个框：线性日志画成树就是一根棍子。折叠框告诉你结构，却藏起了内容。要看“这根棍子里发生了什么”，换一种图：横轴是当前分支上的位置，每种条目一条泳道，下面再画累计花费。
""", en="""
One root, one leaf, and 1016 entries folded into one box in between: a linear log drawn as a tree is a stick. The fold shows the structure but hides the content. To see what happened inside the stick, use another picture: the position on the current branch along the x axis, one lane per kind of record, and the running cost below.
"""),
    code(r'''
from collections import Counter

import matplotlib.pyplot as plt

branch = large_session.branch()


CUT_SHORT = L("assistant（中断/出错）", "assistant (aborted/error)")


def lane(entry: dict) -> str:
    if entry["type"] == "message":
        message = entry["message"]
        if message["role"] == "assistant" and message.get("stopReason") in ("aborted", "error"):
            return CUT_SHORT
        return message["role"]
    return entry["type"]


LANES = ["user", "assistant", CUT_SHORT, "toolResult",
         "thinking_level_change", "model_change"]
running_cost, total = [], 0.0
for entry in branch:
    usage = entry.get("message", {}).get("usage") if entry["type"] == "message" else None
    total += (usage or {}).get("cost", {}).get("total", 0) if isinstance(usage, dict) else 0
    running_cost.append(total)

fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 4.6), sharex=True,
                                  gridspec_kw={"height_ratios": [2.2, 1]})
for row, name in enumerate(LANES):
    xs = [i for i, entry in enumerate(branch) if lane(entry) == name]
    top.scatter(xs, [row] * len(xs), marker="|", s=120, linewidths=0.8)
top.set_yticks(range(len(LANES)), LANES)
top.invert_yaxis()
top.set_title(L("pi-mono large-session（v1）：分支上的每个条目，按种类分行",
                "pi-mono large-session (v1): every entry on the branch, by kind"))
bottom.plot(range(len(branch)), running_cost)
bottom.set_ylabel(L("累计费用（$）", "cost so far ($)"))
bottom.set_xlabel(L("在当前分支上的位置（根 = 0）", "position on the current branch (root = 0)"))
plt.show()

print(L("每一行的条目数：", "entries per lane:"), {name: sum(lane(e) == name for e in branch) for name in LANES})
print(L("被截断的回答，按 stopReason：", "answers cut short, by stopReason:"),
      dict(sorted(Counter(e["message"]["stopReason"] for e in branch if lane(e) == CUT_SHORT).items())))
print(L("设置过的思考级别：", "thinking levels set:"), dict(sorted(Counter(e["thinkingLevel"] for e in branch
                                                  if e["type"] == "thinking_level_change").items())))
print(L(f"这条分支的总费用：${running_cost[-1]:.2f}", f"total cost on the branch: ${running_cost[-1]:.2f}"))
'''),
    md(zh="""
泳道图把结构上“一根棍子”的会话拆开了：用户消息稀疏，助手和工具结果成对密集出现（一轮里有很多次工具调用），21 次回答被中断、1 次出错；思考级别的切换集中在几段里，五个级别各 20 次左右，正是测试夹具的样子。

如果这个会话发生在树出现之后，用户在中途回到第 41 条用户消息之前重写一个问题，会是什么样？在内存里做一次分支（`TranscriptTree.branch_from`，什么都不写入文件）再画：两段直线各自折叠，分叉点留在明处。
""", en="""
The lane picture takes the structural "stick" apart: user messages are sparse, assistant messages and tool results come densely in pairs (many tool calls per turn), 21 answers were aborted and 1 failed; the thinking-level changes cluster in a few stretches, about 20 for each of the five levels, exactly what a test fixture looks like.

What if this session had happened after trees arrived, and the user had gone back before the 41st user message to ask it differently? Make that branch in memory (`TranscriptTree.branch_from`; nothing is written to any file) and draw again: each straight run folds on its own, and the branch point stays in view.
"""),
    code(r'''
users = [entry for entry in branch if entry["type"] == "message" and entry["message"]["role"] == "user"]
redo = users[40]
forked_tree = large_session.tree.branch_from(
    redo["parentId"], "feedc0de", payload={
        "type": "message", "id": "feedc0de", "parentId": redo["parentId"],
        "timestamp": "2025-11-21T03:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "Let's try it another way."}],
                    "timestamp": 1763694000000}})
print(L("分叉点：", "branch point:"), redo["parentId"], L("位于深度", "at depth"), forked_tree.depth(redo["parentId"]),
      L("| 子节点：", "| children:"), [child.id for child in forked_tree.children(redo["parentId"])])
print(L("磁盘上的文件仍然有", "the file on disk still has"), len(load_session(PI_FILES["large"]).tree),
      L("个条目", "entries"))
draw_session(forked_tree)
'''),
    md(zh="""
## 这个文件是哪个 Pi 版本写的？

会话头只说 `"version": 3`：从 v0.35 到今天的 1.6.0 都是这个数（§17），它说的是**文件格式**的版本，不是 Pi 的版本。可是 1.x 写下的文件带着自己的痕迹，而这些痕迹恰恰决定了模型看到什么：

- `context_edit` 条目（编辑较早消息在上下文里的内容）和 `usage` 条目（消息之外花掉的 token），0.84.2 根本不认识；
- 压缩条目上的 `systemMessage`（压缩时的系统提示检查点），以及角色为 `system` 的消息；
- “什么都不保留”的压缩把**自己的 id** 写进 `firstKeptEntryId`；
- 根上的 `branch_summary`（`branchWithSummary(null, …)`），1.x 里多个根是正常形状。

下面的函数在一个文件里找这些痕迹。`data/pi16/` 里的文件由 Pi 1.6.0 自己写出（第 06 章用过），其余是 0.x 的文件：
""", en="""
## Which Pi version wrote this file?

The header only says `"version": 3`: every Pi from v0.35 to today's 1.6.0 writes that number (§17), the version of the **file format**, not of Pi. But files written by 1.x carry marks of their own, and those marks are exactly what decides what the model sees:

- `context_edit` entries (edit what an earlier message contributes to the context) and `usage` entries (tokens spent outside any message), which 0.84.2 does not know at all;
- `systemMessage` on a compaction (the system prompt checkpoint at that moment), and messages with the `system` role;
- a compaction that keeps nothing writes **its own id** into `firstKeptEntryId`;
- a `branch_summary` at a root (`branchWithSummary(null, ...)`): in 1.x several roots are a normal shape.

The function below looks for these marks in a file. The files in `data/pi16/` were written by Pi 1.6.0 itself (chapter 06 used them); the others are 0.x files:
"""),
    code(r'''
from collections import Counter


def pi_1x_marks(session) -> list[str]:
    # zh: 一个已加载会话里 Pi 1.x 留下的痕迹（空：没有只有 1.x 才写的东西）
    # en: the traces of Pi 1.x in a loaded session (empty: nothing only 1.x writes)
    kinds = Counter(entry.get("type") for entry in session.entries)
    marks = [f"{kinds[kind]} {kind}" for kind in ("context_edit", "usage") if kinds[kind]]
    for entry in session.entries:
        if entry.get("type") == "compaction" and "systemMessage" in entry:
            marks.append("compaction.systemMessage")
        if entry.get("type") == "compaction" and entry.get("firstKeptEntryId") == entry.get("id"):
            marks.append(L("retain-none 压缩", "retain-none compaction"))
        if entry.get("type") == "branch_summary" and entry.get("parentId") is None:
            marks.append(L("branch_summary 根", "branch_summary root"))
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "system":
            marks.append(L("system 消息", "system message"))
    return sorted(set(marks))


candidates = [*sorted(data_file("pi16/README.md").parent.glob("*.jsonl")),
              data_file("compacted-nested.jsonl"), PI_FILES["small"], PI_FILES["branching"]]
for path in candidates:
    session = load_session(path)
    marks = pi_1x_marks(session)
    print(f"{show_path(path):<44} {'1.x' if marks else '0.x?':<5} {', '.join(marks) or '-'}")
'''),
    md(zh="""
没有痕迹不等于一定是 0.x 写的：一个普通的 1.x 会话（没有编辑、没有压缩）和 0.84.2 写的看起来一模一样。不过那种文件在两个版本下的上下文也**一模一样**，所以读错版本不会有后果。有痕迹时就可能不一样了。下面把每个文件分别按 0.84.2 和 1.6.0 的规则构造上下文，标出两者不同的文件：
""", en="""
No marks does not prove a file was written by 0.x: an ordinary 1.x session (no edits, no compactions) looks exactly like one written by 0.84.2. But such a file also gets **exactly the same** context from both versions, so reading it by the wrong version costs nothing. With marks, it can. Below, each file's context is built by 0.84.2's rules and by 1.6.0's, and the files where they differ are marked:
"""),
    code(r'''
for path in candidates:
    session = load_session(path)
    old = [(m["role"], m["entryId"]) for m in session.context(pi_version="0.84.2").messages]
    new = [(m["role"], m["entryId"]) for m in session.context(pi_version="1.6.0").messages]
    verdict = L("相同", "same") if old == new else L("不同", "DIFFERENT")
    print(L(f"{show_path(path):<44} 0.84.2: {len(old):>2} 条消息   1.6.0: {len(new):>2}   {verdict}",
            f"{show_path(path):<44} 0.84.2: {len(old):>2} messages   1.6.0: {len(new):>2}   {verdict}"))
'''),
    md(zh="""
**改一改，再运行。** 表格只给出了数量。下面的单元格把 `data/pi16/nested-compactions.jsonl`（1.6.0 写的，有两次压缩和一个系统提示检查点）的上下文逐条列出来。只有一个值要你改：`PI_VERSION`。先按 `"1.6.0"` 运行，再改成 `"0.84.2"` 运行：哪一条消失了，哪一条多出来了？
""", en="""
**Change it and re-run.** The table only gives counts. The next cell lists, message by message, the context of `data/pi16/nested-compactions.jsonl` (written by 1.6.0, with two compactions and a system prompt checkpoint). There is one value for you to change: `PI_VERSION`. Run it with `"1.6.0"`, then change it to `"0.84.2"` and run again: which message disappears, and which one appears?
""", tags=("rerun",)),
    code(r'''
PI_VERSION = "1.6.0"  # zh: 改成 "0.84.2" 再运行 # en: change to "0.84.2" and run again


def preview(message: dict) -> str:
    # zh: 一条消息的开头几个词：它的摘要或文本
    # en: the first words of a message: its summary or its text
    text = message.get("summary") or message.get("content")
    if isinstance(text, list):
        text = " ".join(block.get("text", "") for block in text if isinstance(block, dict))
    return str(text).replace("\n", " ")[:56]


nested_16 = load_session(data_file("pi16/nested-compactions.jsonl"))
sent = nested_16.context(pi_version=PI_VERSION).messages
print(L(f"按 Pi {PI_VERSION} 的规则读：发出 {len(sent)} 条消息", f"read by Pi {PI_VERSION}'s rules: {len(sent)} messages sent"))
for number, message in enumerate(sent, start=1):
    print(f"  #{number:<2} {message['role']:<18} {message['entryId']}  {preview(message)}")
''', tags=("rerun",)),
    md(zh="""
读一个 1.x 文件时如果按 0.84.2 的规则，你看到的“模型收到的内容”就是错的：被省略的消息又出现了，被替换的内容还是原文，压缩检查点不见了，嵌套压缩的旧摘要多出来一条（`small.jsonl` 是 0.x 写的，但它在 1.6.0 下一样会少一条摘要：规则跟着**读取**它的 Pi 走，不跟着写它的 Pi 走）。

所以命令行默认按 **1.6.0** 读（`--pi-version 0.84.2` 切回课程的基线），检查器在 1.6.0 下还会数出编辑和 `usage` 条目，并把 `usage` 计入用量：
""", en="""
Read a 1.x file by 0.84.2's rules and your picture of "what the model receives" is wrong: omitted messages reappear, replaced content shows the original, the compaction checkpoint is gone, and a nested compaction's older summary appears once more (`small.jsonl` was written by 0.x, yet under 1.6.0 it loses that extra summary too: the rules follow the Pi that **reads** the file, not the one that wrote it).

That is why the command line reads by **1.6.0** by default (`--pi-version 0.84.2` switches back to the course's baseline), and why the inspector, under 1.6.0, counts edits and `usage` entries and adds `usage` to the totals:
"""),
    code(r'''
from learn_pi_lab.i18n import t

edits_path = data_file("pi16/context-edit.jsonl")
edited = load_session(edits_path)
last_edit = [entry for entry in edited.entries if entry["type"] == "context_edit"][-1]
after_edits = edited.children(last_edit["id"])[0]["id"]      # zh: 编辑之后问的问题 # en: the question asked after the edits
for version in ("1.6.0", "0.84.2"):
    run_cli("context", show_path(edits_path), "--leaf", after_edits, "--pi-version", version)
    print()
result = subprocess.run([sys.executable, "-m", "learn_pi_lab", "--lang", L("zh", "en"), "inspect",
                         str(data_file("pi16/usage.jsonl"))], capture_output=True, text=True, check=True)
rows = (t("inspect.pi_1x"), t("inspect.usage"))   # zh: 报告里这两行的标签，按本书的语言 # en: the labels of those two rows, in this edition's language
print("\n".join(line for line in result.stdout.splitlines() if line.startswith(rows)))
'''),
    md(zh="""
叶子放在编辑之后的那个问题上，1.6.0 发出 7 条消息（被省略的错误回答不见了，`read` 结果换成了说明），0.84.2 原样发出全部 8 条。不加 `--leaf` 时，文件自己的叶子在编辑**之前**开出的那条分支上，两个版本给出同样的 8 条（上一个表里的“相同”）。

这些规则同样和 Pi 自己的代码核对过：课程的测试从 npm 装好 Pi 0.84.2 和 1.6.0，在每个数据文件上比较叶子、路径、标签、会话名、模型、思考级别和每一条上下文消息；上面那张“和 Pi 自己的答案对一对”的表，测试里对两个版本、对所有文件都做一遍。
""", en="""
With the leaf on the question after the edits, 1.6.0 sends 7 messages (the omitted wrong answer is gone, the `read` result is the note), while 0.84.2 sends all 8 as stored. Without `--leaf`, the file's own leaf is on the branch started **before** the edits, where both versions give the same 8 (the "same" in the table above).

These rules too are checked against Pi's own code: the course's tests install Pi 0.84.2 and 1.6.0 from npm and compare leaf, path, labels, name, model, thinking level and every context message on every data file; the "checking against Pi's own answers" table above is done in the tests for both versions and for all files.
"""),
    md(zh="""
## 你自己的会话在哪里

如果你用过 Pi，你的会话就在自己的机器上（§1）：

- **智能体目录**（agent dir）默认是 `~/.pi/agent`；环境变量 `PI_CODING_AGENT_DIR` 可以改它（支持 `~`）。会话放在它下面的 `sessions/`。
- 每个工作目录一个子文件夹，名字是**编码后的 cwd**：去掉开头的一个 `/` 或 `\\`，把所有 `/`、`\\`、`:` 换成 `-`，再在两头各加 `--`。这种编码会丢信息：`/a-b/c` 和 `/a/b/c` 落进同一个文件夹。
- 文件名是 `<创建时间，把 : 和 . 换成 ->_<会话 id>.jsonl`，时间和会话头里的 `timestamp` 是同一个时刻。
- 另外还有 `--session-dir` 参数、`settings.json` 里的 `sessionDir`，以及环境变量 `PI_CODING_AGENT_SESSION_DIR`（≥ v0.71）；用了它们时，目录按原样使用，不再分 cwd 子文件夹。

下面的函数把这些规则写成代码，先用固定的例子运行，输出在每台机器上都一样。最后一个例子算出：`small.jsonl` 这个真实文件当初在 Pi 的机器上应该叫什么、放在哪个文件夹里。
""", en="""
## Where your own sessions are

If you use Pi, your sessions are on your own machine (§1):

- The **agent dir** is `~/.pi/agent` by default; the environment variable `PI_CODING_AGENT_DIR` changes it (`~` is allowed). Sessions live in its `sessions/` folder.
- One subfolder per working directory, named by the **encoded cwd**: drop one leading `/` or `\\`, replace every `/`, `\\` and `:` with `-`, and wrap the result in `--` on both sides. The encoding loses information: `/a-b/c` and `/a/b/c` land in the same folder.
- The file name is `<creation time with : and . replaced by ->_<session id>.jsonl`; the time is the same instant as the header's `timestamp`.
- There are also the `--session-dir` option, `sessionDir` in `settings.json`, and the environment variable `PI_CODING_AGENT_SESSION_DIR` (≥ v0.71); with those, the folder is used as it is, without cwd subfolders.

The functions below put these rules into code and first run on fixed examples, so the output is the same on every machine. The last example works out what the real file `small.jsonl` was called, and in which folder, on the machine where Pi wrote it.
"""),
    code(r'''
from pathlib import Path, PurePosixPath


def encode_cwd(cwd: str) -> str:
    # zh: Pi 给一个项目起的文件夹名：去掉开头的一个斜杠，斜杠和冒号变成 '-'，两头加上 '--'
    # en: Pi's folder name for a project: drop one leading slash, slashes and colons become '-', wrap in '--'
    if cwd[:1] in ("/", "\\"):
        cwd = cwd[1:]
    return "--" + re.sub(r"[/\\:]", "-", cwd) + "--"


def session_file_name(header: dict) -> str:
    # zh: <会话头的时间戳，':' 和 '.' 换成 '-'>_<会话 id>.jsonl
    # en: <header timestamp with ':' and '.' as '-'>_<session id>.jsonl
    return re.sub(r"[:.]", "-", header["timestamp"]) + "_" + header["id"] + ".jsonl"


def expand(value: str, home: Path) -> Path:
    # zh: Pi 接受的 "~"：开头的 ~ 换成家目录 # en: the "~" Pi accepts: a leading ~ is the home folder
    return home / value[2:] if value.startswith("~/") else home if value == "~" else Path(value)


def agent_dir(environ, home: Path) -> Path:
    return expand(environ.get("PI_CODING_AGENT_DIR") or "~/.pi/agent", home)


def pi_sessions_dir(environ, home: Path, settings: dict | None = None) -> Path:
    # zh: Pi 存会话的地方：PI_CODING_AGENT_SESSION_DIR 原样使用，其次是 settings.json 里的 sessionDir，否则是 <智能体目录>/sessions
    # en: where Pi keeps sessions: PI_CODING_AGENT_SESSION_DIR as is, then sessionDir in settings.json, else <agent dir>/sessions
    if environ.get("PI_CODING_AGENT_SESSION_DIR"):
        return expand(environ["PI_CODING_AGENT_SESSION_DIR"], home)
    chosen = (settings or {}).get("sessionDir")
    if isinstance(chosen, str) and chosen.strip():
        return expand(chosen.strip(), home)
    return agent_dir(environ, home) / "sessions"


for cwd in ["/Users/a/proj", "C:\\x\\y", "/a-b/c", "/a/b/c"]:
    print(f"{cwd:<15} -> {encode_cwd(cwd)}")
print()
home = PurePosixPath("/home/learner")
for environ, settings in [({}, None), ({"PI_CODING_AGENT_DIR": "~/work/pi-agent"}, None),
                          ({}, {"sessionDir": "~/pi-sessions"}),
                          ({"PI_CODING_AGENT_SESSION_DIR": "/srv/pi-sessions"},
                           {"sessionDir": "~/pi-sessions"})]:
    given = {**environ, **({"settings.json": settings} if settings else {})}
    print(f"{str(given):<64} -> {pi_sessions_dir(environ, home, settings)}")
print()
small_header = read_session(PI_FILES["small"]).header
print(L("Pi 写下 small.jsonl 时用的路径：", "small.jsonl was written by Pi as:"))
print("   ", PurePosixPath("~/.pi/agent/sessions", encode_cwd(small_header["cwd"]),
                           session_file_name(small_header)))
'''),
    md(zh="""
现在看看**你的**机器。下面的单元格按同样的规则找到会话目录（也读智能体目录里 `settings.json` 的 `sessionDir`；项目自己的 `.pi/settings.json` 不读），列出项目文件夹，对最新的几个会话文件运行检查器（按 1.6.0 的规则，因为它们是今天的 Pi 写的）。它只读：不创建、不修改、不删除任何东西，读完还会核对每个文件的大小和修改时间没变。

这个单元格的输出在每台机器上都不一样（如果你没用过 Pi，它会直接说没找到，这完全正常），所以它被标记为“易变”（volatile），自动检查不比较它的输出。
""", en="""
Now look at **your** machine. The next cell finds the sessions folder by the same rules (it also reads `sessionDir` from the agent dir's `settings.json`; a project's own `.pi/settings.json` is not read), lists the project folders, and runs the inspector on the newest few session files (by 1.6.0's rules, since today's Pi wrote them). It only reads: it creates, changes and deletes nothing, and afterwards checks that each file's size and modification time are unchanged.

This cell's output differs from machine to machine (if you have never used Pi it simply says nothing was found, which is perfectly fine), so it is marked volatile and the automatic checks do not compare its output.
"""),
    code(r'''
from learn_pi_lab.i18n import explain
from learn_pi_lab.session_inspector import inspect_session_as

def agent_settings(environ, home: Path) -> dict:
    # zh: Pi 的全局设置 <智能体目录>/settings.json；没有或读不了时为空（项目里的 .pi/settings.json 这里不看）
    # en: Pi's global settings, <agent dir>/settings.json; empty when missing or unreadable (a project's .pi/settings.json is not read here)
    try:
        settings = json.loads((agent_dir(environ, home) / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return settings if isinstance(settings, dict) else {}


sessions_dir = pi_sessions_dir(os.environ, Path.home(), agent_settings(os.environ, Path.home()))
files = sorted(sessions_dir.rglob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True) \
    if sessions_dir.is_dir() else []
if not files:
    print(L(f"在 {show_path(sessions_dir)} 里没有找到 Pi 会话：这台机器上没有可检查的文件。",
            f"No Pi sessions found in {show_path(sessions_dir)}: nothing to inspect on this machine."))
else:
    folders = sorted({path.parent.name for path in files})
    print(L(f"{show_path(sessions_dir)}：{len(folders)} 个文件夹里有 {len(files)} 个会话文件",
            f"{show_path(sessions_dir)}: {len(files)} session file(s) in {len(folders)} folder(s)"))
    for path in files[:5]:
        before = (path.stat().st_size, path.stat().st_mtime_ns)
        try:
            found = inspect_session_as(path, "1.6.0")   # zh: 你的文件是今天的 Pi 写的 # en: your files are written by today's Pi
            summary = L(f"v{found['version']}，{found['entries']} 个条目，"
                        f"{len(found['leaves'])} 个叶子，深度 {found['max_depth']}，"
                        f"{found['context_edits']} 个编辑，{found['usage_entries']} 个 usage，"
                        f"{len(found['diagnostics'])} 条诊断",
                        f"v{found['version']}, {found['entries']} entries, "
                        f"{len(found['leaves'])} leaves, depth {found['max_depth']}, "
                        f"{found['context_edits']} edit(s), {found['usage_entries']} usage, "
                        f"{len(found['diagnostics'])} diagnostic(s)")
        except Exception as error:
            summary = L(f"读不成会话：{explain(error)}", f"not readable as a session: {explain(error)}")
        unchanged = (path.stat().st_size, path.stat().st_mtime_ns) == before
        print(f"  {path.parent.name[:40]}/{path.name[:32]}...  {summary}  "
              + L(f"（文件没变：{unchanged}）", f"(unchanged: {unchanged})"))
''', volatile="depends on the learner's own ~/.pi sessions"),
    md(zh="""
想细看其中一个，在终端里运行 `python3 -m learn_pi_lab inspect 文件路径`，或者 `tree`、`context`；它们都只读。千万不要在 Pi 正在使用某个会话时去改它：Pi 没有文件锁（§10、§13），任何外部写入都可能和它的追加交错在一起。
""", en="""
To look at one of them more closely, run `python3 -m learn_pi_lab inspect PATH` in a terminal, or `tree` or `context`; all of them only read. Never edit a session while Pi is using it: Pi has no file lock (§10, §13), and any outside write can interleave with its appends.
"""),
    md(zh="""
## 真实大小的会话：读一次要花多少

本章最大的文件只有 1018 个条目。一个用了一整天的真实会话常有几万个条目，大多是几十个词的短消息（Pi 的用户报告过 200 MB 以上的会话文件，§13）。读这样一个文件要花多少 CPU 时间、多少内存？下面用课程自己的代码量一次：

- `learn_pi_lab.course.big_sessions` 生成一个真实形状的会话：用户和助手轮流说话，每条约 60 个词，带着模型、用量（usage）这些字段，磁盘上每行约 680 字节（下面会打印确切的数）。`make bench` 用的是**同一个生成器**（`bench/sessions.py` 直接导入它），大小相同时，它量的就是逐字节相同的文件。文件写进一个临时文件夹，单元格结束就删掉，不会留在仓库里。
- **课程的加载器**：`load_session` 加上 `build_session_context`，也就是命令行 `context` 做的事。
- **尺子**（yardstick）：最朴素的循环，逐行 `json.loads`，把所有对象留在一个列表里，别的什么都不做。把整个会话留在内存里，至少要做这么多事。
- 每样都在垃圾回收器（garbage collector）**开着**和**暂停**时各跑一次。暂停用的是课程自己的 `collector_paused`（`learn_pi_lab/collector.py`），加载器内部用的也是它。时间是本进程的 CPU 秒数（`time.process_time`），别的程序占用的 CPU 不算在里面；内存用 `tracemalloc` 数读完之后留下来的字节；它要记下每一次分配，会让读取慢好几倍，所以内存在一个 5,000 条目的同形会话上量（`MEMORY_SIZE`）。

**先预测。** 磁盘上一行约 680 字节。加载之后（会话加上它的上下文），每个条目在内存里占多少字节？把你的数字写进下一个单元格的 `my_guess`。再想一想：暂停回收器之后，尺子会快多少？课程的加载器呢？
""", en="""
## A real-sized session: what one read costs

This chapter's largest file has 1018 entries. A real session after a long working day often has tens of thousands, most of them short messages of a few dozen words (Pi users have reported session files over 200 MB, §13). How much CPU time and memory does reading such a file take? Let's measure it once, with the course's own code:

- `learn_pi_lab.course.big_sessions` writes a realistically shaped session: user and assistant take turns, about 60 words each, with the model, usage and other fields, about 680 bytes per line on disk (the cell prints the exact figure). `make bench` uses **the same generator** (`bench/sessions.py` imports it), so at the same size it measures the very same bytes. The file goes into a temporary folder that is deleted when the cell ends, so nothing is left in the repository.
- **The course's loader**: `load_session` plus `build_session_context`, which is what the `context` command does.
- **The yardstick**: the plainest loop, `json.loads` on every line, every object kept in one list, nothing else. Keeping a whole session in memory takes at least this much work.
- Each runs once with the garbage collector **on** and once with it **paused**. The pause is the course's own `collector_paused` (`learn_pi_lab/collector.py`), the same helper the loader uses inside. Times are this process's CPU seconds (`time.process_time`), so CPU taken by other programs does not count; memory is what `tracemalloc` counts as still held once the read is done; it records every allocation and slows a read several times, so memory is measured on a 5,000-entry session of the same shape (`MEMORY_SIZE`).

**Predict first.** A line is about 680 bytes on disk. Once loaded (the session plus its context), how many bytes does one entry take in memory? Put your number in `my_guess` in the next cell. And think: how much faster does the yardstick get with the collector paused? And the course's loader?
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 一个整数（字节），比如 700、2000 或 10000 # en: a whole number of bytes, e.g. 700, 2000 or 10000
predict("ch07-p2", my_guess)
""", tags=("predict",)),
    md(zh="""
**改一改，再运行。** `SIZES` 是要量的会话大小（条目数），每个比前一个大一倍，下面会打印每翻一倍时间涨了几倍。默认大小在一台 2 核机器上大约要 10 到 20 秒（一大半花在生成文件上）；把它们改成 `(50_000, 100_000)` 或 `(100_000, 200_000)` 再运行，看回收器那一栏怎么变（时间和内存都大约跟着翻倍，20 万条目要一两分钟、1 GB 左右的内存）。把 `MEMORY_SIZE` 翻一倍，每个条目的字节数变不变？这个单元格的数字每次运行都不一样，只看比例；同一台机器上，单次的比例也会上下差两成。
""", en="""
**Change them and re-run.** `SIZES` are the session sizes to measure (numbers of entries), each twice the one before; the cell prints how much the time grew for each doubling. The default sizes take about 10 to 20 seconds on a 2-core machine (more than half of it writing the files); change them to `(50_000, 100_000)` or `(100_000, 200_000)` and run again to see how the collector's column changes (time and memory roughly double with the size: 200,000 entries take a minute or two and around 1 GB of memory). Double `MEMORY_SIZE`: do the bytes per entry change? This cell's numbers change on every run; read the ratios, and expect a single ratio to wander by a fifth even on the same machine.
""", tags=("rerun",)),
    code(r'''
import gc
import itertools
import json
import tempfile
import time
import tracemalloc
from pathlib import Path

from learn_pi_lab.collector import collector_paused
from learn_pi_lab.course.big_sessions import session_file
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.session import load_session

SIZES = (20_000, 40_000)   # zh: 改一改再运行：条目数，每个是前一个的两倍 # en: change and re-run: numbers of entries, each twice the one before
MEMORY_SIZE = 5_000        # zh: tracemalloc 让读取慢好几倍，所以内存在一个小一些的同形会话上量 # en: tracemalloc slows a read several times, so memory is measured on a smaller session of the same shape


def bare_loop(path):
    # zh: 尺子：解析每一行，所有对象都留着，别的什么都不做
    # en: the yardstick: parse every line, keep every object, nothing else
    with open(path, "rb") as handle:
        return [json.loads(line) for line in handle]


def block_floor(path):
    # zh: 下限：一次调用解码一整块行（一千行），全部留着，什么都不检查
    # en: the floor: decode a whole block of lines (a thousand) in one call, keep it all, check nothing
    with open(path, "rb") as handle:
        handle.readline()   # zh: 跳过会话头 # en: skip the header
        lines = handle.read().splitlines()
    return [obj for start in range(0, len(lines), 1000)
            for obj in json.loads(b"[" + b",".join(lines[start:start + 1000]) + b"]")]


def course_loader(path):
    # zh: 加载会话，构建当前分支的上下文；用标准库的解码器，下文讲的就是它（默认的 msgspec 更快）
    # en: load the session, build the current branch's context; with the standard library's decoder, the one the text below explains (the default, msgspec, is faster still)
    session = load_session(path, decoder="stdlib")
    return session, build_session_context(session.branch())


def cpu_seconds(read, path, collector_on: bool) -> float:
    gc.collect()   # zh: 每次都从同样干净的状态开始 # en: every run starts from the same clean state
    start = time.process_time()
    if collector_on:
        kept = read(path)
    else:
        with collector_paused():   # zh: 暂停，结束后一定恢复 # en: paused, always restored afterwards
            kept = read(path)
    seconds = time.process_time() - start
    del kept   # zh: 释放不计时 # en: freeing is not timed
    return seconds


def bytes_held(read, path) -> int:
    # zh: 读完之后还留在内存里的字节（tracemalloc 数的）
    # en: the bytes still held once the read is done (counted by tracemalloc)
    gc.collect()
    tracemalloc.start()
    kept = read(path)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return held


with tempfile.TemporaryDirectory(prefix="learn-pi-lab-ch07-") as folder:   # zh: 单元格结束就删掉 # en: deleted when the cell ends
    files = {count: session_file(Path(folder), "linear", count) for count in SIZES}
    print(L("一个助手消息条目（第 5 行，截短）：", "an assistant message entry (line 5, cut short):"))
    with files[SIZES[0]].open(encoding="utf-8") as handle:
        print(" ", list(itertools.islice(handle, 5))[-1][:180], "...")
    print()
    print(L("回收器：开 / 停（暂停）", "collector: on / off (paused)"))
    print(pad(L("  条目数", " entries"), 12) + pad(L("文件", "file"), 12)
          + pad(L("尺子：开 / 停 = 开÷停", "yardstick: on / off = on/off"), 30)
          + pad(L("加载器：开 / 停", "loader: on / off"), 20) + L("加载器÷尺子（开）", "loader/yardstick (on)"))
    timings = {}
    for count, path in files.items():
        bare_on, bare_off = cpu_seconds(bare_loop, path, True), cpu_seconds(bare_loop, path, False)
        ours_on, ours_off = cpu_seconds(course_loader, path, True), cpu_seconds(course_loader, path, False)
        timings[count] = (bare_on, ours_on)
        print(f"{count:>8,}    {path.stat().st_size / 2**20:>5.1f} MB    {bare_on:>5.2f} s / {bare_off:>5.2f} s"
              f" = {bare_on / bare_off:.2f}x   {ours_on:>5.2f} s / {ours_off:>5.2f} s   {ours_on / bare_on:>5.2f}x")
    print()
    for small, large in zip(SIZES, SIZES[1:]):
        print(L(f"{small:,} → {large:,}（条目 {large / small:.1f} 倍）：尺子的时间 "
                f"{timings[large][0] / timings[small][0]:.2f} 倍，加载器 {timings[large][1] / timings[small][1]:.2f} 倍",
                f"{small:,} -> {large:,} ({large / small:.1f}x the entries): yardstick "
                f"{timings[large][0] / timings[small][0]:.2f}x the time, loader {timings[large][1] / timings[small][1]:.2f}x"))

    count = MEMORY_SIZE
    small_file = session_file(Path(folder), "linear", count)
    on_disk = small_file.stat().st_size / count
    in_list = bytes_held(bare_loop, small_file) / count
    floor = bytes_held(block_floor, small_file) / count
    loaded = bytes_held(course_loader, small_file) / count
print()
print(L(f"每个条目（{count:,} 个条目的会话）：磁盘上 {on_disk:,.0f} 字节；尺子的列表里 {in_list:,.0f} 字节"
        f"（{in_list / on_disk:.1f} 倍）；下限（一块一块解码，不检查）{floor:,.0f} 字节（{floor / on_disk:.1f} 倍）；"
        f"加载后的会话加上下文 {loaded:,.0f} 字节（{loaded / on_disk:.1f} 倍）",
        f"per entry ({count:,}-entry session): on disk {on_disk:,.0f} bytes; in the yardstick's list "
        f"{in_list:,.0f} bytes ({in_list / on_disk:.1f}x); the floor (decoded a block at a time, nothing "
        f"checked) {floor:,.0f} bytes ({floor / on_disk:.1f}x); loaded session plus context {loaded:,.0f} bytes "
        f"({loaded / on_disk:.1f}x)"))
reveal("ch07-p2", round(loaded), tolerance=0.25)
''', volatile="CPU timings and tracemalloc sizes differ on every run", tags=("predict", "rerun")),
    md(zh="""
### 为什么是这样

**垃圾回收器在白忙。** Python 的内存大多靠引用计数（reference counting）回收：一个对象没人引用了，马上释放。引用计数对付不了环（a 引用 b，b 又引用 a），所以另有一个找环的回收器：新建的容器对象（字典、列表）比释放的多出几百个时（`gc.get_threshold()` 的第一个数），它就扫一遍最年轻的一代（generation）；活下来的对象升到更老的一代，老的代扫得更少，最老的一代要等它比上次全扫时又多了四分之一才整个重扫（CPython 3.13 及以前的规则）。读会话时，每个字典、列表都还活着，也没有一个成环，所以这些扫描一件垃圾也找不到；可每个对象在升到最老一代的路上要被扫好几遍，整个笔记本里其他活着的对象（前面画图用的 matplotlib 等）也被一起扫。会话越大，白花的时间在总数里占得越多：尺子那一栏“开”和“停”的差，就是它。在一个 20 万条目的会话上，它曾占加载时间的一半以上（`learn_pi_lab/collector.py` 的说明）。

**加载器为什么不在乎。** 加载器那两栏只差在测量的噪声里，因为 `load_session` 和 `build_session_context` 本来就在批量读入时暂停回收器，结束时一定恢复；恢复之前，把这批还活着的对象直接放进最老的一代（`gc.freeze()` 再 `gc.unfreeze()`，一个都不扫），所以读完之后也不会补扫。对象照样靠引用计数释放，真正的环也照样会被下一次全扫找到：暂停的只是读文件时白找的那部分。

**加载器为什么比尺子还快。** 加载器做的事比尺子多：记下每行的行号以便报告诊断，检查会话头，建 id 索引，再从叶子走回根构建上下文（前几章都见过）。可“加载器÷尺子”那一栏在 1 上下或者更小，会话越大越小，原因在解析本身：尺子每行调用一次 `json.loads`，加载器把大约 1 MiB 的一整块行拼成一个 JSON 数组，一次调用解析完（`learn_pi_lab/jsonl/reader.py` 里的 `_whole_block`）。每次调用本身有固定的开销，一块上千行只付一次；更要紧的是，`json` 在同一次调用里遇到见过的键会复用同一个字符串对象，于是一块里所有条目的 `"type"`、`"parentId"`、`"message"` 这些键只有一份，内存少了，要分配和释放的对象也少了。行与行之间夹着一个文件不可能事先知道的随机分隔串，解析结果里每隔一个元素必须正好是它，这就证明了每个元素恰好是一行；只要有一行不健康（解析不了、两个对象粘在一行、数字超出范围……），整块就回到逐行的路径，诊断和行号都从那里来，结果和逐行读完全一样（`tests/test_reader_blocks.py`）。`make bench` 的目标是加载器不超过尺子时间的 1.5 倍；在真实大小的会话上（20 万条目），用标准库解码器时它只用尺子 0.5 到 0.8 倍的时间（`bench/README.md`）。下面第一个单元格让你亲眼看到键的共用。

**时间怎么涨。** 条目翻一倍，时间涨 2 倍左右，就是线性（linear）的；比 2 多，是因为对象越多，CPU 缓存越装不下，回收器开着时每次全扫的对象也越多。单元格里只量一次，一次翻倍的比会差得不少；`make bench` 在 5 万到 40 万条目上量同样的比，看三次翻倍的平均，目标是每翻一倍不超过 2.2 倍。

**每个条目为什么那么大。** 磁盘上的一行是紧凑的 UTF-8 文本。解析之后，每个 JSON 对象是一个字典，各有自己的哈希表（hash table）；每个字符串是一个带着几十字节头部的对象，时间戳这样的大整数每出现一次也是一个约 30 字节的对象；尺子里连 `"type"`、`"parentId"` 这样的键，每一行都各有一份（`json.loads` 只在同一次调用里复用相同的键），加载器按块解析，键在一块里只有一份；可值不共用：每个条目的 `"message"`、`"assistant"` 这些值仍然各是一个字符串对象。课程的会话在这之上还有索引、每行的位置和上下文（每条消息是一份加了 `entryId` 的拷贝）。Pi 跑在 Node 的 V8 引擎上：键相同的对象共用一个隐藏类（hidden class），一个对象差不多只剩它的值；小整数直接存在对象的槽里，不单独占一个对象。所以同一个会话，Python 的对象天生比 V8 的大。

**和 Pi 自己的代码比。** 这里只比了 Python 自己（加载器和尺子），笔记本里没有 Node。和 Pi 并排比是 `make bench` 的事，怎么比、量到了什么都写在 `bench/README.md` 里：同一个生成器、同样形状的文件（5 万到 40 万条目，线性、多分支、带压缩三种），每个操作一个新进程，回收器开着，和用户用的时候一样；Pi 那一列是 npm 上发布的 Pi 包自己的 `SessionManager.open` 加 `buildSessionContext`。结论要说实话：在 20 万条目上，用标准库的 JSON 解码器（decoder），课程的加载器加上下文是 Pi 时间的 1.2 到 1.7 倍，用 msgspec 解码器（装了它就是默认）是 0.9 到 1.2 倍（几次运行里两种模式、三种形状的范围：同一台机器，两次运行之间也会差一两成）；峰值内存两种解码器都大约是 Pi 的 1.4 倍，差的就是上面说的：Python 的字典和字符串比 V8 的对象大。这个倍数还跟着会话的大小变：5 万条目时课程反而比 Pi 少用内存（Node 一启动就比 Python 占得多），到 40 万条目是 1.6 倍，因为每多一个条目，课程多用约 2.1 KB，Pi 只多用约 1.1 KB。（加载器还让重复出现的词共用一个字符串：每种记录类型和消息角色在整个文件里只有一份，子节点的 `parentId` 就是父节点自己的 `id` 字符串，这在 20 万条目上省下约 38 MB。）这里面多少是数据本身的样子决定的，多少是课程自己的工作？`make bench` 还量一个下限（floor）：最快的纯 Python 写法，一块一块地解码每一行、全部留着、什么都不检查（上面单元格里的 `block_floor`，最后一行打印了它每个条目占的字节，和加载器的放在一起看）。光这个下限就要 Pi 1.3 倍的内存，所以凡是把 `json` 的字典交给学习者的设计，内存都比不过 Pi；时间上它约是 Pi 的 0.7 倍（标准库），留给行号、检查、索引和上下文的只有 Pi 三分之一的时间，课程用掉的大约是一半。光是把逐行解析出的对象留在一个列表里（就是上面的尺子），峰值内存就已经是 Pi 整个进程的 1.8 倍。具体倍数看 `bench/README.md`，或者在你的机器上运行 `make bench`（要跑好一阵子；`python bench/run.py --only pi-load-context` 只跑这一项；装了 Node 才有 Pi 那一列）。教学模型要的是每一步都读得懂；求快的部分（比如暂停回收器）放在有名字的辅助函数里，读课程时可以跳过。
""", en="""
### Why it is like this

**The garbage collector works for nothing.** Python frees most memory by reference counting: once nothing refers to an object, it is freed at once. Reference counting cannot free cycles (a refers to b, b refers back to a), so a second collector looks for them: when the container objects (dicts, lists) created outnumber those freed by a few hundred (the first number of `gc.get_threshold()`), it scans the youngest generation; objects that survive move to an older generation, older generations are scanned less often, and the oldest one is rescanned whole only once it has grown by a quarter since its last full scan (the rule up to CPython 3.13). While a session is read, every dict and list is still alive and none is part of a cycle, so these scans find no garbage at all; yet every object is scanned several times on its way to the oldest generation, along with every other live object in the notebook (matplotlib from the drawings above, and so on). The larger the session, the larger the share of this wasted time: it is the difference between the yardstick's "on" and "off". On a 200,000-entry session it once took more than half of the load time (the notes in `learn_pi_lab/collector.py`).

**Why the loader does not care.** The loader's two columns differ only by the noise of measuring, because `load_session` and `build_session_context` already pause the collector during a bulk read and always restore it at the end; before restoring it, they move the objects still alive straight into the oldest generation (`gc.freeze()` then `gc.unfreeze()`, scanning none), so nothing is rescanned after the read either. Objects are still freed by reference counting, and a real cycle is still found by the next full scan: only the search that is wasted while a file is read waits.

**Why the loader beats the yardstick.** The loader does more than the yardstick: it notes each line's number to report diagnostics, checks the header, builds the id index, then walks from the leaf back to the root to build the context (earlier chapters showed all of it). Yet its "loader/yardstick" column is around 1 or below, and lower the larger the session, and the reason is the parsing itself: the yardstick calls `json.loads` once per line, while the loader joins a whole block of lines, about 1 MiB, into one JSON array and parses it in one call (`_whole_block` in `learn_pi_lab/jsonl/reader.py`). Every call has a fixed cost, paid once for a thousand lines; more importantly, within one call `json` reuses the string object of a key it has already seen, so in a block the keys `"type"`, `"parentId"`, `"message"` and the rest exist once for all its entries: less memory, and fewer objects to allocate and free. Between two lines sits a random separator that no file can know in advance, and every second element of the answer must be exactly that separator, which proves that each other element is exactly one line; as soon as one line is not healthy (it does not parse, two objects share it, a number is out of range, ...), the whole block goes back to the line-by-line path, where every diagnostic and line number comes from, and the result is exactly what reading line by line gives (`tests/test_reader_blocks.py`). `make bench`'s target is at most 1.5× the yardstick's time; on real-sized sessions (200,000 entries), with the standard-library decoder, it takes 0.5–0.8× the yardstick's time (`bench/README.md`). The first cell below lets you see the keys being shared.

**How the time grows.** Twice the entries and about twice the time means linear; more than 2 is because more objects fit less well in the CPU caches and, with the collector on, every full scan has more objects to go through. Measured once in a cell, a single doubling wanders a lot; `make bench` measures the same ratio from 50,000 to 400,000 entries and takes the mean of three doublings, with the target of at most 2.2× per doubling.

**Why an entry is so large.** A line on disk is compact UTF-8 text. Once parsed, every JSON object is a dict with a hash table of its own; every string is an object with a header of a few dozen bytes, and each large integer such as a timestamp is another object of about 30 bytes; in the yardstick even keys such as `"type"` and `"parentId"` exist once per line (`json.loads` reuses equal keys only within a single call), while the loader, parsing a block at a time, keeps one of each key per block; values are not shared, though: every entry's `"message"` or `"assistant"` is still a string object of its own. The course's session adds an index, each line's position and the context on top (every message is a copy with an `entryId` added). Pi runs on Node's V8 engine: objects with the same keys share one hidden class, so an object is little more than its values, and small integers are stored right in the object's slots instead of as separate objects. So for the same session, Python's objects are larger than V8's by nature.

**Against Pi's own code.** This cell compares Python with itself (the loader and the yardstick); the notebook has no Node. Comparing with Pi side by side is `make bench`'s job, and `bench/README.md` says how and what it measured: the same generator, files of the same shapes (50,000 to 400,000 entries; linear, branchy and compacted), each operation in a fresh process with the collector on, as for a user; Pi's column is the published Pi package's own `SessionManager.open` plus `buildSessionContext`. The honest conclusion: at 200,000 entries, the course's load plus context takes 1.2–1.7× Pi's time with the standard library's JSON decoder and 0.9–1.2× with the msgspec decoder (the default when it is installed) (the range over a few runs, both modes and three shapes: on the same machine two runs differ by a tenth or a fifth); its peak memory is about 1.4× Pi's with either decoder, for the reason above: Python's dicts and strings are larger than V8's objects. That ratio also changes with the session's size: at 50,000 entries the course uses less memory than Pi (Node takes more than Python just to start), at 400,000 it is 1.6×, because each further entry costs the course about 2.1 KB and Pi about 1.1 KB. (The loader also makes repeated words share one string: each entry type and message role exists once for the whole file, and a child's `parentId` is its parent's own `id` string, which saves about 38 MB at 200,000 entries.) How much of that is the data's own shape, and how much is the course's work? `make bench` also measures a floor: the fastest plain Python that decodes every line, a block at a time, and keeps it, checking nothing (`block_floor` in the cell above; its last line prints the floor's bytes per entry beside the loader's). That floor alone needs 1.3× Pi's memory, so no design that hands out `json`'s dicts can match Pi's memory; in time it takes about 0.7× Pi's (standard library), which leaves a third of Pi's time for line numbers, checks, the index and the context, and the course spends about half. Merely keeping the objects parsed line by line in a list (the yardstick above) already peaks at 1.8× Pi's whole process. For the exact ratios see `bench/README.md`, or run `make bench` on your machine (it takes a while; `python bench/run.py --only pi-load-context` runs just this part; the Pi column needs Node). The teaching model aims to be readable at every step; the parts that are there for speed (such as the collector pause) live in named helpers that a reader of the course can skip.
"""),
    md(zh="""
**亲手看一看：一次调用共用键。** 下面把同样的两行解析两次：逐行各调一次 `json.loads`（尺子的做法），再拼成一个数组一次解析（加载器按块的做法）。`is` 问的是“是不是同一个对象”，不只是“相等”。改一改 `two_lines`（加一行、换一个键、让两行的值也相同）再运行：哪些字符串被共用，哪些没有？
""", en="""
**See it for yourself: one call shares the keys.** The cell parses the same two lines twice: once with a `json.loads` call per line (the yardstick's way), once joined into an array and parsed in one call (the loader's way, a block at a time). `is` asks "the very same object?", not just "equal?". Change `two_lines` (add a line, rename a key, make the values equal too) and run it again: which strings are shared, and which are not?
""", tags=("rerun",)),
    code(r'''
import json

two_lines = ['{"type": "message", "id": "a1"}',   # zh: 改一改再运行 # en: change and re-run
             '{"type": "message", "id": "a2"}']

one_by_one = [json.loads(line) for line in two_lines]             # zh: 尺子：每行一次调用 # en: the yardstick: one call per line
in_one_call = json.loads("[" + ",".join(two_lines) + "]")         # zh: 加载器：一块一次调用 # en: the loader: one call per block


def first_key(entry):
    return next(iter(entry))


for label, (first, second) in ((L("逐行解析", "one call per line"), one_by_one[:2]),
                               (L("一次调用", "one call for both"), in_one_call[:2])):
    print(label + L("：", ": ") + L(f"键 {first_key(first)!r} 是同一个对象吗？{first_key(first) is first_key(second)}；"
                           f"值 {first['type']!r} 呢？{first['type'] is second['type']}",
                           f"is the key {first_key(first)!r} one object? {first_key(first) is first_key(second)}; "
                           f"the value {first['type']!r}? {first['type'] is second['type']}"))
''', tags=("rerun",)),
    md(zh="""
## 同一个大文件，两种设计：字典的列表，还是索引

课程的加载器把每个条目交给你一个字典：各章和练习就是拿着这些字典读、改、画的，所以它们要留着（上面量过，每个条目一两千字节）。可命令行的 `path`、`context`、`tree` 和 `inspect` 只回答一个问题，用不着同时拿着所有条目。它们读的是**索引**（index，`learn_pi_lab/jsonl/index.py`）：把文件读一遍，每个条目只记下树要用的东西（`id`、父节点的位置、类型、消息的角色）和**它那一行在文件里的位置**（起点、长度、校验和）；要显示哪个条目，再回到那一行重新解码它，用完就放掉。结果和完整的读取器一模一样：索引只接收健康的文件（当前版本的会话头、没有损坏、父节点都在子节点之前），别的文件都交给完整的读取器（`tests/test_cli_index.py` 逐字节对比）。

**先预测。** 在同一个会话上，加载后的会话（所有字典）占的内存是索引的几倍？把倍数写进下一个单元格的 `my_ratio`。
""", en="""
## One large file, two designs: a list of dicts, or an index

The course's loader hands you each entry as a dict: the chapters and exercises read, change and draw those dicts, so they must be kept (measured above: one or two thousand bytes per entry). The command line's `path`, `context`, `tree` and `inspect`, though, answer one question and need no entry all the time. They read an **index** (`learn_pi_lab/jsonl/index.py`): the file is read once, and each entry keeps only what the tree needs (its `id`, its parent's position, its type, its message's role) and **where its line is in the file** (start, size, checksum); an entry to show is decoded again from its line and let go afterwards. The answers are exactly the full reader's: the index takes only healthy files (a current header, no damage, every parent before its children) and hands every other file to the full reader (`tests/test_cli_index.py` compares them byte for byte).

**Predict first.** On the same session, how many times the index's memory does the loaded session (all the dicts) take? Put the ratio in `my_ratio` in the next cell.
""", tags=("predict",)),
    code("""
my_ratio = None   # zh: 一个数，比如 2、10 或 50 # en: a number, e.g. 2, 10 or 50
predict("ch07-p3", my_ratio)
""", tags=("predict",)),
    code(r'''
import tempfile
import time
import tracemalloc
from pathlib import Path

from learn_pi_lab.course.big_sessions import session_file
from learn_pi_lab.jsonl.index import IndexedBranch, SessionIndex
from learn_pi_lab.pi.session import load_session

COUNT = 5_000   # zh: 改一改再运行：条目数 # en: change and re-run: the number of entries


def held_and_seconds(build):
    """zh: 建好之后还留着的字节数，和建的 CPU 秒数 # en: the bytes still held once built, and the CPU seconds it took"""
    tracemalloc.start()
    start = time.process_time()
    built = build()
    seconds = time.process_time() - start
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return built, held, seconds


with tempfile.TemporaryDirectory(prefix="learn-pi-lab-ch07-") as folder:   # zh: 单元格结束就删掉 # en: deleted when the cell ends
    path = session_file(Path(folder), "linear", COUNT)
    session, dicts_bytes, dicts_seconds = held_and_seconds(lambda: load_session(path))
    index, index_bytes, index_seconds = held_and_seconds(lambda: SessionIndex(path))
    same = [entry["id"] for entry in session.branch()] == IndexedBranch(index, index.branch(index.leaf_id)).ids()
    index.close()
print(L(f"{COUNT:,} 个条目：字典的列表 {dicts_bytes / COUNT:,.0f} 字节/条目（{dicts_seconds:.2f} 秒）；"
        f"索引 {index_bytes / COUNT:,.0f} 字节/条目（{index_seconds:.2f} 秒）；两者给出的分支相同：{same}",
        f"{COUNT:,} entries: the list of dicts {dicts_bytes / COUNT:,.0f} bytes/entry ({dicts_seconds:.2f} s); "
        f"the index {index_bytes / COUNT:,.0f} bytes/entry ({index_seconds:.2f} s); the same branch from both: {same}"))
reveal("ch07-p3", round(dicts_bytes / index_bytes, 1), tolerance=0.3)
''', volatile="tracemalloc sizes and CPU timings differ a little on every run", tags=("predict", "rerun")),
    md(zh="""
索引不为条目建任何 Python 对象，每个条目只是几个数组（`array`）里的几格：`id` 存成一个 8 字节的数（Pi 的 id 正好是 8 个十六进制字符），父节点的位置、那一行的起点、长度和校验和各 4 字节，类型和角色各 1 字节，加起来约 26 字节，不管消息有多长；字典的列表留着整条消息。找父节点也几乎不用查：几乎每个条目的父节点就是上一行的条目，读到就知道；其余的少数几个，读完以后一次扫描全找出来。所以在 20 万条目的会话上，`context --json` 的峰值内存只有 Pi 的一到两成，而 Pi 自己的代码和加载器一样，把每个条目都留在内存里（`bench/latest.md` 是 `make bench` 最近一次并排量出的表）。代价是：要显示的条目得再解码一次。对只回答一个问题的工具，这很划算；对要让你读、改、画每个条目的各章，就不划算了，所以两种设计各用在合适的地方。
""", en="""
The index makes no Python object for an entry: an entry is a few slots in a few arrays (`array`): its `id` as one 8-byte number (Pi's ids are exactly 8 hex characters), its parent's position and its line's start, size and checksum at 4 bytes each, its type and role at 1 byte each, about 26 bytes however long the message; the list of dicts keeps the whole message. Finding a parent needs almost no look-up either: almost every entry's parent is the entry on the line before, known as soon as it is read; the few others are all found after the pass, in one scan. So on a 200,000-entry session `context --json` peaks at a tenth to a fifth of Pi's memory, while Pi's own code, like the loader, keeps every entry in memory (`bench/latest.md` is the table of `make bench`'s latest side-by-side run). The price: the entries shown are decoded a second time. For a tool that answers one question that is a good deal; for the chapters, which let you read, change and draw every entry, it is not, so each design is used where it fits.
"""),
    md(zh="""
## 一页带走：`export --html`

命令行回答问题，JupyterLab 里可以画图；可要把一个会话交给同事或学生，最方便的是**一个网页**。Pi 自己的 `/export` 就写网页。课程的 `export FILE --html --out 页面.html` 也写一个：整棵树画成游乐场那样（没有分叉的长链折叠成一个节点），点任何一个节点，右边显示它的 JSONL 行、从根到它的分支，以及**以它为叶子时模型看到什么**（上下文，压缩摘要和分支摘要都有标记），下面是读取器的诊断和行号。它是一个自成一体的文件：不联网，不加载别处的脚本或字体，任何浏览器从磁盘直接打开。

把 `MY_SESSION` 换成你自己的一个会话文件（上面列出过你 `~/.pi` 里的会话），就导出你自己的；留着 `None` 就导出本章的样本：
""", en="""
## One page to take away: `export --html`

The command line answers questions and JupyterLab draws; to hand a session to a colleague or a class, though, the handiest thing is **one web page**. Pi's own `/export` writes one. The course's `export FILE --html --out PAGE.html` writes one too: the whole tree drawn as the playground draws it (a long run without a fork folded into one node); click any node and the panel shows its JSONL line, its branch from the root and **what the model would see with it as the leaf** (its context, compaction and branch summaries marked), with the reader's diagnostics and their line numbers below. It is one self-contained file: no network, no script or font from elsewhere, and any browser opens it from disk.

Put one of your own session files in `MY_SESSION` (the sessions in your `~/.pi` were listed above) to export your own; leave it `None` to export this chapter's sample:
"""),
    code(r'''
from IPython.display import Markdown, display

MY_SESSION = None   # zh: 例如 Path.home() / ".pi/agent/sessions/<项目>/<文件>.jsonl" # en: e.g. Path.home() / ".pi/agent/sessions/<project>/<file>.jsonl"

EXPORTS = scratch_dir("ch07-export")
exported = EXPORTS / "session.html"
run_cli("export", show_path(MY_SESSION or PI_FILES["branching"]), "--html", "--out", show_path(exported))
print()
run_cli("export", BRANCHING, "--html", "--out", show_path(exported))   # zh: 第二次：拒绝覆盖 # en: a second time: refused
link = Path(os.path.relpath(exported)).as_posix()   # zh: 相对这本笔记本 # en: relative to this notebook
display(Markdown(f"[{L('打开页面', 'Open the page')}: {exported.name}]({link})"))
'''),
    md(zh="""
点上面的链接：JupyterLab 会在一个标签页里打开它（页面里的脚本要先点“Trust HTML”才会运行）；也可以在左边的文件浏览器里右键这个文件，选“Open in New Browser Tab”。点几个节点，看看上下文怎样随着叶子改变；再点旧分支上的节点，它的上下文里没有新分支的消息。

这个页面怎样装下每个节点的上下文，又不把一条长链的历史重复几万遍？和 `context` 用的规则一样：一个条目的上下文通常就是**父节点的上下文加上它自己带来的消息**；只有压缩（从摘要重新开始）、`context_edit`（改动更早的消息）和被改动的条目例外，它们的上下文整个算出来。页面里每个节点只存“从哪个父节点接着来，再加哪几条消息”，每条消息只存一次，打开页面的人点到哪里，浏览器就顺着父节点往上拼出哪里。下一个单元格从刚写的页面里把数据读出来，数一数：
""", en="""
Click the link above: JupyterLab opens it in a tab (the page's script runs once you press "Trust HTML"); or right-click the file in the file browser on the left and choose "Open in New Browser Tab". Click a few nodes and watch the context change with the leaf; click a node on an old branch, and its context holds none of the new branch's messages.

How does the page hold every node's context without repeating a long chain's history tens of thousands of times? By the rule `context` uses: an entry's context is usually **its parent's context plus the messages it brings**; only a compaction (which starts again from its summary), a `context_edit` (which changes an earlier message) and the entry an edit targets are exceptions, and theirs are computed whole. For each node the page stores only "continue from this parent, then add these messages", each message once, and the browser puts a context together by walking up, wherever the reader clicks. The next cell reads the data back out of the page just written and counts:
"""),
    code(r'''
from learn_pi_lab.export.page import resolved_context

page_text = exported.read_text(encoding="utf-8")
held = json.loads(re.search(r'id="lpl-data">(.*?)</script>', page_text, re.S).group(1))
written_out = sum(len(resolved_context(held, at)) for at in range(len(held["entries"])))
print(L("页面里的条目：", "entries on the page:"), len(held["entries"]))
print(L("每条消息存一次，共：", "messages, each held once:"), len(held["messages"]))
print(L("每个节点的上下文都整个写出来的话：", "if every node's context were written out whole:"), written_out)
for at in (held["leaf"], held["contexts"][held["leaf"]]["base"]):   # zh: 叶子和它的父节点 # en: the leaf and its parent
    stored = held["contexts"][at]
    parent = held["entries"][stored["base"]]["id"]
    print(f"  {held['entries'][at]['id']}:", L(f"父节点 {parent} 的上下文，加上消息", f"the context of its parent {parent}, plus messages"),
          stored["add"])
'''),
    md(zh="""
页面里的 JavaScript 什么都不决定：上下文是课程的 Python 代码算好的，和 `context` 的答案逐条相同（`tests/test_export.py` 对每个样本文件的每个节点都这样检查，两种模式、两个 Pi 版本）。会话里的文字一律当文字显示，消息里写着 `</script>` 或一段 HTML 也只会被显示出来，不会运行。超过 2 万个条目的会话只导出叶子附近的树（命令会说清楚留下了多少），所以 20 万个条目的会话也是一个几 MB、一秒内打开的页面；Pi 自己的 `/export` 把每个条目都放进页面，同样的会话就成了浏览器打不开的页面（`make bench` 的 `export-page` 一节并排量过）。
""", en="""
The page's JavaScript decides nothing: the contexts were computed by the course's Python code and match `context`'s answer message for message (`tests/test_export.py` checks every node of every sample file that way, in both modes and both Pi versions). Every text of the session is shown as text: a message holding `</script>` or a piece of HTML is displayed, never run. A session above 20,000 entries is exported as the tree around its leaf (the command says how much it kept), so a 200,000-entry session is a page of a few MB that opens in a second; Pi's own `/export` puts every entry into the page, and the same session becomes a page the browser cannot open (`make bench`, section `export-page`, measures both side by side).
"""),
    md(zh="""
## 练习：`inspect_session`

打开 `workspace/ch07_inspector.py`，实现 `inspect_session(path) -> dict`（练习 id：`inspect-session`）。返回的字典至少要有这十六个键：

- `version`（整数，缺失时为 1）、`session_id`、`cwd`、`parent_session`（没有就是 `None`）；
- `entries`：会话头之外的条目数（去重之后）；`by_type`：`{类型: 数量}`；`by_role`：只数 `message` 条目，`{角色: 数量}`；
- `compactions`、`branch_summaries`：数量；`labels`：解析后的标签（文件顺序，后写的胜出，空值清除）；`name`：最新的 `session_info` 里的会话名，去掉首尾的空白；最新的名字是空的，就表示清除了名字，得 `None`；从来没有名字也是 `None`；
- `roots`：根的 id，按文件顺序。父节点是 `null` 的条目是根；父节点不在文件里的条目（孤儿）也算根，Pi 的树就是这样处理的；
- `leaves`：叶子（没有孩子的条目）的 id，按文件顺序；
- `max_depth`：最深条目的祖先个数（根是 0）。父指针可能绕成一个环，这时往上走不能没完没了：环在文件里最靠前的那个条目被当成根，这个环报告为一条 `cycle` 诊断，行号就是那个条目的行。把自己当父节点的条目是只有一个条目的环，它也是根（诊断是 `self-parent`）；
- `models`：排好序的 `"provider/modelId"`，来自 `model_change` 和助手消息；
- `diagnostics`：`[[行号, 代码], ...]`，按行号排序，和第 04 章一样。

`version` 是文件自己写的版本，也就是迁移**之前**的版本。读取器交给你的会话头已经迁移成 v3 了：请用 `read_session` 结果的 `source_version`（用 `load_session` 的话是 `session.file.source_version`）。

建议：用 `learn_pi_lab.jsonl.reader.read_session` 读文件（它处理 `.xz`、迁移和文件层的诊断（diagnostic）），用 `learn_pi_lab.pi.session.resolve_labels` 解析标签。你不必做到参考实现的“内存平稳”，先做对。检查你的代码的测试用的是测试自己手写的小会话，有健康的，也有损坏的；每个会话的报告都要和预期的值一致。

**轮到你了。** 下一个单元格把本章的三个小样本交给**你自己**的 `inspect_session`，逐键和参考实现比较这十六个键，列出不一样的键。你还没动手时，它会说函数仍是练习模板（stub）。

写完后再运行后面的检查（或在终端运行 `make verify EX=inspect-session`）。你动手之前它显示“未开始”，这是正常的。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch07_inspector.py`](../../learn_pi_lab/lessons/ch07_inspector.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。
""", en="""
## Exercise: `inspect_session`

Open `workspace/ch07_inspector.py` and implement `inspect_session(path) -> dict` (exercise id: `inspect-session`). The dict needs at least these sixteen keys:

- `version` (an int, 1 when absent), `session_id`, `cwd`, `parent_session` (`None` when there is none);
- `entries`: the number of entries besides the header (after de-duplication); `by_type`: `{type: count}`; `by_role`: `{role: count}` over `message` entries only;
- `compactions`, `branch_summaries`: counts; `labels`: the resolved labels (file order, the latest wins, empty clears); `name`: the name in the latest `session_info`, with the white space around it removed; when the latest name is empty it clears the name (`None`), and a session that was never named has `None` too;
- `roots`: the root ids, in file order. An entry whose parent is `null` is a root; so is an entry whose parent is not in the file (an orphan), as in Pi's own tree;
- `leaves`: the ids of the leaves (entries without children), in file order;
- `max_depth`: the number of ancestors of the deepest entry (a root is 0). Parent pointers can form a loop, and walking up must not go on forever: the loop's entry that comes first in the file counts as a root, and the loop is reported as one `cycle` diagnostic on that entry's line. An entry that is its own parent is a loop of one, and a root too (diagnostic `self-parent`);
- `models`: a sorted list of `"provider/modelId"`, from `model_change` entries and assistant messages;
- `diagnostics`: `[[line, code], ...]` in line order, as in chapter 04.

`version` is the version the file itself says, from **before** migration. The header the reader hands you has already been migrated to v3: use the `source_version` of what `read_session` returns (with `load_session`, `session.file.source_version`).

A suggestion: read the file with `learn_pi_lab.jsonl.reader.read_session` (it handles `.xz`, migration and the file-level diagnostics) and resolve labels with `learn_pi_lab.pi.session.resolve_labels`. You do not need the reference's flat memory; get it right first. The tests that check your code use small sessions they write by hand, healthy and damaged ones, and your report on each must match the expected values.

**Your turn.** The next cell hands this chapter's three small samples to **your own** `inspect_session` and compares the sixteen keys with the reference, key by key, listing the keys that differ. Before you start, it says the function is still a stub.

When you are done, run the check after it (or `make verify EX=inspect-session` in a terminal). Before you start, it shows the exercise as not started; that is expected. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch07_inspector.py`](../../learn_pi_lab/lessons/ch07_inspector.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.
""", tags=("your-turn",)),
    code(r'''
for name in ("branching", "ancestry", "error"):
    mine = your_turn("inspect-session", PI_FILES[name])
    if not isinstance(mine, dict):
        if mine is not None:
            print(L("  应当返回一个字典，得到的是", "  a dict was expected, got"), type(mine).__name__)
        break
    reference = inspect_session(PI_FILES[name])
    # zh: 用 JSON 比较：元组和列表算一样
    # en: compared as JSON: a tuple and a list count as the same
    differ = [key for key in EXERCISE_KEYS
              if json.dumps(mine.get(key), sort_keys=True, default=str)
              != json.dumps(reference[key], sort_keys=True, default=str)]
    print(f"  {name:<10} {L('与参考实现不同的键：', 'keys that differ from the reference:')} {', '.join(differ) or '-'}")
''', tags=("your-turn",)),
    code("""
from learn_pi_lab.harness.notebook import check

check("07")
"""),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("07")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- 真实文件比教学文件“脏”：会话头的时间晚于第一个条目、字段残缺、内容是字符串而不是块列表、出现不认识的类型。读取器必须全部接住，并把问题连同行号说出来。
- 检查器一遍流式读完，只读不写，内存平稳；`.xz` 边读边解压。命令行 `inspect`、`tree`、`path`、`context` 都建立在同样的读取器上，出错时只说一行话、退出码 2。
- 在五个公开文件上，课程的加载器在两种模式下都和 Pi v0.84.2 自己的答案一致。
- v1/v2 只在内存里迁移到 v3：新 id、串成一条链、`firstKeptEntryIndex` 变成 `firstKeptEntryId`、`hookMessage` 改名、新键加在末尾。Pi 会随机发 id 并**重写原文件**；课程的 id 可重复，要 v3 文件就 `migrate --out` 写一个新的，源文件的哈希值不变。
- 不认识的条目是树上的普通节点：保留整行，原样写回，路径穿过它，上下文跳过它。
- 叶子是最后一行，不管它是什么；叶子的移动不保存；下一次追加接在最后一行后面。
- 读一个真实大小的会话，尺子是“逐行 `json.loads` 并全部留着”。回收器开着时，它把几十万个活着又不成环的对象扫了又扫，会话越大白花得越多；课程的加载器在批量读入时暂停回收器（`collector_paused`），结束时一定恢复，并且一次调用解析一整块行，键在块里共用，所以比尺子还快。每个条目在内存里是磁盘上的好几倍：字典各有哈希表、字符串和大整数各是对象，V8 的对象更紧凑。在 20 万条目上，课程的时间是 Pi 的 1.2 到 1.7 倍（msgspec：0.9 到 1.2 倍），内存约 1.4 倍（只把对象留着的最快纯 Python 就要 1.3 倍）；并排的数字由 `make bench` 量出，记在 `bench/README.md`。
- `export --html` 把会话写成一个离线网页：整棵树、每个节点的 JSONL 行、分支和上下文。上下文存成“父节点的上下文加上这几条消息”，每条消息只存一次；超过 2 万个条目就只导出叶子附近的树。
- 你的会话在 `~/.pi/agent/sessions/--编码后的cwd--/` 里（或 `PI_CODING_AGENT_DIR` 指定的地方）；只读地看，不要在 Pi 使用时去写。
- 会话头的 `version: 3` 不告诉你 Pi 的版本；`context_edit`、`usage`、`systemMessage` 等痕迹说明是 1.x 写的。上下文规则跟着读取文件的 Pi 版本走：命令行默认按 1.6.0 读，`--pi-version 0.84.2` 回到课程的基线；没有这些痕迹、也没有嵌套压缩的文件，两个版本给出同样的上下文。
""", en="""
## Summary

- Real files are messier than teaching files: a header timestamp later than the first entry, missing fields, content as a string instead of a block list, types nobody knows. A reader must take all of it, and name each problem with its line number.
- The inspector streams through once, reads only, and keeps memory flat; `.xz` is decompressed while reading. The command line's `inspect`, `tree`, `path` and `context` stand on the same reader, and a mistake gives one line and exit code 2.
- On the five public files, the course's loader agrees with Pi v0.84.2's own answers in both modes.
- v1/v2 files are migrated to v3 in memory only: new ids chained into one line, `firstKeptEntryIndex` turned into `firstKeptEntryId`, `hookMessage` renamed, new keys appended at the end. Pi hands out random ids and **rewrites the original file**; the course's ids are repeatable, and for a v3 file `migrate --out` writes a new one while the source's hash stays the same.
- An unknown record is an ordinary node of the tree: keep the whole line, write it back as it was; the path goes through it and the context skips it.
- The leaf is the last line, whatever it is; a leaf move is not saved; the next append hangs below the last line.
- Reading a real-sized session has a yardstick: `json.loads` on every line, keeping everything. With the collector on, it scans hundreds of thousands of live objects that form no cycle again and again, wasting more the larger the session; the course's loader pauses the collector during a bulk read (`collector_paused`) and always restores it, and it parses a whole block of lines in one call, sharing the keys within the block, so it beats the yardstick. An entry in memory is several times its size on disk: every dict has its own hash table, every string and large integer is an object, and V8's objects are more compact. At 200,000 entries the course takes 1.2–1.7× Pi's time (msgspec: 0.9–1.2×) and about 1.4× its memory (the fastest plain Python that merely keeps the objects needs 1.3×); the side-by-side numbers come from `make bench` and are kept in `bench/README.md`.
- `export --html` writes a session as one offline page: the whole tree, and for each node its JSONL line, its branch and its context. A context is stored as "its parent's context plus these messages", each message once; above 20,000 entries only the tree around the leaf is exported.
- Your sessions are in `~/.pi/agent/sessions/--encoded-cwd--/` (or wherever `PI_CODING_AGENT_DIR` points); look at them read-only, and never write to one while Pi is using it.
- The header's `version: 3` does not tell you Pi's version; marks such as `context_edit`, `usage` and `systemMessage` show a 1.x writer. The context rules follow the Pi that reads the file: the command line reads by 1.6.0 by default, `--pi-version 0.84.2` returns to the course's baseline; a file without those marks and without nested compactions gets the same context from both.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch07-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch07-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch07-q1")
"""),
    code("""ask("ch07-q2")"""),
    code("""ask("ch07-q3")"""),
    code("""ask("ch07-q4")"""),
]
