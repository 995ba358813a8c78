"""Chapter 08: design your own session store (seed 001's advice, course-design idea 8)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("08", "design-your-own",
                  zh="设计你自己的会话存储",
                  en="Design your own session store")

CELLS = [
    md(zh="""
## 学习目标

前七章一直在**读** Pi 保存会话（session）的设计。这最后一章把它变成你可以带走、用在自己程序里的几条规则，每一条都用实验来证明，也都对照 Pi 踩过的坑。学完之后你能：

- 说明为什么“一棵树一个文件、只追加（append-only）”，并看到它在磁盘上意味着什么；
- 用一个具体的反例说明为什么条目（entry）里不能存“第几轮”（turn number）这种位置信息；
- 区分进入上下文（context）的条目和只存档的条目（`sendMessage` 对 `appendEntry`，即 `custom_message` 对 `custom`），并把压缩（compaction）也当作一个条目；
- 写一个有状态的扩展（extension），让它的扩展状态（extension state）**从当前分支（current branch）重建**，而不是留在内存里跟着用户跑偏；
- 把存储藏在一个只有两个方法的接口后面，换后端（backend：内存、文件，甚至 SQLite）而结果不变；
- 针对 Pi 已知的上游问题（并发写入、巨大的状态快照、撕裂行粘连）说出你的设计怎么应对；
- 完成练习 `MemoryBackend`、`FileBackend` 和 `rebuild_extension_state`。
""", en="""
## Learning goals

For seven chapters we have been **reading** Pi's design. This last chapter turns it into rules you can take away and use in your own programs, proves each rule with an experiment, and holds each one against a pitfall Pi has actually hit. By the end you can:

- explain "one tree per file, append only" and see what it means on disk;
- show with a concrete counter-example why an entry must not store position information such as a "turn number";
- separate entries that enter the context from entries that are only archived (`sendMessage` versus `appendEntry`, that is `custom_message` versus `custom`), and treat compaction as one more entry;
- write a stateful extension whose state is **rebuilt from the current branch** instead of living in memory and drifting away from the user;
- put storage behind an interface with two methods and swap the backend (memory, file, even SQLite) without changing any result;
- say how your design handles Pi's known upstream problems (concurrent writers, giant state snapshots, glued torn lines);
- complete the exercises `MemoryBackend`, `FileBackend` and `rebuild_extension_state`.
"""),
    code("""
from learn_pi_lab.drawing import draw_roadmap

draw_roadmap("08")  # zh: 本章在全课中的位置 # en: where this chapter sits in the course
"""),
    md(zh="""
## 本章的工具：一个小小的会话存储

`learn_pi_lab.store` 是参考实现（reference implementation），两百多行，一半是说明，值得整个读一遍。它分三层：

- **后端**只有两个方法：`append(obj)` 在末尾存一个对象，`read_all()` 按顺序取回全部。没有“修改”，没有“删除”。`MemoryBackend` 把对象存在列表里，`FileBackend` 存成一个 JSONL 文件；
- **`SessionStore(backend)`** 在后端之上维护一棵 `TranscriptTree`：`append(类型, 载荷)` 挂在当前叶子（current leaf）下面，`move_leaf(id)` 回退（rewind），`branch()` 取当前分支，`context()` 算出模型看到的东西；
- **`rebuild_extension_state(路径上的条目, custom_type)`**：把某个扩展的状态从一条分支上折叠出来。

为了让每次运行的输出都一样，时钟和随机数都是固定的。下面先准备几个小帮手：一个每次走 9 秒的时钟、一个建存储的函数、一个“说一句话”的函数。
""", en="""
## This chapter's tool: a small session store

`learn_pi_lab.store` is the reference implementation, about 250 lines (half of them explanation) and worth reading in full. It has three layers:

- a **backend** has two methods: `append(obj)` stores one object at the end, and `read_all()` gives back all of them in order. There is no "update" and no "delete". `MemoryBackend` keeps the objects in a list; `FileBackend` keeps them as one JSONL file;
- **`SessionStore(backend)`** keeps a `TranscriptTree` on top of a backend: `append(kind, payload)` hangs an entry below the current leaf, `move_leaf(id)` rewinds, `branch()` returns the current branch, and `context()` works out what the model sees;
- **`rebuild_extension_state(path_entries, custom_type)`** folds one extension's state out of a branch.

To make every run print the same thing, the clock and the randomness are fixed. First a few small helpers: a clock that advances 9 seconds per tick, a function that makes a store, and one that "says" something.
"""),
    code(r'''
import itertools
import json
import random
from datetime import datetime, timedelta, timezone

from learn_pi_lab.course.act import implementation, predict, reveal, use_my_code, your_turn
from learn_pi_lab.course.paths import scratch_dir, show_path
from learn_pi_lab.course.text import L, figure_fonts, pad, pad_left
from learn_pi_lab.store import FileBackend, MemoryBackend, SessionStore, rebuild_extension_state

figure_fonts()
SCRATCH = scratch_dir("ch08")


def ticking_clock():
    # zh: 假时钟：从 2026-03-02 09:00:00 UTC 开始，每调用一次晚 9 秒
    # en: a fake clock: 2026-03-02 09:00:00 UTC, then 9 seconds later on every call
    ticks = itertools.count()
    return lambda: datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc) + timedelta(seconds=9 * next(ticks))


def new_store(backend, seed: int = 8, clock=None) -> SessionStore:
    return SessionStore(backend, clock=clock or ticking_clock(), rng=random.Random(seed),
                        cwd="/home/learner/payments")


def say(store: SessionStore, role: str, text: str, **extra) -> str:
    # zh: 在叶子下追加一条用户或助手消息，返回它的 id
    # en: append one user or assistant message below the leaf; return its id
    message = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1772442000000}
    if role == "assistant":
        message.update(api="anthropic-messages", provider="anthropic",
                       model="claude-sonnet-4-5", stopReason="stop")
    return store.append("message", {**extra, "message": message})


def text_of(entry: dict) -> str:
    content = entry.get("message", {}).get("content") or entry.get("content") or ""
    return content if isinstance(content, str) else content[0]["text"]


print(L("准备好了；草稿文件写到", "ready; scratch files go to"), show_path(SCRATCH))
'''),
    md(zh="""
**用你自己的代码跑本章。** 规则 6 的剧本用到练习 `MemoryBackend` 和 `FileBackend`。下面的开关默认用参考实现；你的两个后端通过检查后，改成 `use_my_code(True)` 再从头运行本章。
""", en="""
**Run this chapter on your own code.** Rule 6's script uses the exercises `MemoryBackend` and `FileBackend`. The switch below starts with the reference; once your two backends pass their checks, change it to `use_my_code(True)` and run the chapter again from the top.
""", tags=("your-turn",)),
    code("""
use_my_code(False)   # zh: 你的后端通过后改成 True # en: change to True once your backends pass
""", tags=("your-turn",)),
    md(zh="""
## 规则 1：一棵树一个文件，只追加

第 01、02 章证明了两件事：JSONL 追加一行是常数时间，崩溃最多丢最后一行；只存 `parentId` 才能让分支永远不改旧行。放进一个存储里检验一遍：在文件后端上做五轮对话，回到第 3 轮之前换个问法，再继续。每一步之后都检查“旧文件是不是新文件的前缀”：
""", en="""
## Rule 1: one tree per file, append only

Chapters 01 and 02 proved two things: appending a JSONL line costs the same at any size, and a crash costs at most the last line; storing only `parentId` is what lets a branch leave every old line alone. Let's check both inside a store: five turns on a file backend, then back to before turn 3 to ask differently, and on from there. After every step, check that the old file is a prefix of the new one:
"""),
    code(r'''
story_path = SCRATCH / "story.jsonl"
story = new_store(FileBackend(story_path))
snapshots = [story_path.read_bytes()]
turns = []
for n in range(1, 6):
    question = say(story, "user", L(f"问题 {n}", f"Question {n}"))
    answer = say(story, "assistant", L(f"回答 {n}", f"Answer {n}"))
    turns.append((question, answer))
    snapshots.append(story_path.read_bytes())

story.move_leaf(turns[1][1])  # zh: 回到第 2 轮的回答 # en: back to the answer of turn 2
retry_text = L("问题 3，换个问法", "Question 3, asked differently")
say(story, "user", retry_text)
say(story, "assistant", L("回答 3，第二次尝试", "Answer 3, second try"))
snapshots.append(story_path.read_bytes())

def changed_old_bytes(old: bytes, new: bytes) -> int:
    # zh: 旧文件里有多少字节在新文件中变了 # en: how many of the old file's bytes differ in the new one
    return sum(1 for a, b in zip(old, new) if a != b) + max(0, len(old) - len(new))


print(L("文件里的行数：", "lines in the file:"), len(story_path.read_text(encoding="utf-8").splitlines()))
print(L("每一步后的文件大小：", "file size after each step:"), [len(snapshot) for snapshot in snapshots])
print(L("每一步改动的旧字节：", "old bytes changed by each step:"),
      [changed_old_bytes(old, new) for old, new in zip(snapshots, snapshots[1:])])
print(L("叶子（每条分支一个）：", "leaves (one per branch):"), [entry.id for entry in story.tree.leaves()])
print(L("当前分支：", "current branch:"), " | ".join(text_of(e) for e in story.branch()))
'''),
    md(zh="""
两个分支在同一个文件里，彼此共享前两轮，文件只长不改。画出来：
""", en="""
Both branches live in the same file, sharing the first two turns, and the file only ever grew. Drawn:
"""),
    code(r'''
from learn_pi_lab.drawing import draw_session

draw_session(story.tree)
'''),
    md(zh="""
另一种做法是“复制一份重开”：每次想换个方向，就把共同的前缀拷进一个新文件。Pi 的 `/fork` 正是这样（有时你确实想要一个干净的新文件），但如果**每一次**回头都这样做，共享的历史会被一遍遍地复制，而且分支之间的关系散落在一堆文件里，只剩会话头（header）里的 `parentSession` 指回去。

下面比较两种做法的磁盘占用：一个 20 轮的会话，从第 10 轮之后回头重试 k 次，每次重试两条新消息。

**改一改，再运行。** `RETRY_AFTER` 是从第几轮之后回头。改成 2 或 19 再运行：两条线的差距会怎样变？为什么？
""", en="""
The alternative is "copy and start over": whenever you want a new direction, copy the shared prefix into a new file. That is what Pi's `/fork` does (and sometimes a clean new file is exactly what you want), but doing it for **every** retry copies the shared history again and again, and scatters the relation between branches over many files, linked only by the `parentSession` in each header.

Below, the disk usage of both approaches: a 20-turn session, retried k times after turn 10, each retry adding two new messages.

**Change it and re-run.** `RETRY_AFTER` is the turn after which you go back. Set it to 2 or 19 and run again: how does the gap between the lines change, and why?
""", tags=("rerun",)),
    code(r'''
import matplotlib.pyplot as plt

from learn_pi_lab.jsonl.writer import to_json_line

long_store = new_store(MemoryBackend(), seed=20)
ids = [say(long_store, role, f"{role} {n}: " + "details " * 30)
       for n in range(1, 21) for role in ("user", "assistant")]
objects = long_store.backend.read_all()
header_bytes = len(to_json_line(objects[0]).encode()) + 1
line_bytes = [len(to_json_line(obj).encode()) + 1 for obj in objects[1:]]
RETRY_AFTER = 10  # zh: 从第几轮之后回头（1 到 19） # en: go back after this turn (1 to 19)
whole = header_bytes + sum(line_bytes)
prefix = header_bytes + sum(line_bytes[:2 * RETRY_AFTER])  # zh: 共享的前缀 # en: the shared prefix
retry = line_bytes[20] + line_bytes[21]  # zh: 每次重试两条新消息 # en: two new messages per retry

retries = range(0, 21)
one_file = [whole + k * retry for k in retries]
copies = [whole + k * (prefix + retry) for k in retries]
fig, ax = plt.subplots(figsize=(7.5, 3.6))
ax.plot(retries, [b / 1000 for b in one_file], label=L("一棵树一个文件（/tree 再追加）", "one tree per file (/tree, then append)"))
ax.plot(retries, [b / 1000 for b in copies], label=L("每次重试一个新文件（复制前缀）", "a new file per retry (copy the prefix)"))
ax.set_xlabel(L(f"从第 {RETRY_AFTER} 轮之后重试的次数", f"retries from turn {RETRY_AFTER}"))
ax.set_ylabel(L("磁盘上的 kB", "kB on disk"))
ax.set_title(L("20 轮的会话，重试 k 次", "20-turn session, retried k times"))
ax.legend()
plt.show()
print(L("重试 20 次之后：一个文件", "after 20 retries: one file"), f"{one_file[-1]:,}",
      L("字节，复制", "bytes, copies"), f"{copies[-1]:,}", L(f"字节（{copies[-1] / one_file[-1]:.1f} 倍）", f"bytes ({copies[-1] / one_file[-1]:.1f}x)"))
''', tags=("rerun",)),
    md(zh="""
## 规则 2：条目要自包含，不存“第几轮”

一个条目应当只带它自己的东西：`id`、`parentId`、`timestamp`、`type` 和载荷（payload）。“这是第几轮”看起来也是条目自己的属性，其实不是：它是条目**在某条分支上的位置**，而位置取决于你沿哪条分支数。只要用户 fork 一次，存进去的位置就错了。

做个实验。一个应用在每条消息里存 `"turn"`，用一个全局计数器，每来一个问题加一。聊了 8 轮之后，用户发现第 6 轮的决定错了（原课程 whkp/learn-pi 讲的正是这个故事），于是回到第 6 轮之前重新问。

**先预测。** 重新问的那个问题，应用会给它存 `"turn"` 等于几？
""", en="""
## Rule 2: self-contained entries, no "turn number"

An entry should carry only what is its own: `id`, `parentId`, `timestamp`, `type` and its payload. "Which turn is this" looks like a property of the entry too, but it is not: it is the entry's **position on some branch**, and the position depends on which branch you count along. The first time the user forks, a stored position is wrong.

An experiment. An app stores `"turn"` in every message, from a global counter that goes up by one per question. After 8 turns the user finds that turn 6's decision was wrong (the very story the original course, whkp/learn-pi, tells), and goes back to before turn 6 to ask again.

**Predict first.** What `"turn"` will the app store on the question asked again?
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 一个整数 # en: a whole number
predict("ch08-p1", my_guess)
""", tags=("predict",)),
    code(r'''
turn_store = new_store(MemoryBackend(), seed=6)
counter = 0
answers = {}


def ask_with_turn(text: str) -> str:
    # zh: 应用的朴素设计：一个全局计数器，存进每条消息
    # en: the app's naive design: a global counter, stored in each message
    global counter
    counter += 1
    say(turn_store, "user", text, turn=counter)
    answers[counter] = say(turn_store, "assistant", L(f"回答：{text}", f"answer to: {text}"), turn=counter)
    return answers[counter]


for n in range(1, 9):
    ask_with_turn(L(f"问题 {n}", f"question {n}"))
turn_store.move_leaf(answers[5])  # zh: 回到第 6 轮之前 # en: back to before turn 6
ask_with_turn(L("问题 6，换个问法", "question 6, asked differently"))


def turn_on_branch(entry_id: str) -> int:
    # zh: 读取时推导出的轮数：路径上用户消息的个数
    # en: the turn derived at read time: user messages on the path to this entry
    return sum(1 for e in turn_store.branch(entry_id) if e["message"]["role"] == "user")


print(f"{pad(L('条目', 'entry'), 16)} {pad(L('内容', 'text'), 41)} "
      f"{pad_left(L('存的轮数', 'stored turn'), 11)} {pad_left(L('分支上的轮数', 'turn on its branch'), 19)}")
for entry in turn_store.branch()[-6:]:
    derived = turn_on_branch(entry["id"])
    flag = L("  <- 错了", "  <- wrong") if entry["turn"] != derived else ""
    print(f"{entry['id']:<16} {pad(text_of(entry), 41)} {entry['turn']:>11} {derived:>19}{flag}")
reveal("ch08-p1", turn_store.branch()[-2]["turn"])
'''),
    md(zh="""
新的问题在它的分支上是第 6 轮，存进去的却是 9。换一种算法，“父节点的轮数加一”，能不能救回来？在同一个树上算一遍：
""", en="""
The new question is turn 6 on its branch, yet 9 was stored. Would another rule, "the parent's turn plus one", rescue it? Computed on the same tree:
"""),
    code(r'''
from collections import defaultdict

parent_plus_one = {}
for entry in turn_store.tree.entries:  # zh: 文件顺序：父节点总在前面 # en: file order: a parent always comes first
    parent = entry.parent_id
    is_user = entry.payload["message"]["role"] == "user"
    parent_plus_one[entry.id] = (parent_plus_one[parent] if parent else 0) + (1 if is_user else 0)

claims = defaultdict(list)
for entry in turn_store.tree.entries:
    if entry.payload["message"]["role"] == "user":
        claims[parent_plus_one[entry.id]].append(entry.id)
mismatches = [e.id for e in turn_store.tree.entries if parent_plus_one[e.id] != turn_on_branch(e.id)]
print(L("与分支上的轮数不一致的条目：", "entries that disagree with the turn on their branch:"), mismatches)
print(L("自称「第 6 轮」的用户消息：", "user messages that now claim to be 'turn 6':"), claims[6])
'''),
    md(zh="""
第二种算法在每条分支上都自洽，但“第 6 轮”在文件里已经指两个不同的条目了：日志里写的“见第 6 轮”、标签（label）里存的“第 6 轮”都变得含糊。再加上 `/fork` 只拷贝一段路径、`/export` 重新串链、压缩把前面的轮次换成摘要，任何存下来的“位置”迟早会和真实位置对不上。

**结论：身份用 `id`，位置在读取时从路径上算出来。** 条目只存永远不会变的东西。
""", en="""
The second rule is consistent along every branch, but "turn 6" now names two different entries in the file: a log line saying "see turn 6", or a label storing "turn 6", becomes ambiguous. Add `/fork` copying just one path, `/export` re-chaining entries, and compaction replacing early turns by a summary, and any stored "position" will sooner or later disagree with the real one.

**Conclusion: identity is the `id`; position is computed at read time from the path.** An entry stores only what will never change.
"""),
    md(zh="""
## 规则 3：区分“进上下文”和“只存档”

不是所有值得记下来的东西都该让模型看到。Pi 给扩展开了两个口子（§3.2）：

| 扩展的调用 | 写下的条目 | 进入 LLM 上下文？ | 适合存什么 |
|---|---|---|---|
| `pi.sendMessage(msg)` | `custom_message` | **是**（作为一条 user 消息） | 要模型知道的提醒、注入的资料 |
| `pi.appendEntry(type, data)` | `custom` | **否**，永远不进 | 审计信息：权限确认的结果、扩展的内部状态、外部 API 调用的元数据（metadata） |

两种都是树上的节点，都跟着分支走，区别只在构建上下文时。试一试：在当前分支上各写一条，再看分支和上下文：
""", en="""
## Rule 3: separate "in the context" from "archive only"

Not everything worth recording should be shown to the model. Pi gives extensions two outlets (§3.2):

| Extension call | Entry written | In the LLM context? | Good for |
|---|---|---|---|
| `pi.sendMessage(msg)` | `custom_message` | **yes** (as a user message) | reminders and material the model should know |
| `pi.appendEntry(type, data)` | `custom` | **no**, never | audit information: the outcome of a permission prompt, an extension's internal state, metadata of an external API call |

Both are nodes of the tree and both follow the branch; they differ only when the context is built. Let's write one of each on the current branch and compare the branch with the context:
"""),
    code(r'''
from learn_pi_lab.pi.context import convert_to_llm

reminder = story.append("custom_message", {"customType": "payments-guard",
                                           "content": L("卡号绝不能出现在日志里。", "Card numbers must never reach the logs."),
                                           "display": True})
audit = story.append("custom", {"customType": "permissions",
                                "data": {"tool": "bash", "command": "pytest -q", "granted": True}})

branch_ids = [entry["id"] for entry in story.branch()]
context = story.context()
in_context = [message["entryId"] for message in context.messages]
for entry_id in (reminder, audit):
    kind = story.tree[entry_id].kind
    print(f"{entry_id}  {kind:<15} {L('在分支上：', 'on the branch: ')}{L('是', 'yes') if entry_id in branch_ids else L('否', 'no')}   "
          f"{L('在上下文里：', 'in the context: ')}{L('是', 'yes') if entry_id in in_context else L('否', 'no')}")
print(L("提醒发给模型的内容：", "what the provider receives for the reminder:"), convert_to_llm(context.messages)[-1]["content"])
'''),
    md(zh="""
## 规则 4：压缩也是一个条目

压缩（compaction）不是“把文件改短”，而是**再追加一个条目**：`summary` 加上 `firstKeptEntryId`（第 06 章）。好处是重建上下文时只需沿着条目走，不需要任何额外的状态文件；而且压缩本身也在树上，只影响它所在的分支。

在当前分支上追加一次压缩，保留从第二次尝试的第 3 轮开始的内容，然后比较三个位置上的上下文：压缩之后、压缩之前、以及另一个分支的叶子：
""", en="""
## Rule 4: compaction is an entry too

Compaction does not "make the file shorter"; it **appends one more record**: a `summary` plus a `firstKeptEntryId` (chapter 06). So rebuilding the context means walking the entries and nothing else, with no extra state file; and the compaction sits in the tree, so it affects only its own branch.

Append a compaction on the current branch that keeps everything from the second attempt at turn 3, then compare the context at three places: after the compaction, before it, and at the leaf of the other branch:
"""),
    code(r'''
before_compaction = story.leaf_id
retry_question = next(e["id"] for e in story.branch() if text_of(e) == retry_text)
compaction = story.append("compaction", {
    "summary": "Turns 1-2: the user wants charge() split up; the first idea was dropped.",
    "firstKeptEntryId": retry_question, "tokensBefore": 5200, "fromHook": False})
other_leaf = turns[-1][1]  # zh: 第一条分支上第 5 轮的回答 # en: the answer of turn 5 on the first branch

for where, leaf in [(L("压缩之后", "after the compaction"), compaction),
                    (L("压缩之前", "before it"), before_compaction),
                    (L("另一条分支", "the other branch"), other_leaf)]:
    roles = [message["role"] for message in story.context(leaf).messages]
    print(f"{pad(where, 21)} " + L(f"{len(roles):>2} 条消息：", f"{len(roles):>2} messages: ") + ", ".join(roles))
'''),
    md(zh="""
同一个文件，三种上下文，全都从条目里直接算出来。回到压缩之前的某个点，就能重新看到完整的历史，因为什么都没被删掉。

## 规则 5：有状态的扩展，从当前分支重建状态

这是最容易写错的一条。设想一个待办清单（todo list）扩展：它在对话过程中记录任务的状态，并用 `custom` 条目把每次变化存下来（只存档，不进上下文）。最自然的写法是在内存里放一个字典，每次变化时更新它，顺便写一个条目：
""", en="""
One file, three contexts, each computed directly from the entries. Go back to a point before the compaction and the full history is there again, because nothing was deleted.

## Rule 5: stateful extensions rebuild their state from the current branch

This is the rule people get wrong most often. Picture a todo-list extension: it tracks the state of tasks during the conversation and stores each change in a `custom` entry (archive only, not in the context). The most natural way to write it keeps a dict in memory, updates it on every change, and writes a record as it goes:
"""),
    code(r'''
class NaiveTodoExtension:
    # zh: 状态只在内存里，再也不看分支：fork 之后就错了
    # en: keeps its state in memory and never looks at the branch again: wrong after a fork

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.todos: dict = {}

    def change(self, **updates: str) -> None:
        self.todos.update(updates)  # zh: 内存里的状态…… # en: state in memory ...
        self.store.append("custom", {"customType": "todo", "data": updates})  # zh: ……和磁盘上的 # en: ... and on disk


todo_store = new_store(MemoryBackend(), seed=5)
naive = NaiveTodoExtension(todo_store)

say(todo_store, "user", "Refactor charge() in payments/checkout.py.")
naive.change(read_checkout="open", split_charge="open")
say(todo_store, "assistant", "I have read checkout.py; charge() does three jobs.")
naive.change(read_checkout="done")
rewind_here = todo_store.leaf_id
say(todo_store, "user", "Use one strategy class per payment method.")
naive.change(strategy_classes="open")
say(todo_store, "assistant", "Done: CardStrategy, PaypalStrategy, InvoiceStrategy.")
naive.change(strategy_classes="done", split_charge="done")
abandoned_leaf = todo_store.leaf_id

# zh: 第 4 轮：策略模式的主意错了。回到它之前（/tree），走另一条路。
# en: turn 4: the strategy idea was wrong. Go back before it (/tree) and take the other road.
todo_store.move_leaf(rewind_here)
say(todo_store, "user", "Never mind the classes. Use small composed functions.")
naive.change(compose_functions="open")

print(pad(L("内存里的朴素状态：", "naive state in memory:"), 25), naive.todos)
print(pad(L("从分支重建的状态：", "rebuilt from the branch:"), 25), rebuild_extension_state(todo_store.branch(), "todo"))
'''),
    md(zh="""
内存里的状态说 `split_charge` 已经完成，还有一个 `strategy_classes`，可这两件事只发生在**被放弃的分支**上。当前分支上，`split_charge` 仍然是 `open`，根本没有策略类。`rebuild_extension_state` 沿当前分支把这个扩展的 `custom` 条目按顺序折叠（`dict.update`），得到的才是对的。

Pi 的文档给扩展作者的建议就是这个：把状态写进条目（或工具结果的 `details`），在 `session_start` 这类时刻**沿当前分支重算**。原因就是树：用户随时可能 `/tree` 或 `/fork`，内存里的状态属于上一条分支。每条分支都有自己的状态，下面逐个叶子算一遍：
""", en="""
The state in memory says `split_charge` is done and lists `strategy_classes`, but both happened only on the **abandoned branch**. On the current branch `split_charge` is still `open` and there are no strategy classes at all. `rebuild_extension_state` folds this extension's `custom` entries along the current branch, in order (`dict.update`), and gets it right.

That is exactly what Pi's documentation advises extension authors: write the state into entries (or a tool result's `details`) and **recompute it along the current branch** at moments such as `session_start`. The reason is the tree: the user may `/tree` or `/fork` at any time, and the state in memory belongs to the previous branch. Every branch has its own state; here it is for each leaf:
"""),
    code(r'''
for leaf in [entry.id for entry in todo_store.tree.leaves()]:
    where = L("被放弃的分支", "abandoned branch") if leaf == abandoned_leaf else L("当前分支", "current branch")
    print(L(f"叶子 {leaf}（{where}）：", f"leaf {leaf} ({where}):"), todo_store.extension_state("todo", leaf))
'''),
    md(zh="""
### 状态条目该多大：快照还是增量

`rebuild_extension_state` 用 `dict.update` 折叠，所以每个 `custom` 条目**只需要写变化的那几个键**（增量），不用每次都写整个状态（快照）。这不只是省空间：上游有人报告过一个扩展每次都追加完整的状态快照，会话里光 `custom` 条目就有 3.6 GB（§13）。每次写全量，总量随更新次数**平方**增长。

模拟一个清单：300 次更新，每次新增或修改一项；比较两种写法追加的总字节数，并确认两者重建出的状态相同：
""", en="""
### How big should a state entry be: snapshots or deltas

`rebuild_extension_state` folds with `dict.update`, so each `custom` entry **only needs the keys that changed** (a delta), not the whole state every time (a snapshot). This is not just about saving space: upstream, one extension appended a complete state snapshot on every change, and a session collected 3.6 GB of `custom` entries alone (§13). Writing everything every time makes the total grow with the **square** of the number of updates.

Simulate a list with 300 updates, each adding or changing one item; compare the total bytes appended by the two designs, and check that both rebuild the same state:
"""),
    code(r'''
rng = random.Random(300)
state, snapshot_entries, delta_entries = {}, [], []
for step in range(300):
    key = f"task-{rng.randrange(step + 1):03d}"  # zh: 多半是新任务，有时是旧的 # en: often a new task, sometimes an old one
    change = {key: rng.choice(["open", "in progress", "done"])}
    state.update(change)
    snapshot_entries.append({"type": "custom", "customType": "todo", "data": dict(state)})
    delta_entries.append({"type": "custom", "customType": "todo", "data": change})


def cumulative_kb(entries):
    total, out = 0, []
    for entry in entries:
        total += len(to_json_line(entry).encode()) + 1
        out.append(total / 1000)
    return out


fig, ax = plt.subplots(figsize=(7.5, 3.6))
ax.plot(cumulative_kb(snapshot_entries), label=L("每个条目写完整快照", "full snapshot in every entry"))
ax.plot(cumulative_kb(delta_entries), label=L("只写变化（增量）", "only the change (delta)"))
ax.set_xlabel(L("更新次数", "updates"))
ax.set_ylabel(L("追加的 kB", "kB appended"))
ax.set_title(L("扩展状态：写快照还是写增量", "Extension state written as snapshots vs deltas"))
ax.legend()
plt.show()

from_snapshots = rebuild_extension_state(snapshot_entries, "todo")
from_deltas = rebuild_extension_state(delta_entries, "todo")
same = from_snapshots == from_deltas
print(L(f"从快照和从增量重建出的状态{'相同' if same else '不同'}：{len(from_deltas)} 个任务",
        f"the state rebuilt from snapshots and from deltas is {'the same' if same else 'different'}: "
        f"{len(from_deltas)} tasks"))
print(L("字节：快照", "bytes: snapshots"), f"{cumulative_kb(snapshot_entries)[-1]:.0f} kB" + L("，增量", ", deltas"),
      f"{cumulative_kb(delta_entries)[-1]:.0f} kB")
'''),
    md(zh="""
增量的代价是：重建要从分支的开头折叠起。分支很长时，可以偶尔写一次完整快照作为“检查点”：在 `dict.update` 的语义下，快照只是一个很大的增量，折叠的结果不变。另外，`update` 删不掉键；要表示“删除”，约定一个值（比如 `None`）并在读取时把它当作不存在。

## 规则 6：存储藏在接口后面

`SessionStore` 只认识两个方法：`append(obj)` 和 `read_all()`，文件后端也一样：打开时它调用后端的 `read_all()`，再把读到的对象交给和所有会话同一个加载器。它在两个方法之外只看一件事：后端读出来什么都没有、而文件里却有字节时（整个文件都不是 JSON），它拒绝打开，绝不往一个不是会话的文件里写会话头。所以同一段程序可以在内存里测试、在文件上运行。把同一个“剧本”在两个后端上各跑一遍（时钟和随机数相同），比较存下的对象、分支和上下文：
""", en="""
The price of deltas is that a rebuild folds from the start of the branch. When branches get very long, write a full snapshot now and then as a "checkpoint": under `dict.update` a snapshot is just a large delta, and the folded result does not change. Also, `update` cannot remove a key; to say "deleted", agree on a value (such as `None`) and treat it as absent when reading.

## Rule 6: storage behind an interface

`SessionStore` knows only two methods: `append(obj)` and `read_all()`, for a file backend too: on opening it calls the backend's `read_all()` and hands the objects to the same loader every session goes through. It looks past the two methods for one thing only: when a backend reads as nothing but its file holds bytes (a file with no JSON in it), it refuses to open it, so it never writes a header into a file that is not a session. So the same program can be tested in memory and run on files. Run the same "script" on both backends (same clock, same randomness) and compare the stored objects, the branches and the contexts:
"""),
    code(r'''
def script(store: SessionStore) -> SessionStore:
    # zh: 不管后端是什么，都是同一段对话：三轮、一次回退、一次重问、一个待办
    # en: the same conversation, whatever the backend: three turns, a rewind, a retry, a todo
    marks = []
    for n in range(1, 4):
        say(store, "user", f"Question {n}")
        marks.append(say(store, "assistant", f"Answer {n}"))
    store.append("custom", {"customType": "todo", "data": {"tests": "open"}})
    store.move_leaf(marks[0])
    say(store, "user", "Question 2, asked differently")
    store.append("custom", {"customType": "todo", "data": {"tests": "done"}})
    return store


in_memory = script(new_store(implementation("memory-backend")(), seed=42))
on_disk = script(new_store(implementation("file-backend")(SCRATCH / "script.jsonl"), seed=42))

for name, store in ((L("内存", "memory"), in_memory), (L("文件", "file"), on_disk)):
    objects = store.backend.read_all()
    print(f"{name:<7} {L('对象数', 'objects')} {len(objects)}  {L('最后一个 id', 'last id')} {objects[-1]['id']}  "
          f"{L('当前分支', 'branch')} {[e['id'] for e in store.branch()]}  "
          f"{L('上下文消息', 'context messages')} {len(store.context().messages)}  "
          f"{L('扩展状态', 'extension state')} {store.extension_state('todo')}")
reopened = new_store(FileBackend(SCRATCH / "script.jsonl"))
print(L("重新打开文件：叶子", "reopened file: leaf"), reopened.leaf_id, L("| 条目数", "| entries"), len(reopened.tree.entries))
'''),
    md(zh="""
接口小，换后端就容易。Python 标准库自带 SQLite，一个 SQLite 后端只要十来行：一张表，每个对象一行，按插入顺序读回。同一个剧本跑在它上面，结果和另外两个后端一模一样：
""", en="""
A small interface makes a new backend easy. Python's standard library ships SQLite, and a SQLite backend takes about a dozen lines: one table, one row per object, read back in insertion order. The same script on top of it gives exactly the same results as the other two backends:
"""),
    code(r'''
import sqlite3


class SQLiteBackend:
    # zh: 每个对象一行，按追加顺序。仍然只追加：没有 UPDATE，没有 DELETE
    # en: one row per object, in append order. Still append-only: no UPDATE, no DELETE

    def __init__(self, path) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE IF NOT EXISTS lines "
                        "(seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL)")

    def append(self, obj: dict) -> None:
        with self.db:                                  # zh: 每个对象一个事务 # en: one transaction per object
            self.db.execute("INSERT INTO lines (json) VALUES (?)", (to_json_line(obj),))

    def read_all(self) -> list[dict]:
        return [json.loads(text) for (text,) in self.db.execute("SELECT json FROM lines ORDER BY seq")]


in_sqlite = script(new_store(SQLiteBackend(SCRATCH / "script.sqlite"), seed=42))
objects = in_sqlite.backend.read_all()
print("SQLite", L("对象数", "objects"), len(objects), L("最后一个 id", "last id"), objects[-1]["id"],
      L("当前分支", "branch"), [e["id"] for e in in_sqlite.branch()],
      L("上下文消息", "context messages"), len(in_sqlite.context().messages))
in_sqlite.backend.db.close()
'''),
    md(zh="""
还有一个小细节说明接口的**承诺**比实现重要。文件一旦写下，调用者之后怎么改手里的字典都改不了历史；内存后端必须做出同样的保证，所以它存副本、也返回副本（这也是练习的测试会检查的）：
""", en="""
One small detail shows that the interface's **promise** matters more than its implementation. Once a line is in a file, nothing the caller later does to its dict can change history; a memory backend must give the same guarantee, so it stores copies and returns copies (the exercise's tests check this too):
"""),
    code(r'''
backend = MemoryBackend()
entry = {"type": "custom", "customType": "todo", "data": {"tests": "open"}}
backend.append(entry)
entry["data"]["tests"] = "done"  # zh: 调用者之后改了自己的字典 # en: the caller changes its own dict afterwards
backend.read_all()[0]["data"]["tests"] = "lost"  # zh: ……还改了拿到的列表 # en: ... and the list it got back
print(L("历史里存的：", "what history holds:"), backend.read_all()[0]["data"])
'''),
    md(zh="""
## Pi 自己在往哪里走

Pi 也走到了“存储藏在接口后面”这一步，但不是在你用的编程智能体（coding agent）里（§15，v0.84.2）：

- agent-core 库里有一个新的**智能体运行框架**（harness），它的会话通过一个 `SessionRepo` 接口存取，后面有三个后端：**内存、JSONL 和 SQLite**（每个会话一个数据库文件，写入者要先拿到“租约”（writer lease））。
- 它的 JSONL 是一种新格式，**format 4**：会话头是 `{"v":4,"kind":"header",…}`；一行是一次提交，可以是一个对象，也可以是一组写入构成的数组；除了条目，还有“寄存器”（register）行，记录每条通道（lane）的叶子、状态等。
- 标签、会话名（session name）变成了寄存器里的“事实”（facts），模型和思考级别（thinking level）变成通道的配置，不再是树上的节点；叶子的位置也被持久化了（v3 里叶子的移动不会保存）。
- 最后一行被撕裂时，先丢掉并截断再写；中间某行坏了就报错；偶尔用“临时文件加改名”整体重写做快照式压缩。
- 压缩条目必须带 `retainedTail`（保留的消息本身），不再只靠 `firstKeptEntryId` 指回去。

但在 v0.84.2 里，**编程智能体仍然通过 `SessionManager` 写 v3**；上游在 #8852 里说过“编程智能体里还没有任何东西走这条路径”。所以本课程学的 v3 格式，就是你磁盘上现在的样子。

据发布说明，v0.85.0 的 SDK 还能把外部存储的会话条目恢复成一个内存里的会话（“可恢复的内存会话”，存储后端的包仍是实验性的）。课程的格式笔记没有核实 0.85 的源码（§15），但方向和本章一样：会话逻辑只认条目，条目存在哪里由后端决定。
""", en="""
## Where Pi itself is heading

Pi has also arrived at "storage behind an interface", though not yet in the coding agent you use (§15, v0.84.2):

- the agent-core library has a new **harness** whose sessions go through a `SessionRepo` interface with three backends: **memory, JSONL and SQLite** (one database file per session, and a writer must hold a lease first);
- its JSONL is a new format, **format 4**: the header is `{"v":4,"kind":"header",…}`; one line is one commit, either one object or an array of writes; besides entries there are "register" lines holding each lane's leaf, state and so on;
- labels and the session name become "facts" in registers, model and thinking level become lane configuration, no longer tree nodes; the leaf position is persisted too (in v3 a leaf move is not saved);
- a torn last line is dropped and truncated before the next write; a damaged interior line is an error; now and then a "snapshot compaction" rewrites the file through a temp file and a rename;
- a compaction entry must carry `retainedTail` (the kept messages themselves) instead of pointing back with `firstKeptEntryId` alone.

But in v0.84.2 **the coding agent still writes v3 through `SessionManager`**; upstream said in #8852 that "nothing in coding-agent uses this path yet". So the v3 format this course teaches is what is on your disk today.

According to its release notes, the v0.85.0 SDK can also restore session entries kept in external storage into an in-memory session ("resumable in-memory sessions"; the session-backends package is still experimental). The course's format notes did not examine the 0.85 source (§15), but the direction is this chapter's: session logic knows only entries, and a backend decides where they live.
"""),
    md(zh="""
## 针对已知的上游问题做设计

一个好设计要能回答“那个坑你怎么躲”。Pi 的问题单里有三类和存储直接相关（§13），一个一个来。

### 问题一：两个进程写同一个文件（#8177、#8300、#8848、#9596）

Pi 写文件时没有锁，也不检测别人有没有写过。在两个终端里对同一个项目运行 `pi -c`，两个进程各自记着自己的叶子，轮流往同一个文件追加，于是出现了谁也没打算要的兄弟分支。这些问题单都以“不处理”关闭了。用两个 `SessionStore` 打开同一个文件来重现：
""", en="""
## Designing against known upstream problems

A good design can answer "how do you avoid that pitfall". Pi's issue tracker has three kinds of problems that are about storage (§13). One at a time.

### Problem one: two processes writing one file (#8177, #8300, #8848, #9596)

Pi takes no lock when it writes, and does not check whether anyone else has written. Run `pi -c` in two terminals on the same project, and both processes, each remembering its own leaf, take turns appending to one file: sibling branches appear that nobody asked for. These issues were all closed as "no action". Reproduce it with two `SessionStore` objects on the same file:
"""),
    code(r'''
from learn_pi_lab.pi.session import load_session

shared_path = SCRATCH / "two-writers.jsonl"
shared_clock = ticking_clock()
first = new_store(FileBackend(shared_path), seed=1, clock=shared_clock)
say(first, "user", L("加一个退款流程。", "Add a refund flow."))
say(first, "assistant", L("已加上 refund()，附带测试。", "refund() added, with tests."))

second = new_store(FileBackend(shared_path), seed=2, clock=shared_clock)   # zh: 终端 2 里的 `pi -c` # en: `pi -c` in terminal 2
say(first, "user", L("现在给每次退款记日志。", "Now log every refund."))           # zh: 终端 1 # en: terminal 1
say(second, "user", L("把 charge() 改名为 pay()。", "Rename charge() to pay()."))  # zh: 终端 2，同一个旧叶子 # en: terminal 2, same old leaf
say(first, "assistant", L("日志已加上。", "Logging added."))
say(second, "assistant", L("已改名。", "Renamed."))

merged = load_session(shared_path)
print(L("旧叶子的孩子：", "children of the old leaf:"), [e["id"] for e in merged.children(merged.branch()[1]["id"])])
print(L("下次打开时的叶子：", "leaf when the file is opened next:"), merged.leaf_id, "->", text_of(merged.entry(merged.leaf_id)))
print(L("终端 1 的最后回答：", "terminal 1's last answer:"), first.leaf_id,
      L("| 当前分支：", "| current branch:"), [e["id"] for e in merged.branch()])
draw_session(merged)
'''),
    md(zh="""
两段对话缠在一个文件里，下次打开时只有最后写的那一段在当前分支上，另一段成了旁枝。条目都没丢（只追加的好处），但用户看到的是“我的对话不见了”。

应对办法有两层。**检测**：每个写入者记住自己上次读或写之后文件有多大；追加之前发现文件变了，就说明有别人写过，拒绝写并报错，而不是悄悄长出一个分支。**互斥**：真正关上“检查之后、写入之前”那个时间窗口，需要一把锁（比如 `fcntl.flock`、独占创建的锁文件），或者像 Pi 的 SQLite 后端那样的写入租约。检测只要几行，包在 `FileBackend` 外面就行：
""", en="""
Two conversations are tangled in one file; the next time it is opened, only the last-written one is on the current branch and the other has become a side branch. No entry is lost (the benefit of append-only), but the user sees "my conversation disappeared".

There are two layers of defence. **Detect**: each writer remembers how big the file was after its last read or write; if the file changed before an append, somebody else wrote, so refuse and say so, instead of quietly growing a branch. **Exclude**: to really close the window between "checked" and "wrote" you need a lock (`fcntl.flock`, say, or a lock file created exclusively), or a writer lease like the one Pi's SQLite backend uses. Detection is a few lines wrapped around `FileBackend`:
"""),
    code(r'''
class ConcurrentWriteError(RuntimeError):
    # zh: 自从这个写入者上次看过之后，别人往文件里追加过
    # en: someone else appended to the file since this writer last looked
    pass


class CheckedFileBackend(FileBackend):
    # zh: 文件在背后被改过时拒绝追加的 FileBackend
    # en: a FileBackend that refuses to append if the file changed behind its back

    def _size(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def read_all(self) -> list[dict]:
        objects = super().read_all()
        self.seen = self._size()
        return objects

    def append(self, obj: dict) -> None:
        if self._size() != getattr(self, "seen", 0):
            raise ConcurrentWriteError(L(f"{show_path(self.path)} 在读取之后被改过：有别的写入者？请重新加载再追加",
                                         f"{show_path(self.path)} changed since it was read: "
                                         "another writer? reload before appending"))
        super().append(obj)
        self.seen = self._size()


guarded_path = SCRATCH / "guarded.jsonl"
shared_clock = ticking_clock()
first = new_store(CheckedFileBackend(guarded_path), seed=1, clock=shared_clock)
say(first, "user", L("加一个退款流程。", "Add a refund flow."))
second = new_store(CheckedFileBackend(guarded_path), seed=2, clock=shared_clock)
say(first, "assistant", L("已加上 refund()。", "refund() added."))
try:
    say(second, "user", L("把 charge() 改名为 pay()。", "Rename charge() to pay()."))
except ConcurrentWriteError as error:
    print(L("终端 2 被拒绝：", "terminal 2 refused:"), error)
second = new_store(CheckedFileBackend(guarded_path), seed=3, clock=shared_clock)  # zh: 重新加载 # en: reload
say(second, "user", L("把 charge() 改名为 pay()。", "Rename charge() to pay()."))
print(L("终端 2 重新加载后再追加：成功，接在", "terminal 2 reloaded and appended: accepted, after"),
      repr(load_session(guarded_path).branch()[-2]["message"]["content"][0]["text"]))
print(L("文件里的叶子数：", "leaves in the file:"), len(load_session(guarded_path).tree.leaves()))
'''),
    md(zh="""
### 问题二：巨大的状态快照（kendex#177，3.6 GB 的 `custom` 条目）

上面规则 5 已经做过实验：状态条目只写增量，需要时偶尔写一个检查点。再加一条：大块的二进制内容（截图、附件）不要内联进会话文件，存在旁边，条目里只放引用；否则每次打开会话都要把它们重新读一遍（§13 里的 `cc-connect#145`：巨大的内联附件让一个会话永久无法使用）。

### 问题三：撕裂行和粘连（§6、§12）

进程在写一行的中途死掉，文件就以半行结尾、没有换行。Pi 追加前不检查，于是下一个条目被粘在半行后面，两条一起解析失败，一起丢掉。`FileBackend.append` 通过 `append_line` 先看最后一个字节，不是换行就先补一个。对同一个撕裂的文件，比较一次“朴素追加”和一次 `FileBackend.append`：
""", en="""
### Problem two: giant state snapshots (kendex#177, 3.6 GB of `custom` entries)

Rule 5 already ran the experiment: write deltas, with an occasional checkpoint when needed. One more point: do not inline large binary content (screenshots, attachments) into the session file; keep it alongside and store a reference in the entry; otherwise every open of the session reads it all again (§13, `cc-connect#145`: huge inline attachments made a session permanently unusable).

### Problem three: torn lines and glue (§6, §12)

A process that dies halfway through a line leaves the file ending in half a line with no newline. Pi does not check before appending, so the next record is glued onto the half line, and both fail to parse and are lost together. `FileBackend.append` goes through `append_line`, which looks at the last byte first and writes a newline if it is missing. On the same torn file, compare one "naive append" with one `FileBackend.append`:
"""),
    code(r'''
from learn_pi_lab.jsonl.reader import read_jsonl_tolerant

header = {"type": "session", "version": 3, "id": "torn-demo", "timestamp": "2026-03-02T09:00:00.000Z", "cwd": "/w"}
first_entry = {"type": "custom", "customType": "todo", "data": {"tests": "open"},
               "id": "aa000001", "parentId": None, "timestamp": "2026-03-02T09:00:09.000Z"}
torn_text = to_json_line(header) + "\n" + to_json_line(first_entry) + "\n" + '{"type":"message","id":"aa00'
next_entry = {**first_entry, "data": {"tests": "done"}, "id": "aa000003", "timestamp": "2026-03-02T09:00:27.000Z"}

naive_path, safe_path = SCRATCH / "torn-naive.jsonl", SCRATCH / "torn-safe.jsonl"
for path in (naive_path, safe_path):
    path.write_text(torn_text, encoding="utf-8")
with open(naive_path, "a", encoding="utf-8") as handle:       # zh: Pi 的做法：直接追加 # en: what Pi does: just append
    handle.write(to_json_line(next_entry) + "\n")
FileBackend(safe_path).append(next_entry)                     # zh: 本设计：先保证从新的一行开始 # en: the design: fresh line first

for name, path in [(L("朴素追加", "naive append"), naive_path), ("FileBackend", safe_path)]:
    objects, problems = read_jsonl_tolerant(path.read_text(encoding="utf-8"))
    print(f"{pad(name, 13)} {L('读出的 id：', 'ids read: ')}{[o.get('id') for o in objects]}  {L('问题：', 'problems: ')}{problems}")
'''),
    md(zh="""
两个文件里，撕裂的那半行本身都救不回来（第 3 行，现在是文件中间的一个坏行，`corrupt-line`）；区别在于朴素追加让新条目跟着它一起陪葬，而 `FileBackend` 让新条目落在自己的一行上，完好无损。

## 你的设计决定：什么时候 fsync，撕裂的最后一行怎么办

前面的规则都有标准答案；这里没有，只有代价。一个写入策略（policy）要决定两件事：

- **什么时候 `fsync`**：每次追加都 `fsync`（最安全，也最慢），每 N 次一次，或者从不（Pi 就从不：§10）；
- **撕裂的最后一行**：追加前要不要先补一个换行（第 04 章的 `append_line`；Pi 不补）。

（第三件事，两个写入者，上面的问题一已经做过：检测，最好加锁。）

`learn_pi_lab/course/crash_lab.py` 把一个小故事跑在你的策略上：连续追加 4 个条目，进程在某个**写入边界**死掉（某次 `write` 之前、写到一半、之后，某次 `fsync` 之前或之后），然后下一个会话打开文件再追加一条。它在**每一个**边界各杀一次，而且分两种死法：进程崩溃（已经 `write` 的字节还在操作系统缓存里，照样落盘）和断电（只有 `fsync` 过的字节还在）。每次都数：用户已经看到“保存成功”的条目丢了几个，下一个会话追加的那条还在不在。先看三个现成的策略：
""", en="""
In both files the torn half line itself is beyond saving (line 3, now a bad line in the middle of the file, `corrupt-line`); the difference is that the naive append takes the new record down with it, while `FileBackend` puts the new record on a line of its own, intact.

## Your design decision: when to fsync, and what to do about a torn last line

The rules so far have right answers; this one only has prices. A write policy decides two things:

- **when to `fsync`**: after every append (safest, slowest), every N-th, or never (Pi never does: §10);
- **the torn last line**: whether to write a newline first when the file does not end with one (chapter 04's `append_line`; Pi does not).

(The third decision, two writers, was problem one above: detect, better still lock.)

`learn_pi_lab/course/crash_lab.py` runs a small story on your policy: four appends in a row, the process dies at some **write boundary** (before a `write`, halfway through it, after it, before or after an `fsync`), then the next session opens the file and appends once more. It kills the process at **every** boundary, in two ways: a process crash (bytes already `write`n are in the operating system's cache and still reach the disk) and a power cut (only bytes an `fsync` made durable survive). Each time it counts how many entries the user had already seen "saved" are gone, and whether the next session's entry survived. Three ready-made policies first:
"""),
    code(r'''
from learn_pi_lab.course.crash_lab import Policy, crash_everywhere, summary

ready_made = [Policy(L("像 Pi：从不 fsync，不补换行", "like Pi: no fsync, no newline check")),
              Policy(L("补换行，从不 fsync", "newline first, no fsync"), newline_first=True),
              Policy(L("补换行，每次 fsync", "newline first, fsync each"), fsync_every=1, newline_first=True)]
columns = [L("崩溃点个数", "crash points"), L("进程崩溃时最多丢失的已保存条目数", "process: worst saved-but-lost"),
           L("断电时最多丢失的已保存条目数", "power: worst saved-but-lost"),
           L("下一会话追加的条目丢失次数", "next entry lost (times)"), L("每个故事的 fsync 次数", "fsyncs per story")]
colon = L("：", ": ")
for policy in ready_made:
    row = list(summary(policy).values())
    print(row[0])
    for column, value in zip(columns, row[1:]):
        print(f"    {column}{colon}{value}")
'''),
    md(zh="""
读这张表：不补换行，进程崩溃从不丢已保存的条目，但只要崩在一次 `write` 的中间，**下一个**会话追加的那一条就会被粘上、一起丢掉（第 04 章的粘连）。补换行治好了这一点，却治不了断电：从不 `fsync` 时，断电可能把已经“保存”的条目全部带走（这个模型很悲观：真实系统通常每隔几秒就会把缓存写回磁盘，但没有任何保证）。每次 `fsync` 最安全，代价是每次追加都要等磁盘。

**改一改，再运行。** 在下面定你自己的策略：`fsync_every` 取 0（从不）、1（每次）或 N；`newline_first` 取 `True` 或 `False`。先预测打印出的五个数，再运行。想更进一步，可以写一个 `Policy` 的子类，重写 `append(disk, entry, count)`：`disk.write(bytes)`、`disk.fsync()`、`disk.last_byte()` 是你能用的全部操作。
""", en="""
Reading the table: without the newline check a process crash never loses a saved entry, but whenever it hits in the middle of a `write`, the **next** session's entry is glued on and lost with it (chapter 04's glue). The newline check cures that, but not a power cut: with no `fsync` at all, a power cut can take every entry already "saved" (this model is pessimistic: real systems usually write the cache back every few seconds, but nothing guarantees it). An `fsync` after every append is safest, at the price of waiting for the disk on every append.

**Change it and re-run.** Set your own policy below: `fsync_every` is 0 (never), 1 (every append) or N; `newline_first` is `True` or `False`. Predict the five numbers it prints first, then run. To go further, write a subclass of `Policy` that overrides `append(disk, entry, count)`: `disk.write(bytes)`, `disk.fsync()` and `disk.last_byte()` are all the operations you have.
""", tags=("rerun",)),
    code(r'''
my_policy = Policy(L("我的策略", "my policy"),
                   fsync_every=2,        # zh: 0 = 从不，1 = 每次，N = 每 N 次 # en: 0 = never, 1 = every append, N = every N-th
                   newline_first=True)   # zh: 追加前补换行？ # en: write a newline first?
row = list(summary(my_policy).values())
for column, value in zip(columns, row[1:]):
    print(f"{column}{colon}{value}")
death_name = {"process": L("进程崩溃", "process"), "power": L("断电", "power")}
lost = [(death_name[outcome.death], outcome.crash_at) for outcome in crash_everywhere(my_policy)
        if outcome.acknowledged_lost or outcome.next_lost]
print(L("出事的崩溃点（死法，边界）：", "crash points with damage (death, boundary):"), lost)
''', tags=("rerun",)),
    md(zh="""
### 还有一条：永远不要原地重写

Pi 有几条路径会整体重写文件，而且不是原子的：迁移（migration）旧版本（§5）、早期版本对损坏文件的“恢复”（#932 的修复办法是截断文件、写一个新会话头，结果只坏了会话头的文件被整个毁掉；直到 v0.80.3 的 #6002 才改成拒绝打开）。你的设计里，会话文件只追加；真的需要一个新形状（迁移、压缩后的副本），就写一个**新文件**，写完再用改名（rename）原子地换上去，或者干脆保留两个文件。第 07 章的 `migrate --out` 就是这样做的。

## 检查清单

把整门课浓缩成一张表，设计自己的会话存储时逐条核对：

| # | 规则 | 为什么 | 本课程在哪里证明 | Pi v0.84.2 |
|---|---|---|---|---|
| 1 | 一棵树一个文件，只追加，一行一个 JSON | 追加是常数时间；崩溃只丢最后一行；追加从不改写旧字节 | 第 01 章；本章规则 1 | ✓ |
| 2 | 每个条目只存 `parentId`，孩子在读取时推导 | 存孩子列表就得改写父节点那一行 | 第 02 章 | ✓ |
| 3 | 回退 = 移动叶子；分支 = 回退 + 追加；什么都不删 | 分支不需要单独的功能 | 第 03 章 | ✓（叶子的移动不保存） |
| 4 | id 是幂等键（idempotency key）；追加前保证文件以换行结尾；损坏报告行号 | 重试、撕裂行、粘连 | 第 04 章；本章问题三 | 部分：不补换行，坏行悄悄丢掉 |
| 5 | 条目自包含，不存“第几轮” | 位置取决于分支 | 本章规则 2 | ✓ |
| 6 | 操作（模型、思考级别）也是树上的节点 | 树上每一点的设置都确定；重新打开会话时按路径恢复（`/tree` 只替换消息，不换正在用的设置） | 第 05 章 | ✓（v4 改成通道配置） |
| 7 | 区分进上下文（`custom_message`）和只存档（`custom`） | 别让审计信息占用模型的窗口 | 第 06 章；本章规则 3 | ✓ |
| 8 | 压缩是一个条目，上下文只从条目算出来 | 不需要额外状态，压缩只影响自己的分支 | 第 06 章；本章规则 4 | ✓ |
| 9 | 扩展状态从当前分支重建；只写增量 | 用户随时可能 fork；快照会让文件爆炸 | 本章规则 5 | 文档建议如此，靠扩展作者自觉 |
| 10 | 存储藏在接口后面 | 内存里测试，文件里运行，需要时换 SQLite | 本章规则 6 | v4 harness 的 `SessionRepo` |
| 11 | 旧版本只在内存里迁移；不认识的条目原样保留 | 不毁掉旧文件，也不毁掉新版本的数据 | 第 07 章 | 迁移时原地重写 |
| 12 | 检测并发写入，最好加锁 | 两个进程会把对话缠在一起 | 本章问题一 | ✗（#8177 等以“不处理”关闭） |
""", en="""
### One more: never rewrite in place

Pi has a few code paths that rewrite a whole file, non-atomically: migrating an old version (§5), and, in earlier releases, "recovering" a damaged file (the fix for #932 truncated the file and wrote a fresh header, which destroyed files whose only damage was the header; only v0.80.3, #6002, made Pi refuse instead). In your design a session file is append-only; if you really need a new shape (a migration, a compacted copy), write a **new file**, then swap it in atomically with a rename, or simply keep both. Chapter 07's `migrate --out` does exactly that.

## Checklist

The whole course condensed into one table; go through it when you design your own session store:

| # | Rule | Why | Where the course proves it | Pi v0.84.2 |
|---|---|---|---|---|
| 1 | one tree per file, append only, one JSON object per line | appends cost the same at any size; a crash costs the last line; an append never changes old bytes | chapter 01; rule 1 here | ✓ |
| 2 | each entry stores only its `parentId`; children are derived at read time | a child list means rewriting the parent's line | chapter 02 | ✓ |
| 3 | rewind = move the leaf; branch = rewind + append; nothing is deleted | branching needs no separate feature | chapter 03 | ✓ (leaf moves are not saved) |
| 4 | the id is an idempotency key; make sure the file ends in a newline before appending; report damage with line numbers | retries, torn lines, glue | chapter 04; problem three here | partly: no newline check, bad lines dropped silently |
| 5 | self-contained entries, no "turn number" | position depends on the branch | rule 2 here | ✓ |
| 6 | operations (model, thinking level) are tree nodes too | every point on the tree has definite settings; reopening the session restores them from the path (`/tree` replaces only the messages, not the settings in use) | chapter 05 | ✓ (v4 makes them lane configuration) |
| 7 | separate in-context (`custom_message`) from archive-only (`custom`) | audit data should not fill the model's window | chapter 06; rule 3 here | ✓ |
| 8 | compaction is an entry; the context is computed from entries alone | no extra state; a compaction affects only its own branch | chapter 06; rule 4 here | ✓ |
| 9 | extension state is rebuilt from the current branch; write deltas | the user may fork at any time; snapshots make files explode | rule 5 here | advised in the docs, left to extension authors |
| 10 | storage behind an interface | test in memory, run on files, switch to SQLite when needed | rule 6 here | the v4 harness's `SessionRepo` |
| 11 | migrate old versions in memory only; keep unknown records verbatim | destroy neither old files nor a newer version's data | chapter 07 | rewrites in place when migrating |
| 12 | detect concurrent writers, better still lock | two processes tangle conversations together | problem one here | ✗ (#8177 and others closed as "no action") |
"""),
    md(zh="""
## 练习：`MemoryBackend`、`FileBackend`、`rebuild_extension_state`

打开 [`workspace/ch08_design_your_own.py`](../../workspace/ch08_design_your_own.py)，完成三个练习。它们和 `learn_pi_lab.store` 里的同名类和函数接口一样，检查它们的也是同一套测试。

1. **`MemoryBackend`**（练习 id：`memory-backend`）：`append(obj) -> None` 和 `read_all() -> list[dict]`。每个实例有自己的存储（小心类属性的列表会被所有实例共享）；存副本、返回副本，调用者之后改自己的字典或改拿到的列表，都不能改变历史（本章“接口的承诺”那个单元格）。
2. **`FileBackend(path)`**（练习 id：`file-backend`）：同样两个方法，存成一个只追加的 JSONL 文件。写用 `append_line`（第 04 章：文件不以换行结尾时先补一个），读用 `read_jsonl_tolerant`（第 01 章：坏行只丢那一行）；文件还不存在时 `read_all()` 返回 `[]`。另一个 `FileBackend` 打开同一个路径，要读到同样的内容。
3. **`rebuild_extension_state(path_entries, custom_type) -> dict`**（练习 id：`extension-state`）：取路径上 `type == "custom"` 且 `customType == custom_type` 的条目，按顺序用 `dict.update` 把它们的 `data` 折叠进一个**新**字典；别的类型、别的扩展、不是字典的 `data` 都跳过；一个都没有就返回 `{}`。

写完后运行下面的检查（或在终端运行 `make verify EX=memory-backend`，另两个同理）。你动手之前它显示“未开始”，这是正常的。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch08_design_your_own.py`](../../learn_pi_lab/lessons/ch08_design_your_own.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。
""", en="""
## Exercises: `MemoryBackend`, `FileBackend`, `rebuild_extension_state`

Open [`workspace/ch08_design_your_own.py`](../../workspace/ch08_design_your_own.py) and complete three exercises. Their interfaces match the class and function of the same names in `learn_pi_lab.store`, and the same tests check both.

1. **`MemoryBackend`** (exercise id: `memory-backend`): `append(obj) -> None` and `read_all() -> list[dict]`. Each instance has its own storage (careful: a list defined on the class is shared by every instance); store copies and return copies, so that nothing the caller later does to its dict or to the list it got back can change history (this chapter's "the interface's promise" cell).
2. **`FileBackend(path)`** (exercise id: `file-backend`): the same two methods, stored as one append-only JSONL file. Write with `append_line` (chapter 04: write a newline first if the file does not end with one) and read with `read_jsonl_tolerant` (chapter 01: a bad line costs only that line); a file that does not exist yet reads as `[]`. Another `FileBackend` on the same path must read the same content.
3. **`rebuild_extension_state(path_entries, custom_type) -> dict`** (exercise id: `extension-state`): take the entries on the path with `type == "custom"` and `customType == custom_type`, and fold their `data` into a **new** dict with `dict.update`, in order; skip other types, other extensions and `data` that is not a dict; return `{}` when there are none.

When you are done, run the check below (or `make verify EX=memory-backend` in a terminal, and likewise for the other two). Before you start, it shows the exercises as not started; that is expected. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch08_design_your_own.py`](../../learn_pi_lab/lessons/ch08_design_your_own.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.
"""),
    md(zh="""
**轮到你了。** 下面把规则 6 的剧本跑在**你自己**在 [`workspace/ch08_design_your_own.py`](../../workspace/ch08_design_your_own.py) 里写的 `MemoryBackend` 上，再用你的 `rebuild_extension_state` 重算待办状态，和参考实现的结果比一比。
""", en="""
**Your turn.** Below, rule 6's script runs on **your own** `MemoryBackend` from [`workspace/ch08_design_your_own.py`](../../workspace/ch08_design_your_own.py), and your `rebuild_extension_state` recomputes the todo state; compare with the reference's results.
""", tags=("your-turn",)),
    code("""
backend = your_turn("memory-backend")  # zh: 建一个你的 MemoryBackend # en: make one of your MemoryBackends
if backend is not None:
    mine = script(new_store(backend, seed=42))
    print(L("你的后端存下的对象数：", "objects your backend holds:"), len(mine.backend.read_all()),
          L("| 参考：", "| reference:"), len(in_memory.backend.read_all()))
    print(L("你的后端给出的上下文消息数：", "context messages from your backend:"), len(mine.context().messages))
state = your_turn("extension-state", in_memory.branch(), "todo")
if state is not None:
    print("  ", state, L("| 参考：", "| reference:"), rebuild_extension_state(in_memory.branch(), "todo"))
""", tags=("your-turn",)),
    code("""
from learn_pi_lab.harness.notebook import check

check("08")
"""),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("08")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- **一棵树一个文件，只追加。** 分支在同一个文件里共享前缀，文件只长不改；每次回头都复制一份会让共享的历史被一遍遍复制。
- **条目自包含。** 身份是 `id`；“第几轮”是位置，位置在读取时从路径上算。存下来的位置在第一次 fork 后就会错（全局计数），或者变得含糊（父轮数加一）。
- **进上下文和只存档分开**：`custom_message` 进入上下文，`custom` 永远不进。**压缩是一个条目**，上下文只从条目算出来，压缩只影响它所在的分支。
- **有状态的扩展从当前分支重建状态**，因为用户随时可能 fork；状态条目只写增量，需要时写检查点。
- **存储藏在接口后面**：两个方法，内存、文件、SQLite 三个后端结果完全相同。Pi 的 v4 harness 也走向了 `SessionRepo` 加多个后端，但 v0.84.2 的编程智能体仍写 v3。
- 针对上游的坑：检测并发写入（最好加锁）；追加前补换行；不内联大块内容；永远不原地重写。
""", en="""
## Summary

- **One tree per file, append only.** Branches share their prefix inside one file, which only grows; a copy per retry duplicates the shared history again and again.
- **Self-contained entries.** Identity is the `id`; "which turn" is a position, computed at read time from the path. A stored position is wrong after the first fork (a global counter) or ambiguous (parent's turn plus one).
- **Keep in-context and archive-only apart**: `custom_message` enters the context, `custom` never does. **Compaction is an entry**; the context is computed from entries alone, and a compaction affects only its own branch.
- **Stateful extensions rebuild their state from the current branch**, because the user may fork at any time; state entries hold deltas, with a checkpoint now and then.
- **Storage sits behind an interface**: two methods, and memory, file and SQLite backends give identical results. Pi's v4 harness has moved to a `SessionRepo` with several backends too, but the v0.84.2 coding agent still writes v3.
- Against the upstream pitfalls: detect concurrent writers (better, lock); write a newline before appending when one is missing; do not inline large content; never rewrite in place.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch08-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch08-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch08-q1")
"""),
    code("""ask("ch08-q2")"""),
    code("""ask("ch08-q3")"""),
    md(zh="""
## 接下来去哪里

课程到这里结束了。几个继续走下去的方向：

- **把练习做完**：在终端运行 `make verify`，直到全部变绿。每个练习都和 `learn_pi_lab` 里的参考实现共用一套测试，所以绿了就说明你的实现和参考实现在那些情况下行为一致。
- **读参考实现**：`learn_pi_lab/store.py`、`session_inspector.py`、`pi/context.py` 都不长，文档字符串解释了每个决定的原因。读完试着回答：哪些地方故意比 Pi 做得更严格？
- **看你自己的会话**：`python3 -m learn_pi_lab inspect`、`tree`、`context` 都只读，放心指向 `~/.pi/agent/sessions/` 里的文件。
- **扩展这个小存储**：用一个 `leaf` 条目把叶子的移动也持久化下来（v0.77 的 harness 存储就这样做过）；给 `FileBackend` 加上真正的文件锁；给 `SQLiteBackend` 加上写入租约；在读取压缩时支持可选的 `retainedTail`。每一个都可以先写测试。
- **读一手资料**：本课程里的 § 编号指向课程的 Pi 格式笔记 `pi-session-format.md`，它的 §16 是“兼容实现检查清单”，§17 讲 Pi 1.x 带来的变化；Pi 仓库里的 `packages/coding-agent/docs/session-format.md` 和 `packages/agent/docs/harness.md` 是 v3 格式和 format 4 的原始说明。
- **教这门课**：`python3 -m learn_pi_lab grade` 可以批量评分一个班的作业，生成成绩表（见 README）。
""", en="""
## Where next

This is the end of the course. A few directions to keep going:

- **Finish the exercises**: run `make verify` in a terminal until everything is green. Every exercise shares its tests with the reference implementation in `learn_pi_lab`, so green means your code behaves like the reference in those cases.
- **Read the reference code**: `learn_pi_lab/store.py`, `session_inspector.py` and `pi/context.py` are short, and their docstrings give the reason for each decision. When you have read them, try to answer: where is the course deliberately stricter than Pi?
- **Look at your own sessions**: `python3 -m learn_pi_lab inspect`, `tree` and `context` only read, so point them at the files in `~/.pi/agent/sessions/` without worry.
- **Extend the small store**: persist leaf moves with a `leaf` entry (the v0.77 harness storage did this); give `FileBackend` a real file lock; give `SQLiteBackend` a writer lease; support an optional `retainedTail` when reading compactions. Each can start with a test.
- **Read the primary sources**: the § numbers in this course point into the course's notes on Pi's format, `pi-session-format.md`, whose §16 is a checklist for a compatible reimplementation and §17 covers what Pi 1.x changed; `packages/coding-agent/docs/session-format.md` and `packages/agent/docs/harness.md` in Pi's repository are the original descriptions of the v3 format and of format 4.
- **Teach it**: `python3 -m learn_pi_lab grade` grades a whole class's work at once and produces a gradebook (see the README).
"""),
]
