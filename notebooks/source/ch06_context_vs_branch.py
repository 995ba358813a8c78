"""Chapter 06: what the model sees is not what is stored (seed 001: getBranch vs buildContextEntries)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("06", "context-vs-branch",
                  zh="模型看到的与文件里存的：上下文不等于分支",
                  en="What the model sees vs what is stored: the context is not the branch")

CELLS = [
    md(zh="""
## 学习目标

到目前为止，"当前分支"（current branch）就是我们对一次对话的全部理解：从根（root）走到叶子（leaf）的那串条目（entry）。可模型收到的并不是这串条目。本章把两者并排摆出来，看清中间发生了什么。读完并运行本章，你应该能够：

- 区分**当前分支**（`getBranch`：从根到叶子存了什么）和**上下文**（context，`buildSessionContext`：真正发给模型的是什么），并说出扩展（extension）作者为什么常把两者搞混；
- 说明**压缩**（compaction）如何用一段摘要替换 `firstKeptEntryId` 之前的一切，并在树上指出被摘要的部分和被保留的部分；
- 解释嵌套压缩的规则（v0.80.4 起，较早的压缩会作为第二条摘要出现），以及缺少 `firstKeptEntryId` 时会发生什么；
- 知道分支摘要（branch summary，`branch_summary` 条目）怎样把一条被放弃的分支学到的东西带回来，以及 `fromId` 在代码里和文档里的说法为什么不一致；
- 区分 `custom_message`（进入上下文）和 `custom`（只存档），也就是扩展 API 里 `sendMessage` 和 `appendEntry` 的区别；
- 完成练习 `build_context_messages`：亲手从一条分支构造出模型看到的消息。
""", en="""
## Learning goals

Up to now, the "current branch" has been our whole picture of a conversation: the entries on the walk from the root to the leaf. But that is not what the model receives. This chapter puts the two side by side and looks at what happens in between. After reading and running it you should be able to:

- tell the **current branch** (`getBranch`: what is stored from the root to the leaf) from the **context** (`buildSessionContext`: what is actually sent to the model), and say why extension authors often mix them up;
- explain how a **compaction** replaces everything before its `firstKeptEntryId` with a summary, and point out on the tree the part that was summarised and the part that was kept;
- explain the rule for nested compactions (since v0.80.4 an older compaction shows up as a second summary), and what happens when `firstKeptEntryId` is missing;
- say how a `branch_summary` carries back what an abandoned branch learned, and why the code and the docs disagree about its `fromId`;
- tell `custom_message` (enters the context) from `custom` (archive only): the difference between `sendMessage` and `appendEntry` in the extension API;
- complete the exercise `build_context_messages`: build, yourself, the messages the model sees from a branch.
"""),
    md(zh="""
## 两个函数，两个问题

Pi 的会话（session）管理器里有两个名字相近、常被混用的函数（§7.3、§8）：

- `getBranch()`：从根到叶子的**全部条目**，原样返回。设置、标签（label）、扩展状态（extension state）、压缩条目，统统在里面。它回答的是"**存了什么**"。
- `buildSessionContext()`（v0.80.4 起还有 `buildContextEntries()`）：把这条分支按一套规则变成**消息列表**，外加当前生效的模型和思考级别（thinking level）。它回答的是"**模型看到什么**"。

之后还有第三层：`convertToLlm` 把这些消息里只有 Pi 自己认识的角色（压缩摘要、分支摘要、扩展消息、`!命令`）改写成提供商（provider）认识的普通 `user` 消息（§8.1）。

在课程里，第一层是 `Session.branch()`，第二层是 `pi.context.build_session_context`，第三层是 `pi.context.convert_to_llm`。课程在每条消息上多加了一个键 `entryId`，记下它来自哪个条目（Pi 不加），这样就能把每条消息指回树上的节点。

`stored_vs_sent()` 把同一条分支列成两栏：左边是存下的条目，右边是每个条目在上下文里的位置（`#1`、`#2`……），或者它为什么没有被发送。先看一个没有压缩的普通会话：
""", en="""
## Two functions, two questions

Pi's session manager has two functions with similar names that are often confused (§7.3, §8):

- `getBranch()`: **every entry** from the root to the leaf, as stored. Settings, labels, extension state, compaction entries, all of it. It answers "**what is stored**".
- `buildSessionContext()` (and, since v0.80.4, `buildContextEntries()`): turns that branch into a **list of messages** by a set of rules, plus the model and thinking level in force. It answers "**what the model sees**".

Then there is a third layer: `convertToLlm` rewrites the roles that only Pi knows (compaction summary, branch summary, extension message, `!command`) into plain `user` messages a provider understands (§8.1).

In the course the first layer is `Session.branch()`, the second `pi.context.build_session_context`, the third `pi.context.convert_to_llm`. The course adds one key to each message, `entryId`, naming the entry it came from (Pi does not), so every message can be traced back to its node on the tree.

`stored_vs_sent()` lists one branch in two columns: on the left the stored entries, on the right each entry's position in the context (`#1`, `#2`, ...) or why it was not sent. First an ordinary session with no compaction:
"""),
    code(r'''
import json
from collections import defaultdict

import matplotlib.pyplot as plt

from learn_pi_lab.course.paths import data_file, scratch_dir, show_path
from learn_pi_lab.drawing import draw_session
from learn_pi_lab.jsonl.writer import to_json_line
from learn_pi_lab.pi.context import (BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX,
                                     COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX,
                                     build_session_context, convert_to_llm)
from learn_pi_lab.pi.session import load_session

SENDABLE = {"message", "custom_message", "branch_summary", "compaction"}


def kind_of(entry: dict) -> str:
    """The role of a message entry, otherwise the entry type."""
    return entry["message"]["role"] if entry["type"] == "message" else entry["type"]


def stored_vs_sent(branch: list[dict]) -> None:
    """Print a branch (what is stored) next to its context (what is sent)."""
    context = build_session_context(branch)
    sent = defaultdict(list)
    for number, message in enumerate(context.messages, start=1):
        sent[message["entryId"]].append(f"#{number} {message['role']}")
    print(f"{'stored (getBranch)':<36} sent (buildSessionContext)")
    for entry in branch:
        if entry["id"] in sent:
            where = ", ".join(sent[entry["id"]])
        elif entry["type"] in SENDABLE:
            where = "-   replaced by the summary"
        else:
            where = "-   never sent"
        print(f"  {entry['id'][:8]:<9} {kind_of(entry):<24} {where}")
    model = context.model and f"{context.model['provider']}/{context.model['modelId']}"
    print(f"{len(branch)} entries stored, {len(context.messages)} messages sent;"
          f" model {model}, thinking {context.thinking_level}")


linear = load_session(data_file("linear.jsonl"))
stored_vs_sent(linear.branch())
'''),
    md(zh="""
没有压缩时，两栏几乎一样：每个消息条目按顺序变成一条消息，只有开头两个设置条目"从不发送"。它们并没有白存：模型和思考级别就是从它们读出来的（第 05 章），只是不以消息的形式出现。

## 压缩：一段摘要替换掉前面的一切

会话越来越长，总有一天装不下模型的上下文窗口。Pi 这时会做一次压缩（上下文快满时自动触发，也可以用 `/compact` 命令手动触发，§8.2）：让模型把较早的部分总结成一段文字，然后**追加**一个 `compaction` 条目，里面有：

- `summary`：摘要文字；
- `firstKeptEntryId`：从哪个条目开始**原样保留**；
- `tokensBefore`：压缩前上下文大约有多少 token。

注意，压缩**不删除也不改写任何东西**：它只是又一个追加的条目。被"压缩掉"的条目全都还在文件里，还在分支上，只是构建上下文时不再发送。`data/compacted.jsonl` 里就有一次压缩：
""", en="""
Without a compaction the two columns almost match: each message entry becomes one message, in order, and only the two settings entries at the start are "never sent". They were not stored for nothing: the model and thinking level are read from them (chapter 05), just not as messages.

## Compaction: one summary replaces everything before

A session keeps growing, and one day it no longer fits the model's context window. Pi then compacts it (automatically when the context is nearly full, or by hand with the `/compact` command, §8.2): it has the model summarise the earlier part, and **appends** one `compaction` entry holding:

- `summary`: the summary text;
- `firstKeptEntryId`: the entry from which everything is **kept as is**;
- `tokensBefore`: roughly how many tokens the context held before.

Note that compaction **deletes and rewrites nothing**: it is just one more appended entry. The "compacted away" entries are all still in the file and still on the branch; the context simply stops sending them. `data/compacted.jsonl` holds one compaction:
"""),
    code(r'''
compacted = load_session(data_file("compacted.jsonl"))
branch = compacted.branch()
stored_vs_sent(branch)

compaction = next(entry for entry in branch if entry["type"] == "compaction")
print()
print("compaction", compaction["id"], "| firstKeptEntryId:", compaction["firstKeptEntryId"],
      "| tokensBefore:", compaction["tokensBefore"])
'''),
    md(zh="""
这就是"存的"和"发的"之间最大的落差：

1. 上下文的**第一条**消息是压缩摘要（`compactionSummary`），尽管压缩条目在分支上靠近末尾的位置；
2. 接着是从 `firstKeptEntryId` 开始、到压缩条目之前的那一段（保留区，kept range）；
3. 然后是压缩条目之后的一切；
4. `firstKeptEntryId` 之前的消息"被摘要替换"，一条都不发。

而最后一行告诉我们另一件事：模型和思考级别仍然是 `claude-sonnet-4-5` 和 `medium`，尽管设置它们的两个条目位于被摘要的部分。**设置从整条路径读取**，压缩挡不住它们（§8）。

在树上看同一件事。`view="context"` 让图显示上下文：灰色带和阴影是被摘要的部分，绿色带是保留区，绿色虚线箭头从压缩条目指向 `firstKeptEntryId`，蓝框节点左上角的 `#n` 是它的消息在上下文中的位置。注意 `#1` 长在树的下方：
""", en="""
Here is the biggest gap between "stored" and "sent":

1. the **first** message of the context is the compaction summary (`compactionSummary`), although the compaction entry sits near the end of the branch;
2. next comes the stretch from `firstKeptEntryId` up to the compaction entry (the kept range);
3. then everything after the compaction entry;
4. the messages before `firstKeptEntryId` are "replaced by the summary": not one of them is sent.

And the last line tells us one more thing: the model and thinking level are still `claude-sonnet-4-5` and `medium`, although the two entries that set them lie in the summarised part. **Settings are read from the whole path**; a compaction does not hide them (§8).

The same thing on the tree. `view="context"` makes the drawing show the context: the grey band and hatching mark the summarised part, the green band the kept range, a dashed green arrow runs from the compaction entry to `firstKeptEntryId`, and the `#n` at the upper left of each blue-framed node is its message's position in the context. Note that `#1` sits low in the tree:
"""),
    code(r'''
draw_session(compacted, view="context", fold_runs=False)
'''),
    md(zh="""
### 规则（Pi v0.84.2，§8）

把上面的现象写成算法，就是 `buildSessionContext` 的全部：

1. 沿分支从根走到叶子，一路记下**最后一次**的模型设置（`model_change` 或助手消息）和思考级别，以及**最后一个**压缩；
2. 没有压缩：每个条目各自产出消息（`message` 原样；`custom_message` 变成 `custom` 角色；非空的 `branch_summary` 变成 `branchSummary` 角色；其他一律不产出）；
3. 有压缩：先放它的 `compactionSummary`；再从压缩之前的条目里找到 `firstKeptEntryId`，从它开始到压缩之前逐条产出；最后是压缩之后的条目。

第 3 步藏着一个容易忽略的后果：**如果 `firstKeptEntryId` 缺失，或者不在这条分支上，就什么都不保留**，上下文只剩摘要加压缩之后的内容。这不是理论上的情况：v1 文件迁移（migration）时，一个向前指的 `firstKeptEntryIndex` 就会留下一个没有 `firstKeptEntryId` 的压缩（§5、§12b）。

### 实验：移动保留边界

拿 `compacted.jsonl` 的分支做实验，只改压缩条目的 `firstKeptEntryId`（在内存里改副本，文件不动）：让它依次指向压缩之前的每一个条目，再试试"缺失"和"指向别的分支"，每次数一数发出去多少条消息：
""", en="""
### The rules (Pi v0.84.2, §8)

Written as an algorithm, that is all there is to `buildSessionContext`:

1. walk the branch from the root to the leaf, noting the **latest** model setting (a `model_change` or an assistant message), the latest thinking level, and the **latest** compaction;
2. no compaction: each entry contributes its own message (`message` as is; `custom_message` as a `custom` role; a non-empty `branch_summary` as a `branchSummary` role; anything else nothing);
3. a compaction: first its `compactionSummary`; then, among the entries before the compaction, find `firstKeptEntryId` and emit from there up to the compaction; last, the entries after the compaction.

Step 3 hides a consequence that is easy to miss: **if `firstKeptEntryId` is missing, or not on this branch, nothing is kept**, and the context is the summary plus what follows the compaction. This is not hypothetical: when a v1 file is migrated, a `firstKeptEntryIndex` that points forward leaves a compaction with no `firstKeptEntryId` (§5, §12b).

### Experiment: move the kept boundary

Take the branch of `compacted.jsonl` and change only the compaction's `firstKeptEntryId` (on a copy in memory; the file is untouched): point it at each entry before the compaction in turn, then try "missing" and "on another branch", and count the messages sent each time:
"""),
    code(r'''
at = [entry["id"] for entry in branch].index(compaction["id"])


def with_first_kept(value) -> list[dict]:
    """The same branch with the compaction's firstKeptEntryId set to value (None: key removed)."""
    changed = {key: val for key, val in compaction.items() if key != "firstKeptEntryId"}
    if value is not None:
        changed["firstKeptEntryId"] = value
    return [changed if entry["id"] == compaction["id"] else entry for entry in branch]


SHORT = {"model_change": "model", "thinking_level_change": "thinking", "toolResult": "tool"}
candidates = [entry["id"] for entry in branch[:at]] + [None, "deadbeef"]
names = [f"{c}\n{SHORT.get(kind_of(branch[i]), kind_of(branch[i]))}" if i < at
         else ("missing" if c is None else "not on\nbranch") for i, c in enumerate(candidates)]
sent_counts = [len(build_session_context(with_first_kept(c)).messages) for c in candidates]

for name, sent in zip(names, sent_counts):
    print(f"firstKeptEntryId = {name.replace(chr(10), ' '):<32} -> {sent} messages sent")

fig, ax = plt.subplots(figsize=(9, 3.2))
colours = ["tab:green" if c == compaction["firstKeptEntryId"] else "tab:blue" for c in candidates]
ax.bar(range(len(candidates)), sent_counts, color=colours)
ax.set_xticks(range(len(candidates)), names, fontsize=7)
ax.set_ylabel("messages sent")
ax.set_xlabel("firstKeptEntryId (green: the value in the file)")
ax.set_title("How much history the model keeps depends on firstKeptEntryId")
plt.show()
'''),
    md(zh="""
越往前指，保留的就越多；但从 `model_change` 指到第一条用户消息，发送的消息数并不变，因为设置条目本来就不产出消息。这也解释了为什么真实文件里 `firstKeptEntryId` 可能指向一条 `model_change` 根节点：Pi 的切点算法会把切点向前挪过紧挨着的非消息条目（§8.2）。而"缺失"和"不在分支上"两根柱子一样矮：只剩摘要和压缩之后的两条。

在一个真实的副本上再做一次：把压缩条目里的 `firstKeptEntryId` 删掉，然后重新加载。
""", en="""
The further back it points, the more is kept; but from the `model_change` to the first user message the count does not change, since settings entries never produce messages anyway. That is also why, in real files, `firstKeptEntryId` can point at a `model_change` root: Pi's cut-point search moves the cut back over directly preceding non-message entries (§8.2). And the "missing" and "not on branch" bars are equally short: only the summary and the two messages after the compaction remain.

Once more on a real copy: delete `firstKeptEntryId` from the compaction line, then reload.
"""),
    code(r'''
LAB = scratch_dir("ch06")
no_first_kept = LAB / "compaction-without-first-kept.jsonl"
lines = data_file("compacted.jsonl").read_text(encoding="utf-8").splitlines()
lines = [to_json_line(with_first_kept(None)[at]) if json.loads(line).get("id") == compaction["id"] else line
         for line in lines]
no_first_kept.write_text("\n".join(lines) + "\n", encoding="utf-8")
print("written:", show_path(no_first_kept))

damaged = load_session(no_first_kept)
stored_vs_sent(damaged.branch())
'''),
    md(zh="""
## 嵌套压缩：较早的摘要再出现一次

同一条分支上可以有不止一次压缩，规则只认**最后一个**。那较早的那次压缩怎么办？如果它落在最新压缩的保留区**之外**，它和其他被摘要的条目一样不发送。麻烦在于它可能落在保留区**之内**：

- v0.63.1 起（#2608），再次压缩时，切点的搜索从**上一次压缩的 `firstKeptEntryId`** 开始，所以新的 `firstKeptEntryId` 可能在旧压缩条目的**前面**，旧压缩就落进了新的保留区；
- **v0.58.3**：构建上下文时压缩条目本身不产出消息，于是保留区里的旧压缩被**悄悄丢掉**；
- **v0.80.4 起**（`buildContextEntries` 重构）：保留区里的旧压缩在它的位置上作为**第二条 `compactionSummary`** 发出。

课程采用 v0.84.2 的行为。`data/compacted-nested.jsonl` 里两次压缩的 `firstKeptEntryId` 相同：
""", en="""
## Nested compactions: an older summary shows up again

A branch can hold more than one compaction, and the rules honour only the **latest**. What about the older one? If it lies **outside** the latest one's kept range, it is not sent, like everything else that was summarised. The trouble is that it can lie **inside** the kept range:

- since v0.63.1 (#2608), a repeated compaction starts its cut search at **the previous compaction's `firstKeptEntryId`**, so the new `firstKeptEntryId` can lie **before** the old compaction entry, and the old compaction falls inside the new kept range;
- **v0.58.3**: compaction entries produce no message when the context is built, so an old compaction in the kept range was **silently dropped**;
- **since v0.80.4** (the `buildContextEntries` refactor): an old compaction in the kept range is emitted at its position as a **second `compactionSummary`**.

The course follows v0.84.2. In `data/compacted-nested.jsonl` both compactions share one `firstKeptEntryId`:
"""),
    code(r'''
nested = load_session(data_file("compacted-nested.jsonl"))
stored_vs_sent(nested.branch())

context = build_session_context(nested.branch())
latest = [m for m in context.messages if m["role"] == "compactionSummary"][0]["entryId"]
v0_58_3 = [m for m in context.messages if m["role"] != "compactionSummary" or m["entryId"] == latest]
print()
print("v0.84.2:", [m["role"] for m in context.messages])
print("v0.58.3:", [m["role"] for m in v0_58_3])
'''),
    md(zh="""
这不只是生成的示例。`data/pi/agent-sessions/small.jsonl` 是一个公开的、由真实 Pi 写出的会话文件，里面的两次压缩的 `firstKeptEntryId` **都指向根上的 `model_change`**，所以第二次压缩的保留区包含了整条分支，第一次压缩也在其中。课程资料里存着 Pi v0.84.2 自己对这个文件给出的上下文（`data/pi/expected/`），我们的结果必须与之一字不差：
""", en="""
This is not just a generated example. `data/pi/agent-sessions/small.jsonl` is a public session file written by real Pi, and both its compactions have `firstKeptEntryId` **pointing at the root `model_change`**, so the second compaction's kept range holds the whole branch, the first compaction included. The course material holds the context Pi v0.84.2 itself built for this file (`data/pi/expected/`), and ours must match it exactly:
"""),
    code(r'''
small = load_session(data_file("pi/agent-sessions/small.jsonl"))
stored_vs_sent(small.branch())

ours = [[m["role"], m["entryId"]] for m in build_session_context(small.branch()).messages]
expected = json.loads(data_file("pi/expected/agent-sessions__small.json").read_text(encoding="utf-8"))
print()
print("Pi v0.84.2 :", expected["context"])
print("the course :", ours)
print("identical:", ours == expected["context"])
draw_session(small, view="context", fold_runs=False)
'''),
    md(zh="""
## 分支摘要：被放弃的分支学到了什么

第 03 章说过，`/tree` 回到一个更早的节点时，可以选择**带着摘要回去**：Pi 把将要离开的那条分支总结一下，作为 `branch_summary` 条目追加在目标节点下面（§9.4）。这样在 A 路上撞过的墙，B 路也知道。种子课程把它称为"试错不白费"。

`data/branch-summary.jsonl` 就是这样一个会话：先尝试了策略模式，发现方向错了，回到调研回答，带着摘要改用组合。
""", en="""
## Branch summaries: what an abandoned branch learned

Chapter 03 showed that `/tree` can go back to an earlier node **with a summary**: Pi summarises the branch being left and appends it as a `branch_summary` entry under the target node (§9.4). The wall you hit on path A is then known on path B; the seed course calls this making trial and error pay.

`data/branch-summary.jsonl` is such a session: it tried the strategy pattern, found it was the wrong direction, went back to the survey answer with a summary, and switched to composition.
"""),
    code(r'''
summarised = load_session(data_file("branch-summary.jsonl"))
stored_vs_sent(summarised.branch())

summary = next(entry for entry in summarised.entries if entry["type"] == "branch_summary")
on_branch = {entry["id"] for entry in summarised.branch()}
abandoned_leaf = next(entry.id for entry in summarised.tree.leaves() if entry.id not in on_branch)
print()
print("branch_summary", summary["id"], "| parentId:", summary["parentId"], "| fromId:", summary["fromId"])
print("the leaf that was abandoned:", abandoned_leaf)
print("fromId == parentId (the branch point):", summary["fromId"] == summary["parentId"])
print("fromId == the abandoned leaf:         ", summary["fromId"] == abandoned_leaf)
'''),
    md(zh="""
两件事值得注意。

第一，被放弃的那条分支上的条目（策略模式的四条消息）根本不在当前分支上，所以一条都不发；模型只通过 `branchSummary` 这一条消息知道那里发生过什么。

第二，`fromId` 的含义。Pi 的文档说它是"被放弃的那个旧叶子"；但从 v0.58.3 到 v0.84.2 的代码都把它设成**分叉点**（branch point），也就是和 `parentId` 相同的值（摘要挂在根上时是字符串 `"root"`，§3.2）。上面的检查证实了这一点：它等于 `parentId`，不等于被放弃的叶子。如果你的工具按文档去用 `fromId` 寻找被放弃的分支，找到的会是分叉点；被放弃的分支只能从分叉点的其他孩子里去找，摘要条目本身并没有记下它是哪一条。

图里紫色虚线箭头画的就是 `fromId`：它从摘要指向自己的父节点，而不是旁边那条分支的末端。
""", en="""
Two things are worth noticing.

First, the entries of the abandoned branch (the four strategy-pattern messages) are not on the current branch at all, so none of them is sent; the model learns what happened there only from the one `branchSummary` message.

Second, the meaning of `fromId`. Pi's docs call it "the old leaf that was abandoned", but the code from v0.58.3 to v0.84.2 sets it to the **branch point**, the same value as `parentId` (or the string `"root"` when the summary sits at the root, §3.2). The check above confirms it: it equals `parentId`, not the abandoned leaf. A tool that follows the docs and uses `fromId` to find the abandoned branch gets the branch point instead; the abandoned branch can only be found among the branch point's other children, because the summary entry does not record which one it was.

In the drawing the dashed purple arrow is `fromId`: it runs from the summary to its own parent, not to the end of the branch beside it.
"""),
    code(r'''
draw_session(summarised, view="context", fold_runs=False)
'''),
    md(zh="""
## `custom_message` 进上下文，`custom` 只存档

扩展有两个写入口，种子课程认为这个划分"值得抄"：

- `pi.sendMessage(...)` 写一条 **`custom_message`**：它会持久化，**也会进入模型的上下文**（`display` 决定界面是否显示它；`details` 只给扩展自己看，从不发给模型）；
- `pi.appendEntry(type, data)` 写一条 **`custom`**：只持久化，**永远不进上下文**。适合记录审计信息、权限确认的结果、扩展的内部状态：对复盘有价值，但不值得占用模型的窗口。

`data/custom.jsonl` 里有一个叫 `payments-guard` 的扩展，两个口子都用了：
""", en="""
## `custom_message` enters the context, `custom` is archive only

An extension has two ways to write, and the seed course calls the split "worth copying":

- `pi.sendMessage(...)` writes a **`custom_message`**: it is persisted **and enters the model's context** (`display` decides whether the UI shows it; `details` is for the extension only and never reaches the model);
- `pi.appendEntry(type, data)` writes a **`custom`** entry: persisted only, **never part of the context**. It is the place for audit records, the outcome of a permission prompt, an extension's internal state: valuable when reviewing a session, not worth a place in the model's window.

In `data/custom.jsonl` an extension called `payments-guard` uses both:
"""),
    code(r'''
with_extension = load_session(data_file("custom.jsonl"))
stored_vs_sent(with_extension.branch())

reminder = next(m for m in build_session_context(with_extension.branch()).messages if m["role"] == "custom")
print()
print("stored custom_message:", {k: reminder[k] for k in ("role", "customType", "content", "display", "details")})
print("what the provider gets:", convert_to_llm([reminder])[0])
'''),
    md(zh="""
扩展状态（两个 `custom` 条目）完整地留在分支上，所以扩展可以在 `session_start` 时沿**当前分支**重建自己的状态（第 08 章的练习）；但模型一个字也看不到。提醒（`custom_message`）则以 `custom` 角色进入上下文，`convert_to_llm` 再把它变成一条普通的 `user` 消息，`details` 被留在了外面。

## 最后一层：`convert_to_llm`

提供商只认识 `user`、`assistant` 和工具结果。`convert_to_llm`（Pi 的 `convertToLlm`，§8.1）把其余角色改写成 `user` 消息，摘要的包装文字是固定的常量，一字不差：
""", en="""
The extension state (two `custom` entries) stays on the branch in full, so the extension can rebuild its state from the **current branch** at `session_start` (chapter 08's exercise); the model sees none of it. The reminder (`custom_message`) enters the context as a `custom` role, and `convert_to_llm` turns it into a plain `user` message, leaving `details` behind.

## The last layer: `convert_to_llm`

A provider knows only `user`, `assistant` and tool results. `convert_to_llm` (Pi's `convertToLlm`, §8.1) rewrites every other role as a `user` message, and the wrapper text around summaries is a fixed constant, byte for byte:
"""),
    code(r'''
print("compaction prefix:", repr(COMPACTION_SUMMARY_PREFIX))
print("compaction suffix:", repr(COMPACTION_SUMMARY_SUFFIX))
print("branch prefix:    ", repr(BRANCH_SUMMARY_PREFIX))
print("branch suffix:    ", repr(BRANCH_SUMMARY_SUFFIX))

first = convert_to_llm(build_session_context(compacted.branch()).messages)[0]
print()
print("the first message of compacted.jsonl, as the provider receives it:")
print("role:", first["role"])
print(first["content"][0]["text"])
'''),
    md(zh="""
注意两个后缀的细微差别：压缩摘要在 `</summary>` 前有一个换行，分支摘要没有。这种细节只能照抄，不能"按理推断"：提供商收到的就是这些字节。

用户的 `!命令` 存为 `bashExecution` 消息，发送前被渲染成一段文字：命令、用代码块包起来的输出（或 `(no output)`）、非零退出码、取消、截断提示。用 `!!命令` 运行的会设置 `excludeFromContext`，它会被存下来，却**不发送**。从 `linear.jsonl` 里取出那条真实的 `!pytest`，再造几个变体：
""", en="""
Note the small difference between the two suffixes: the compaction summary has a newline before `</summary>`, the branch summary does not. Details like this can only be copied, not derived: those are the bytes a provider receives.

A user's `!command` is stored as a `bashExecution` message and rendered as text before sending: the command, the output in a code block (or `(no output)`), a non-zero exit code, cancellation, a truncation note. A command run as `!!command` sets `excludeFromContext`: it is stored, but **not sent**. Take the real `!pytest` from `linear.jsonl` and make a few variants:
"""),
    code(r'''
bash = next(m for m in build_session_context(linear.branch()).messages if m["role"] == "bashExecution")
variants = {
    "as stored in linear.jsonl": bash,
    "tests failing": {**bash, "output": "1 failed, 41 passed", "exitCode": 1},
    "no output, cancelled": {**bash, "output": "", "cancelled": True},
    "truncated": {**bash, "truncated": True, "fullOutputPath": "/tmp/pi-bash-1.log"},
    "run with !! (excludeFromContext)": {**bash, "excludeFromContext": True},
}
for name, message in variants.items():
    converted = convert_to_llm([message])
    print(f"--- {name}: {len(converted)} message(s)")
    for provider_message in converted:
        print(provider_message["content"][0]["text"])
'''),
    md(zh="""
## Pi 怎么做，教学模型怎么做

这一章的参考实现（reference implementation）`pi.context` 按 Pi v0.84.2 的行为写成，并用公开文件上 Pi 自己的答案检验过（上面的 `small.jsonl`，以及测试里的其余文件）。有几处是有意的选择，值得写明：

| 话题 | Pi | 教学模型 |
|---|---|---|
| 保留区里的旧压缩 | v0.58.3 丢掉；≥0.80.4 作为第二条摘要发出 | 采用 ≥0.80.4 的规则 |
| 缺少或不在分支上的 `firstKeptEntryId` | 什么都不保留 | 相同 |
| 设置从哪里读 | 整条路径，包括被摘要的部分 | 相同 |
| `branch_summary.fromId` | 代码写的是分叉点（文档说是被放弃的叶子） | 按代码的实际行为 |
| `retainedTail`（v0.84.2 文档里新出现的字段） | 编程智能体（coding agent）的 `SessionManager` 不读它 | 默认不读；`build_session_context(..., retained_tail=True)` 可以试用文档描述的规则（§15） |
| 消息来源 | 消息上不记来源 | 每条消息多一个 `entryId`，指回树上的条目 |
| 提供商层面的整理（跳过出错或中止的助手消息、为没有结果的工具调用补一条结果） | 在 `convertToLlm` **之后**的提供商适配层（§8.1） | 不在本章范围内 |

最后一行提醒我们：就算是 `convert_to_llm` 的输出，也还不是最终发到网络上的字节。"存的"和"发的"之间隔着好几层，每一层都有自己的规则。
""", en="""
## What Pi does, and what the teaching model does

This chapter's reference, `pi.context`, is written to Pi v0.84.2's behaviour and checked against Pi's own answers on the public files (`small.jsonl` above, and the others in the tests). A few points are deliberate choices and worth stating:

| Topic | Pi | Teaching model |
|---|---|---|
| an older compaction in the kept range | v0.58.3 drops it; ≥0.80.4 emits it as a second summary | the ≥0.80.4 rule |
| `firstKeptEntryId` missing or not on the branch | nothing is kept | the same |
| where settings are read from | the whole path, the summarised part included | the same |
| `branch_summary.fromId` | the code writes the branch point (the docs say the abandoned leaf) | what the code does |
| `retainedTail` (a field new in the v0.84.2 docs) | the coding agent's `SessionManager` does not read it | not read by default; `build_session_context(..., retained_tail=True)` tries the documented rule (§15) |
| where a message came from | not recorded | each message gets an `entryId` pointing back at its entry |
| provider-level clean-up (skip errored or aborted assistant messages, add a result for a tool call that has none) | in the provider layer, **after** `convertToLlm` (§8.1) | outside this chapter |

The last row is a reminder that even the output of `convert_to_llm` is not yet the bytes that go over the network. Several layers stand between "stored" and "sent", each with rules of its own.
"""),
    md(zh="""
## 练习：`build_context_messages`

在 `workspace/ch06_context.py` 里完成 **`build_context_messages(path_entries) -> list[dict]`**（练习 id：`build-context`）：按 Pi v0.84.2 的规则，从一条分支（根到叶子的条目列表）构造出模型看到的消息列表，每条消息加上 `entryId`。

- `message`：它的 `message` 原样（`content` 为 null 或缺失时修成 `[]`）；
- `custom_message`：`{"role": "custom", "customType", "content", "display", "details"（有才加）, "timestamp": 毫秒}`；
- 非空的 `branch_summary`：`{"role": "branchSummary", "summary", "fromId", "timestamp": 毫秒}`；
- 其他条目不产生消息；
- 压缩：只看**最后一个**；先是它的 `{"role": "compactionSummary", "summary", "tokensBefore", "timestamp": 毫秒}`，再是从 `firstKeptEntryId` 到它之前的条目（保留区里更早的压缩也变成一条 `compactionSummary`），再是它之后的条目。

时间戳要换成毫秒（`"2026-03-01T10:00:05.250Z"` → `1772359205250`）。不要修改输入：先复制消息，再加 `entryId`。参考实现是 `learn_pi_lab.pi.context.build_context_messages`。写完运行下面的检查；也可以在终端里运行 `make verify EX=build-context`。
""", en="""
## Exercise: `build_context_messages`

Complete **`build_context_messages(path_entries) -> list[dict]`** in `workspace/ch06_context.py` (exercise id `build-context`): with Pi v0.84.2's rules, build the messages the model sees from a branch (the list of entries from the root to the leaf), each message with an `entryId`.

- `message`: its `message` as is (a null or missing `content` becomes `[]`);
- `custom_message`: `{"role": "custom", "customType", "content", "display", "details" (only if present), "timestamp": ms}`;
- a non-empty `branch_summary`: `{"role": "branchSummary", "summary", "fromId", "timestamp": ms}`;
- any other entry: nothing;
- compaction: only the **latest** counts; first its `{"role": "compactionSummary", "summary", "tokensBefore", "timestamp": ms}`, then the entries from `firstKeptEntryId` up to it (an older compaction in that range becomes a `compactionSummary` too), then the entries after it.

Timestamps become epoch milliseconds (`"2026-03-01T10:00:05.250Z"` → `1772359205250`). Never change the input: copy a message before adding `entryId`. The reference is `learn_pi_lab.pi.context.build_context_messages`. When you are done, run the check below; in a terminal, `make verify EX=build-context` does the same.
"""),
    code(r'''
from learn_pi_lab.harness.notebook import check

check("06")
'''),
    md(zh="""
## 回顾

- **当前分支不是上下文**。`getBranch` 回答"存了什么"：从根到叶子的全部条目；`buildSessionContext` 回答"模型看到什么"：按规则构造的消息，加上生效的模型和思考级别；`convertToLlm` 再把只有 Pi 认识的角色改写成提供商认识的 `user` 消息。
- **压缩**只是追加一个条目，什么都不删。它让最新压缩的摘要排在上下文最前面，`firstKeptEntryId` 之前的消息被摘要替换；`firstKeptEntryId` 缺失或不在分支上时，什么都不保留。设置仍从整条路径读取。
- **嵌套压缩**：保留区里较早的压缩，v0.80.4 起作为第二条摘要发出（v0.58.3 丢掉它）；真实的 `small.jsonl` 就是这样，课程的结果与 Pi v0.84.2 一致。
- **分支摘要**把被放弃的分支学到的东西带进新分支；它的 `fromId` 在代码里是分叉点，不是文档说的被放弃的叶子。
- `custom_message`（`sendMessage`）进入上下文，`custom`（`appendEntry`）只存档；前者的 `details` 也不发送。
""", en="""
## Summary

- **The current branch is not the context.** `getBranch` answers "what is stored": every entry from the root to the leaf; `buildSessionContext` answers "what the model sees": messages built by rules, plus the model and thinking level in force; `convertToLlm` then rewrites Pi's own roles as `user` messages a provider understands.
- A **compaction** is one appended entry and deletes nothing. It puts the latest compaction's summary first in the context and replaces the messages before `firstKeptEntryId`; if `firstKeptEntryId` is missing or not on the branch, nothing is kept. Settings are still read from the whole path.
- **Nested compactions**: since v0.80.4 an older compaction in the kept range is sent as a second summary (v0.58.3 dropped it); the real `small.jsonl` is exactly this case, and the course's result matches Pi v0.84.2.
- A **branch summary** carries what an abandoned branch learned into the new one; in the code its `fromId` is the branch point, not the abandoned leaf the docs describe.
- `custom_message` (`sendMessage`) enters the context, `custom` (`appendEntry`) is archive only; the former's `details` are not sent either.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch06-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch06-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch06-q1")
"""),
    code("""ask("ch06-q2")"""),
    code("""ask("ch06-q3")"""),
]
