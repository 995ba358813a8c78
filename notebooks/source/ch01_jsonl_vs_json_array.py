"""Chapter 01: why a session file holds one JSON object per line (seed 000, section 2)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("01", "jsonl-vs-json-array",
                  zh="JSONL 还是 JSON 数组：为什么一行一条记录",
                  en="JSONL vs a JSON array: why one record per line")

CELLS = [
    md(zh="""
## 学习目标

读完并亲手运行本章之后，你应该能够：

- 说清 Pi 的会话（session）文件为什么是 **JSONL**（JSON Lines：一行一个 JSON 对象），而不是一个大的 **JSON 数组**（JSON array）；
- 用你自己跑出来的数字说明三件事：**追加**（append）的代价不随文件变长而变大；读取可以**流式**（streaming）进行；一个坏字节只毁掉一行，而不是整个文件；
- 知道 Pi 遇到读不懂的行时会怎么做（悄悄丢掉），以及本课程的教学读取器为什么坚持报出**行号**；
- 完成练习 `read_jsonl_tolerant`：一个能容忍损坏的逐行读取器。
""", en="""
## Learning goals

After reading this chapter and running its cells yourself, you should be able to:

- explain why a Pi session file is **JSONL** (JSON Lines: one JSON object per line) and not one big **JSON array**;
- back three claims with numbers you measured: an **append** costs the same however long the file is; a file can be read by **streaming** it; one bad byte destroys one line, not the whole file;
- say what Pi does with a line it cannot parse (it drops it without a word), and why this course's teaching reader insists on reporting **line numbers**;
- complete the exercise `read_jsonl_tolerant`: a line reader that survives damage.
"""),
    code("""
from learn_pi_lab.drawing import draw_roadmap

draw_roadmap("01")  # zh: 本章在全课中的位置 # en: where this chapter sits in the course
"""),
    md(zh="""
## 问题：进程退出之后，对话去了哪里？

一个编程智能体（coding agent）的“记忆”，说到底只是进程内存里的一串消息。进程一退出，这串消息就没了。想在下一次启动时接着聊，就必须把它写到磁盘上。这立刻引出两个问题：**存在哪里**，以及**长什么样**。

Pi 的回答是：每个会话一个文件，放在 `~/.pi/agent/sessions/--<编码后的工作目录>--/` 下，文件名是 `<时间戳>_<会话 id>.jsonl`（见 [`docs/pi-session-format.md`](../../docs/pi-session-format.md) §1。这份笔记整理了 Pi 会话格式的事实，本课程里形如 §6 的编号都指它的章节）。文件内容是 **v3 格式**：第一行是会话头（header），之后每一行是一个条目（entry）。

先想清楚会话文件是怎样被使用的，答案就自然了：

- **写**：对话进行中，每来一条用户消息、助手回复或工具结果，Pi 就立刻把它写进文件（§10：每条记录一次 `appendFileSync`）。所以最频繁的操作是“在末尾加一条”；
- **读**：恢复会话、列出历史会话（`/resume`）时，要把文件读回来；
- **出事**：进程可能在写到一半时崩溃，磁盘可能出错，用户可能手动改过文件。

本章就在这三件事上，让两种格式正面比一比。
""", en="""
## The problem: where does the conversation go when the process exits?

A coding agent's "memory" is, in the end, a list of messages in the memory of one process. When the process exits, the list is gone. To pick the conversation up again next time, it has to be written to disk, which raises two questions at once: **where** does it go, and **what does it look like**?

Pi's answer: one file per session, under `~/.pi/agent/sessions/--<encoded working directory>--/`, named `<timestamp>_<session id>.jsonl` (see [`docs/pi-session-format.md`](../../docs/pi-session-format.md) §1; these notes collect the facts about Pi's session format, and every section number like §6 in this course points into them). The content is **format v3**: the first line is the session header, and every line after it is one entry.

The design follows from how the file is used:

- **writing**: while the conversation runs, every user message, assistant reply and tool result is written as soon as it exists (§10: one `appendFileSync` per entry). The most frequent operation by far is "add one record at the end";
- **reading**: resuming a session, or listing past sessions (`/resume`), reads the file back;
- **accidents**: the process can crash halfway through a write, a disk can flip a byte, a user can edit the file by hand.

This chapter sets the two formats against each other on exactly those three things.
"""),
    md(zh="""
### 准备：一段假想的对话

我们先造一些记录。每条记录的形状和 Pi 写的 `message` 记录一样：`type`、8 位十六进制的 `id`、指向上一条的 `parentId`、ISO 时间戳，以及消息本身。id 和时间都是固定算出来的，所以你每次运行看到的输出都相同。

把一个对象写成一行，用的是和 JavaScript `JSON.stringify` 一样的紧凑写法：没有多余空格，中文不转义。
""", en="""
### Setup: a made-up conversation

First we make some records. Each one has the shape of a Pi `message` entry: `type`, an 8-hex-digit `id`, a `parentId` pointing at the previous one, an ISO timestamp and the message itself. Ids and times are computed from the record's number, so the output is the same every time you run it.

An object becomes one line the way JavaScript's `JSON.stringify` writes it: compact, no extra spaces, non-ASCII text left as is.
"""),
    code("""
import json
from datetime import datetime, timedelta, timezone

import matplotlib.pyplot as plt

from learn_pi_lab.course.act import predict, reveal, your_turn
from learn_pi_lab.course.paths import scratch_dir, show_path
from learn_pi_lab.course.text import L, figure_fonts, pad
from learn_pi_lab.i18n import display_width

figure_fonts()   # zh: 让图里的中文用上 CJK 字体 # en: figures can draw Chinese labels too
WORK = scratch_dir("ch01")   # zh: 本章写入和弄坏的文件都放在这个新文件夹里 # en: a fresh folder for the files this chapter writes and damages
START = datetime(2026, 3, 1, 10, 0, 0, tzinfo=timezone.utc)


def make_record(i: int) -> dict:
    # zh: 假想对话的第 i 条，形状和 Pi 的 message 条目一样
    # en: the i-th entry of a made-up conversation, shaped like a Pi `message` entry
    moment = START + timedelta(seconds=i)
    role = "user" if i % 2 == 0 else "assistant"
    return {"type": "message", "id": f"{i:08x}",
            "parentId": f"{i - 1:08x}" if i else None,
            "timestamp": moment.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "message": {"role": role,
                        "content": [{"type": "text", "text": f"turn {i}: " + "lorem ipsum " * 8}],
                        "timestamp": int(moment.timestamp() * 1000)}}


def rpad(text: str, width: int) -> str:
    # zh: 右对齐到 width 个终端列（一个汉字占两列），表头才能和数字对齐；左对齐用 pad
    # en: right-aligned to `width` terminal columns (a Chinese character takes two); pad aligns left
    return " " * max(0, width - display_width(text)) + text


def to_line(obj: dict) -> str:
    # zh: 一个对象写成一行紧凑的 JSON，和 JSON.stringify 一样
    # en: one object as one line of compact JSON, like JSON.stringify
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


print(to_line(make_record(1)))
print(len(to_line(make_record(1)).encode("utf-8")), L("字节/行", "bytes per line"))
print(L("写入位置：", "written to"), show_path(WORK))
"""),
    md(zh="""
### 同样的数据，两种文件

同样三条记录，写成 JSONL 是三行，每行自成一个完整的 JSON 值；写成 JSON 数组则是**一个** JSON 值，方括号把所有记录包在一起。两种文件解析出来的数据完全一样，差别只在“一个值”还是“很多个值”。
""", en="""
### The same data, two files

The same three records written as JSONL are three lines, each one a complete JSON value on its own. Written as a JSON array they are **one** JSON value, the square brackets wrapping every record. Both files parse to identical data; the only difference is one value versus many.
"""),
    code("""
three = [make_record(i) for i in range(3)]
jsonl_text = "".join(to_line(record) + "\\n" for record in three)
array_text = json.dumps(three, separators=(",", ":"), ensure_ascii=False)

print(L("JSONL，每行一个值：", "JSONL, one value per line:"))
for line in jsonl_text.splitlines():
    print("  " + line[:70] + " ...")
print(L("JSON 数组，总共一个值：", "JSON array, one value in total:"))
print("  " + array_text[:70] + " ... " + array_text[-12:])

from_jsonl = [json.loads(line)["id"] for line in jsonl_text.splitlines()]
from_array = [record["id"] for record in json.loads(array_text)]
print(L("JSONL 解析出的 id：", "ids parsed from JSONL:"), from_jsonl)
print(L("数组解析出的 id：  ", "ids parsed from the array:"), from_array)
"""),
    md(zh="""
## 实验一：追加一条记录要写多少字节？

往 JSONL 文件加一条记录，只需把新的一行写到文件末尾，用追加模式（`"a"`）打开文件即可，前面的字节一个都不用碰。

JSON 数组就没这么简单。结尾的 `]` 挡在那里，新记录必须放进括号里面，于是最直接的做法是**读出—修改—写回**（read-modify-write）：读入整个文件，解析成列表，追加，再把整个列表序列化写回去。

> 有人会想到一个小花招：定位到文件末尾的 `]` 之前，写入 `,{新记录}]`。这能省下写入量，但在写的那一瞬间文件不是合法的 JSON；要是此刻崩溃，损坏的是**整个**文件（实验三会看到这意味着什么）。而且读取方还是得一次解析整个数组。

下面两个函数各自完成一次追加，并返回这次**写入磁盘的字节数**。字节数是完全确定的，不受机器快慢影响，所以它是本实验的主要证据。
""", en="""
## Experiment 1: how many bytes does one append write?

Adding a record to a JSONL file means writing one new line at the end: open the file in append mode (`"a"`) and write. Not one earlier byte is touched.

A JSON array is not so easy. The closing `]` is in the way: the new record has to go inside the brackets, so the straightforward way is **read-modify-write**: read the whole file, parse it into a list, append, serialize the whole list and write it back.

> You might think of a trick: seek to just before the final `]` and write `,{new record}]`. That saves bytes, but for the moment of the write the file is not valid JSON, and a crash right then damages the **whole** file (experiment 3 shows what that means). And a reader still has to parse the whole array in one go.

Each function below performs one append and returns the number of **bytes it wrote to disk**. Byte counts are exact and do not depend on how fast the machine is, so they are this experiment's main evidence.
"""),
    code("""
def append_jsonl(path, record: dict) -> int:
    # zh: 在文件末尾写一行，前面的字节一个都不碰
    # en: write one line at the end of the file; earlier bytes are never touched
    data = (to_line(record) + "\\n").encode("utf-8")
    with open(path, "ab") as handle:
        handle.write(data)
    return len(data)


def append_array(path, record: dict) -> int:
    # zh: 读出整个数组，加一条，再把整个数组写回去
    # en: read the whole array, add one record, write the whole array back
    records = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    records.append(record)
    data = json.dumps(records, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    path.write_bytes(data)
    return len(data)
"""),
    md(zh="""
现在往两个空文件里各追加 1000 条记录，记下每一次追加写入的字节数（顺便也记下耗时，稍后单独看）。

**先预测，再运行。** 一行记录大约 300 字节。第 1000 次追加时，JSON 数组那边要写入多少字节？把下面的 `None` 换成你的估计（一个数字），运行它，然后再运行实验。
""", en="""
Now append 1,000 records to each of two empty files, noting how many bytes each append wrote (and, for later, how long it took).

**Predict first, then run.** One record is about 300 bytes as a line. How many bytes does the array's 1,000th append write? Replace `None` below with your estimate (a number), run it, then run the experiment.
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 例如 310000 # en: for example 310000
predict("ch01-p1", my_guess)
""", tags=("predict",)),
    code("""
import time

N_APPENDS = 1000
jsonl_path, array_path = WORK / "grow.jsonl", WORK / "grow.json"
jsonl_bytes, array_bytes, jsonl_seconds, array_seconds = [], [], [], []

for i in range(N_APPENDS):
    record = make_record(i)
    started = time.perf_counter()
    jsonl_bytes.append(append_jsonl(jsonl_path, record))
    jsonl_seconds.append(time.perf_counter() - started)
    started = time.perf_counter()
    array_bytes.append(append_array(array_path, record))
    array_seconds.append(time.perf_counter() - started)

print(L("第几次追加   JSONL 字节    数组字节", "append no.  JSONL bytes  array bytes"))
for n in (1, 10, 100, 500, 1000):
    print(f"{n:>10} {jsonl_bytes[n - 1]:>12,} {array_bytes[n - 1]:>12,}")
print(L("最终文件大小：JSONL", "final file sizes:"), f"{jsonl_path.stat().st_size:,}", L("字节，数组", "vs"),
      f"{array_path.stat().st_size:,}", L("字节", "bytes"))
reveal("ch01-p1", array_bytes[-1], tolerance=0.25)
"""),
    code("""
appends = range(1, N_APPENDS + 1)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))

left.plot(appends, jsonl_bytes, label=L("JSONL：追加一行", "JSONL: append one line"))
left.plot(appends, array_bytes, label=L("JSON 数组：重写整个文件", "JSON array: rewrite the file"))
left.set_xlabel(L("文件里已有的记录数（+1）", "records already in the file (+1)"))
left.set_ylabel(L("这次追加写入的字节数", "bytes written by this append"))
left.set_title(L("一次追加的代价", "Cost of one append"))
left.legend()

def running_total(values):
    total, out = 0, []
    for value in values:
        total += value
        out.append(total / 1e6)
    return out

right.plot(appends, running_total(jsonl_bytes), label="JSONL")
right.plot(appends, running_total(array_bytes), label=L("JSON 数组", "JSON array"))
right.set_xlabel(L("目前追加的记录数", "records appended so far"))
right.set_ylabel(L("累计写入磁盘的 MB", "total MB written to disk"))
right.set_title(L("建成这个文件一共写了多少", "Everything written to build the file"))
right.legend()
fig.tight_layout()
plt.show()
"""),
    md(zh="""
左图是每次追加的代价：JSONL 是一条水平线（每次只写一行，约 300 字节）；数组是一条斜线，第 n 次追加要把前面 n 条全部重写一遍。右图是累计写入量：JSONL 随记录数**线性**增长，数组则是**平方**增长，因为 1 + 2 + … + n = n(n+1)/2。

下面把这个结论算成数字：两个文件最后一样大，但为了得到它们，写入磁盘的总字节数相差几百倍，而且记录越多差得越多。
""", en="""
The left plot is the cost of each append: for JSONL a flat line (each append writes one line, about 300 bytes); for the array a rising line, because append number n rewrites all n records. The right plot is the total written: **linear** in the number of records for JSONL, **quadratic** for the array, since 1 + 2 + … + n = n(n+1)/2.

The same conclusion as numbers: the two files end up the same size, yet the bytes written to disk to produce them differ by a factor of hundreds, and the gap widens with every record.
"""),
    code("""
total_jsonl, total_array = sum(jsonl_bytes), sum(array_bytes)
print(L("JSONL 累计写入", "JSONL wrote in total"), f"{total_jsonl:,}",
      L("字节；文件大小", "bytes; the file size is"), f"{jsonl_path.stat().st_size:,}")
print(L("数组累计写入", "the array wrote in total"), f"{total_array:,}",
      L("字节，是 JSONL 的", "bytes, times JSONL:"), f"{total_array / total_jsonl:.0f}" + L(" 倍", ""))
line = len(to_line(make_record(N_APPENDS - 1)).encode("utf-8"))
print(L("按 n(n+1)/2 行、每行约", "n(n+1)/2 lines of about"), line,
      L("字节估算：", "bytes predicts"), f"{N_APPENDS * (N_APPENDS + 1) // 2 * line:,}")
print(L("JSONL 单次追加最少 / 最多写入：", "fewest / most bytes one JSONL append wrote:"),
      min(jsonl_bytes), "/", max(jsonl_bytes))
"""),
    md(zh="""
### 同一件事，用时间来看

字节数是确定的；时间则每次运行都不一样（机器忙不忙、磁盘缓存状态都有影响），所以下面这个单元格的输出在每台机器上都会略有不同。形状才是重点：JSONL 的耗时是一条平坦的带子，数组的耗时随文件变大而上升，因为每次都要重新解析和序列化整个文件。
""", en="""
### The same thing, measured in time

Byte counts are exact; times differ on every run (how busy the machine is, what the disk cache holds), so the output of the next cell is a little different on every machine. The shape is what matters: JSONL stays a flat band, while the array's time climbs as the file grows, because every append parses and serializes the whole file again.
"""),
    code("""
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(appends, [s * 1e3 for s in array_seconds], ".", markersize=2, label=L("JSON 数组", "JSON array"))
ax.plot(appends, [s * 1e3 for s in jsonl_seconds], ".", markersize=2, label="JSONL")
ax.set_xlabel(L("文件里已有的记录数（+1）", "records already in the file (+1)"))
ax.set_yscale("log")  # zh: 对数坐标：两条线都放得下，偶尔的慢点也不会压扁其余部分 # en: both lines fit, and the odd slow outlier does not flatten the rest
ax.set_ylabel(L("这次追加的毫秒数（对数坐标）", "milliseconds for this append (log scale)"))
ax.set_title(L("每次追加的耗时（每次运行都不同）", "Time per append (varies from run to run)"))
ax.legend()
plt.show()
""", volatile="wall-clock timings differ on every run"),
    md(zh="""
具体的毫秒数因机器而异，但形状不会变。下面打印前 100 次和最后 100 次追加的**中位数**（中位数不怕偶尔的抖动）。读数时问自己两件事：数组的中位数从前到后涨了多少倍？到 1000 条时，它是 JSONL 的多少倍？前 100 次追加加起来只有十来毫秒，机器恰好很忙时数字会跳；计时本来就会抖动，上面的字节数才是确定的证据。
""", en="""
The milliseconds vary by machine; the shape does not. The cell prints the **median** of the first 100 and the last 100 appends (a median shrugs off the odd hiccup). Read two things off it: how many times slower did the array's append become from first to last? At 1,000 records, how many times a JSONL append is it? The first 100 appends take about ten milliseconds altogether, so a busy machine makes those numbers jump; timings wobble by nature, the byte counts above are the exact evidence.
"""),
    code("""
from statistics import median

first, last = slice(0, 100), slice(-100, None)
print(pad(L("中位数（毫秒）", "median (ms)"), 14), rpad(L("前 100 次", "first 100"), 11),
      rpad(L("最后 100 次", "last 100"), 11))
for name, seconds in ((L("JSON 数组", "JSON array"), array_seconds), ("JSONL", jsonl_seconds)):
    print(pad(name, 14), f"{median(seconds[first]) * 1e3:>11.3f}", f"{median(seconds[last]) * 1e3:>11.3f}")
""", volatile="wall-clock timings differ on every run; the byte counts above are exact"),
    md(zh="""
## 实验二：读回来要多少内存？

读 JSONL 可以一行一行来：读一行，解析一行，用完就扔。读 JSON 数组则必须一次把整个文本读进来，再一次解析成完整的对象列表，文本和对象在那一刻**同时**待在内存里。

我们用 Python 自带的 `tracemalloc` 测量**内存峰值**（peak）：做同一件小事（统计每种角色各有几条消息），两种读法，文件从 250 条记录增加到 8000 条。

峰值的确切字节数会随 Python 版本略有出入，所以这两个单元格的数字不在两次运行之间比较；要看的是形状：峰值是跟着文件变大，还是一动不动？
""", en="""
## Experiment 2: how much memory does reading take?

A JSONL file can be read one line at a time: read a line, parse it, use it, let it go. A JSON array has to be read as one text and parsed as one complete list of objects, with the text and the objects in memory **at the same time**.

Python's own `tracemalloc` measures the **peak** memory. The task is small and the same for both (count the messages of each role), the readers differ, and the file grows from 250 to 8,000 records.

The exact peak in bytes shifts a little between Python versions, so these cells' numbers are not compared between runs; read the shape: does the peak follow the file size, or stay put?
"""),
    code("""
import tracemalloc


def count_roles_streaming(path) -> dict:
    roles = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:  # zh: 内存里每次只有一行 # en: one line in memory at a time
            role = json.loads(line)["message"]["role"]
            roles[role] = roles.get(role, 0) + 1
    return roles


def count_roles_whole_array(path) -> dict:
    with open(path, encoding="utf-8") as handle:
        records = json.load(handle)  # zh: 整个文件一次解析 # en: the whole file, parsed at once
    roles = {}
    for record in records:
        role = record["message"]["role"]
        roles[role] = roles.get(role, 0) + 1
    return roles


def peak_bytes(reader, path) -> int:
    tracemalloc.start()
    reader(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


sizes = [250, 500, 1000, 2000, 4000, 8000]
file_bytes, stream_peaks, array_peaks = [], [], []
for n in sizes:
    records = [make_record(i) for i in range(n)]
    as_jsonl, as_array = WORK / f"read-{n}.jsonl", WORK / f"read-{n}.json"
    as_jsonl.write_text("".join(to_line(r) + "\\n" for r in records), encoding="utf-8")
    as_array.write_text(json.dumps(records, separators=(",", ":"), ensure_ascii=False), encoding="utf-8")
    assert count_roles_streaming(as_jsonl) == count_roles_whole_array(as_array)
    file_bytes.append(as_jsonl.stat().st_size)
    stream_peaks.append(peak_bytes(count_roles_streaming, as_jsonl))
    array_peaks.append(peak_bytes(count_roles_whole_array, as_array))

fig, ax = plt.subplots(figsize=(7, 4))
megabytes = [b / 1e6 for b in file_bytes]
ax.plot(megabytes, [p / 1e6 for p in array_peaks], "o-", label=L("json.load 整读数组", "json.load of the whole array"))
ax.plot(megabytes, [p / 1e6 for p in stream_peaks], "o-", label=L("JSONL 逐行读", "JSONL, line by line"))
ax.set_xlabel(L("文件大小（MB）", "file size (MB)"))
ax.set_ylabel(L("读取时的内存峰值（MB）", "peak memory while reading (MB)"))
ax.set_title(L("把文件读一遍需要多少内存", "Memory needed to read the file once"))
ax.legend()
plt.show()
print(rpad(L("记录数", "records"), 7), rpad(L("文件字节", "file bytes"), 12),
      rpad(L("流式峰值", "stream peak"), 12), rpad(L("整读峰值", "array peak"), 12))
for n, size, s, a in zip(sizes, file_bytes, stream_peaks, array_peaks):
    print(f"{n:>7,} {size:>12,} {s:>12,} {a:>12,}")
""", volatile="tracemalloc peaks shift by a few bytes between Python versions"),
    code("""
ratios = [peak / size for peak, size in zip(array_peaks, file_bytes)]
print(L("流式峰值，最小 / 最大：", "streaming peak, smallest / largest:"),
      f"{min(stream_peaks) / 1024:.0f} / {max(stream_peaks) / 1024:.0f} KiB")
print(L("整读峰值是文件大小的几倍：", "whole-array peak as a multiple of the file size:"),
      f"{min(ratios):.1f}x .. {max(ratios):.1f}x")
print(L("文件从 250 条长到 8000 条（32 倍），整读峰值涨了：",
        "the file grew from 250 to 8000 records (32x); the whole-array peak grew"),
      f"{array_peaks[-1] / array_peaks[0]:.0f}x")
""", volatile="tracemalloc peaks shift a little between Python versions"),
    md(zh="""
流式读取的峰值是一条平线：无论文件多大，内存里只有一行。整读数组的峰值随文件线性增长，而且是文件大小的好几倍：原始文本加上解析出来的 Python 对象（每个对象都有额外开销）。

说句公道话：要在内存里**建出整棵会话树**，最终还是得把所有记录都留着，Pi 也是这样做的。流式读取的价值在别处：

- **扫描工具**只需要每个文件的一小部分。`/resume` 列表要看几百个会话文件，每个只取会话头、名称和几条消息；逐行读就不必把几百 MB 的文本整个装进内存；
- **巨大的文件**。Pi 的用户报告过 `/resume` 在 200 MB 以上的会话文件、数 GB 的会话目录上内存耗尽（#4122、#4583 等）；v0.78.1 起列表和加载都改成了按块流式读取（§6、§13）；
- 文本和解析结果**不必同时**待在内存里，峰值因此低得多。
""", en="""
The streaming peak is a flat line: however big the file, memory holds one line. The whole-array peak grows linearly with the file and is several times its size: the raw text plus the parsed Python objects, each with its own overhead.

To be fair: **building the whole session tree** in memory eventually needs every record, and Pi does keep them all. Streaming pays off elsewhere:

- **scanning tools** need only a little of each file. The `/resume` list looks at hundreds of session files, and from each it wants the header, the name and a few messages; reading line by line never holds hundreds of MB of text at once;
- **huge files**. Pi users reported `/resume` running out of memory on 200+ MB session files and multi-GB session folders (#4122, #4583 and others); since v0.78.1 listing and loading read the file in streamed chunks (§6, §13);
- the text and the parsed result never need to be in memory **together**, so the peak is much lower.
"""),
    md(zh="""
### 整个会话装进内存：每个条目多少字节，垃圾回收器在忙什么

建一棵会话树，所有条目都得留在内存里。这有两笔账，下面在一个真实形状的会话上各算一次（这个单元格的数字每次运行都不同，只看比例）：

- **每个条目的内存**：磁盘上一行约 300 字节，解析成 Python 的字典、列表、字符串之后要大好几倍；
- **垃圾回收器**（garbage collector）：Python 每新建几百个容器对象（字典、列表这类能装别的对象的对象；确切的数是 `gc.get_threshold()` 的第一个数，在 Python 3.11 上是 700，更新的版本可能更大），就扫一遍还活着的对象，找没人引用的环（多数时候只扫最新的一代，隔一阵扫全部）。读会话时几十万个对象全都活着，这些扫描全是白费，而且活着的对象越多，每次扫描越贵。

课程的加载器因此在批量读入时暂停回收器、结束后一定恢复（`learn_pi_lab/collector.py`）。Pi 跑在 Node 的 V8 上，对象更紧凑：在 20 万条目的会话上，用标准库的 JSON 解码器，课程的峰值内存约是 Pi 的 1.4 倍，时间约 1.2–1.7 倍；用 msgspec 解码器（装了它就是默认；`decoder="stdlib"` 只用标准库；结果完全相同）内存一样，时间约 0.9–1.2 倍（`bench/README.md`，`make bench` 并排实测；第 07 章会亲手量一次）。

**先预测。** 关掉回收器能省下的时间，是一个固定的比例（选 A），还是随着会话变长越来越多（选 B）？在下面写下 `"A"` 或 `"B"` 并运行，再运行下一个单元格：它按你这台机器上量到的“开/关”比值给出答案。
""", en="""
### A whole session in memory: bytes per entry, and what the garbage collector is doing

Building a session tree keeps every entry in memory. That has two costs, measured here once each on a realistically shaped session (this cell's numbers change on every run; read the ratios):

- **memory per entry**: a line is about 300 bytes on disk, and several times that once parsed into Python dicts, lists and strings;
- **the garbage collector**: every few hundred new container objects (dicts, lists and other objects that hold objects; the exact number is the first of `gc.get_threshold()`: 700 on Python 3.11, possibly more in newer versions), Python scans the objects that are still alive, looking for unreachable cycles (mostly only the youngest generation, every so often all of them). While a session is read, hundreds of thousands of objects are all alive, so every scan is wasted work, and the more that is alive, the more each scan costs.

That is why the course's loader pauses the collector during a bulk load and always restores it afterwards (`learn_pi_lab/collector.py`). Pi runs on Node's V8, whose objects are more compact: on a 200,000-entry session, with the standard library's JSON decoder, the course's peak memory is about 1.4× Pi's and its time about 1.2–1.7×; with the msgspec decoder (the default when it is installed; `decoder="stdlib"` uses the standard library alone; identical results) the memory is the same and the time about 0.9–1.2× (`bench/README.md`, measured side by side by `make bench`; chapter 07 measures it hands-on).

**Predict first.** Is the time saved by switching the collector off a fixed share (A), or does it grow as the session gets longer (B)? Write `"A"` or `"B"` below and run it, then run the next cell: it gives the answer from the on/off ratios measured on your machine.
""", tags=("predict",)),
    code("""
my_guess = None   # zh: "A"（固定的比例）或 "B"（越来越多） # en: "A" (a fixed share) or "B" (it grows)
predict("ch01-p4", my_guess, choices="AB")
""", tags=("predict",)),
    code("""
import gc
import time

from learn_pi_lab.pi.session import load_session

SIZES = (10_000, 20_000, 40_000, 80_000)   # zh: 改一改再运行 # en: change them and run again
header = {"type": "session", "version": 3, "id": "big-session",
          "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/lab"}


def cpu_seconds(work) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


print(rpad(L("条目数", "entries"), 7), rpad(L("回收器开", "collector on"), 13),
      rpad(L("回收器关", "collector off"), 13), rpad(L("开/关", "on/off"), 8))
ratios = []
for count in SIZES:
    big_file = WORK / f"big-{count}.jsonl"
    big_file.write_text("".join(to_line(obj) + "\\n" for obj in [header, *map(make_record, range(count))]),
                        encoding="utf-8")
    lines = big_file.read_text(encoding="utf-8").splitlines()
    keep_all = lambda: [json.loads(line) for line in lines]   # zh: 解析每一行，全部留着 # en: parse every line, keep them all
    gc.collect()
    on = cpu_seconds(keep_all)
    gc.disable()
    try:
        off = cpu_seconds(keep_all)
    finally:
        gc.enable()   # zh: 一定恢复 # en: always restored
    ratios.append(on / off)
    print(f"{count:>7,} {on:>11.2f} s {off:>11.2f} s {on / off:>7.2f}x")
# zh: 最长的会话比最短的多省 20% 以上，才算"越来越多" # en: "it grows" means the longest session saves over 20% more than the shortest
reveal("ch01-p4", "B" if ratios[-1] > 1.2 * ratios[0] else "A")

tracemalloc.start()
session = load_session(WORK / f"big-{SIZES[1]}.jsonl")
in_memory = tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
on_disk = (WORK / f"big-{SIZES[1]}.jsonl").stat().st_size
print(L("每个条目：磁盘上", "per entry: on disk"), f"{on_disk / SIZES[1]:.0f}",
      L("字节，载入后的会话里", "bytes, in the loaded session"), f"{in_memory / SIZES[1]:,.0f}", L("字节", "bytes"))
""", volatile="CPU timings and tracemalloc sizes differ on every run", tags=("predict", "rerun")),
    md(zh="""
## 实验三：坏一个字节，还能救回多少？

磁盘出错、写到一半断电、手工编辑失误，最后都可能表现为文件中间有一个字节不对。我们在两个文件的**正中间**把一个字节换成 NUL（`0x00`）。JSON 里任何位置都不允许出现裸的控制字符（字符串里也不行），所以这一定是一处真正的损坏，而不是碰巧还能解析的改动。

读 JSONL 时，我们先用 Pi 的做法（§6）：按 `\\n` 切行，跳过空行，每行单独解析，**解析失败的行直接丢掉**。
""", en="""
## Experiment 3: one bad byte, how much can be saved?

A disk error, a power cut mid-write, a slip while editing by hand: each can end up as one wrong byte in the middle of a file. We replace the byte at the **exact middle** of each file with NUL (`0x00`). A bare control character is not allowed anywhere in JSON, not even inside a string, so this is real damage, not a change that happens to still parse.

For the JSONL file we first read the way Pi does (§6): split on `\\n`, skip blank lines, parse each line on its own, and **drop any line that does not parse**.
"""),
    code("""
N_RECORDS = 100
records = [make_record(i) for i in range(N_RECORDS)]
good_jsonl = "".join(to_line(r) + "\\n" for r in records).encode("utf-8")
good_array = json.dumps(records, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def damage(data: bytes, offset: int) -> bytes:
    # zh: 同样的字节，只把 offset 处的那个换成 NUL
    # en: the same bytes with the one at `offset` replaced by NUL
    return data[:offset] + b"\\x00" + data[offset + 1:]


def read_like_pi(data: bytes) -> list:
    # zh: Pi 的规则：每行单独解析，解析不了的行悄悄丢掉
    # en: Pi's rule: every line on its own; a line that does not parse is dropped silently
    objects = []
    for line in data.decode("utf-8").strip().split("\\n"):
        if not line.strip():
            continue
        try:
            objects.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return objects


def read_whole_array(data: bytes, explain: bool = False) -> list:
    # zh: JSON 数组是一个值：要么整个解析成功，要么一条都没有
    # en: a JSON array is one value: it parses completely or not at all
    try:
        return json.loads(data.decode("utf-8"))
    except json.JSONDecodeError as error:
        if explain:
            print("  " + L("json.loads 的原始错误：", "json.loads says:"), error)
        return []


bad_jsonl = damage(good_jsonl, len(good_jsonl) // 2)
bad_array = damage(good_array, len(good_array) // 2)
(WORK / "damaged.jsonl").write_bytes(bad_jsonl)
(WORK / "damaged.json").write_bytes(bad_array)

print(L("坏字节在 JSONL 的第几行：", "damaged byte is on JSONL line"), bad_jsonl[:len(good_jsonl) // 2].count(b"\\n") + 1)
print(L("JSONL 按 Pi 的方式读，救回：", "JSONL, read like Pi, records recovered:"), len(read_like_pi(bad_jsonl)), "/", N_RECORDS)
print(L("JSON 数组：", "JSON array:"))
print("  " + L("救回：", "records recovered:"), len(read_whole_array(bad_array, explain=True)), "/", N_RECORDS)
"""),
    md(zh="""
JSONL 丢了 1 条，剩下 99 条完好无损；数组一条也没救回来，因为整个文件只有一个 JSON 值，而这个值已经不合法了。

**改一改，再运行。** 正中间只是一个位置。把下面的 `WHERE` 改成 0 到 1 之间的别的值（0 是文件开头，1 是结尾），再运行这个单元格：救回的条数变了吗？有没有哪个位置让 JSONL 也一条不剩？
""", en="""
JSONL lost 1 record and kept the other 99 intact; the array lost all of them, because the whole file is a single JSON value and that value is no longer valid.

**Change it and re-run.** The middle is just one spot. Set `WHERE` below to another value between 0 and 1 (0 is the start of the file, 1 the end) and run the cell again: does the count change? Is there any spot where JSONL loses everything too?
""", tags=("rerun",)),
    code("""
WHERE = 0.5   # zh: 改成 0 到 1 之间的值，再运行 # en: change to a value between 0 and 1, then run again
at_jsonl = min(int(WHERE * len(good_jsonl)), len(good_jsonl) - 1)
at_array = min(int(WHERE * len(good_array)), len(good_array) - 1)
print(L("坏字节位置：", "bad byte at offset"),
      L(f"{at_jsonl}（JSONL），{at_array}（数组）", f"{at_jsonl} (JSONL), {at_array} (array)"))
print(L("JSONL 救回：", "JSONL records recovered:"), len(read_like_pi(damage(good_jsonl, at_jsonl))), "/", N_RECORDS)
print(L("数组救回：  ", "array records recovered:"), len(read_whole_array(damage(good_array, at_array))), "/", N_RECORDS)
""", tags=("rerun",)),
    md(zh="""
与其一个个位置地试，不如把文件里的**每一个字节**都轮流弄坏一次（每种格式约三万次，需要几秒钟），每次数一数救回了多少条。先预测：在所有这些位置里，JSONL **最少**能救回多少条（满分 100）？
""", en="""
Rather than trying spots one by one, damage **every single byte** of the file in turn (about 29,000 times per format; it takes a few seconds) and count what is saved each time. Predict first: over all those positions, what is the **fewest** records JSONL saves (out of 100)?
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 一个 0 到 100 的数 # en: a number from 0 to 100
predict("ch01-p2", my_guess)
""", tags=("predict",)),
    code("""
saved_jsonl = [len(read_like_pi(damage(good_jsonl, p))) for p in range(len(good_jsonl))]
saved_array = [len(read_whole_array(damage(good_array, p))) for p in range(len(good_array))]

fig, ax = plt.subplots(figsize=(8, 3.5))
ax.plot([100 * p / len(good_jsonl) for p in range(len(good_jsonl))], saved_jsonl, ".",
        markersize=2, label=L("JSONL（按 Pi 的方式读）", "JSONL (read like Pi)"))
ax.plot([100 * p / len(good_array) for p in range(len(good_array))], saved_array, ".",
        markersize=2, label=L("JSON 数组", "JSON array"))
ax.set_xlabel(L("坏字节的位置（文件的百分之几处）", "where the bad byte is (% into the file)"))
ax.set_ylabel(L("救回的记录（满分 100）", "records recovered (of 100)"))
ax.set_ylim(-5, 105)
ax.set_title(L("坏一个字节", "One damaged byte"))
ax.legend(loc="center right")
plt.show()

print(L("逐个字节弄坏：", "damaged every byte in turn:"),
      L(f"{len(good_jsonl):,}（JSONL），{len(good_array):,}（数组）",
        f"{len(good_jsonl):,} JSONL, {len(good_array):,} array"))
print(L("数组救回，最少 / 最多：", "array: records recovered, fewest / most:"), min(saved_array), "/", max(saved_array))
print(L("JSONL 救回，最少 / 最多：", "JSONL: records recovered, fewest / most:"), min(saved_jsonl), "/", max(saved_jsonl))
two_lost = [p for p, saved in enumerate(saved_jsonl) if saved == N_RECORDS - 2]
print(L("JSONL 损失 2 条的位置数：", "JSONL positions that cost 2 records:"), len(two_lost),
      L("| 这些位置上原来的字节：", "| the bytes that were there:"), sorted({good_jsonl[p:p + 1] for p in two_lost}))
reveal("ch01-p2", min(saved_jsonl))
"""),
    md(zh="""
数组无论坏在哪里都是 0 条。JSONL 几乎总是 99 条；只有当坏字节恰好落在两行之间的**换行符**上时是 98 条：两行被粘成了一行，这一行解析失败，两条记录一起丢失。这个“粘连行”现象在第 04 章还会再遇到，而且会以更隐蔽的方式出现：一个结尾没有换行的文件，被下一次追加粘上了新记录。

还有最后一种情况值得单独看一眼：**写到一半时崩溃**。对 JSONL 来说，这只会让最后一行不完整；它前面的每一行都是之前完整写好的，根本没有被这次写入碰过。数组的“读出—修改—写回”则是把整个文件重写一遍，一旦中途崩溃，整个文件都可能只剩半截。
""", en="""
The array saves 0 records wherever the byte lands. JSONL almost always saves 99; it saves 98 only when the bad byte hits the **newline** between two lines: the two are glued into one, that one line fails to parse, and both records are lost. You will meet gluing again in chapter 04, in a sneakier form: a file whose last line has no newline, glued to the next append.

One last case deserves a look of its own: a **crash in the middle of a write**. For JSONL that can only leave the last line incomplete; every line before it was finished earlier and this write never touched it. The array's read-modify-write rewrites the whole file, so a crash partway through can leave the whole file cut in half.
"""),
    code("""
torn_jsonl = good_jsonl[:-150]  # zh: 写最后一行时崩溃 # en: the crash hit while the last line was being written
torn_array = good_array[:len(good_array) // 2]  # zh: 重写数组时崩溃 # en: the crash hit while the array was rewritten
print(L("撕裂的 JSONL 的最后 40 个字节：", "the last 40 bytes of the torn JSONL:"), torn_jsonl[-40:])
print(L("JSONL 救回：", "JSONL records recovered:"), len(read_like_pi(torn_jsonl)), "/", N_RECORDS)
print(L("数组救回：  ", "array records recovered:"), len(read_whole_array(torn_array)), "/", N_RECORDS)
"""),
    md(zh="""
## Pi 怎么做，教学模型怎么做

Pi v0.84.2 的读取规则（`pi-session-format.md` §6、§12b）就是上面 `read_like_pi` 的样子：逐行解析，**解析不了的行悄悄丢掉**，不提示、不记录，磁盘上的坏字节也原样留着。这样做的好处是会话总能打开；坏处是你不会知道丢了什么。如果丢掉的那一行恰好是某个条目的父节点（parent），它的孩子就会变成一个多出来的根（root，第 02、04 章会细说），上下文（context）也就从那里断开了。

本课程的教学模型在这一点上**有意比 Pi 做得更好**：同样跳过坏行、保留其余的行，但会为每个问题给出一条带**行号**的诊断（diagnostic）。看看参考实现（reference implementation）`read_jsonl_tolerant` 对同一个损坏文件的报告：
""", en="""
## What Pi does, and what the teaching model does

Pi v0.84.2 reads exactly like `read_like_pi` above (`pi-session-format.md` §6, §12b): each line on its own, and **a line that does not parse is dropped without a word**: no warning, no log, and the bad bytes stay on disk. The upside is that a session always opens; the downside is that you never learn what was lost. If the lost line held an entry's parent, that entry turns into an extra root (chapters 02 and 04 look closer), and the context is cut off there.

On this point the course's teaching model **deliberately does better than Pi**: it skips the bad line too and keeps every other line, but it reports each problem as a diagnostic with a **line number**. Here is what the reference `read_jsonl_tolerant` says about the same damaged file:
"""),
    code("""
from learn_pi_lab.jsonl.reader import read_jsonl_tolerant

objects, problems = read_jsonl_tolerant(bad_jsonl.decode("utf-8"))
print(L("保留的对象：", "objects kept:"), len(objects))
print(L("问题（行号，代码）：", "problems (line, code):"), problems)

objects, problems = read_jsonl_tolerant(torn_jsonl.decode("utf-8"))
print(L("撕裂的文件，保留的对象：", "torn file, objects kept:"), len(objects))
print(L("撕裂的文件，问题：", "torn file, problems:"), problems)
"""),
    md(zh="""
**轮到你了。** 下面的单元格把同一个损坏的文件交给**你自己**在 [`workspace/ch01_jsonl.py`](../../workspace/ch01_jsonl.py) 里写的 `read_jsonl_tolerant`。还没动手时，它会说明这还是练习模板；写好之后再运行，把你的输出和上面参考实现的输出对一对。
""", en="""
**Your turn.** The cell below hands the same damaged file to **your own** `read_jsonl_tolerant` in [`workspace/ch01_jsonl.py`](../../workspace/ch01_jsonl.py). Before you have written it, it says it is still the stub; once you have, run it again and compare your output with the reference's above.
""", tags=("your-turn",)),
    code("""
mine = your_turn("tolerant-reader", bad_jsonl.decode("utf-8"))
if mine is not None:
    objects, problems = mine
    print(L("保留的对象：", "objects kept:"), len(objects))
    print(L("问题（行号，代码）：", "problems (line, code):"), problems)
""", tags=("your-turn",)),
    md(zh="""
坏在中间的行报为 `corrupt-line`（错误），崩溃留下的半行报为 `torn-last-line`（警告：它在最后、没有换行结尾，正是写到一半的样子）。有了行号，你就能打开文件直接看那一行，而不是在几千行里猜。

`read_jsonl_tolerant` 的问题代码只有四种：

| 代码 | 何时出现 |
|---|---|
| `blank-line` | 空行，或只有空白字符的行：跳过 |
| `corrupt-line` | 中间某行解析失败：丢弃这一行，其余照常 |
| `torn-last-line` | 最后一行解析失败，且文件不以换行结尾：写到一半的行 |
| `not-an-object` | 这一行能解析，但不是 JSON 对象（比如 `[1,2]` 或 `42`） |

最后这一点也别忘了：JSONL 不是万能的。它放弃了“就地修改”：改一条旧记录就得重写文件。所以 Pi 在对话进行中从不改旧记录，只追加（append-only）新记录（第 02、03 章会看到这个约束如何塑造了整个会话树）。准确地说，Pi 只在少数几种情况下整个重写文件（§10）：打开一个旧版本（v1、v2）的会话文件时做格式迁移（migration，第 07 章），会话头损坏或文件为空时的恢复，以及 `/fork`、`/clone` 写出的**新**文件。这些都不是“追加一条记录”，而且迁移对已经是 v3 的文件什么也不做。找某一条记录也得从头读。对于一次写成、很少改动的配置文件，JSON 数组或对象完全够用；会话文件却是一个不停增长的日志（log），这正是 JSONL 的主场。
""", en="""
The bad line in the middle is reported as `corrupt-line` (an error); the half line a crash left behind as `torn-last-line` (a warning: it is the last line and has no final newline, exactly what an interrupted write looks like). With a line number you can open the file and look at that line, instead of guessing among thousands.

`read_jsonl_tolerant` knows four problem codes:

| code | when |
|---|---|
| `blank-line` | an empty or whitespace-only line: skipped |
| `corrupt-line` | a line in the middle does not parse: that line is dropped, the rest is kept |
| `torn-last-line` | the last line does not parse and the file does not end with a newline: a half-written line |
| `not-an-object` | the line parses, but is not a JSON object (say `[1,2]` or `42`) |

One more thing to keep in mind: JSONL is no silver bullet. It gives up editing in place: changing an old record means rewriting the file. So while a conversation runs, Pi never changes an old record, it only appends new ones (chapters 02 and 03 show how that one rule shapes the whole session tree). Precisely, Pi rewrites a whole file in only a few cases (§10): when it opens an old-version (v1, v2) session file and migrates it (chapter 07), when it recovers a file with a broken header or an empty file, and for the **new** files `/fork` and `/clone` write. None of these is "append one record", and migration does nothing to a file that is already v3. Finding one record means reading from the top. For a config file written once and rarely changed, a JSON array or object is perfectly fine; a session file is an ever-growing log, and that is where JSONL shines.
"""),
    md(zh="""
## Pi 的第一次写入被推迟了

还有一种崩溃，和文件格式无关，却真实地丢过数据。Pi 并不是一开始就创建会话文件：新会话先只在内存里，**直到第一条助手（assistant）消息追加进来**，文件才出现，一次写入会话头和之前的所有条目；从那以后每个条目追加一行（§10）。如果进程在第一条回复之前就崩溃了（比如模型调用卡住时你按了 Ctrl+C 两次，或者机器断电），你的第一个问题以及之前选过的模型、思考级别（thinking level）都不会留在磁盘上。

`DeferredSessionFile` 是这条规则的一个小模型。先预测：用户提问、换模型之后、助手回答之前，磁盘上有几行？
""", en="""
## Pi's first write is deferred

One more crash has nothing to do with the file format, yet it really loses data. Pi does not create the session file right away: a new session lives only in memory **until the first assistant message is appended**. Then the file appears, written in one go with the header and every entry so far; from then on, each entry is one appended line (§10). If the process dies before the first reply (you press Ctrl+C twice while the model call hangs, or the power goes), your first question and the model and thinking level you chose are not on disk anywhere.

`DeferredSessionFile` is a small model of that rule. Predict first: after the user's question and a model change, before the assistant answers, how many lines are on disk?
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 一个整数 # en: a whole number
predict("ch01-p3", my_guess)
""", tags=("predict",)),
    code("""
from learn_pi_lab.course.write_path import DeferredSessionFile

new_session = DeferredSessionFile(WORK / "new-session.jsonl",
                                  {"type": "session", "version": 3, "id": "s1", "cwd": "/demo"})
steps = [
    ("model_change", {"type": "model_change", "id": "m1", "parentId": None, "modelId": "demo-model"}),
    ("user", make_record(0) | {"id": "u1", "parentId": "m1"}),
    ("assistant", make_record(1) | {"id": "a1", "parentId": "u1"}),
    ("user", make_record(2) | {"id": "u2", "parentId": "a1"}),
]
on_disk = []
for name, entry in steps:
    new_session.append(entry)
    on_disk.append(new_session.lines_on_disk())
    print(f"{L('追加', 'appended')} {name:<13} {L('磁盘上的行数：', 'lines on disk:')} {on_disk[-1]}")
reveal("ch01-p3", on_disk[1])
"""),
    md(zh="""
前两次追加之后磁盘上一行都没有：这时崩溃，问题和模型选择都丢了，`/resume` 里也找不到这个会话。第一条助手消息到来时，文件一次出现四行（会话头和三个条目），之后每次追加一行。Pi v0.76.0 起，第一次写入用“独占创建”（`wx`）打开文件，已经存在就失败，避免了早期版本把会话头写两遍的问题（#1672）。本课程的 `SessionWriter` 每来一个条目就立即追加一行，没有这段只在内存里的时间。
""", en="""
After the first two appends there is nothing on disk: a crash now loses the question and the model choice, and `/resume` does not list the session at all. When the first assistant message arrives the file appears with four lines at once (the header and three entries); after that, one line per append. Since Pi v0.76.0 the first write opens the file with exclusive create (`wx`), which fails if the file already exists; that ended older versions' habit of writing the header twice (#1672). This course's `SessionWriter` appends each entry as it comes, with no such in-memory stretch.
"""),
    md(zh="""
## 练习：`read_jsonl_tolerant`

打开 [`workspace/ch01_jsonl.py`](../../workspace/ch01_jsonl.py)，实现 `read_jsonl_tolerant(text) -> (objects, problems)`：

- `text` 是整个文件的内容（字符串）。按行处理，行号从 1 开始，按**物理行**计；
- `objects`：按文件顺序，每一个成功解析出来的 JSON **对象**（会话头也算）；
- `problems`：`[(行号, 代码), ...]`，按行号顺序，代码只用上表中的四种；
- 空行报 `blank-line`；解析失败的行，如果是最后一行**且**文本不以 `"\\n"` 结尾，报 `torn-last-line`，否则报 `corrupt-line`；能解析但不是对象的行报 `not-an-object`；
- 注意：以 `"\\n"` 结尾的文本，最后那个换行之后**没有**一个空行；
- 永远不抛异常：坏输入只产生 problems。注意 `json.loads` 失败时不只抛 `JSONDecodeError`：一行嵌套太深（比如十万个 `[`）时它抛的是 `RecursionError`，这一行也算 `corrupt-line`。

提示：用 `text.split("\\n")`，不要用 `splitlines()`：后者还会在 `\\r`、`\\x0c` 和一些罕见的 Unicode 分隔符处切行，行号就和文件对不上了。CRLF 文件每行末尾的 `\\r` 不必特别处理，`json.loads` 会把它当作空白忽略。

写完后运行下面的单元格检查。在你动手之前，它会显示练习“未开始”，这是正常的。也可以在终端运行 `make verify EX=tolerant-reader`。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch01_jsonl.py`](../../learn_pi_lab/lessons/ch01_jsonl.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。
""", en="""
## Exercise: `read_jsonl_tolerant`

Open [`workspace/ch01_jsonl.py`](../../workspace/ch01_jsonl.py) and implement `read_jsonl_tolerant(text) -> (objects, problems)`:

- `text` is the whole file as a string. Work line by line; line numbers start at 1 and count **physical** lines;
- `objects`: every JSON **object** that parsed, in file order (the header counts too);
- `problems`: `[(line_no, code), ...]` in line order, using only the four codes in the table above;
- a blank line is `blank-line`; a line that does not parse is `torn-last-line` if it is the last line **and** the text does not end with `"\\n"`, otherwise `corrupt-line`; a line that parses to something other than an object is `not-an-object`;
- careful: a text ending in `"\\n"` has **no** empty line after that final newline;
- never raise: bad input only produces problems. Note that `json.loads` does not only raise `JSONDecodeError`: on a line nested too deep (a hundred thousand `[`, say) it raises `RecursionError`, and that line is a `corrupt-line` too.

Hint: use `text.split("\\n")`, not `splitlines()`: the latter also splits at `\\r`, `\\x0c` and some rare Unicode separators, and your line numbers would no longer match the file. The `\\r` at the end of each line of a CRLF file needs no special care: `json.loads` ignores it as whitespace.

When you are done, run the cell below to check your work. Before you start it shows the exercise as not started; that is expected. In a terminal, `make verify EX=tolerant-reader` does the same. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch01_jsonl.py`](../../learn_pi_lab/lessons/ch01_jsonl.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.
"""),
    code("""
from learn_pi_lab.harness.notebook import check

check("01")
"""),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("01")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- 会话文件最频繁的操作是在末尾加一条记录。JSONL 每次只写一行，代价与文件长度无关；JSON 数组必须读出—修改—写回，累计写入量随记录数平方增长（实验一）。
- JSONL 可以逐行流式读取，内存峰值只有一行那么大；整读数组的峰值是文件大小的数倍（实验二）。Pi 的 `/resume` 曾因整读巨大的会话文件而内存耗尽，后来改成了流式读取。
- 一个坏字节只毁掉 JSONL 的一行（碰上换行符是两行），却会毁掉整个数组；写到一半崩溃，也只会让 JSONL 的最后一行不完整（实验三）。
- Pi 悄悄丢掉读不懂的行；教学模型同样保留其余的行，但报出带行号的诊断。
- 新会话的文件要等第一条助手消息才出现：在那之前崩溃，问题和设置都不在磁盘上。
- 代价：JSONL 不适合就地修改。所以 Pi 从不改旧行，这条规则决定了下一章的会话树只能“认父不认子”。
""", en="""
## Summary

- The most frequent operation on a session file is adding one record at the end. JSONL writes one line, at a cost independent of the file's length; a JSON array must be read, modified and written back, so the total written grows with the square of the record count (experiment 1).
- JSONL can be streamed line by line with a peak memory of one line; reading a whole array peaks at several times the file size (experiment 2). Pi's `/resume` once ran out of memory reading huge session files whole, and now streams them.
- One bad byte destroys one JSONL line (two if it hits a newline) but the whole array; a crash mid-write leaves at most JSONL's last line incomplete (experiment 3).
- Pi drops lines it cannot parse without a word; the teaching model also keeps every other line, but reports a diagnostic with a line number.
- A new session's file appears only with the first assistant message: a crash before that leaves the question and the settings nowhere on disk.
- The price: JSONL is bad at editing in place. So Pi never changes an old line, and that rule is why the session tree of the next chapter knows only parents, never children.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch01-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch01-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch01-q1")
"""),
    code("""ask("ch01-q2")"""),
    code("""ask("ch01-q3")"""),
]
