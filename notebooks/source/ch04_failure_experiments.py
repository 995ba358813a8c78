"""Chapter 04: the four failure experiments of the original course (whkp/learn-pi, table "失败与边界实验"), run for real."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("04", "failure-experiments",
                  zh="四个故障实验：亲手弄坏一个会话文件",
                  en="Four failure experiments: break a session file on purpose")

CELLS = [
    md(zh="""
## 学习目标

前几章一直在说只追加（append-only）加父指针（parent pointer）的设计“很稳”。本章不再讲道理，而是动手把文件弄坏，看它到底稳在哪里、又在哪里需要读取方帮一把。读完并运行本章，你应该能够：

- 亲手制造原课程（whkp/learn-pi）故障实验表里的四种故障：**最后一行被撕裂**（torn last line）、**同一个条目（entry）追加两次**、**父节点（parent）不存在**、**从中间节点继续写**，并说出每种情况下还剩下什么；
- 用一张图说明：同样在写到一半时崩溃，只追加的 JSONL 最多丢一行；就地**整文件重写**（whole-file rewrite）会丢掉全部历史；而小心的重写（临时文件 + fsync + 改名）虽然不丢，却要为每次追加写出整个文件，而且不留历史；
- 解释为什么追加之前必须先确认文件以换行结尾，否则新条目会和撕裂的最后一行粘成一行（glued line），一起丢失；
- 对每种故障，说出 Pi v0.84.2 实际怎么做（pi 模式，pi mode），以及本课程的教学模型（教学模式，teaching mode）为什么有意做得不同；
- 完成两个练习：`load_diagnostics`（把损坏列成带行号的诊断，diagnostic）和 `append_line`（安全地追加一行）。
""", en="""
## Learning goals

The earlier chapters kept saying that append-only writing plus parent pointers is a "robust" design. This chapter stops arguing and breaks files on purpose, to see exactly where the design is robust and where the reader has to help. After reading and running it you should be able to:

- produce, with your own hands, the four failures of the original course's (whkp/learn-pi) failure table: a **torn last line**, **the same entry appended twice**, **a parent that does not exist**, and **continuing from a middle node**, and say what is left in each case;
- show with one plot that a crash in the middle of a write costs an append-only JSONL file at most one line, an in-place **whole-file rewrite** the entire history, and a careful rewrite (temporary file + fsync + rename) nothing, at the price of writing the whole file on every append and keeping no history;
- explain why an append must first make sure the file ends with a newline, or the new entry is glued onto the torn line and lost with it;
- say, for each failure, what Pi v0.84.2 really does (pi mode), and why this course's teaching model deliberately does something different (teaching mode);
- complete two exercises: `load_diagnostics` (list the damage as diagnostics with line numbers) and `append_line` (append one line safely).
"""),
    code("""
from learn_pi_lab.drawing import draw_roadmap

draw_roadmap("04")  # zh: 本章在全课中的位置 # en: where this chapter sits in the course
"""),
    md(zh="""
## 实验台

规矩只有一条：**`data/` 里的文件一个字节都不改**。每个实验都先把 `data/linear.jsonl` 复制一份到 `scratch_dir("ch04")`（即 `notebooks/.scratch/ch04/`，已被 git 忽略，每次运行本章都会先清空），然后只弄坏这份副本。

读文件用两种模式，它们是本章所有对比的两条腿：

- `mode="teaching"`：教学模型。跳过坏掉的部分，保留其余内容，**并为每个问题给出一条带行号的诊断**（diagnostic）。
- `mode="pi"`：按 Pi v0.84.2 的 `SessionManager` 行为读（`pi-session-format.md` §6、§12b）。坏行悄悄丢掉，不留一句话。

`report()` 是一个小工具：加载文件，打印条目数、叶子（leaf），以及加载器注意到的每一个问题。诊断文字来自课程的消息目录，所以中文版打印中文、英文版打印英文。Pi 自己对损坏一声不吭；在 pi 模式下，课程仍把它注意到的问题列出来，并标上 `[Pi 不作声]`，让你看清 Pi 吞掉了什么。另一个小工具 `in_figure_language(中文, 英文)` 给图挑标题：图里其余的字用什么语言，标题就用什么语言（机器上没有中文字体时，图一律用英文）。这几个小工具在 `learn_pi_lab/course/lab_bench.py` 里，每个只有几行。

先看一眼完好的原件：一条没有分叉的会话（session），从根（root）到叶子一条直线。记住它的条目数和最后几条，后面每个实验都拿损坏后的副本和它比。
""", en="""
## The lab bench

One rule: **not one byte under `data/` changes**. Each experiment first copies `data/linear.jsonl` into `scratch_dir("ch04")` (that is `notebooks/.scratch/ch04/`, ignored by git and emptied every time this chapter runs), then damages only the copy.

Files are read in two modes, and every comparison in this chapter stands on them:

- `mode="teaching"`: the teaching model. It skips what is broken, keeps everything else, **and reports each problem as a diagnostic with a line number**.
- `mode="pi"`: reads the way Pi v0.84.2's `SessionManager` does (`pi-session-format.md` §6, §12b). A bad line is dropped without a word.

`report()` is a small helper: it loads a file and prints the number of entries, the leaf, and every problem the loader noticed. The diagnostic texts come from the course's message catalog, so the Chinese edition prints Chinese and the English edition English. Pi itself says nothing about damage; in pi mode the course still lists what it noticed, marked `[silent in Pi]`, so you can see what Pi swallowed. Another small helper, `in_figure_language(chinese, english)`, picks a drawing's title in the language the rest of the drawing uses (a machine without a Chinese font draws everything in English). These helpers live in `learn_pi_lab/course/lab_bench.py`, a few lines each.

First a look at the intact original: a session with no branches, one straight line from the root to the leaf. Remember its number of entries and its last few entries; every experiment compares a damaged copy with it.
"""),
    code(r'''
import json
import os
import shutil
from pathlib import Path

import matplotlib.pyplot as plt

from IPython.display import display

from learn_pi_lab.course import lab_bench
from learn_pi_lab.course.act import implementation, predict, reveal, use_my_code, your_turn
from learn_pi_lab.course.lab_bench import in_figure_language, report, text_of
from learn_pi_lab.course.paths import data_file, scratch_dir, show_path
from learn_pi_lab.course.rewrite_stores import AtomicRewriteStore, NaiveRewriteStore
from learn_pi_lab.course.text import L, figure_fonts, pad
from learn_pi_lab.drawing import draw_session
from learn_pi_lab.drawing.style import figure_language
from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl.reader import iter_entries_streaming, iter_physical_lines, read_session
from learn_pi_lab.jsonl.writer import append_line, to_json_line
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.session import load_diagnostics, load_session, session_from_text
from learn_pi_lab.session_tree import UnknownTranscriptEntry

figure_fonts()
LAB = scratch_dir("ch04")  # zh: 每次运行都清空；data/ 从不改动 # en: emptied on every run; data/ is never touched


def damaged_copy(new_name: str, source: str = "linear.jsonl") -> Path:
    return lab_bench.damaged_copy(LAB, new_name, source)  # zh: 只弄坏实验台上的副本 # en: only copies on the bench get damaged


print(L("实验台文件夹：", "lab folder:"), show_path(LAB))
'''),
    md(zh="""
**用你自己的代码跑本章。** 本章有三处会用到练习 `append_line`（安全地追加一行）。下面的开关默认用参考实现；等你的 `append_line` 通过检查后，把它改成 `use_my_code(True)`，再从头运行本章：那三处就会改用你的函数（没通过时会注明，并退回参考实现）。
""", en="""
**Run this chapter on your own code.** Three places in this chapter use the exercise `append_line` (append one line safely). The switch below starts with the reference; once your `append_line` passes its checks, change it to `use_my_code(True)` and run the chapter again from the top: those three places then use your function (if it does not pass, a note says so and the reference is used).
""", tags=("your-turn",)),
    code("""
use_my_code(False)   # zh: 你的练习通过后改成 True # en: change to True once your exercises pass
""", tags=("your-turn",)),
    code(r'''
original = report(data_file("linear.jsonl"))
for entry in original.entries[-3:]:
    print(f"  {entry['id']}  parent={entry['parentId']}  {entry['type']:<8} {text_of(entry)[:50]!r}")
draw_session(original, fold_runs=False)
'''),
    md(zh="""
### 反面教材：整文件重写的存储

为了对比，我们再写一个 Pi **没有**选择的设计：整个会话是一个 JSON 数组，存在一个文件里。每次追加都要**读出—修改—写回**（read-modify-write）：读入整个数组，在内存里加一条，再把整个数组写回去。

写回时用 `open(path, "wb")`，而 `"wb"` 在写第一个字节**之前**就把文件清空了。`crash_after` 参数模拟进程在写出若干字节之后被杀掉（`kill -9`、断电）：之后的字节永远不会到达磁盘。

这是一个稻草人，所以我们再放一个**公平的对手**：`AtomicRewriteStore` 先把整个数组写进临时文件，`fsync` 确保字节落盘，再用 `os.replace` 改名盖住旧文件（POSIX 上改名是原子的）。崩溃时磁盘上要么是旧文件，要么是新文件，绝不会是半个。它真正的代价在别处：每次追加都要把整个文件重写一遍（第 01 章的实验一：写入量 O(n)），而且每次改名都用新版本替换旧版本，文件里不留任何历史。Pi 新版的智能体运行框架（harness）里的存储只在偶尔的“快照压缩”（snapshot compaction）时才这样整体重写（§15）。两个存储都在 `learn_pi_lab/course/rewrite_stores.py` 里，各二十来行，值得读一读。
""", en="""
### The counter-example: a store that rewrites the whole file

For contrast we write the design Pi did **not** choose: the whole session is one JSON array in one file. Every append is a **read-modify-write**: read the whole array, add one entry in memory, write the whole array back.

The write-back uses `open(path, "wb")`, and `"wb"` empties the file **before** the first byte is written. The `crash_after` argument simulates the process being killed (`kill -9`, a power cut) after that many bytes: the rest never reaches the disk.

That is a straw man, so a **fair opponent** joins it: `AtomicRewriteStore` writes the whole array to a temporary file, `fsync`s it so the bytes are on disk, then `os.replace`s it over the old file (a rename is atomic on POSIX). A crash leaves either the old file or the new one, never half of one. Its real costs are elsewhere: every append rewrites the whole file (chapter 01, experiment 1: O(n) bytes written), and every rename replaces the previous version, so the file keeps no history. Pi's newer harness storage rewrites a file like this only for an occasional "snapshot compaction" (§15). Both stores live in `learn_pi_lab/course/rewrite_stores.py`, twenty-odd lines each, and are worth a read.
"""),
    code(r'''
intact = original.entries  # zh: data/linear.jsonl 的条目（dict） # en: the entries of data/linear.jsonl, as dicts
store = NaiveRewriteStore(LAB / "session.json")
careful = AtomicRewriteStore(LAB / "careful.json")
for each in (store, careful):
    each.write_all(intact)
    print(show_path(each.path), type(each).__name__, L("读得出", "holds"), each.readable(), L("个条目", "entries"))
'''),
    md(zh="""
## 实验 1：最后一行被撕裂

一个条目是用一次 `write` 写进文件的，但“一次调用”不等于“一次落盘”：进程在写的过程中被杀、机器断电，磁盘上可能只留下这一行的前半截，而且没有结尾的换行符。这就是**被撕裂的最后一行**（torn last line）。

我们用 `os.truncate` 把副本截断在最后一行的正中间，效果和“写到一半崩溃”完全一样：前面的字节都在，最后一行只剩一半。

**改一改，再运行。** `KEEP` 是最后一行写到磁盘上的比例。试试 0.1、0.99，还有 1.0（整行都在，只差结尾的换行）：下一个单元格读出的条目数会变吗？想好了再改。
""", en="""
## Experiment 1: a torn last line

An entry is written with one `write` call, but one call is not one atomic event on disk: if the process is killed or the power fails mid-write, the disk may hold only the first part of the line, with no newline at the end. That is a **torn last line**.

We cut the copy in the middle of its last line with `os.truncate`, which leaves exactly what a crash mid-write leaves: every earlier byte in place, the last line half there.

**Change it and re-run.** `KEEP` is the share of the last line that reached the disk. Try 0.1, 0.99, and 1.0 (the whole line, only its newline missing): does the number of entries read in the next cell change? Decide before you change it.
""", tags=("rerun",)),
    code(r'''
KEEP = 0.5   # zh: 最后一行落盘的比例，改成 0 到 1 之间的值 # en: share of the last line that reached the disk, 0 to 1
torn = damaged_copy("torn.jsonl")
data = torn.read_bytes()
last_line_start = data.rstrip(b"\n").rfind(b"\n") + 1
line_length = len(data) - 1 - last_line_start  # zh: 不算结尾换行 # en: without its newline
cut = last_line_start + int(KEEP * line_length)
os.truncate(torn, cut)  # zh: 崩溃：最后一行只有一部分到了磁盘 # en: the crash: part of the last line reached the disk

print(len(data), L("字节 ->", "bytes ->"), cut, L("字节", "bytes"))
print(L("最后一行现在的结尾：", "the last line now ends with:"), torn.read_bytes()[-40:])
''', tags=("rerun",)),
    code(r'''
after_crash = report(torn)
print()
print(L("崩溃前的条目数：", "entries before the crash:"), len(intact), L("| 崩溃后读得出：", "| readable after it:"), len(after_crash.entries))
print(L("原件最后两个 id：", "the original's last two ids:"), [entry["id"] for entry in intact[-2:]])
print(L("崩溃后的叶子：  ", "the leaf after the crash:  "), after_crash.leaf_id)
draw_session(after_crash, fold_runs=False)
'''),
    md(zh="""
不完整的那一行被丢弃并报告（`torn-last-line`，严重程度是 warning：这是崩溃的正常痕迹，不是谁的错）；它之前的每一个条目都原封不动。叶子自然退回到上一条，就好像最后那次写入从未发生。

图里没有被撕裂的那个条目，因为它根本没能成为一个条目；图下方红色的一行说明了原因。
""", en="""
The incomplete line is dropped and reported (`torn-last-line`, severity warning: it is the normal trace of a crash, nobody's mistake); every entry before it is untouched. The leaf simply falls back to the previous entry, as if the last write had never happened.

The drawing has no node for the torn entry, because it never became an entry; the red line under the tree says why.
"""),
    md(zh="""
### 同一场崩溃，落在整文件重写的设计上

只看“崩在正中间”一个点不够。下面让崩溃依次发生在这次写入的 0%、5%、……、100% 处，每次都数一数读取方还能拿回几个条目：

- **JSONL**：这次写入是追加新的一行，崩溃只能截断这一行；
- **就地重写的数组**（`NaiveRewriteStore`）：这次写入是用 `"wb"` 把整个数组重写一遍；
- **小心重写的数组**（`AtomicRewriteStore`）：先写临时文件、`fsync`，再改名。

**先预测。** 原件有 11 个条目。崩溃发生在这次写入的一半（50%）时，就地重写的数组还能读出几个条目？
""", en="""
### The same crash, on the whole-file-rewrite design

One crash point (the middle) is not enough. Below, the crash happens at 0%, 5%, ..., 100% of the write in turn, and each time we count how many entries a reader still gets back:

- **JSONL**: the write appends one new line, so a crash can only cut that line;
- **the array rewritten in place** (`NaiveRewriteStore`): the write rewrites the whole array with `"wb"`;
- **the array rewritten carefully** (`AtomicRewriteStore`): temporary file, `fsync`, then rename.

**Predict first.** The original has 11 entries. With the crash halfway (50%) through the write, how many entries can a reader still get out of the array rewritten in place?
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 0 到 12 之间的整数 # en: a whole number from 0 to 12
predict("ch04-p1", my_guess)
""", tags=("predict",)),
    code(r'''
next_entry = {"type": "message", "id": "c0ffee01", "parentId": intact[-1]["id"],
              "timestamp": "2026-03-01T11:00:00.000Z",
              "message": {"role": "user", "content": [{"type": "text", "text": "one more question"}],
                          "timestamp": 1772362800000}}
new_line = (to_json_line(next_entry) + "\n").encode("utf-8")
base = data_file("linear.jsonl").read_bytes()
array_bytes = len(json.dumps(intact + [next_entry], ensure_ascii=False).encode("utf-8"))

fractions = [step / 20 for step in range(21)]
kept = {"JSONL": [], "naive": [], "atomic": []}
for fraction in fractions:
    sweep = LAB / "sweep.jsonl"  # zh: JSONL：崩溃截断追加的那一行 # en: JSONL: the crash cuts the appended line
    sweep.write_bytes(base + new_line[:int(fraction * len(new_line))])
    kept["JSONL"].append(len(read_session(sweep).entries))
    for name, each in (("naive", store), ("atomic", careful)):
        each.write_all(intact)  # zh: 数组：崩溃截断这次重写 # en: array: the crash cuts this rewrite
        each.append(next_entry, crash_after=int(fraction * array_bytes))
        kept[name].append(each.readable())

labels = {"JSONL": L("JSONL：追加一行", "JSONL: append one line"),
          "naive": L("数组：就地重写（wb）", "array: rewrite in place (wb)"),
          "atomic": L("数组：临时文件 + fsync + 改名", "array: temp file + fsync + rename")}
fig, ax = plt.subplots(figsize=(7, 3.4))
for (name, values), style in zip(kept.items(), ("o-", "s-", "^--")):
    # zh: 虚线：小心重写和 JSONL 重合的地方也看得见 # en: dashed, so it stays visible where it overlaps JSONL
    ax.plot([100 * f for f in fractions], values, style, label=labels[name],
            markersize=9 if name == "JSONL" else 5)
ax.set_xlabel(L("崩溃点（这次写入完成了百分之几）", "crash point (% of this write done)"))
ax.set_ylabel(L("读取方拿回的条目数", "entries a reader gets back"))
ax.set_ylim(-1, len(intact) + 2)
ax.legend(loc="center left")
ax.set_title(L("一次写入中途崩溃", "A crash in the middle of one write"))
plt.show()

print(pad(L("崩溃点：", "crash at:"), 9), " ".join(f"{100 * f:>3.0f}%" for f in fractions[::4]))
row_label = {"JSONL": "JSONL", "naive": L("就地重写", "naive"), "atomic": L("小心重写", "atomic")}
for name, values in kept.items():
    print(pad(row_label[name], 9), " ".join(f"{v:>4}" for v in values[::4]))
reveal("ch04-p1", kept["naive"][10])
print(L("每次追加写入的字节：JSONL", "bytes written per append: JSONL"), len(new_line),
      L("| 任一数组存储", "| either array store"), array_bytes)
'''),
    md(zh="""
三条线各说了一件事。JSONL 在任何崩溃点都至少保住了原有的全部条目，写完的那一刻再多一条。就地重写的数组除了“恰好写完”那一个点，其余每个崩溃点都是 **0 条**：包括 0%，因为 `"wb"` 在写第一个字节之前就已经清空了文件。这就是原课程那张表里“整文件重写会损坏全部历史”的意思，但它只对就地重写成立。小心重写的数组和 JSONL 一样稳：崩溃时旧文件原封不动。它输在另外两处：每次追加都要写出整个文件（上面最后一行：几十倍的字节，而且随会话变长而增长），并且改名之后旧版本就没了，文件里没有历史可查。

### 后续：下一次追加必须另起一行

崩溃之后，用户重新打开会话接着聊。Pi 加载文件，丢掉撕裂的最后一行，叶子退回上一条，然后把新条目 `JSON.stringify(entry) + "\\n"` **直接追加**到文件末尾（§10）。它不检查文件最后一个字节是不是换行符（§6）。

可文件末尾正是撕裂的那一行的前半截，**没有**换行。于是新条目被粘在这半行后面，变成同一行。先照 Pi 的样子做一次这种“朴素追加”：
""", en="""
Each of the three lines says one thing. At every crash point JSONL keeps at least every entry it had, and one more once the write completes. The array rewritten in place keeps **0** entries at every crash point except "exactly finished", including 0%, because `"wb"` emptied the file before the first byte was written. That is what the original course's table means by "a whole-file rewrite damages the entire history", and it holds only for rewriting in place. The carefully rewritten array is as safe as JSONL: a crash leaves the old file untouched. It loses elsewhere: every append writes the whole file (the last line above: tens of times the bytes, growing with the session), and after the rename the old version is gone, so the file has no history to look back at.

### The follow-up: the next append must start a fresh line

After the crash the user reopens the session and carries on. Pi loads the file, drops the torn line, falls back to the previous leaf, and then appends the new entry as `JSON.stringify(entry) + "\\n"` **straight at the end** of the file (§10). It does not check whether the file's last byte is a newline (§6).

But the last bytes of the file are half of the torn line, with **no** newline. So the new entry is glued onto the torn line and becomes part of the same line. First, do this "naive append" the way Pi does:
"""),
    code(r'''
naive = LAB / "torn-then-naive-append.jsonl"
shutil.copyfile(torn, naive)
resumed = load_session(naive, mode="pi")  # zh: 崩溃之后 Pi 重新打开会话 # en: Pi reopens the session after the crash
next_entry = {**next_entry, "parentId": resumed.leaf_id}

with open(naive, "a", encoding="utf-8") as handle:  # zh: 直接追加，不看最后一个字节 # en: append, no check of the last byte
    handle.write(to_json_line(next_entry) + "\n")

last_line = naive.read_text(encoding="utf-8").splitlines()[-1]
print(L("现在的最后一行：", "the last line is now:"), last_line[:60], "...", last_line[-40:])
print()
for mode in ("pi", "teaching"):
    session = report(naive, mode)
    print("   ", L("新条目", "new entry"), next_entry["id"], L("在读出的条目里：", "among the entries read:"),
          [entry["id"] for entry in session.entries if entry["id"] == next_entry["id"]])
'''),
    md(zh="""
新条目丢了，而且两种模式都救不回来：撕裂的那一行的前半截和新条目拼成了一行。那半行是一个没有写完的对象。按默认的 `KEEP = 0.5`，它停在一个写完的字符串后面（见实验 1 打印的结尾）；解析器读到新条目开头的 `{` 时，本该看到 `,` 或 `}`，于是就在接缝处出错（上面报告里的 `Expecting ',' delimiter`，列号正是新条目的第一个字符）。换一个 `KEEP`，半行可能停在字符串中间，出错的字符会不同，道理却一样：前半截本身不是一个完整的值，读取方找不到可以切开的地方，也就捞不出新条目。（`KEEP = 1.0` 时前半截是完整的一行，只缺换行，那是本章后面“粘连行”要讲的情况。）更糟的是，它不再被当作文件末尾的“崩溃痕迹”：这一行以换行结尾，所以被报告为一条普通的损坏行（`corrupt-line`，error）。在 Pi 里，这一切不会有任何提示：用户刚刚说的话，下次打开会话时就不见了。

修正只需要一个字节：追加之前看一眼文件的最后一个字节，不是 `\\n` 就先写一个 `\\n`。这正是 `append_line` 做的事（也是本章的练习之一）。它只 `seek` 到文件末尾读一个字节，所以代价与文件大小无关，而且前面已写的字节一个都不碰。
""", en="""
The new entry is lost, and neither mode can get it back: the torn half and the new entry now share one line. The half line is an object that was never finished. With the default `KEEP = 0.5` it stops just after a complete string (see the ending printed in experiment 1); when the parser reaches the `{` that starts the new entry, it expects a `,` or a `}`, so it fails right at the join (the `Expecting ',' delimiter` in the report above; the column is the new entry's first character). With another `KEEP` the half line may stop inside a string and the parser fails on a different character, but the reason is the same: the first part is not a complete value on its own, so a reader finds no place to cut the line and cannot fish the new entry out. (With `KEEP = 1.0` the first part is a whole line that only lacks its newline: that case is the glued lines later in this chapter.) Worse, the line no longer counts as a crash trace at the **end** of the file: it ends with a newline, so it is reported as an ordinary corrupt line (`corrupt-line`, error). In Pi none of this produces a message: what the user just said is simply gone the next time the session opens.

The fix is one byte: before appending, look at the file's last byte, and if it is not `\\n`, write a `\\n` first. That is what `append_line` does (it is one of this chapter's exercises). It only `seek`s to the end and reads one byte, so it costs the same for any file size, and it never touches a byte already written.
"""),
    code(r'''
safe = LAB / "torn-then-append-line.jsonl"
shutil.copyfile(torn, safe)
implementation("safe-append")(safe, next_entry)  # zh: append_line：先另起一行 # en: append_line: starts a fresh line first

for mode in ("pi", "teaching"):
    session = report(safe, mode)
    print("   ", L("新条目", "new entry"), next_entry["id"], L("在读出的条目里：", "among the entries read:"),
          [entry["id"] for entry in session.entries if entry["id"] == next_entry["id"]])
print(L("追加写入的字节：", "bytes the append wrote:"), safe.stat().st_size - torn.stat().st_size,
      L("| 新行前面补的那个字节：", "| the byte put in front of the new line:"), safe.read_bytes()[cut:cut + 1])
'''),
    md(zh="""
这一次新条目在两种模式下都活了下来。撕裂的那一行的半截字节仍然留在磁盘上（我们从不改写已写下的内容），现在它是中间的一行，教学模式把它报告为 `corrupt-line`，Pi 则悄悄跳过它。

把两个文件画在一起：左边是朴素追加后 Pi 看到的会话，右边是 `append_line` 之后教学模式看到的会话。
""", en="""
This time the new entry survives in both modes. The half line is still on disk (we never rewrite what has been written); it is now an interior line, which teaching mode reports as `corrupt-line` and Pi skips without a word.

Both files side by side: on the left, the session Pi sees after the naive append; on the right, the session teaching mode sees after `append_line`.
"""),
    code(r'''
display(draw_session(load_session(naive, mode="pi"), fold_runs=False,
                     title=in_figure_language("朴素追加之后，Pi 读到的：新条目没了",
                                              "naive append, read by Pi: the new entry is gone")))
draw_session(load_session(safe), fold_runs=False,
             title=in_figure_language("append_line 之后，教学模式读到的", "append_line, read in teaching mode"))
'''),
    md(zh="""
## 实验 2：同一条目追加了两次

重复写入比想象中常见：写入方在超时后重试，其实第一次已经落盘；同步工具把同一个文件的两个副本合并；扩展（extension）在恢复时重放了一遍事件。于是同一行在文件里出现了两次。

每个条目都有 `id`，它就是天然的**幂等键**（idempotency key）：把同一个条目写两次，意思应该和写一次一样。我们让副本的最后一行原样再出现一次，就像一次重试写入了完全相同的字节：
""", en="""
## Experiment 2: the same entry appended twice

Repeated writes are more common than you might think: a writer retries after a timeout although the first attempt did reach the disk; a sync tool merges two copies of the same file; an extension replays its events on restart. The same line ends up in the file twice.

Every entry has an `id`, and the id is a natural **idempotency key**: writing the same entry twice should mean exactly what writing it once means. We make the copy's last line appear once more, as if a retry wrote the very same bytes again:
"""),
    code(r'''
duplicate = damaged_copy("duplicate.jsonl")
repeated_line = duplicate.read_text(encoding="utf-8").splitlines()[-1]
with open(duplicate, "a", encoding="utf-8") as handle:
    handle.write(repeated_line + "\n")  # zh: 重试：同样的字节再写一次 # en: the retry: the same bytes once more

repeated = json.loads(repeated_line)
teaching = report(duplicate)
print(L("教学模式：", "teaching mode:"),
      L(f"{len(teaching.entries)} 个条目（原件 {len(intact)} 个）",
        f"{len(teaching.entries)} entries (the original has {len(intact)})"))
print(repeated["parentId"], L("的孩子 ->", "has children ->"), [e["id"] for e in teaching.children(repeated["parentId"])])
draw_session(teaching, fold_runs=False)
'''),
    md(zh="""
教学模式在重建时按 id 去重：完全相同的重复被丢掉，并留下一条 `duplicate-entry` 诊断（info：无害，但值得知道）。条目数和原件一样，树的形状也一样；图里被重复写入的那个条目用红框标了出来。

Pi 怎么做？它的 `getEntries()` 把两行都算作条目；按 id 建索引时后一行覆盖前一行；而 `getTree()` 遍历每一行，把（同一个）节点挂到每一行的 `parentId` 下面，于是**同一个孩子出现两次**（§6、§12b）。下面直接按 Pi 的做法数一遍原始的行：
""", en="""
Teaching mode de-duplicates by id when it rebuilds the tree: the identical repeat is dropped and leaves a `duplicate-entry` diagnostic (info: harmless, but worth knowing). The number of entries and the shape of the tree are those of the original; in the drawing, the entry that was written twice is outlined in red.

And Pi? Its `getEntries()` counts both lines as entries; its id index lets the later line overwrite the earlier; and `getTree()` walks every line and hangs the (one) surviving node under each line's `parentId`, so **the same child shows up twice** (§6, §12b). Here is Pi's view, computed the way Pi does it from the raw lines:
"""),
    code(r'''
lines_pi_keeps = [loaded.obj for loaded in iter_entries_streaming(duplicate, mode="pi")][1:]
print("Pi getEntries():", len(lines_pi_keeps), L("个条目", "entries"))
print("Pi getTree():", repeated["parentId"], L("的孩子 ->", "has children ->"),
      [obj["id"] for obj in lines_pi_keeps if obj.get("parentId") == repeated["parentId"]])
'''),
    md(zh="""
再看一个更危险的变体：**同一个 id，内容却不同**（冲突的重复，conflicting duplicate）。这不再是“重试”，而是两段不同的历史抢同一个名字，说明写入方出了真正的问题。教学模式保留第一条，报告一条 error 级别的 `conflicting-duplicate`；Pi 则是后写的那一条赢。
""", en="""
Now a more dangerous variant: **the same id with different content** (a conflicting duplicate). This is no longer a retry: two different pieces of history claim one name, which means something really went wrong in the writer. Teaching mode keeps the first one and reports an error-level `conflicting-duplicate`; in Pi the later line wins.
"""),
    code(r'''
conflict = damaged_copy("conflict.jsonl")
rewritten = json.loads(repeated_line)
rewritten["message"] = {**rewritten["message"],
                        "content": [{"type": "text", "text": L("同一个 id，内容却不同的回答", "a DIFFERENT answer under the same id")}]}
implementation("safe-append")(conflict, rewritten)

for mode in ("teaching", "pi"):
    session = report(conflict, mode)
    print("   ", L("条目", "entry"), repeated["id"], L("现在的内容：", "now says:"), repr(text_of(session.entry(repeated["id"]))[:50]))
'''),
    md(zh="""
整文件重写的设计遇到重复又会怎样？数组本身同样挡不住重试：`append` 两次，数组里就有两份。要清掉它，只能把整个文件重写一遍，而实验 1 刚刚看到，每一次整文件重写都是一次“崩溃就全丢”的窗口。JSONL 则从不为此改写文件：读取方每次读的时候按 id 去重就够了，写入 0 个字节。
""", en="""
What does the whole-file-rewrite design do with a repeat? The array cannot stop a retry either: `append` twice and it holds two copies. Removing one means rewriting the whole file, and experiment 1 just showed that every whole-file rewrite is a window in which a crash loses everything. JSONL never rewrites the file for this: the reader de-duplicates by id on every read, and writes 0 bytes.
"""),
    code(r'''
store.write_all(intact)
store.append(intact[-1])  # zh: 数组存储里的重试 # en: the retry, in the array store
in_array = store.read_all()
print(L("数组存储现在有", "the array store now holds"), len(in_array), L("个条目；", "entries;"),
      intact[-1]["id"], L("有几份：", "copies:"), sum(1 for e in in_array if e["id"] == intact[-1]["id"]))
cleaned = list({entry["id"]: entry for entry in in_array}.values())
print(L("去掉重复，数组存储要重写的字节：", "bytes the array store rewrites to drop the repeat:"), store.write_all(cleaned))
print(L("去掉重复，JSONL 读取方写入的字节：", "bytes the JSONL reader writes to drop it:"), 0)
'''),
    md(zh="""
## 实验 3：父节点不存在

在只追加的文件里，父节点怎么会丢？最常见的是中间某一行坏了（磁盘错误、手工编辑失误），或者某个工具只复制了会话的一部分。Pi 自己就出过这种事：v0.79.2 之前，`/fork` 在新文件里去掉了 `label` 条目却没有重新串链，以标签条目为父的条目全成了孤儿（orphan）：它们都还在新文件里，一个也没丢，只是父指针指向了新文件里没有的标签条目，报告里约一半的条目这样脱离了主干（#5669，§13）。

我们把副本的第 4 行整行删掉，就像这一行从未到达这个文件：
""", en="""
## Experiment 3: a parent that does not exist

How can a parent go missing from an append-only file? Usually an interior line was damaged (a disk error, a slip while editing by hand), or a tool copied only part of a session. Pi did this to itself: before v0.79.2, `/fork` left `label` entries out of the new file without re-chaining, so every entry whose parent was a label became an orphan: all of them were still in the new file, none was lost, but their parent pointers named a label the new file did not have, and in the report about half of the entries were cut off from the trunk this way (#5669, §13).

We delete line 4 of the copy entirely, as if that line had never reached this file:
"""),
    code(r'''
orphaned = damaged_copy("orphan.jsonl")
lines = orphaned.read_text(encoding="utf-8").splitlines(keepends=True)
lost = json.loads(lines[3])
del lines[3]
orphaned.write_text("".join(lines), encoding="utf-8")
print(L("删掉了第 4 行：", "removed line 4:"), lost["id"] + L(f"（{lost['type']}）", f" ({lost['type']})"))

teaching = report(orphaned)
try:
    teaching.branch()
except UnknownTranscriptEntry as error:
    print()
    print("UnknownTranscriptEntry:", explain(error))
    print(L("缺失的 id：", "missing id:"), error.entry_id, L("| 引用它的：", "| named by:"), error.referenced_by)
'''),
    md(zh="""
教学模式照常加载文件，但把悬空的父指针报告为 `dangling-parent`（error，附上行号）；一旦有人要沿着这条路径走（`branch()`、`path_to`），就抛出 `UnknownTranscriptEntry`，**点名**缺失的 id 以及是谁引用了它。孤儿是可见的，它不会悄悄消失，也不会悄悄变成别的东西。

Pi 的做法不同（§6）：孤儿在 `getTree()` 里成了**一个额外的根**，`getBranch()` 和上下文（context）构建走到它就停下。结果是：路径从孤儿开始，孤儿之前的全部历史从模型的上下文里消失，连开头设定的思考级别（thinking level）也退回默认的 `off`，而这一切没有任何提示。
""", en="""
Teaching mode loads the file as usual but reports the dangling parent pointer as `dangling-parent` (error, with the line number). As soon as anyone walks that branch (`branch()`, `path_to`), it raises `UnknownTranscriptEntry`, **naming** the missing id and the entry that refers to it. The orphan is visible: it does not vanish quietly, and it does not quietly turn into something else.

Pi does something else (§6): in `getTree()` the orphan becomes **an extra root**, and `getBranch()` and context building stop when they reach it. So the branch starts at the orphan, all history before it disappears from the model's context, and even the thinking level set at the start falls back to the default `off`, all without a message.
"""),
    code(r'''
pi_view = load_session(orphaned, mode="pi")
pi_branch = pi_view.branch()
print(L("Pi 的分支从这里开始：", "Pi's branch starts at"),
      L(f"{pi_branch[0]['id']}，共 {len(pi_branch)} 个条目（完好的文件：{len(original.branch())} 个）",
        f"{pi_branch[0]['id']} and holds {len(pi_branch)} entries (intact file: {len(original.branch())})"))
print(L("Pi 看到的根：", "roots Pi sees:"), [entry["id"] for entry in pi_view.children(None)])

before, after = build_session_context(original.branch()), build_session_context(pi_branch)
print(L("思考级别：  完好", "thinking level:  intact"), repr(before.thinking_level), L("| 损坏后的 Pi", "| Pi after the damage"), repr(after.thinking_level))
print(L("发出的消息：完好", "messages sent:   intact"), len(before.messages), L("| 损坏后的 Pi", "| Pi after the damage"), len(after.messages))
'''),
    md(zh="""
把两种看法并排画出来。左边是教学模式：缺失的父节点画成红色的 `? id` 节点，孤儿挂在它下面，红框标出受损的条目。右边是 Pi 的 `getTree()` 眼中的同一个文件：两棵互不相干的树，没有一处是红的（图例画在左边，两张图通用）。
""", en="""
The two views side by side. On the left, teaching mode: the missing parent is a red `? id` node, the orphan hangs under it, and a red outline marks the damaged entry. On the right, the same file as Pi's `getTree()` sees it: two unrelated trees, nothing red anywhere (the legend on the left serves both).
"""),
    code(r'''
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 7.5))
draw_session(teaching, ax=left, fold_runs=False,
             title=in_figure_language("教学模式：孤儿看得见", "teaching mode: the orphan is visible"))
draw_session(pi_view.tree, ax=right, fold_runs=False, legend=False,  # zh: 两张图共用一个图例 # en: one legend serves both
             title=in_figure_language("Pi 的 getTree()：多出一个根", "Pi's getTree(): an extra root"))
plt.show()
'''),
    md(zh="""
整文件重写的设计在这里并不更安全：数组里的条目和 JSONL 的条目是同样的数据，丢一个条目、留下一个孤儿的方式完全一样，区别只在**读取方**是报告它还是吞掉它。如果存储还会在下一次重写时“顺手清理”读不通的条目，孤儿那一枝就连磁盘上的字节都没了。只追加的文件至少保证：坏掉的东西原样留在那里，等人来修。

## 实验 4：从中间节点继续写

最后一个“故障”其实根本不是故障，但在整文件重写的线性设计里，它恰恰是最难的一个：回到历史中间的某一条，从那里接着写。

在 JSONL 里，这只是追加一行，它的 `parentId` 指向那个中间节点（第 03 章：分支（branch）= 回退（rewind）+ 追加）。
""", en="""
The whole-file-rewrite design is no safer here: the array holds the same records as the JSONL file, loses one and leaves an orphan in exactly the same way, and the only difference is whether the **reader** reports the orphan or swallows it. If the store also "tidies up" unreachable entries on its next rewrite, the orphaned branch loses even its bytes on disk. An append-only file at least guarantees that what is broken stays there, as it was, until someone repairs it.

## Experiment 4: continuing from a middle node

The last "failure" is no failure at all, yet for a linear store that rewrites the whole file it is the hardest of the four: go back to an entry in the middle of the history and continue from there.

In JSONL it is one appended line whose `parentId` names that middle entry (chapter 03: a branch is a rewind plus an append).
"""),
    code(r'''
continued = damaged_copy("continue.jsonl")
before_bytes = continued.read_bytes()
middle = original.branch()[len(original.branch()) // 2]
print(L("从中间节点继续：", "continue from"), middle["id"] + L(f"（{middle['type']}）：", f" ({middle['type']}): ")
      + repr(text_of(middle)[:50]))

second_try = {"type": "message", "id": "b1a2c3d4", "parentId": middle["id"],
              "timestamp": "2026-03-01T11:05:00.000Z",
              "message": {"role": "user", "content": [{"type": "text", "text": "let's try another way"}],
                          "timestamp": 1772363100000}}
implementation("safe-append")(continued, second_try)

after_bytes = continued.read_bytes()
branched = report(continued)
print(L("追加前的文件大小：", "size before the append:"), len(before_bytes),
      L("| 新文件开头这么多字节与旧文件相同：", "| leading bytes the new file shares with the old:"),
      next((i for i, (a, b) in enumerate(zip(before_bytes, after_bytes)) if a != b), len(before_bytes)),
      L("| 写入的字节：", "| bytes written:"), len(after_bytes) - len(before_bytes))
print(middle["id"], L("的孩子 ->", "has children ->"), [e["id"] for e in branched.children(middle["id"])])
print(L("叶子：", "leaves:"), [e.id for e in branched.tree.leaves()])
draw_session(branched, fold_runs=False)
'''),
    md(zh="""
没有诊断，因为没有任何东西坏了：一棵树多了一个分叉，旧的分支完整地留在那里，随时可以回去。

线性的数组存储没有 `parentId`，“从中间继续”只有两条路，两条都要重写整个文件：

- **截断**：只保留中间节点之前的条目，再追加新的一条。旧分支上后面的条目全部丢失；
- **显式的分支结构**：把数组换成 `{"branches": [...]}` 之类的结构，把共同的前缀复制一份给新分支。条目格式变了，旧数据要迁移，文件里还要再存一份共同的前缀。

下面把三种做法“这一次操作写了多少字节、丢了几个旧条目”算出来：
""", en="""
No diagnostics, because nothing is broken: the tree gained a fork, and the old branch is still there in full, ready to go back to.

A linear array store has no `parentId`, so "continue from the middle" leaves it two ways, and both rewrite the whole file:

- **truncate**: keep the entries up to the middle one, then append the new entry. Everything later on the old branch is lost;
- **an explicit branch structure**: turn the array into something like `{"branches": [...]}` and copy the shared prefix into the new branch. The record format changes, old data needs migrating, and the file stores the shared prefix a second time.

Below, for all three, the bytes this one operation writes and the old entries it loses:
"""),
    code(r'''
cut_at = [entry["id"] for entry in intact].index(middle["id"]) + 1
truncated = intact[:cut_at] + [second_try]
with_branches = {"branches": [intact, intact[:cut_at] + [second_try]]}

ways = {
    L("JSONL：追加一行", "JSONL: append one line"): (len(after_bytes) - len(before_bytes), 0),
    L("数组：截断", "array: truncate"): (store.write_all(truncated), len(intact) - cut_at),
    L("数组：显式分支结构", "array: explicit branches"): (len(json.dumps(with_branches, ensure_ascii=False).encode("utf-8")), 0),
}
for name, (written, lost) in ways.items():
    print(pad(name, 26), f"{L('写入', 'writes')} {written:>6} {L('字节，丢掉', 'bytes, loses')} {lost} {L('个旧条目', 'old entries')}")

fig, ax = plt.subplots(figsize=(7, 2.6))
ax.barh(list(ways), [written for written, _ in ways.values()])
ax.invert_yaxis()
ax.set_xlabel(L("从中间继续要写入的字节", "bytes written to continue from the middle"))
ax.set_title(L("新分支上的一个新条目", "One new entry on a new branch"))
plt.show()
'''),
    md(zh="""
这就是原课程那句话的后半句：“第 4 种需要显式的分支数据结构”。只追加的写法加上父指针，把分支消解在了格式层：格式不需要任何“分支”的概念，分叉只是两个条目恰好有同一个父亲。

## 粘连行：一行里有两个对象

实验 1 的朴素追加把新条目粘在了**撕裂的最后一行**后面，所以连一个完整的对象都捞不出来。还有一种更常见的粘连：上一行本身是完整的，只是缺了结尾的换行符（比如某个工具写文件时没有加最后的 `\\n`）。下一次追加之后，这一行里就是**两个完整的 JSON 对象**首尾相接。

这不是假设：pi-mono 仓库的历史里就有两个真实的会话文件出现过这种行，其中一处是一条助手消息和一个 compaction 条目挤在同一行上（§6、§12）。`data/glued-line.jsonl` 就是按这个样子生成的。
""", en="""
That is the second half of the original course's sentence: "the fourth needs an explicit branch data structure". Append-only plus parent pointers dissolves branching into the format itself: the format needs no notion of a "branch" at all, and a fork is just two entries that happen to share a parent.

## Glued lines: two objects on one line

The naive append in experiment 1 glued the new entry onto a **torn** line, so not even one complete object could be recovered. A more common kind of gluing happens when the previous line is complete but lacks its final newline (a tool wrote the file without the last `\\n`, say). After the next append, that line holds **two complete JSON objects** back to back.

This is not hypothetical: two real session files in the pi-mono repository's history contain such lines; in one of them an assistant message and a compaction entry are squeezed onto one line (§6, §12). `data/glued-line.jsonl` is generated in that shape.
"""),
    code(r'''
glued_path = data_file("glued-line.jsonl")
for number, text, _ in iter_physical_lines(glued_path):
    if "}{" in text:
        at = text.index("}{")
        print(L(f"第 {number} 行：", f"line {number}: ") + f"...{text[at - 40:at + 1]}  <-- {L('这里', 'here')} -->  {text[at + 1:at + 41]}...")
for mode in ("teaching", "pi"):
    print()
    report(glued_path, mode)
'''),
    md(zh="""
两种模式在这里分道扬镳。Pi 对整行调用一次 `JSON.parse`，失败，整行丢掉：**两个**完整的条目一起消失。损失还会向下蔓延：下一行的父节点就在被丢掉的那一行里，于是它在 Pi 眼中成了孤儿（实验 3），会话的叶子连同它所在的分支从根上断开。

教学模式逐个解出这一行里的每个完整 JSON 值，两个条目都保留下来，树完整无缺，再把这一行报告为 `glued-objects`（error：文件确实坏了，应该有人知道）。
""", en="""
Here the two modes part ways. Pi calls `JSON.parse` once on the whole line, it fails, and the line is dropped: **two** complete entries vanish together. And the loss spreads: the next line's parent was on the dropped line, so in Pi's eyes it is now an orphan (experiment 3), and the session's leaf, with its branch, is cut off from the root.

Teaching mode decodes every complete JSON value on the line one after another, keeps both entries, so the tree is whole, and reports the line as `glued-objects` (error: the file really is damaged, and someone should know).
"""),
    code(r'''
display(draw_session(load_session(glued_path, mode="pi"), fold_runs=False,
                     title=in_figure_language("Pi：粘连的那一行整个丢了", "Pi: the glued line is lost")))
draw_session(load_session(glued_path), fold_runs=False,
             title=in_figure_language("教学模式：两个对象都找回来了", "teaching mode: both objects recovered"))
'''),
    md(zh="""
## 新文件：要么完整，要么不存在

追加只是故事的一半。`/fork`、`/clone` 和格式迁移（migration）会写出一个**新**文件；如果写到一半磁盘满了或进程被杀，会剩下什么？最直接的写法是 `open(path, "x")` 然后写：失败时留下半个文件，而下一次重试会因为“文件已存在”被拒绝。课程的 `write_new_file`（`fork`、`migrate` 都用它）先把全部内容写进同一文件夹里的临时文件，`fsync`，再用硬链接（hard link）把它放到目标名字上：链接要么成功、要么失败，而且从不覆盖已有的文件；失败时临时文件被删掉（`docs/limits.md`）。

下面用内核的文件大小上限模拟“写到 1000 字节时磁盘满了”，两种写法各试一次。**先预测**：每种写法之后，目标文件还在吗？有多大？
""", en="""
## New files: whole, or not there at all

Appending is only half the story. `/fork`, `/clone` and migration write a **new** file; what is left if the disk fills up or the process is killed half way? The plain way is `open(path, "x")` and write: a failure leaves half a file, and the retry is refused because "the file exists". The course's `write_new_file` (which `fork` and `migrate` use) writes everything to a temporary file in the same folder, `fsync`s it, then hard-links it to the target name: the link either happens or it does not, and it never replaces an existing file; on failure the temporary file is removed (`docs/limits.md`).

Below, the kernel's file size limit plays "the disk fills up at 1000 bytes", once for each way of writing. **Predict first**: after each one, is the target file there, and how big is it?
"""),
    code(r'''
import errno
import resource
import signal
from contextlib import contextmanager

from learn_pi_lab.jsonl.writer import OutputExists, write_new_file
from learn_pi_lab.pi.navigation import write_fork


@contextmanager
def disk_full_after(limit: int):
    # zh: 写满 limit 字节后内核拒绝再写（EFBIG），就像磁盘满了；退出时恢复原样
    # en: past `limit` bytes the kernel refuses to write (EFBIG), as a full disk would; restored on exit
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old_limit[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)


DISK_FULL_AT = 1000   # zh: 改成别的字节数再运行一次 # en: change the byte count and run again
source = load_session(data_file("linear.jsonl"))
lines = [loaded.text for loaded in source.file.entries]   # zh: 条目原样复制 # en: the entries, byte for byte
text = "".join(line + "\n" for line in [to_json_line(source.header), *lines])

plain_file, copy_file = LAB / "plain-copy.jsonl", LAB / "atomic-copy.jsonl"
with disk_full_after(DISK_FULL_AT):
    try:
        with open(plain_file, "x", encoding="utf-8") as handle:   # zh: 直接写 # en: the plain way
            handle.write(text)
    except OSError as error:
        print(L("直接写：", "plain write:"), errno.errorcode[error.errno])
    try:
        write_new_file(copy_file, source.header, lines)
    except OSError as error:
        print(L("write_new_file：", "write_new_file:"), errno.errorcode[error.errno])
for path in (plain_file, copy_file):
    found = f"{path.stat().st_size} {L('字节', 'bytes')}" if path.exists() else L("不存在", "absent")
    print(f"  {show_path(path)}: {found}")
print(L("临时文件：", "temporary files:"), sorted(p.name for p in LAB.glob(".*.tmp")))

write_new_file(copy_file, source.header, lines)   # zh: 重试不会被拒绝 # en: the retry is not refused
print(L("重试之后：", "after the retry:"), copy_file.stat().st_size, L("字节，完整", "bytes, whole"))
before = copy_file.read_bytes()
last_user = [e["id"] for e in source.entries
             if e.get("type") == "message" and e["message"]["role"] == "user"][-1]
try:
    write_fork(source, last_user, "before", copy_file)
except OutputExists as error:
    print(L("fork 到已有的名字：", "a fork onto a taken name:"), type(error).__name__)
print(L("原有文件的字节：", "the existing file's bytes:"),
      L("一字未改", "unchanged") if copy_file.read_bytes() == before else L("被改了！", "changed!"))
''', tags=("predict", "rerun")),
    md(zh="""
## Pi v0.84.2 遇到其他损坏时怎么做

课程资料里记录了把 Pi v0.84.2 自己的 `SessionManager` 放在 Node 里、对各种损坏文件的副本实际运行的结果（§12b）。摘要如下：

| 损坏 | Pi v0.84.2 的表现 |
|---|---|
| 最后一行被撕裂、结尾有 NUL 字节、中间某行损坏 | 坏行被悄悄丢掉；文件不改写，坏字节留在磁盘上；以坏行为父的条目成了额外的根 |
| 两个对象粘在一行 | 两个对象都丢失 |
| 缺少结尾换行、CRLF 换行、空行或只有空白的行 | 正常加载 |
| 字符串里有非法 UTF-8 | 能加载，坏字节变成 U+FFFD |
| 会话头（header）前面有 UTF-8 BOM | 拒绝：“Session file is not a valid pi session”，文件不动 |
| 空文件（0 字节） | 往里写一个新的会话头 |
| 只有会话头 | 作为空会话加载 |
| 父 id 不在文件里（孤儿） | 成为额外的根；路径和上下文到它为止 |
| 完全相同的条目追加两次 | 两行都算条目；后者在索引中胜出；`getTree()` 里同一个孩子出现两次 |
| 同一个 id、内容不同 | 后写的那一行胜出 |
| 自指（self-parent）、两节点的环（cycle） | `getTree()` 把自指节点当作根，环和它下面的一切从树里消失；`getBranch()` 和 `buildSessionContext()` **永不返回**（数组一直增长，直到 V8 中止进程） |
| 没有 `id` 的一行 | 它成为叶子，id 为 `undefined`：`getBranch()` 为空；可 `buildSessionContext()` 找不到这个叶子时会退回到文件的最后一行，从它往上走，所以上下文**不是**空的（下表最右一列） |

课程的 pi 模式复现这些行为，只有两处例外：凡是 Pi 会死循环的地方，它都停下来，抛出一个点名环的 `ParentCycle`；凡是 Pi 会往文件里写东西的地方（给空文件写一个新的会话头），它改为报错，因为课程读文件时从不写文件。下面在内存里对同一个文件施加其中几种损坏，并排列出两种模式的反应：左边是教学模式的诊断（正是练习 `load_diagnostics` 要返回的东西），右边是 pi 模式加载后得到的结果。
""", en="""
## What Pi v0.84.2 does with other damage

The course material records what Pi v0.84.2's own `SessionManager` did when run under Node on copies of damaged files (§12b). In short:

| Damage | Pi v0.84.2 |
|---|---|
| torn last line, NUL bytes at the tail, corrupt interior line | the bad line is dropped silently; nothing is rewritten, so the damaged bytes stay on disk; an entry whose parent was on the dropped line becomes an extra root |
| two objects glued on one line | both objects are lost |
| missing final newline, CRLF endings, blank or whitespace-only lines | load fine |
| invalid UTF-8 inside a string | loads; the bad bytes become U+FFFD |
| UTF-8 BOM before the header | rejected: "Session file is not a valid pi session"; the file is left alone |
| empty file (0 bytes) | a fresh header is written into it |
| header only | loads as an empty session |
| parent id not in the file (orphan) | becomes an extra root; the branch and the context stop at it |
| identical re-append of an entry | both lines count as entries; the later wins in the index; `getTree()` shows the same child twice |
| same id, different content | the later line wins |
| self-parent, two-node cycle | `getTree()` shows a self-parent as a root, while a cycle and everything below it vanish from the tree; `getBranch()` and `buildSessionContext()` **never return** (an array grows until V8 aborts the process) |
| a line with no `id` | it becomes the leaf with id `undefined`: `getBranch()` is empty; but `buildSessionContext()`, finding no such leaf, falls back to the file's last line and walks up from it, so the context is **not** empty (the last column below) |

The course's pi mode reproduces these, with two exceptions: wherever Pi would loop forever, it stops with a `ParentCycle` error naming the loop; and wherever Pi would write to the file (a fresh header into an empty file), it raises instead, because the course never writes while it reads. Below, several of these kinds of damage are applied in memory to the same file, and the two modes' reactions are listed side by side: on the left the teaching-mode diagnostics (exactly what the exercise `load_diagnostics` returns), on the right what a pi-mode load gives you.
"""),
    code(r'''
from learn_pi_lab.jsonl.reader import NotASessionFile
from learn_pi_lab.session_tree import ParentCycle

clean = data_file("linear.jsonl").read_text(encoding="utf-8")
rows = clean.splitlines()
last = json.loads(rows[-1])
gallery = {
    L("缺少结尾换行", "no final newline"): clean.rstrip("\n"),
    L("CRLF 换行", "CRLF line endings"): clean.replace("\n", "\r\n"),
    L("空行", "blank lines"): "\n".join(rows[:3] + ["", "   "] + rows[3:]) + "\n",
    L("开头有 UTF-8 BOM", "UTF-8 BOM"): "\ufeff" + clean,
    L("中间某行损坏", "corrupt interior line"): "\n".join(rows[:3] + [rows[3][:25]] + rows[4:]) + "\n",
    L("只有会话头", "header only"): rows[0] + "\n",
    L("有一行没有 id", "line without an id"): clean + to_json_line({"type": "custom", "customType": "x",
                                                                      "parentId": last["id"]}) + "\n",
    L("自指", "self-parent"): "\n".join(rows[:-1] + [to_json_line({**last, "parentId": last["id"]})]) + "\n",
    L("两节点的环", "two-node cycle"): "\n".join(rows[:-2] + [to_json_line({**json.loads(rows[-2]), "parentId": last["id"]}),
                                              rows[-1]]) + "\n",
}


def pi_outcome(text: str) -> str:
    try:
        session = session_from_text(text, mode="pi")
        entries, branch = len(session.entries), len(session.branch())
        context = len(session.context().messages)
        return L(f"{entries} 个条目，分支上 {branch} 个，上下文 {context} 条消息",
                 f"{entries} entries, branch of {branch}, context of {context}")
    except NotASessionFile as error:
        return L(f"拒绝（{error.reason}）", f"rejected ({error.reason})")
    except ParentCycle as error:
        return "branch(): ParentCycle " + " -> ".join(error.cycle) + L("（Pi 会卡死）", " (Pi hangs)")


print(pad(L("损坏", "damage"), 22), pad(L("教学模式：load_diagnostics(text)", "teaching: load_diagnostics(text)"), 44),
      L("pi 模式", "pi mode"))
for name, text in gallery.items():
    try:
        found = ", ".join(f"{line}:{code}" for line, code in load_diagnostics(text)) or "-"
    except NotASessionFile as error:
        found = L(f"拒绝（{error.reason}）", f"rejected ({error.reason})")
    print(pad(name, 22), pad(found, 44), pi_outcome(text))
'''),
    md(zh="""
## Pi 怎么做，教学模型怎么做

| 故障 | Pi v0.84.2（pi 模式） | 教学模型（教学模式） |
|---|---|---|
| 最后一行被撕裂 | 悄悄丢掉 | 丢掉，报告 `torn-last-line`（warning） |
| 撕裂的最后一行之后的下一次追加 | 不检查结尾换行，新条目被粘上，一起丢失 | `append_line` 先补一个换行，新条目完好 |
| 两个完整对象粘在一行 | 整行丢掉，两个都丢 | 两个都保留，报告 `glued-objects`（error） |
| 完全相同的重复 | 两行都算条目，`getTree()` 里孩子出现两次 | 按 id 去重，报告 `duplicate-entry`（info） |
| 冲突的重复 | 后者胜出 | 保留第一条，报告 `conflicting-duplicate`（error） |
| 父节点不存在 | 孤儿成为额外的根，上下文从它开始 | 报告 `dangling-parent`；走这条路径时抛出 `UnknownTranscriptEntry`，点名缺失的 id |
| 从中间节点继续 | 新分支 | 新分支 |

两者有一个共同点，这也是整个设计的底线：**读取和追加都不改写已经写下的字节**。Pi 不修复文件，教学模型也不修复；区别在于，教学模型把看到的每一处损坏都说出来，而且在追加前多检查一个字节。准确地说，Pi 只在几种不属于“追加”的场合整个重写文件（§10）：打开 v1、v2 的旧文件时做迁移（第 07 章；v3 文件不受影响），会话头损坏或文件为空时的恢复，以及 `/fork`、`/clone` 写出的新文件。

还有一种崩溃这张表里没有，因为它发生在文件出现之前：新会话的文件要等**第一条助手消息**追加时才创建（§10，第 01 章）。在那之前崩溃，磁盘上什么都没有：
""", en="""
## What Pi does, and what the teaching model does

| Failure | Pi v0.84.2 (pi mode) | Teaching model (teaching mode) |
|---|---|---|
| torn last line | dropped silently | dropped, reported as `torn-last-line` (warning) |
| the next append after a torn line | no check for the final newline: the new entry is glued on and lost | `append_line` writes a newline first; the new entry is intact |
| two complete objects on one line | the line is dropped, both objects lost | both kept, reported as `glued-objects` (error) |
| identical repeat | both lines count; the child shows twice in `getTree()` | de-duplicated by id, reported as `duplicate-entry` (info) |
| conflicting repeat | the later one wins | the first one kept, reported as `conflicting-duplicate` (error) |
| parent does not exist | the orphan becomes an extra root; the context starts there | reported as `dangling-parent`; walking that branch raises `UnknownTranscriptEntry` naming the missing id |
| continue from a middle node | a new branch | a new branch |

The two share one rule, and it is the floor the whole design stands on: **neither reading nor appending rewrites bytes already written**. Pi does not repair the file, and neither does the teaching model; the difference is that the teaching model says out loud what damage it saw, and checks one byte before it appends. Precisely, Pi rewrites a whole file only on occasions that are not appends (§10): when it migrates an old v1 or v2 file on open (chapter 07; v3 files are left alone), when it recovers a file with a broken header or an empty file, and for the new files `/fork` and `/clone` write.

One more crash is missing from this table, because it happens before there is a file: a new session's file is created only when the **first assistant message** is appended (§10, chapter 01). A crash before that leaves nothing on disk:
"""),
    code(r'''
from learn_pi_lab.course.write_path import DeferredSessionFile

fresh = DeferredSessionFile(LAB / "fresh-session.jsonl",
                            {"type": "session", "version": 3, "id": "fresh", "cwd": "/demo"})
fresh.append({"type": "thinking_level_change", "id": "t1", "parentId": None, "thinkingLevel": "high"})
fresh.append({**intact[0], "parentId": "t1"})  # zh: 用户的第一个问题 # en: the user's first question
# zh: 进程在这里被杀：助手还没回答 # en: the process is killed here, before the assistant answers
print(L("在内存里的条目：", "entries in memory:"), len(fresh.in_memory) - 1)
print(L("会话文件夹里的 .jsonl 文件：", ".jsonl files in the session folder:"),
      sorted(path.name for path in LAB.glob("fresh*.jsonl")))
'''),
    md(zh="""
问题和思考级别只在内存里，进程一死就没了，`/resume` 也列不出这个会话。Pi v0.80.9 起，在这个阶段执行 `/fork` 会直接拒绝（“This session has not been saved yet”，§9.2）。
""", en="""
The question and the thinking level were only in memory; once the process dies they are gone, and `/resume` cannot list the session. Since Pi v0.80.9, `/fork` at this stage refuses outright ("This session has not been saved yet", §9.2).
"""),
    md(zh="""
## 练习：`load_diagnostics` 与 `append_line`

在 [`workspace/ch04_failures.py`](../../workspace/ch04_failures.py) 里完成两个函数：

1. **`load_diagnostics(text) -> list[tuple[int | None, str]]`**（练习 id：`load-diagnostics`）。按教学模式读入一个会话文件的全文 `text`，返回它发现的所有问题，每个问题是 `(行号, 代码)`，按行号排序。代码就是本章出现过的那些：`torn-last-line`、`corrupt-line`、`glued-objects`、`duplicate-entry`、`conflicting-duplicate`、`blank-line`、`dangling-parent`……（完整列表见 `docs/diagnostics.md`）。文件层的问题，`learn_pi_lab.jsonl.reader.read_session_text(text).diagnostics` 已经能找出来；你的部分是树层的三种：`dangling-parent`、`self-parent` 和 `cycle`（一个环只报一次，行号取环里最早的那一行）。它们不是逐行就能看出来的：要读完整个文件，才知道某个父 id 在不在。
2. **`append_line(path, obj) -> None`**（练习 id：`safe-append`）。把 `obj` 作为一行 JSON 追加到 `path` 末尾（文件不存在就创建）。如果文件不以 `"\\n"` 结尾，先写一个 `"\\n"`。已经写下的字节一个都不能改；也不要为了看最后一个字节而读入整个文件。

参考实现（reference implementation）上面已经用过：`learn_pi_lab.pi.session.load_diagnostics` 和 `learn_pi_lab.jsonl.writer.append_line`。先自己写，写完运行下面的检查；也可以在终端里运行 `make verify EX=load-diagnostics`。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch04_failures.py`](../../learn_pi_lab/lessons/ch04_failures.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。
""", en=r"""
## Exercises: `load_diagnostics` and `append_line`

Complete two functions in [`workspace/ch04_failures.py`](../../workspace/ch04_failures.py):

1. **`load_diagnostics(text) -> list[tuple[int | None, str]]`** (exercise id `load-diagnostics`). Read the full text of a session file in teaching mode and return every problem found, each as `(line number, code)`, in line order. The codes are the ones this chapter met: `torn-last-line`, `corrupt-line`, `glued-objects`, `duplicate-entry`, `conflicting-duplicate`, `blank-line`, `dangling-parent`, ... (the full list is in `docs/diagnostics.md`). The file-level problems are already found by `learn_pi_lab.jsonl.reader.read_session_text(text).diagnostics`; your part is the three tree-level ones: `dangling-parent`, `self-parent` and `cycle` (one report per loop, at the loop's earliest line). None of them can be seen one line at a time: only after reading the whole file do you know whether a parent id is there.
2. **`append_line(path, obj) -> None`** (exercise id `safe-append`). Append `obj` as one JSON line at the end of `path` (create the file if it is missing). If the file does not end with `"\n"`, write a `"\n"` first. No byte already written may change, and do not read the whole file just to see its last byte.

You have already used the reference versions above: `learn_pi_lab.pi.session.load_diagnostics` and `learn_pi_lab.jsonl.writer.append_line`. Write your own first, then run the check below; in a terminal, `make verify EX=load-diagnostics` does the same. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch04_failures.py`](../../learn_pi_lab/lessons/ch04_failures.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.
"""),
    md(zh="""
**轮到你了。** 下面把本章的两个损坏文件交给**你自己**在 [`workspace/ch04_failures.py`](../../workspace/ch04_failures.py) 里写的函数：`load_diagnostics` 读撕裂的副本和粘连的文件，`append_line` 往撕裂的副本上再追加一条。和上面参考实现的结果对一对。
""", en="""
**Your turn.** Below, this chapter's damaged files go to **your own** functions in [`workspace/ch04_failures.py`](../../workspace/ch04_failures.py): `load_diagnostics` reads the torn copy and the glued file, `append_line` appends once more to a torn copy. Compare with the reference's results above.
""", tags=("your-turn",)),
    code(r'''
for path in (torn, glued_path):
    found = your_turn("load-diagnostics", path.read_text(encoding="utf-8"))
    if found is not None:
        print("   ", show_path(path), found)
mine = LAB / "torn-then-your-append.jsonl"
shutil.copyfile(torn, mine)
if your_turn("safe-append", mine, next_entry) is None and mine.stat().st_size > torn.stat().st_size:
    report(mine)  # zh: 新条目还在吗？ # en: did the new entry survive?
''', tags=("your-turn",)),
    code(r'''
from learn_pi_lab.harness.notebook import check

check("04")
'''),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("04")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- **撕裂的最后一行**只毁掉那一行：读取时丢弃并报告，之前的历史原封不动。同样的崩溃落在“读出—修改—写回”的设计上，除了恰好写完的那一刻，每个崩溃点都丢掉全部历史。
- 崩溃之后的**下一次追加必须另起一行**。Pi 不检查，于是新条目和撕裂的最后一行粘在一起，一起丢失；`append_line` 先看一眼最后一个字节，必要时补一个换行。
- **id 是幂等键**：完全相同的重复在重建时去重（`duplicate-entry`），内容冲突的重复是错误（`conflicting-duplicate`）。Pi 让后者胜出，并在 `getTree()` 里把同一个孩子显示两次。
- **父节点不存在**时，教学模型报告 `dangling-parent`，走到那里就抛出点名缺失 id 的 `UnknownTranscriptEntry`；Pi 把孤儿变成额外的根，上下文悄悄从那里开始。
- **从中间节点继续**只是追加一行，树上长出一个分支；线性的重写式存储要么丢掉旧分支，要么引入显式的分支结构，每次都重写整个文件。
- 所有这些情况的共同底线：已经写下的字节永远不改写。
""", en="""
## Summary

- A **torn last line** costs that one line: the reader drops it and reports it, and the history before it is untouched. The same crash in a read-modify-write design loses the entire history at every crash point except the moment the write completes.
- After a crash, **the next append must start a fresh line**. Pi does not check, so the new entry is glued onto the torn line and lost with it; `append_line` looks at the last byte and writes a newline first when needed.
- **The id is an idempotency key**: an identical repeat is de-duplicated on rebuild (`duplicate-entry`), a repeat with different content is an error (`conflicting-duplicate`). Pi lets the later one win and shows the same child twice in `getTree()`.
- When **a parent does not exist**, the teaching model reports `dangling-parent` and raises `UnknownTranscriptEntry` naming the missing id when a walk reaches it; Pi turns the orphan into an extra root, and the context silently starts there.
- **Continuing from a middle node** is one appended line and the tree grows a branch; a linear rewriting store either loses the old branch or needs an explicit branch structure, rewriting the whole file every time.
- The floor under all of these: bytes already written are never rewritten.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch04-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch04-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch04-q1")
"""),
    code("""ask("ch04-q2")"""),
    code("""ask("ch04-q3")"""),
]
