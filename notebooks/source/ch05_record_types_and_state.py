"""Chapter 05: record types by responsibility, and the state they put on the tree (seed 000, section 5)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("05", "record-types-and-state",
                  zh="记录类型与状态：操作也是树上的节点",
                  en="Record types and state: operations are tree nodes too")

CELLS = [
    md(zh="""
## 学习目标

前几章里，一个条目（entry）对我们来说只是“一个有 `id` 和 `parentId` 的节点”。本章打开它的 `type`，看看一个会话（session）文件里到底存了哪些东西，以及为什么它们都挂在同一棵树上。读完并运行本章，你应该能够：

- 把会话文件里的条目按**职责**分成三组：会话元数据（metadata）、对话内容（content）和操作（operation），并说出每种条目属于哪一组；
- 解释为什么“切换模型”“调整思考级别（thinking level）”也要作为节点写进树里：**树上任何一点都有确定的模型和思考级别，重新打开会话时就从那里恢复**；并分清 `/tree` 之后正在运行的 Pi 用的是什么（它不变）；
- 按 Pi 的规则解析**标签**（label）和**会话名**（session name）：按文件顺序、后写的说了算、空值表示清除，而且它们对所有分支（branch）都生效；
- 知道读取器遇到不认识的记录类型（record type）时为什么必须原样保留；
- 完成两个练习：`state_at`（某个节点上生效的模型和思考级别）和 `resolve_labels`（解析标签）。
""", en="""
## Learning goals

So far an entry has been, for us, "a node with an `id` and a `parentId`". This chapter opens up its `type`: what a session file actually stores, and why all of it hangs on the same tree. After reading and running it you should be able to:

- sort the records of a session file into three groups by **responsibility**: session metadata, conversation content and operations, and say which group each type belongs to;
- explain why "switch the model" and "change the thinking level" are written into the tree as nodes too: **every point on the tree has a definite model and thinking level, restored from there when the session is reopened**; and tell apart what a running Pi uses after `/tree` (unchanged);
- resolve **labels** and the **session name** by Pi's rules: file order, the latest word wins, an empty value clears, and they hold for every branch;
- explain why a reader must keep a record type it does not know, exactly as it is;
- complete two exercises: `state_at` (the model and thinking level in force at a node) and `resolve_labels` (resolve the labels).
"""),
    code("""
from learn_pi_lab.drawing import draw_roadmap

draw_roadmap("05")  # zh: 本章在全课中的位置 # en: where this chapter sits in the course
"""),
    md(zh="""
## 十种行，三种职责

Pi v0.84.2 的会话文件里，会话头（header）之后的每一行都是九种条目之一（§3.2）。连同会话头，一共十种“行”。原课程（whkp/learn-pi）把它们按职责分成三组：

- **会话元数据**：关于会话本身的信息。`session`（会话头）、`session_info`（会话名）、`label`（给某个条目加的书签）。
- **对话内容**：模型会读到的东西。`message`、`compaction`、`branch_summary`，以及扩展（extension）用来往上下文（context）里塞消息的 `custom_message`（原课程的表里没有列出它，但它显然属于这一组：它会进入上下文）。
- **操作**：用户或扩展做过的事。`model_change`、`thinking_level_change`，以及扩展用来保存自己状态的 `custom`。

这个分组就写在 `learn_pi_lab.jsonl.records.RECORD_GROUPS` 里。下面的表直接从它生成，再数一数 `data/` 里每种条目出现了多少次，并且用第 06 章会细讲的上下文构建函数检验一下：这种条目会不会变成发给模型的消息？
""", en="""
## Ten kinds of line, three responsibilities

In a Pi v0.84.2 session file, every line after the header is one of nine entry types (§3.2); with the header, ten kinds of line. The original course (whkp/learn-pi) sorts them into three groups by responsibility:

- **session metadata**: facts about the session itself. `session` (the header), `session_info` (the session's name), `label` (a bookmark on an entry).
- **conversation content**: what the model reads. `message`, `compaction`, `branch_summary`, and `custom_message`, which extensions use to put a message into the context (the original course's table leaves it out, but it clearly belongs here: it enters the context).
- **operations**: things the user or an extension did. `model_change`, `thinking_level_change`, and `custom`, where an extension keeps its own state.

The grouping lives in `learn_pi_lab.jsonl.records.RECORD_GROUPS`. The table below is generated from it, counts how often each type occurs in the files under `data/`, and checks one more thing with the context builder chapter 06 covers in detail: does this kind of record become a message the model receives?
"""),
    code(r'''
import json
import random
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from itertools import count

import matplotlib.pyplot as plt

from learn_pi_lab.course.act import implementation, predict, reveal, use_my_code, your_turn
from learn_pi_lab.course.paths import data_file, scratch_dir, show_path
from learn_pi_lab.course.text import L, figure_fonts, pad
from learn_pi_lab.drawing import draw_session
from learn_pi_lab.drawing.style import figure_language
from learn_pi_lab.jsonl.reader import read_session
from learn_pi_lab.jsonl.records import RECORD_GROUPS, parse_entry, record_group
from learn_pi_lab.jsonl.writer import SessionWriter, iso_now, new_header
from learn_pi_lab.pi.context import build_session_context, entry_to_messages, state_at
from learn_pi_lab.pi.navigation import navigate
from learn_pi_lab.pi.session import load_session, resolve_labels, session_name

figure_fonts()
data_files = sorted(data_file("linear.jsonl").parent.glob("*.jsonl"))
seen = Counter()
files_with = defaultdict(set)
example = {}
for path in data_files:
    loaded = read_session(path)
    seen["session"] += 1
    files_with["session"].add(path.name)
    for obj in loaded.objects():
        seen[obj["type"]] += 1
        files_with[obj["type"]].add(path.name)
        example.setdefault(obj["type"], obj)

print(len(data_files), L("个文件在 data/ 下\n", "files under data/\n"))
GROUP_NAMES = {"metadata": L("元数据", "metadata"), "content": L("对话内容", "content"),
               "operation": L("操作", "operation"), "unknown": L("未知", "unknown")}   # zh: record_group 返回的英文名，显示成中文 # en: what record_group returns, shown in the edition's language
print(f"{pad(L('组', 'group'), 10)} {'type':<22} {L('行数', 'lines'):>5} {L('文件', 'files'):>5}  {L('发给模型？', 'sent to the model?')}")
for group in ("metadata", "content", "operation"):
    for kind in (k for k, g in RECORD_GROUPS.items() if g == group and k in seen):  # zh: data/ 里出现过的类型 # en: the types found under data/
        sent = "-" if kind == "session" else (L("是", "yes") if entry_to_messages(example[kind]) else L("否", "no"))
        print(f"{pad(GROUP_NAMES[group], 10)} {kind:<22} {seen[kind]:>5} {len(files_with[kind]):>5}  {sent}")
'''),
    md(zh="""
**用你自己的代码跑本章。** 本章的状态表用到练习 `state_at`。下面的开关默认用参考实现；你的 `state_at` 通过检查后，改成 `use_my_code(True)` 再从头运行本章。
""", en="""
**Run this chapter on your own code.** The state table of this chapter uses the exercise `state_at`. The switch below starts with the reference; once your `state_at` passes its checks, change it to `use_my_code(True)` and run the chapter again from the top.
""", tags=("your-turn",)),
    code("""
use_my_code(False)   # zh: 你的 state_at 通过后改成 True # en: change to True once your state_at passes
""", tags=("your-turn",)),
    md(zh="""
表里最后一列已经透露了本章和下一章的分工：**对话内容**组的条目会变成发给模型的消息；**元数据**和**操作**组的条目不会，它们只是待在树上。可“只是待在树上”恰恰是关键：因为它们在树上，它们就有位置，有父节点，属于某些分支而不属于另一些分支。

每种条目除了公共的 `type`、`id`、`parentId`、`timestamp` 之外，还带着自己的载荷（payload）。`parse_entry` 把一行解析成对应的数据类（dataclass）；下面为每种类型各取一个例子，列出它的载荷键：
""", en="""
The last column already shows how this chapter and the next divide the work: **content** records become messages sent to the model; **metadata** and **operation** records do not, they just sit on the tree. But "just sitting on the tree" is the whole point: being on the tree gives them a position and a parent, so they belong to some branches and not to others.

Besides the common `type`, `id`, `parentId` and `timestamp`, each kind of record carries its own payload. `parse_entry` turns a line into the matching dataclass; here is one example of each type, with its payload keys:
"""),
    code(r'''
common = {"type", "id", "parentId", "timestamp"}
for kind in RECORD_GROUPS:
    if kind == "session" or kind not in example:  # zh: 只看 data/ 里有例子的类型 # en: only types with an example under data/
        continue
    obj = example[kind]
    payload = [key for key in obj if key not in common]
    print(f"{kind:<22} -> {type(parse_entry(obj)).__name__:<26} {L('载荷：', 'payload: ')}{', '.join(payload)}")
'''),
    md(zh="""
## 操作也是节点：树上每个位置都有确定的设置

设想另一种设计：当前用的模型和思考级别存在一个单独的“设置”里，切换时直接覆盖。这样一来，一旦你回到历史中的某个点重新开始，就再也说不清“那时候用的是哪个模型”了：设置只有一个，而分支有很多条。

Pi 的做法是把每一次切换都当成一个条目追加到**当前分支**（current branch）上：`model_change` 和 `thinking_level_change` 与消息一样有 `parentId`。于是“某个节点上生效的是什么设置”就有了一个只看树就能回答的定义：**从根走到这个节点，最后一次说了什么，就是什么**（§8）。还有一个细节：助手消息自带 `provider` 和 `model`，说明了“是谁回答的”，所以它也算数。一条设置都没有时，模型是 `None`，思考级别是默认的 `"off"`。

下面在 `scratch_dir("ch05")` 里写一个小会话来验证。它先用 `claude-sonnet-4-5`、思考级别 `medium` 问了一个问题，然后从同一个回答分出两条分支：

- **分支 A**：把思考级别调到 `high`，聊了一轮，再换成 `claude-opus-4-1`；
- **分支 B**：回到同一个回答，换成 `openai/gpt-5`，思考级别调到 `low`。

分支就是“回退 + 追加”（第 03 章）：把写入器的 `leaf_id` 移回那个回答，再接着追加。id 和时间都由固定的种子和时钟产生，每次运行都一样。
""", en="""
## Operations are nodes: every place on the tree has definite settings

Imagine another design: the current model and thinking level live in one separate "settings" record, overwritten on every switch. Then, as soon as you go back to an earlier point and start again, nobody can say "which model was in use back then": there is one settings record and many branches.

Pi appends each switch as an entry on the **current branch**: `model_change` and `thinking_level_change` have a `parentId` like any message. So "which settings are in force at a node" gets a definition you can answer from the tree alone: **walk from the root to that node; whatever was said last is what holds** (§8). One more detail: an assistant message carries its own `provider` and `model`, saying which model answered, so it counts too. With no setting at all the model is `None` and the thinking level is the default `"off"`.

To see it work we write a small session into `scratch_dir("ch05")`. It asks a question with `claude-sonnet-4-5` at thinking level `medium`, then two branches grow from the same answer:

- **branch A** raises the thinking level to `high`, has one exchange, then switches to `claude-opus-4-1`;
- **branch B** goes back to the same answer, switches to `openai/gpt-5` and lowers the thinking level to `low`.

A branch is a rewind plus an append (chapter 03): move the writer's `leaf_id` back to that answer, then append. Ids and times come from a fixed seed and a fixed clock, so every run gives the same file.
"""),
    code(r'''
LAB = scratch_dir("ch05")
START = datetime(2026, 3, 20, 14, 0, tzinfo=timezone.utc)
ticks = count()


def clock() -> datetime:
    # zh: 假时钟：每调用一次晚 7 秒 # en: a fake clock: 7 seconds later on every call
    return START + timedelta(seconds=7 * next(ticks))


settings_path = LAB / "settings-on-two-branches.jsonl"
writer = SessionWriter(settings_path, clock=clock, rng=random.Random(5))
writer.create(new_header("/home/learner/payments", session_id="0195a0e0-0050-7000-8000-00000000c0de",
                         clock=clock))


def add(obj: dict) -> str:
    # zh: 在写入器的叶子处追加一个条目；消息里再记一份同样的毫秒时间
    # en: append one entry at the writer's leaf; a message gets the same time in ms
    moment = clock()
    obj = {**obj, "timestamp": iso_now(lambda: moment)}
    if "message" in obj:
        obj["message"] = {**obj["message"], "timestamp": int(moment.timestamp() * 1000)}
    return writer.append(obj)["id"]


def set_model(provider: str, model_id: str) -> str:
    return add({"type": "model_change", "provider": provider, "modelId": model_id})


def set_thinking(level: str) -> str:
    return add({"type": "thinking_level_change", "thinkingLevel": level})


def user(text: str) -> str:
    return add({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": text}]}})


def assistant(text: str, provider: str, model: str) -> str:
    return add({"type": "message", "message": {
        "role": "assistant", "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages" if provider == "anthropic" else "openai-responses",
        "provider": provider, "model": model, "stopReason": "stop"}})
'''),
    md(zh="""
有了这几个小函数，整段对话就是一串调用。注意中间那一行 `writer.leaf_id = survey`：它就是“回退”，之后的追加长出了分支 B。
""", en="""
With these small helpers the whole conversation is a list of calls. Note the line `writer.leaf_id = survey` in the middle: that is the rewind, and the appends after it grow branch B.
"""),
    code(r'''
set_model("anthropic", "claude-sonnet-4-5")
set_thinking("medium")
user("Refactor payments/checkout.py: charge() does too much.")
survey = assistant("Two options: a strategy class per method, or composed functions.",
                   "anthropic", "claude-sonnet-4-5")

set_thinking("high")  # zh: 分支 A # en: branch A
user("Use the strategy pattern.")
assistant("Created CardPayment, PayPalPayment, InvoicePayment.", "anthropic", "claude-sonnet-4-5")
set_model("anthropic", "claude-opus-4-1")
user("Review the strategies for duplicated fee rules.")
leaf_a = assistant("Fees are repeated in all three classes.", "anthropic", "claude-opus-4-1")

writer.leaf_id = survey  # zh: 回退……再追加：分支 B # en: rewind ... then append: branch B
set_model("openai", "gpt-5")
set_thinking("low")
user("Use small composed functions instead.")
leaf_b = assistant("checkout() now composes validate(), add_fees(), send().", "openai", "gpt-5")

print(show_path(settings_path), L("已写入；", "written;"), len(read_session(settings_path).entries), L("个条目", "entries"))
print(L("分叉点：", "branch point:"), survey, L("| 叶子 A：", "| leaf A:"), leaf_a, L("| 叶子 B：", "| leaf B:"), leaf_b)
'''),
    md(zh="""
现在对文件里的**每一个**条目问同一个问题：如果当前叶子（current leaf）在这里，生效的是哪个模型、哪个思考级别？答案就是 `state_at(session.branch(entry_id))`：取出从根到这个条目的分支，交给 `state_at`（本章的练习之一）。
""", en="""
Now ask the same question of **every** entry in the file: if the leaf were here, which model and which thinking level would be in force? The answer is `state_at(session.branch(entry_id))`: take the branch from the root to that entry and hand it to `state_at` (one of this chapter's exercises).
"""),
    code(r'''
settings = load_session(settings_path)
on_a = {entry["id"] for entry in settings.branch(leaf_a)}
on_b = {entry["id"] for entry in settings.branch(leaf_b)}


def where(entry_id: str) -> str:
    return L("共享", "shared") if entry_id in on_a and entry_id in on_b else ("A" if entry_id in on_a else "B")


def describe(entry: dict) -> str:
    if entry["type"] == "message":
        return entry["message"]["role"]
    return entry["type"]


state_of = implementation("state-at")  # zh: use_my_code(True) 且通过时用你的 state_at # en: your state_at with use_my_code(True), once it passes
print(f"{pad(L('条目', 'entry'), 9)} {pad(L('记录', 'record'), 22)} {pad(L('组', 'group'), 10)} {pad(L('分支', 'branch'), 7)} {pad(L('生效的模型', 'model in force'), 28)} {L('思考级别', 'thinking')}")
for entry in settings.entries:
    model, thinking = state_of(settings.branch(entry["id"]))
    model_text = f"{model['provider']}/{model['modelId']}" if model else "None"
    print(f"{entry['id']:<9} {describe(entry):<22} {pad(GROUP_NAMES[record_group(entry['type'])], 10)} "
          f"{pad(where(entry['id']), 7)} {model_text:<28} {thinking}")
'''),
    md(zh="""
注意看分支 A 和分支 B 的第一行：它们的父节点是同一个回答，但从那里往下，各自的设置只影响各自的分支。分支 A 上的 `high` 对分支 B 毫无作用，因为 B 的任何一个节点往根走都不会经过它。

把两条分支上的思考级别和模型沿着深度画出来，就能看到“共享的前缀，分叉后各走各的”：
""", en="""
Look at the first row of branch A and of branch B: both have the same answer as parent, but from there down each branch's settings affect only that branch. The `high` on branch A does nothing for branch B, because no walk from a node of B to the root passes through it.

Plotting the thinking level and the model along each branch, by depth, shows the shared prefix and then each branch going its own way:
"""),
    code(r'''
LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"]
MODELS = ["claude-sonnet-4-5", "claude-opus-4-1", "gpt-5"]

fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 4.8), sharex=True)
for name, leaf, style in ((L("分支 A", "branch A"), leaf_a, "o-"), (L("分支 B", "branch B"), leaf_b, "s--")):
    path = settings.branch(leaf)
    states = [state_at(path[:depth + 1]) for depth in range(len(path))]
    top.step(range(len(path)), [LEVELS.index(thinking) for _, thinking in states], style,
             where="post", label=name)
    bottom.step(range(len(path)), [MODELS.index(model["modelId"]) for model, _ in states], style,
                where="post", label=name)
top.set_yticks(range(len(LEVELS)), LEVELS)
top.set_ylabel(L("思考级别", "thinking level"))
top.axvline(3, color="grey", linewidth=0.8)
top.text(3.1, 0.3, L("分叉点", "branch point"), color="grey", fontsize=8)
top.legend(loc="lower right")
bottom.set_yticks(range(len(MODELS)), MODELS)
bottom.set_ylabel(L("模型", "model"))
bottom.axvline(3, color="grey", linewidth=0.8)
bottom.set_xlabel(L("在分支上的深度（0 = 根）", "depth on the branch (0 = root)"))
fig.suptitle(L("沿每条分支生效的设置", "Settings in force along each branch"))
plt.show()
'''),
    md(zh="""
在树上看同一件事。节点按记录组上色：蓝色是元数据，绿色是对话内容，橙色是操作。橙色的“思考级别”和“换模型”节点分别长在两条分支上，而不是存在某个“全局设置”里：
""", en="""
The same thing on the tree. Nodes are coloured by record group: blue for metadata, green for content, orange for operations. The orange `think:` and `model` nodes grow on the two branches, not in some "global settings" record:
"""),
    code(r'''
title = "叶子在分支 A 上" if figure_language() == "zh" else "leaf on branch A"  # zh: 用图本身的语言 # en: the drawing's own language
draw_session(settings, leaf_id=leaf_a, fold_runs=False, title=title)
'''),
    md(zh="""
### 回退：文件说了什么，运行中的 Pi 用着什么

`/tree` 回到某个节点，只是在内存里移动叶子（第 03 章），文件一个字节都不变。因为设置就在路径上，新位置上“按文件该用哪个模型、哪个思考级别”也就确定了：`buildSessionContext` 沿路径算出它们。

但要分清“文件里写着什么”和“正在运行的 Pi 用着什么”。Pi 的 `/tree`（`navigateTree`，§9.4 第 8 步）只把智能体的**消息**换成新路径上的消息；正在用的模型和思考级别**不变**。它们要等会话被**重新打开**（`/resume`、`pi -c`）时，才按当时叶子所在的路径恢复。

**先预测。** 正在运行的 Pi 停在分支 A 的叶子上（`claude-opus-4-1`，思考级别 `high`）。用 `/tree` 跳到分支 B 的叶子之后，它下一轮用哪个模型？选 A：分支 B 路径上的 `openai/gpt-5`；选 B：跳之前的 `claude-opus-4-1`。

下面用 `pi.navigation.navigate` 在三个位置之间来回跳，每次同时打印两样东西：路径上生效的设置（重新打开会话时会得到的），和一个只在启动时读一次设置的“运行中的 Pi”在用的设置：
""", en="""
### Rewind: what the file says, and what the running Pi uses

Going back to a node with `/tree` only moves the leaf in memory (chapter 03); the file does not change by a byte. Since the settings sit on the path, the new place settles "which model and thinking level the file says": `buildSessionContext` computes them along the path.

But keep "what the file says" apart from "what the running Pi uses". Pi's `/tree` (`navigateTree`, §9.4 step 8) replaces only the agent's **messages** with those of the new path; the model and thinking level in use **stay as they were**. They are restored from the path only when the session is **reopened** (`/resume`, `pi -c`).

**Predict first.** A running Pi sits at branch A's leaf (`claude-opus-4-1`, thinking `high`). After `/tree` to branch B's leaf, which model does its next turn use? A: `openai/gpt-5`, from branch B's path; B: `claude-opus-4-1`, the one in use before the jump.

Below, `pi.navigation.navigate` jumps between three places, and each time prints two things: the settings in force on the path (what reopening the session would give), and the settings of a "running Pi" that reads them only once, at start:
""", tags=("predict",)),
    code("""
my_guess = None   # zh: "A" 或 "B" # en: "A" or "B"
predict("ch05-p1", my_guess, choices="AB")
""", tags=("predict",)),
    code(r'''
def settings_text(context) -> str:
    return f"{context.model['provider']}/{context.model['modelId']}, {context.thinking_level}"


before = settings_path.read_bytes()
navigate(settings, leaf_a)
running = build_session_context(settings.branch())  # zh: 打开会话时读一次 # en: read once, when the session is opened
print(f"{pad(L('叶子', 'leaf'), 9)} {pad(L('分支', 'branch'), 7)} {pad(L('路径上的设置（重新打开时）', 'on the path (on reopen)'), 38)} {L('运行中的 Pi 在用', 'the running Pi uses')}")
for target in (leaf_a, survey, leaf_b, leaf_a):
    navigate(settings, target)  # zh: /tree：只换消息 # en: /tree: replaces only the messages
    on_path = build_session_context(settings.branch())
    print(f"{settings.leaf_id:<9} {pad(where(settings.leaf_id), 7)} {settings_text(on_path):<38} {settings_text(running)}")
navigate(settings, leaf_b)
reveal("ch05-p1", "B")
same = settings_path.read_bytes() == before
verdict = L("，相同" if same else "，不同", ", identical" if same else ", changed")
print(L("文件的大小和内容：", "the file's size and bytes:"), len(before), "->", f"{len(settings_path.read_bytes())}{verdict}")
'''),
    md(zh="""
最后一个细节：为什么助手消息也算一次“模型声明”？因为它记录了实际回答的是谁。比如一个早期文件把模型写在会话头里（§2），路径上根本没有 `model_change`；又比如扩展在两个条目之间换了模型却没留下条目。只要后面有一条助手消息，它说的模型就是最新的：
""", en="""
One last detail: why does an assistant message count as a word about the model? Because it records who actually answered. An early file may keep its model in the header (§2), with no `model_change` on the path at all; an extension may switch models between two entries without writing one. As soon as an assistant message follows, the model it names is the latest word:
"""),
    code(r'''
path = [{"type": "model_change", "id": "m1", "parentId": None, "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
        {"type": "message", "id": "a1", "parentId": "m1",
         "message": {"role": "assistant", "provider": "openai", "model": "gpt-5", "content": []}}]
print(L("只有 model_change：      ", "model_change only:         "), state_at(path[:1]))
print(L("再加一条助手消息：      ", "then an assistant message: "), state_at(path))
print(L("空的分支：              ", "an empty branch:           "), state_at([]))
'''),
    md(zh="""
**轮到你了。** 把同样的三条路径，以及两条分支的完整路径，交给**你自己**在 [`workspace/ch05_records_and_state.py`](../../workspace/ch05_records_and_state.py) 里写的 `state_at`。结果应当和上面一样。
""", en="""
**Your turn.** Hand the same three paths, and the full paths of both branches, to **your own** `state_at` in [`workspace/ch05_records_and_state.py`](../../workspace/ch05_records_and_state.py). The results should match the ones above.
""", tags=("your-turn",)),
    code(r"""
for name, branch in (("model_change", path[:1]), ("+ assistant", path), ("[]", []),
                     (L("分支 A", "branch A"), settings.branch(leaf_a)), (L("分支 B", "branch B"), settings.branch(leaf_b))):
    mine = your_turn("state-at", branch)
    if mine is None:
        break
    print(f"  {name}: {mine}")
""", tags=("your-turn",)),
    md(zh="""
## 标签：按文件顺序，后写的说了算

标签（label）是给某个条目起的书签名，在 `/tree` 里用 `Shift+L` 编辑。它本身也是一个条目：`{"type": "label", "targetId": ..., "label": ...}`。规则只有三条（§7.3）：

1. 按**文件顺序**读所有 `label` 条目，同一个 `targetId` 后写的覆盖先写的；
2. `label` 是空字符串，或者干脆没有这个键，表示**清除**这个目标的标签；
3. 只看文件顺序，**不看分支**：标签对整个会话生效。

`data/labelled.jsonl` 把这几种情况都演了一遍。逐条读它的 `label` 条目，看标签表怎样一步步变化：
""", en="""
## Labels: file order, the latest word wins

A label is a bookmark name on an entry, edited in `/tree` with `Shift+L`. It is an entry too: `{"type": "label", "targetId": ..., "label": ...}`. Three rules (§7.3):

1. read all `label` entries in **file order**; for the same `targetId`, a later one overrides an earlier one;
2. an empty `label`, or no `label` key at all, **clears** the target's label;
3. only file order counts, **not the branch**: a label holds for the whole session.

`data/labelled.jsonl` acts out every case. Read its `label` entries one at a time and watch the label table change:
"""),
    code(r'''
labelled = load_session(data_file("labelled.jsonl"))
so_far = []
for entry in labelled.entries:
    if entry["type"] != "label":
        continue
    so_far.append(entry)
    said = repr(entry["label"]) if "label" in entry else L("（没有 label 键）", "(no label key)")
    print(f"{entry['id']}: {L('目标', 'target')} {entry['targetId']} {L('标签', 'label')} {pad(said, 17)} -> {resolve_labels(so_far)}")
print()
print(L("最终：", "resolved:"), labelled.labels())
mine = your_turn("resolve-labels", labelled.entries)  # zh: 你的 resolve_labels 会得到同样的结果吗？ # en: does your resolve_labels agree?
if mine is not None:
    print("  ", mine)
'''),
    md(zh="""
`first-try` 被后来的 `baseline` 覆盖；`wip` 被空字符串清除；`task` 被一个没有 `label` 键的条目清除。

### 标签会移动叶子

在 Pi 里加标签调用的是 `appendLabelChange`：和所有追加一样，新条目的父节点是当前叶子，**写完之后它就成了新的叶子**（§7.2）。所以标签条目就串在当前分支上，夹在消息中间；它们不产生任何发给模型的消息，但确实占据了路径上的位置。画出来看：
""", en="""
`first-try` is overridden by the later `baseline`; `wip` is cleared by an empty string; `task` is cleared by an entry with no `label` key.

### Labels move the leaf

Adding a label in Pi calls `appendLabelChange`: like every append, the new entry's parent is the current leaf, **and once written it becomes the new leaf** (§7.2). So label entries are chained into the current branch, between the messages; they produce no message for the model, but they do take a place on the path. Drawn:
"""),
    code(r'''
draw_session(labelled, fold_runs=False)
'''),
    md(zh="""
在一份副本上加一个标签，再重新加载：叶子变成了这个标签条目。模型看到的消息却一条都没多。

**改一改，再运行。** 把 `NEW_LABEL` 换成空字符串 `""` 再运行：叶子还会移动吗？标签表里会少掉什么？
""", en="""
Add one label to a copy and reload it: the leaf is now the label entry. The messages the model sees have not changed by one.

**Change it and re-run.** Set `NEW_LABEL` to the empty string `""` and run again: does the leaf still move? What disappears from the label table?
""", tags=("rerun",)),
    code(r'''
copy = LAB / "labelled-copy.jsonl"
copy.write_bytes(data_file("labelled.jsonl").read_bytes())
before = load_session(copy)
label_writer = SessionWriter(copy, clock=clock, rng=random.Random(7))
NEW_LABEL = "refund-done"  # zh: 试试 ""：清除标签 # en: try "": clears the label
added = label_writer.append({"type": "label", "targetId": before.leaf_id, "label": NEW_LABEL})

after = load_session(copy)
print(L("之前的叶子：", "leaf before:"), before.leaf_id, L("| 标签条目：", "| label entry:"), added["id"], L("| 之后的叶子：", "| leaf after:"), after.leaf_id)
print(L("之前的标签：", "labels before:"), before.labels())
print(L("现在的标签：", "labels now:   "), after.labels())
print(L("发给模型的消息：之前", "messages sent to the model: before"), len(build_session_context(before.branch()).messages),
      L("| 之后", "| after"), len(build_session_context(after.branch()).messages))
''', tags=("rerun",)),
    md(zh="""
### 标签和会话名对所有分支生效

设置只对自己所在的分支生效，标签和会话名却不一样：它们按**文件顺序**解析，与分支无关。回到刚才那个有两条分支的会话，让叶子停在分支 B 上，然后给**分支 A 上的一条消息**加一个标签，再起一个会话名。两个新条目都追加在分支 B 上，因为叶子在那里：
""", en="""
### Labels and the session name hold for every branch

Settings hold only on their own branch; labels and the session name do not work that way: they are resolved in **file order**, whatever the branch. Back to the session with two branches: with the leaf on branch B, label **a message on branch A**, and give the session a name. Both new entries are appended on branch B, because that is where the leaf is:
"""),
    code(r'''
strategy_answer = settings.branch(leaf_a)[6]["id"]  # zh: 分支 A 上的 "Created CardPayment, ..." # en: "Created CardPayment, ..." on branch A
writer.leaf_id = leaf_b
writer.append({"type": "label", "targetId": strategy_answer, "label": "strategy-attempt"})
writer.append({"type": "session_info", "name": L("支付：策略类还是组合", "payments: strategy vs composition")})

settings = load_session(settings_path)
print(L("现在的叶子：", "leaf now:"), settings.leaf_id, L("在分支", "on branch"), "B" if leaf_b in {e["id"] for e in settings.branch()} else "A")
print(L("Pi 的规则，整个文件：  标签", "Pi's rule, whole file:       labels"), settings.labels(), L("| 会话名", "| name"), repr(settings.name()))
path_a = settings.branch(leaf_a)
print(L("只看分支 A 自己的条目：标签", "only branch A's own entries: labels"), resolve_labels(path_a), L("| 会话名", "| name"), repr(session_name(path_a)))
'''),
    md(zh="""
如果按分支去解析，分支 A 上的那条消息就“没有”标签，会话名也是“没有”，因为这两个条目都不在分支 A 上。Pi 的规则是读整个文件：标签贴在哪个条目上，不取决于你此刻站在哪条分支上；会话名是整个文件的名字，不属于任何一条路径。

### 会话名：清除与版本差异

会话名来自 `session_info` 条目（`/name` 命令写入）。规则和标签类似：最新的一条说了算，读取时名字会被修剪（trim，去掉首尾空白）。从 v0.80 起，Pi 在**写入**名字时会把连续的回车换行（CR/LF）折成一个空格；读取时只修剪，不折叠。所以用 `/name` 起的名字里不会有换行，但文件里已有的（比如手写的、或者 v0.80 之前写下的）名字，读回来时中间的换行原样保留。有一处版本差异值得记住（§7.3）：

- **v0.58.3**：取**最后一条名字非空的** `session_info`。空名字被跳过，所以名字一旦起了就**永远清不掉**（#2304）；
- **v0.59.0 起**：取**最后一条** `session_info`，空名字表示清除。

`data/named.jsonl` 先起名、再改名、最后用空名字清除。两种规则给出不同的答案：
""", en="""
Resolved per branch, the message on branch A would have "no" label and the session "no" name, since neither entry is on branch A. Pi's rule reads the whole file: which entry a label sticks to does not depend on the branch you happen to stand on, and the session name is the file's name, not any path's.

### The session name: clearing, and a version difference

The name comes from `session_info` entries (written by `/name`). The rules are like the labels': the latest entry wins, and the name is trimmed (leading and trailing whitespace removed) when it is read. Since v0.80, Pi folds runs of CR/LF into one space when it **writes** a name; reading only trims, it does not fold. So a name set with `/name` has no line breaks, but a name already in the file (written by hand, say, or before v0.80) keeps its inner line breaks when read back. One version difference is worth remembering (§7.3):

- **v0.58.3**: the **last `session_info` with a non-empty name**. Empty names are skipped, so once a name is set it can **never be cleared** (#2304);
- **from v0.59.0**: the **last `session_info`** of all; an empty name clears.

`data/named.jsonl` sets a name, renames, then clears with an empty name. The two rules disagree:
"""),
    code(r'''
named = load_session(data_file("named.jsonl"))
infos = [entry for entry in named.entries if entry["type"] == "session_info"]
for entry in infos:
    print(f"{entry['id']}: {L('会话名', 'name')} {entry['name']!r}")

latest_non_empty = next((e["name"].strip() for e in reversed(infos) if e["name"].strip()), None)
print()
print(pad(L("Pi >= v0.59（课程也一样）：", "Pi >= v0.59 (and the course):"), 31), repr(named.name()))
print(pad(L("Pi v0.58.3 的规则：", "Pi v0.58.3 rule:"), 31), repr(latest_non_empty))
print(pad(L("读取时只修剪，换行保留：", "read back: trimmed, CR/LF kept:"), 31),
      repr(session_name([{"type": "session_info", "name": "  payments\r\nrefactor \n"}])))
'''),
    md(zh="""
## 不认识的记录类型：原样保留

今天的 Pi 认识九种条目，明天的 Pi 可能多一种；第三方工具也会写入自己的类型，比如 agent-core 的智能体运行框架（harness）写的 `leaf` 和 `active_tools_change`（§3.2）。读取器遇到不认识的 `type` 该怎么办？

Pi 的做法（§3.2）：照样当作普通的树节点，按 id 建索引，允许它做叶子，路径可以穿过它；只是构建上下文时忽略它。这正是唯一安全的做法：如果把它丢掉，它的孩子就成了孤儿（orphan，第 04 章），树从这里断开。

`data/pi/pi-session-inspector/unknown-entry-ancestry.jsonl` 是一个公开的测试文件，一条 `future_entry` 正好夹在链条中间。课程资料里还存着 Pi v0.84.2 自己对这个文件给出的答案（`data/pi/expected/`），可以直接拿来对照：
""", en="""
## Record types nobody knows: keep them as they are

Today's Pi knows nine entry types; tomorrow's may know ten, and third-party tools write their own (the agent-core harness's `leaf` and `active_tools_change`, for example, §3.2). What should a reader do with a `type` it does not know?

Pi's answer (§3.2): treat it as an ordinary tree node, index it by id, allow it as the leaf, let paths run through it, and ignore it only when building the context. That is the only safe answer: drop it, and its children become orphans (chapter 04), the tree cut in two at that point.

`data/pi/pi-session-inspector/unknown-entry-ancestry.jsonl` is a public test file with a `future_entry` right in the middle of a chain. The course material also holds Pi v0.84.2's own answers for this file (`data/pi/expected/`), so we can compare directly:
"""),
    code(r'''
unknown_path = data_file("pi/pi-session-inspector/unknown-entry-ancestry.jsonl")
ancestry = load_session(unknown_path)
from learn_pi_lab.i18n import explain

for problem in ancestry.diagnostics:
    print(explain(problem))

middle = ancestry.entry("unknown-middle")
record = parse_entry(middle)
print()
print(L("组：", "group:"), GROUP_NAMES[record_group(middle["type"])], L("| 解析成：", "| parsed as:"), type(record).__name__,
      L("| 原样保留的键：", "| keys kept as they were:"), sorted(record.to_json()))
branch = ancestry.branch()
context = build_session_context(branch)
print(L("分支：  ", "branch:  "), [entry["id"] for entry in branch])
print(L("上下文：", "context: "), [[m["role"], m["entryId"]] for m in context.messages])

expected = json.loads(data_file("pi/expected/pi-session-inspector__unknown-entry-ancestry.json").read_text())
print()
print(L("Pi v0.84.2 实际给出的分支：  ", "the branch Pi v0.84.2 gave:  "), expected["path"])
print(L("Pi v0.84.2 实际给出的上下文：", "the context Pi v0.84.2 gave: "), expected["context"])
print(L("Pi v0.84.2 的模型和思考级别：", "Pi v0.84.2's model and thinking:"), expected["model"], expected["thinkingLevel"],
      L("| 教学模型：", "| teaching model:"), context.model, context.thinking_level)
'''),
    code(r'''
draw_session(ancestry, fold_runs=False)
'''),
    md(zh="""
教学模式（teaching mode）给了一条 info 级别的 `unknown-type` 诊断（diagnostic）：不是错误，只是让你知道。这个条目被解析成 `UnknownEntry`，整个对象原样保留（读取器还保存了这一行的原始文本 `LoadedLine.text`，需要时可以逐字节写回）；路径穿过它，上下文跳过它，图里它是一个灰色节点。

## Pi 怎么做，教学模型怎么做

这一章里，教学模型和 Pi v0.84.2 的规则是一致的，差别只在于它会把看到的东西说出来：

| 话题 | Pi v0.84.2 | 教学模型 |
|---|---|---|
| 生效的模型、思考级别 | 从根到叶子走一遍路径，最后一次说的算；助手消息也算；默认 `None`、`off` | 相同（`state_at`） |
| `/tree` 之后在用的模型、思考级别 | 不变：`navigateTree` 只替换消息；重新打开会话时才按路径恢复 | 只计算路径上的设置，不模拟运行中的智能体 |
| 标签 | 整个文件按顺序解析，后写的胜出，空值或缺键清除；加载时不检查目标是否存在，`appendLabelChange` 才会拒绝未知目标 | 相同（`resolve_labels`） |
| 会话名 | ≥0.59 最后一条说了算，空值清除；v0.58.3 清不掉 | 采用 ≥0.59 的规则 |
| 标签、会话名条目 | 追加在当前分支上，成为新的叶子 | 相同 |
| 未知记录类型 | 当作普通节点保留，上下文忽略 | 相同，另给一条 `unknown-type` 诊断 |

还有一个设计上的对照值得一提：Pi v0.84 里 agent-core 新的 harness 存储（“format 4”，§15）把标签和会话名改成了“事实”寄存器，把模型和思考级别改成了通道（lane）的配置，**不再是树上的节点**。这让它们不再随路径变化：重新打开会话时，它们也不会再按路径恢复。截至 v0.84.2，编程智能体（coding agent）本身仍然写 v3 文件，用的是本章讲的规则。
""", en="""
Teaching mode gives an info-level `unknown-type` diagnostic: not an error, just so you know. The entry is parsed as an `UnknownEntry` and the whole object is kept (the reader also keeps the line's original text, `LoadedLine.text`, so it can be written back byte for byte); the branch runs through it, the context skips it, and the drawing shows it as a grey node.

## What Pi does, and what the teaching model does

In this chapter the teaching model follows Pi v0.84.2's rules; the only difference is that it says what it sees:

| Topic | Pi v0.84.2 | Teaching model |
|---|---|---|
| model and thinking level in force | walk the path from the root to the leaf, the last word wins; assistant messages count; defaults `None` and `off` | the same (`state_at`) |
| model and thinking level in use after `/tree` | unchanged: `navigateTree` replaces only the messages; reopening the session restores them from the path | computes the settings on the path only; no running agent is modelled |
| labels | resolved over the whole file in order, latest wins, empty or missing clears; loading does not check that the target exists, only `appendLabelChange` refuses an unknown target | the same (`resolve_labels`) |
| session name | ≥0.59: the latest entry wins, empty clears; v0.58.3 could not clear | the ≥0.59 rule |
| label and name entries | appended on the current branch, becoming the new leaf | the same |
| unknown entry types | kept as ordinary nodes, ignored by the context | the same, plus an `unknown-type` diagnostic |

One design contrast is worth a mention: the new agent-core harness storage in Pi v0.84 ("format 4", §15) turns labels and the session name into "fact" registers, and the model and thinking level into lane configuration: **no longer tree nodes**. They stop varying with the path: reopening a session no longer restores them from the path either. As of v0.84.2 the coding agent itself still writes v3 files, with the rules of this chapter.
"""),
    md(zh="""
## 练习：`state_at` 与 `resolve_labels`

在 [`workspace/ch05_records_and_state.py`](../../workspace/ch05_records_and_state.py) 里完成两个函数。条目都是解析好的 JSON 字典（文件里的一行）。

1. **`state_at(path_entries) -> (model 或 None, thinking_level)`**（练习 id：`state-at`）。`path_entries` 是从根到某个节点的分支。返回那里生效的模型 `{"provider": ..., "modelId": ...}` 和思考级别。`model_change`、`thinking_level_change` 和助手消息（`message.provider`、`message.model`）都算数，最后一次说了算；什么都没有时是 `(None, "off")`。注意：结果里的键叫 `modelId`，而助手消息里的键叫 `model`。
2. **`resolve_labels(entries) -> dict[targetId, label]`**（练习 id：`resolve-labels`）。按文件顺序处理 `type == "label"` 的条目，后写的覆盖先写的；`label` 为空字符串或者没有这个键，就清除那个目标的标签（清除一个本来就没有的标签不是错误）。

参考实现（reference implementation）就是上面用过的 `learn_pi_lab.pi.context.state_at` 和 `learn_pi_lab.pi.session.resolve_labels`。写完运行下面的检查；也可以在终端里运行 `make verify EX=state-at`。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch05_records_and_state.py`](../../learn_pi_lab/lessons/ch05_records_and_state.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。
""", en="""
## Exercises: `state_at` and `resolve_labels`

Complete two functions in [`workspace/ch05_records_and_state.py`](../../workspace/ch05_records_and_state.py). Entries are parsed JSON dicts (one line of the file each).

1. **`state_at(path_entries) -> (model or None, thinking_level)`** (exercise id `state-at`). `path_entries` is the branch from the root to some node. Return the model in force there, `{"provider": ..., "modelId": ...}`, and the thinking level. `model_change`, `thinking_level_change` and assistant messages (`message.provider`, `message.model`) all count, and the last word wins; with nothing at all the answer is `(None, "off")`. Note that the key in the result is `modelId`, while an assistant message calls it `model`.
2. **`resolve_labels(entries) -> dict[targetId, label]`** (exercise id `resolve-labels`). Go through the entries with `type == "label"` in file order; a later one overrides an earlier one; an empty `label`, or no `label` key, clears that target's label (clearing a label that is not there is not an error).

The reference versions are the ones used above, `learn_pi_lab.pi.context.state_at` and `learn_pi_lab.pi.session.resolve_labels`. When you are done, run the check below; in a terminal, `make verify EX=state-at` does the same. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch05_records_and_state.py`](../../learn_pi_lab/lessons/ch05_records_and_state.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.
"""),
    code(r'''
from learn_pi_lab.harness.notebook import check

check("05")
'''),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("05")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- 会话文件里的十种行按职责分三组：**元数据**（`session`、`session_info`、`label`）、**对话内容**（`message`、`compaction`、`branch_summary`、`custom_message`）、**操作**（`model_change`、`thinking_level_change`、`custom`）。只有内容组会变成发给模型的消息。
- **操作也是树上的节点**。某个节点上生效的模型和思考级别，就是从根走到它时最后一次说的那个（助手消息也算）。一条分支上的设置不会影响另一条分支。注意：Pi 的 `/tree` 只替换消息，正在用的模型和思考级别不变；重新打开会话时，才按叶子所在的路径恢复。
- **标签**按文件顺序解析，后写的胜出，空值或缺键清除；**会话名**取最后一条 `session_info`，空名字清除（≥0.59）。两者都对整个会话生效，与分支无关；它们的条目追加在当前分支上，并成为新的叶子。
- **不认识的记录类型**要当作普通节点原样保留，路径可以穿过它；丢掉它就会把树切断。
""", en="""
## Summary

- The ten kinds of line in a session file fall into three groups by responsibility: **metadata** (`session`, `session_info`, `label`), **conversation content** (`message`, `compaction`, `branch_summary`, `custom_message`) and **operations** (`model_change`, `thinking_level_change`, `custom`). Only the content group becomes messages for the model.
- **Operations are tree nodes too.** The model and thinking level in force at a node are whatever was said last on the walk from the root to it (assistant messages included). Settings on one branch never affect another. Note: Pi's `/tree` replaces only the messages, and the model and thinking level in use stay as they were; reopening the session restores them from the leaf's path.
- **Labels** are resolved in file order, the latest wins, empty or missing clears; the **session name** is the latest `session_info`, and an empty name clears it (≥0.59). Both hold for the whole session, whatever the branch; their entries are appended on the current branch and become the new leaf.
- **Unknown record types** must be kept as ordinary nodes, exactly as they are, with paths running through them; dropping one cuts the tree.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch05-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch05-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch05-q1")
"""),
    code("""ask("ch05-q2")"""),
    code("""ask("ch05-q3")"""),
]
