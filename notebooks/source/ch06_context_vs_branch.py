"""Chapter 06: what the model sees is not what is stored (seed 001: getBranch vs buildContextEntries)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("06", "context-vs-branch",
                  zh="模型看到的与文件里存的：上下文不等于分支",
                  en="What the model sees vs what is stored: the context is not the branch")

CELLS = [
    md(zh="""
## 学习目标

到目前为止，“当前分支”（current branch）就是我们对一次对话的全部理解：从根（root）走到叶子（leaf）的那串条目（entry）。可模型收到的并不是这串条目。本章把两者并排摆出来，看清中间发生了什么。读完并运行本章，你应该能够：

- 区分**当前分支**（`getBranch`：从根到叶子存了什么）和**上下文**（context，`buildSessionContext`：真正发给模型的是什么），并说出扩展（extension）作者为什么常把两者搞混；
- 说明**压缩**（compaction）如何用一段摘要替换 `firstKeptEntryId` 之前的一切，并在树上指出被摘要的部分和被保留的部分；
- 解释嵌套压缩的规则（v0.80.4 起，较早的压缩会作为第二条摘要出现），以及缺少 `firstKeptEntryId` 时会发生什么；
- 知道分支摘要（branch summary，`branch_summary` 条目）怎样把一条被放弃的分支学到的东西带回来，以及 `fromId` 在代码里和文档里的说法为什么不一致；
- 区分 `custom_message`（进入上下文）和 `custom`（只存档），也就是扩展 API 里 `sendMessage` 和 `appendEntry` 的区别；
- 看懂 Pi 1.x（今天的 1.6.0）新增的三样东西：`context_edit`（“存的 ≠ 模型看到的”最清楚的例子）、`usage` 条目，以及带 `systemMessage` 的压缩检查点，并说出 0.84.2 和 1.6.0 在哪里给出不同的上下文；
- 完成两个练习：`build_context_messages`（亲手从一条分支构造出模型看到的消息）和 `apply_context_edits`（按 Pi 1.6.0 的规则，把分支上的 `context_edit` 应用到这些消息上）。
""", en="""
## Learning goals

Up to now, the "current branch" has been our whole picture of a conversation: the entries on the walk from the root to the leaf. But that is not what the model receives. This chapter puts the two side by side and looks at what happens in between. After reading and running it you should be able to:

- tell the **current branch** (`getBranch`: what is stored from the root to the leaf) from the **context** (`buildSessionContext`: what is actually sent to the model), and say why extension authors often mix them up;
- explain how a **compaction** replaces everything before its `firstKeptEntryId` with a summary, and point out on the tree the part that was summarised and the part that was kept;
- explain the rule for nested compactions (since v0.80.4 an older compaction shows up as a second summary), and what happens when `firstKeptEntryId` is missing;
- say how a `branch_summary` carries back what an abandoned branch learned, and why the code and the docs disagree about its `fromId`;
- tell `custom_message` (enters the context) from `custom` (archive only): the difference between `sendMessage` and `appendEntry` in the extension API;
- read the three things Pi 1.x (today's 1.6.0) added: `context_edit` (the clearest case of "stored ≠ what the model sees"), `usage` entries, and the compaction checkpoint `systemMessage`, and say where 0.84.2 and 1.6.0 build different contexts;
- complete two exercises: `build_context_messages` (build, yourself, the messages the model sees from a branch) and `apply_context_edits` (apply the branch's `context_edit` entries to those messages, by Pi 1.6.0's rules).
"""),
    md(zh="""
## 两个函数，两个问题

Pi 的会话（session）管理器里有两个名字相近、常被混用的函数（§7.3、§8）：

- `getBranch()`：从根到叶子的**全部条目**，原样返回。设置、标签（label）、扩展状态（extension state）、压缩条目，统统在里面。它回答的是“**存了什么**”。
- `buildSessionContext()`（v0.80.4 起还有 `buildContextEntries()`）：把这条分支按一套规则变成**消息列表**，外加当前生效的模型和思考级别（thinking level）。它回答的是“**模型看到什么**”。

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

from learn_pi_lab.course.act import predict, reveal, your_turn
from learn_pi_lab.course.paths import data_file, scratch_dir, show_path
from learn_pi_lab.course.text import L, figure_fonts, pad
from learn_pi_lab.drawing import draw_session
from learn_pi_lab.jsonl.writer import to_json_line
from learn_pi_lab.pi.context import (BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX,
                                     COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX,
                                     apply_context_edits, build_context_messages,
                                     build_session_context, convert_to_llm)
from learn_pi_lab.pi.session import load_session

figure_fonts()   # zh: 让图里的中文用上 CJK 字体 # en: figures can draw Chinese labels too
SENDABLE = {"message", "custom_message", "branch_summary", "compaction"}


def kind_of(entry: dict) -> str:
    # zh: message 条目给出它的角色，其他条目给出 type
    # en: the role of a message entry, otherwise the entry type
    return entry["message"]["role"] if entry["type"] == "message" else entry["type"]


def stored_vs_sent(branch: list[dict], pi_version: str = "0.84.2") -> None:
    # zh: 按 Pi 的规则，把一条分支（存的）和它的上下文（发的）并排打印出来
    # en: print a branch (what is stored) next to its context (what is sent), by Pi's rules
    context = build_session_context(branch, pi_version=pi_version)
    edited = {entry["targetId"]: entry["id"][:8] for entry in branch
              if entry["type"] == "context_edit"}
    sent = defaultdict(list)
    for number, message in enumerate(context.messages, start=1):
        sent[message["entryId"]].append(f"#{number} {message['role']}")
    print(L(f"{pad('存的（getBranch）', 36)} 发的（buildSessionContext，Pi {pi_version}）",
            f"{'stored (getBranch)':<36} sent (buildSessionContext, Pi {pi_version})"))
    for entry in branch:
        if entry["id"] in sent:
            where = ", ".join(sent[entry["id"]])
            if pi_version == "1.6.0" and entry["id"] in edited:
                where += L(f"   （内容来自编辑 {edited[entry['id']]}）", f"   (content from edit {edited[entry['id']]})")
        elif pi_version == "1.6.0" and entry["id"] in edited:
            where = L(f"-   被编辑 {edited[entry['id']]} 省略", f"-   omitted by edit {edited[entry['id']]}")
        elif pi_version == "1.6.0" and kind_of(entry) == "system":
            where = L("-   由压缩的 systemMessage 代替", "-   the compaction's systemMessage stands in")
        elif entry["type"] in SENDABLE:
            where = L("-   被摘要替换", "-   replaced by the summary")
        else:
            where = L("-   从不发送", "-   never sent")
        print(f"  {entry['id'][:8]:<9} {kind_of(entry):<24} {where}")
    model = context.model and f"{context.model['provider']}/{context.model['modelId']}"
    print(L(f"存了 {len(branch)} 个条目，发出 {len(context.messages)} 条消息；"
            f"模型 {model}，思考级别 {context.thinking_level}",
            f"{len(branch)} entries stored, {len(context.messages)} messages sent;"
            f" model {model}, thinking {context.thinking_level}"))


linear = load_session(data_file("linear.jsonl"))
stored_vs_sent(linear.branch())
'''),
    md(zh="""
没有压缩时，两栏几乎一样：每个消息条目按顺序变成一条消息，只有开头两个设置条目“从不发送”。它们并没有白存：模型和思考级别就是从它们读出来的（第 05 章），只是不以消息的形式出现。

## 压缩：一段摘要替换掉前面的一切

会话越来越长，总有一天装不下模型的上下文窗口。Pi 这时会做一次压缩（上下文快满时自动触发，也可以用 `/compact` 命令手动触发，§8.2）：让模型把较早的部分总结成一段文字，然后**追加**一个 `compaction` 条目，里面有：

- `summary`：摘要文字；
- `firstKeptEntryId`：从哪个条目开始**原样保留**；
- `tokensBefore`：压缩前上下文大约有多少 token。

注意，压缩**不删除也不改写任何东西**：它只是又一个追加的条目。被“压缩掉”的条目全都还在文件里，还在分支上，只是构建上下文时不再发送。`data/compacted.jsonl` 里就有一次压缩：
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
print(L("压缩", "compaction"), compaction["id"], "| firstKeptEntryId:", compaction["firstKeptEntryId"],
      "| tokensBefore:", compaction["tokensBefore"])
'''),
    md(zh="""
这就是“存的”和“发的”之间最大的落差：

1. 上下文的**第一条**消息是压缩摘要（`compactionSummary`），尽管压缩条目在分支上靠近末尾的位置；
2. 接着是从 `firstKeptEntryId` 开始、到压缩条目之前的那一段（保留区，kept range）；
3. 然后是压缩条目之后的一切；
4. `firstKeptEntryId` 之前的消息“被摘要替换”，一条都不发。

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

拿 `compacted.jsonl` 的分支做实验，只改压缩条目的 `firstKeptEntryId`（在内存里改副本，文件不动）：让它依次指向压缩之前的每一个条目，再试试“缺失”和“指向别的分支”，每次数一数发出去多少条消息：
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
    # zh: 同一条分支，只把压缩的 firstKeptEntryId 换成 value（None：删掉这个键）
    # en: the same branch with the compaction's firstKeptEntryId set to value (None: key removed)
    changed = {key: val for key, val in compaction.items() if key != "firstKeptEntryId"}
    if value is not None:
        changed["firstKeptEntryId"] = value
    return [changed if entry["id"] == compaction["id"] else entry for entry in branch]


SHORT = {"model_change": L("换模型", "model"), "thinking_level_change": L("思考级别", "thinking"),
         "toolResult": L("工具结果", "tool"), "user": L("用户", "user"), "assistant": L("助手", "assistant")}
candidates = [entry["id"] for entry in branch[:at]] + [None, "deadbeef"]
names = [f"{c}\n{SHORT.get(kind_of(branch[i]), kind_of(branch[i]))}" if i < at
         else (L("缺失", "missing") if c is None else L("不在分支上", "not on\nbranch"))
         for i, c in enumerate(candidates)]
sent_counts = [len(build_session_context(with_first_kept(c)).messages) for c in candidates]

for name, sent in zip(names, sent_counts):
    print(f"firstKeptEntryId = {pad(name.replace(chr(10), ' '), 32)} -> "
          + L(f"发出 {sent} 条消息", f"{sent} messages sent"))

fig, ax = plt.subplots(figsize=(9, 3.2))
colours = ["tab:green" if c == compaction["firstKeptEntryId"] else "tab:blue" for c in candidates]
ax.bar(range(len(candidates)), sent_counts, color=colours)
ax.set_xticks(range(len(candidates)), names, fontsize=7)
ax.set_ylabel(L("发出的消息数", "messages sent"))
ax.set_xlabel(L("firstKeptEntryId（绿色：文件里的值）", "firstKeptEntryId (green: the value in the file)"))
ax.set_title(L("模型保留多少历史，取决于 firstKeptEntryId", "How much history the model keeps depends on firstKeptEntryId"))
plt.show()
'''),
    md(zh="""
越往前指，保留的就越多；但从 `model_change` 指到第一条用户消息，发送的消息数并不变，因为设置条目本来就不产出消息。这也解释了为什么真实文件里 `firstKeptEntryId` 可能指向作为根的那条 `model_change`：Pi 的切点算法会把切点向前挪过紧挨着的非消息条目（§8.2）。而“缺失”和“不在分支上”两根柱子一样矮：只剩摘要和压缩之后的两条。

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
print(L("已写入：", "written:"), show_path(no_first_kept))

damaged = load_session(no_first_kept)
stored_vs_sent(damaged.branch())
'''),
    md(zh="""
**轮到你了。** 把同样的两条分支（文件里原样的压缩，和缺少 `firstKeptEntryId` 的副本）交给**你自己**在 [`workspace/ch06_context.py`](../../workspace/ch06_context.py) 里写的 `build_context_messages`（练习 `build-context`）。它给出的消息应当和参考实现一条不差：第一条分支 5 条，第二条只剩 3 条。还没动手时，它会告诉你函数“还是练习模板”，这很正常。
""", en="""
**Your turn.** Hand the same two branches (the compaction as stored, and the copy without `firstKeptEntryId`) to **your own** `build_context_messages` in [`workspace/ch06_context.py`](../../workspace/ch06_context.py) (exercise `build-context`). Its messages should match the reference's exactly: 5 for the first branch, only 3 for the second. Before you start, it says the function is still the exercise template; that is expected.
""", tags=("your-turn",)),
    code(r'''
for name, path_entries in ((L("文件里的压缩", "the compaction as stored"), branch),
                           (L("缺少 firstKeptEntryId", "firstKeptEntryId missing"), damaged.branch())):
    mine = your_turn("build-context", path_entries)
    if mine is None:
        break
    reference = build_context_messages(path_entries)
    # zh: 逐条比较：角色、内容、entryId 都要一样
    # en: compared message by message: role, content and entryId must all match
    print(f"  {name}: {len(mine)} {L('条消息；参考实现', 'messages; the reference')} {len(reference)}"
          f"{L('；完全相同：', '; identical: ')}{mine == reference}")
''', tags=("your-turn",)),
    md(zh="""
## 嵌套压缩：较早的摘要再出现一次

同一条分支上可以有不止一次压缩，规则只认**最后一个**。那较早的那次压缩怎么办？如果它落在最新压缩的保留区**之外**，它和其他被摘要的条目一样不发送。麻烦在于它可能落在保留区**之内**：

- v0.63.1 起（#2608），再次压缩时，切点的搜索从**上一次压缩的 `firstKeptEntryId`** 开始，所以新的 `firstKeptEntryId` 可能在旧压缩条目的**前面**，旧压缩就落进了新的保留区；
- **v0.58.3**：构建上下文时压缩条目本身不产出消息，于是保留区里的旧压缩被**悄悄丢掉**；
- **v0.80.4 起**（`buildContextEntries` 重构）：保留区里的旧压缩在它的位置上作为**第二条 `compactionSummary`** 发出。

课程采用 v0.84.2 的行为（Pi 1.6.0 又改了这条规则，见本章后面的“Pi 1.x”一节）。`data/compacted-nested.jsonl` 里两次压缩的 `firstKeptEntryId` 相同：
""", en="""
## Nested compactions: an older summary shows up again

A branch can hold more than one compaction, and the rules honour only the **latest**. What about the older one? If it lies **outside** the latest one's kept range, it is not sent, like everything else that was summarised. The trouble is that it can lie **inside** the kept range:

- since v0.63.1 (#2608), a repeated compaction starts its cut search at **the previous compaction's `firstKeptEntryId`**, so the new `firstKeptEntryId` can lie **before** the old compaction entry, and the old compaction falls inside the new kept range;
- **v0.58.3**: compaction entries produce no message when the context is built, so an old compaction in the kept range was **silently dropped**;
- **since v0.80.4** (the `buildContextEntries` refactor): an old compaction in the kept range is emitted at its position as a **second `compactionSummary`**.

The course follows v0.84.2 (Pi 1.6.0 changed this rule again: see the "Pi 1.x" section later in this chapter). In `data/compacted-nested.jsonl` both compactions share one `firstKeptEntryId`:
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
print(L("课程       :", "the course :"), ours)
print(L("完全相同：", "identical:"), ours == expected["context"])
draw_session(small, view="context", fold_runs=False)
'''),
    md(zh="""
## 分支摘要：被放弃的分支学到了什么

第 03 章说过，`/tree` 回到一个更早的节点时，可以选择**带着摘要回去**：Pi 把将要离开的那条分支总结一下，作为 `branch_summary` 条目追加在目标节点下面（§9.4）。这样在 A 路上撞过的墙，B 路也知道。原课程（whkp/learn-pi）把它称为“试错不白费”。

`data/branch-summary.jsonl` 就是这样一个会话：先尝试了策略模式，发现方向错了，回到调研回答，带着摘要改用组合。
""", en="""
## Branch summaries: what an abandoned branch learned

Chapter 03 showed that `/tree` can go back to an earlier node **with a summary**: Pi summarises the branch being left and appends it as a `branch_summary` entry under the target node (§9.4). The wall you hit on path A is then known on path B; the original course (whkp/learn-pi) calls this making trial and error pay.

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
print(L("被放弃的叶子：", "the leaf that was abandoned:"), abandoned_leaf)
print(L("fromId == parentId（分叉点）：", "fromId == parentId (the branch point):"), summary["fromId"] == summary["parentId"])
print(L("fromId == 被放弃的叶子：        ", "fromId == the abandoned leaf:         "), summary["fromId"] == abandoned_leaf)
'''),
    md(zh="""
两件事值得注意。

第一，被放弃的那条分支上的条目（策略模式的四条消息）根本不在当前分支上，所以一条都不发；模型只通过 `branchSummary` 这一条消息知道那里发生过什么。

第二，`fromId` 的含义。Pi 的文档说它是“被放弃的那个旧叶子”；但从 v0.58.3 到 v0.84.2 的代码都把它设成**分叉点**（branch point），也就是和 `parentId` 相同的值（摘要挂在根上时是字符串 `"root"`，§3.2）。上面的检查证实了这一点：它等于 `parentId`，不等于被放弃的叶子。如果你的工具按文档去用 `fromId` 寻找被放弃的分支，找到的会是分叉点；被放弃的分支只能从分叉点的其他孩子里去找，摘要条目本身并没有记下它是哪一条。

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

扩展有两个写入口，原课程认为这个划分“值得抄”：

- `pi.sendMessage(...)` 写一条 **`custom_message`**：它会持久化，**也会进入模型的上下文**（`display` 决定界面是否显示它；`details` 只给扩展自己看，从不发给模型）；
- `pi.appendEntry(type, data)` 写一条 **`custom`**：只持久化，**永远不进上下文**。适合记录审计信息、权限确认的结果、扩展的内部状态：对复盘有价值，但不值得占用模型的窗口。

`data/custom.jsonl` 里有一个叫 `payments-guard` 的扩展，两个口子都用了：
""", en="""
## `custom_message` enters the context, `custom` is archive only

An extension has two ways to write, and the original course calls the split "worth copying":

- `pi.sendMessage(...)` writes a **`custom_message`**: it is persisted **and enters the model's context** (`display` decides whether the UI shows it; `details` is for the extension only and never reaches the model);
- `pi.appendEntry(type, data)` writes a **`custom`** entry: persisted only, **never part of the context**. It is the place for audit records, the outcome of a permission prompt, an extension's internal state: valuable when reviewing a session, not worth a place in the model's window.

In `data/custom.jsonl` an extension called `payments-guard` uses both:
"""),
    code(r'''
with_extension = load_session(data_file("custom.jsonl"))
stored_vs_sent(with_extension.branch())

reminder = next(m for m in build_session_context(with_extension.branch()).messages if m["role"] == "custom")
print()
print(L("存下的 custom_message：", "stored custom_message:"), {k: reminder[k] for k in ("role", "customType", "content", "display", "details")})
print(L("提供商收到的：", "what the provider gets:"), convert_to_llm([reminder])[0])
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
print(L("压缩摘要前缀：", "compaction prefix:"), repr(COMPACTION_SUMMARY_PREFIX))
print(L("压缩摘要后缀：", "compaction suffix:"), repr(COMPACTION_SUMMARY_SUFFIX))
print(L("分支摘要前缀：", "branch prefix:    "), repr(BRANCH_SUMMARY_PREFIX))
print(L("分支摘要后缀：", "branch suffix:    "), repr(BRANCH_SUMMARY_SUFFIX))

first = convert_to_llm(build_session_context(compacted.branch()).messages)[0]
print()
print(L("compacted.jsonl 的第一条消息，提供商收到的样子：", "the first message of compacted.jsonl, as the provider receives it:"))
print(L("角色：", "role:"), first["role"])
print(first["content"][0]["text"])
'''),
    md(zh="""
注意两个后缀的细微差别：压缩摘要在 `</summary>` 前有一个换行，分支摘要没有。这种细节只能照抄，不能“按理推断”：提供商收到的就是这些字节。

用户的 `!命令` 存为 `bashExecution` 消息，发送前被渲染成一段文字：命令、用代码块包起来的输出（或 `(no output)`）、非零退出码、取消、截断提示。用 `!!命令` 运行的会设置 `excludeFromContext`，它会被存下来，却**不发送**。从 `linear.jsonl` 里取出那条真实的 `!pytest`，再造几个变体：
""", en="""
Note the small difference between the two suffixes: the compaction summary has a newline before `</summary>`, the branch summary does not. Details like this can only be copied, not derived: those are the bytes a provider receives.

A user's `!command` is stored as a `bashExecution` message and rendered as text before sending: the command, the output in a code block (or `(no output)`), a non-zero exit code, cancellation, a truncation note. A command run as `!!command` sets `excludeFromContext`: it is stored, but **not sent**. Take the real `!pytest` from `linear.jsonl` and make a few variants:
"""),
    code(r'''
bash = next(m for m in build_session_context(linear.branch()).messages if m["role"] == "bashExecution")
variants = {
    L("linear.jsonl 里存的原样", "as stored in linear.jsonl"): bash,
    L("测试失败", "tests failing"): {**bash, "output": "1 failed, 41 passed", "exitCode": 1},
    L("没有输出，已取消", "no output, cancelled"): {**bash, "output": "", "cancelled": True},
    L("输出被截断", "truncated"): {**bash, "truncated": True, "fullOutputPath": "/tmp/pi-bash-1.log"},
    L("用 !! 运行（excludeFromContext）", "run with !! (excludeFromContext)"): {**bash, "excludeFromContext": True},
}
for name, message in variants.items():
    converted = convert_to_llm([message])
    print(L(f"--- {name}：{len(converted)} 条消息", f"--- {name}: {len(converted)} message(s)"))
    for provider_message in converted:
        print(provider_message["content"][0]["text"])
'''),
    md(zh="""
## Pi 1.x：`context_edit`、`usage` 和压缩检查点

到这里为止，规则都来自课程的基线 Pi v0.84.2。学习者今天运行的是 Pi 1.6.0（2026-11-20）。文件格式仍然是 `version: 3`，但模型看到的东西又多了几种变化（§17）。`data/pi16/` 里的文件不是手写的：它们由 Pi 1.6.0 **自己的** `SessionManager` 写出（`data/pi16/generate.mjs` 驱动它，ID 和时钟都固定了种子）。

先看最清楚的一个：**上下文编辑**（context edit）。Pi 1.x 可以把较早的某条消息从今后的上下文里**省略**掉，或者把它的内容**替换**成别的（比如把一次很大的 `read` 结果换成一句说明，省下 token）。可它仍然是追加：编辑只是**又一行** `context_edit`，被编辑的消息在文件里原封不动。看文件的最后几行：
""", en="""
## Pi 1.x: `context_edit`, `usage` and the compaction checkpoint

So far every rule came from the course's baseline, Pi v0.84.2. Learners run Pi 1.6.0 today (2026-11-20). The file format still says `version: 3`, but what the model sees can now change in a few more ways (§17). The files in `data/pi16/` are not hand-written: Pi 1.6.0's **own** `SessionManager` wrote them (driven by `data/pi16/generate.mjs`, with seeded ids and clock).

First the clearest case: the **context edit**. Pi 1.x can **omit** an earlier message from all future context, or **replace** its content (for example swap a huge `read` result for one line of note, to save tokens). And it is still append-only: an edit is just **one more line**, `context_edit`, and the edited message stays in the file untouched. The last lines of the file:
"""),
    code(r'''
edits_file = data_file("pi16/context-edit.jsonl")
edited_session = load_session(edits_file, pi_version="1.6.0")
for loaded in edited_session.file.entries:
    entry = loaded.obj
    if entry["type"] == "context_edit":
        print(L(f"第 {loaded.line:>2} 行：{loaded.text}", f"line {loaded.line:>2}: {loaded.text}"))

edits = [entry for entry in edited_session.entries if entry["type"] == "context_edit"]
big_read = edited_session.entry(edits[0]["targetId"])
print()
print(L("被编辑的消息还在文件里，原封不动：", "the edited message is still in the file, unchanged:"))
print("  ", big_read["message"]["role"], json.dumps(big_read["message"]["content"])[:100])
'''),
    md(zh="""
三行编辑：第一行把那次 `read` 的结果换成一句说明，第二行（`"replacement": null`）把一个错误的回答整个省略，第三行再次替换同一个结果。同一个目标有多次编辑时，**分支上最新的那次生效**。

下面在同一条分支上，按两个版本的规则各构造一次上下文（叶子取编辑之后那个用户消息）。0.84.2 不认识 `context_edit`，当作未知条目，什么都不发；1.6.0 则应用编辑：
""", en="""
Three edits: the first swaps the `read` result for a note, the second (`"replacement": null`) omits a wrong answer entirely, the third replaces the same result again. When one target has several edits, **the latest one on the branch wins**.

Now build the context of the same branch by each version's rules (the leaf is the user message after the edits). 0.84.2 does not know `context_edit`, treats it as an unknown entry and sends nothing for it; 1.6.0 applies the edits:
"""),
    code(r'''
after_edits = edited_session.children(edits[-1]["id"])[0]["id"]
edited_branch = edited_session.branch(after_edits)
for version in ("0.84.2", "1.6.0"):
    stored_vs_sent(edited_branch, version)
    print()

sent = edited_session.context(after_edits).messages
read_result = next(m for m in sent if m["entryId"] == big_read["id"])
print(L("1.6.0 为 read 结果发送的内容：", "what 1.6.0 sends for the read result:"), read_result["content"])
'''),
    md(zh="""
**轮到你了。** 第二个练习 `apply-edits` 做的正是 1.6.0 多出来的这一步：先按 0.84.2 的规则构造消息（8 条），再把分支上的编辑应用上去（剩 7 条）。把这条分支交给你在 [`workspace/ch06_context.py`](../../workspace/ch06_context.py) 里写的 `apply_context_edits`：
""", en="""
**Your turn.** The second exercise, `apply-edits`, is exactly the step 1.6.0 adds: build the messages by 0.84.2's rules (8 of them), then apply the branch's edits (7 remain). Hand this branch to your own `apply_context_edits` in [`workspace/ch06_context.py`](../../workspace/ch06_context.py):
""", tags=("your-turn",)),
    code(r'''
built = build_context_messages(edited_branch)  # zh: 0.84.2 的规则：编辑还没应用 # en: 0.84.2's rules: no edit applied yet
mine = your_turn("apply-edits", edited_branch, built)
if mine is not None:
    reference = apply_context_edits(edited_branch, built)
    print(f"  {len(built)} -> {len(mine)} {L('条消息；参考实现', 'messages; the reference')} {len(reference)}"
          f"{L('；完全相同：', '; identical: ')}{mine == reference}")
''', tags=("your-turn",)),
    md(zh="""
**预测一下**：编辑是分支上的节点。如果把叶子移回**第一次编辑之前**（那个“小函数”的回答），模型收到的 `read` 结果是哪一个？A：原文；B：第一次编辑的说明；C：最后一次编辑的说明。把你的答案写进下一个单元格的 `my_guess`，运行它，再运行后面那个单元格。
""", en="""
**Predict**: an edit is a node on the branch. If we move the leaf back to **before the first edit** (the "small functions" answer), which `read` result does the model get? A: the original; B: the first edit's note; C: the last edit's note. Put your answer in `my_guess` in the next cell, run it, then run the cell after it.
""", tags=("predict",)),
    code("""
my_guess = None   # zh: "A"、"B" 或 "C" # en: "A", "B" or "C"
predict("ch06-p1", my_guess, choices="ABC")
""", tags=("predict",)),
    code(r'''
before_edits = edits[0]["parentId"]
context_before = edited_session.context(before_edits)
original = next(m for m in context_before.messages if m["entryId"] == big_read["id"])
print(L("编辑之前的叶子：", "leaf before the edits:"), before_edits)
print(L("发送的 read 结果：", "the read result sent:"), json.dumps(original["content"])[:100])
options = {"A": big_read["message"]["content"], "B": edits[0]["replacement"]["content"],
           "C": edits[-1]["replacement"]["content"]}
reveal("ch06-p1", next(key for key, content in options.items() if content == original["content"]))
print()
# zh: 文件的最后一行从同一个位置问了一个新问题：一条没有这些编辑的分支
# en: the file's last line asks a new question from that same point: a branch without the edits
print(L("文件自己的叶子：", "the file's own leaf:"), edited_session.leaf_id)
stored_vs_sent(edited_session.branch(), "1.6.0")
''', tags=("predict",)),
    md(zh="""
原文又回来了。编辑和其他条目一样**相对于分支**：它只影响它下面的那部分树。文件的最后一行恰好是从编辑之前的位置提出的新问题（用 `branch` 回到那里再追加），在那条分支上，三次编辑都不存在。

这就是“存的 ≠ 模型看到的”最清楚的例子：**同一行存储的消息**，在一条分支上被省略或替换，在另一条分支上原样发送，而文件里它始终只有那一行、始终是原文。
""", en="""
The original is back. An edit, like every other entry, is **relative to its branch**: it only affects the part of the tree below it. The file's last line is a new question asked from that point before the edits (Pi went back there with `branch` and appended), and on that branch none of the three edits exist.

This is the clearest case of "stored ≠ what the model sees": **one stored line**, omitted or replaced on one branch and sent as written on another, while the file always holds that single line, always the original.
"""),
    md(zh="""
**改一改，再运行。** 下面的单元格只有一个要你改的值：`LEAF`，即在哪里构造上下文。依次换成 `"before-edits"`、`"after-first-edit"`、`"after-edits"` 和 `"file-leaf"` 再运行，看 `read` 结果变成了什么，被省略的回答（`acf15e8d`）是否还在，发出了几条消息。文件一个字节都不会变。
""", en="""
**Change it and re-run.** The next cell has one value for you to change: `LEAF`, where the context is built. Try `"before-edits"`, `"after-first-edit"`, `"after-edits"` and `"file-leaf"` in turn and watch what the `read` result becomes, whether the omitted answer (`acf15e8d`) is still there, and how many messages are sent. The file does not change by a byte.
""", tags=("rerun",)),
    code(r'''
PLACES = {"before-edits": before_edits, "after-first-edit": edits[0]["id"],
          "after-edits": after_edits, "file-leaf": edited_session.leaf_id}
LEAF = "after-first-edit"  # zh: 试试 "before-edits"、"after-edits" 或 "file-leaf" # en: try "before-edits", "after-edits" or "file-leaf"

messages = edited_session.context(PLACES[LEAF]).messages  # zh: 按 1.6.0 的规则 # en: by 1.6.0's rules
read_sent = next(m for m in messages if m["entryId"] == big_read["id"])
answer_sent = any(m["entryId"] == edits[1]["targetId"] for m in messages)
print(f"{L('叶子：', 'leaf: ')}{LEAF}{L('（', ' (')}{PLACES[LEAF]}{L('）', ')')}{L('；发出的消息：', '; messages sent: ')}{len(messages)}")
print(f"{L('read 结果：', 'read result: ')}{json.dumps(read_sent['content'])[:80]}")
print(f"{L('第二个编辑省略的回答 ', 'the answer the second edit omits, ')}{edits[1]['targetId']}"
      f"{L('：已发送' if answer_sent else '：未发送', ': sent' if answer_sent else ': not sent')}")
''', tags=("rerun",)),
    md(zh="""
### `usage`：花掉的 token，但不是消息

Pi 1.x 还会记录**不属于任何消息**的用量（usage），例如空闲时为保持提示缓存而做的“缓存预热”（`kind: "cache_warm"`）。它是树上的一个节点（叶子会移到它上面），计入会话的用量统计，但在 `/tree` 里隐藏，也从不进入上下文：
""", en="""
### `usage`: tokens spent, but not a message

Pi 1.x also records usage that **belongs to no message**, for example the "cache warming" it does while idle to keep the prompt cache alive (`kind: "cache_warm"`). It is a node of the tree (the leaf moves onto it), it counts in the session's usage totals, but `/tree` hides it and it never enters the context:
"""),
    code(r'''
from learn_pi_lab.session_inspector import inspect_session_as

usage_file = data_file("pi16/usage.jsonl")
usage_session = load_session(usage_file, pi_version="1.6.0")
warm = next(entry for entry in usage_session.entries if entry["type"] == "usage")
print(to_json_line(warm))
print()
stored_vs_sent(usage_session.branch(), "1.6.0")
print()
for version in ("0.84.2", "1.6.0"):
    report = inspect_session_as(usage_file, version)
    print(L(f"Pi {version}：usage 条目 {report['usage_entries']} 个，"
            f"计入的 cacheWrite {report['usage']['cacheWrite']}，费用 {report['usage']['cost']}",
            f"Pi {version}: usage entries {report['usage_entries']}, "
            f"cacheWrite counted {report['usage']['cacheWrite']}, cost {report['usage']['cost']}"))
'''),
    md(zh="""
### 压缩检查点：`systemMessage`

Pi 1.x 的会话里还能存 `system` 消息（系统提示词和工具声明，以及之后的“分节更新”）。压缩时，1.6.0 会把当时生效的整套系统提示合并成一条，存进压缩条目的 `systemMessage` 字段。构建上下文时：

- 这个检查点排在压缩后上下文的**最前面**，在摘要之前；
- 保留区里（压缩之前）的 `system` 消息被**丢掉**，由检查点代替；压缩之后的 `system` 消息照常发送。

`data/pi16/compaction-checkpoint.jsonl` 里，一次分节更新落在保留区里。两个版本对比：
""", en="""
### The compaction checkpoint: `systemMessage`

Pi 1.x sessions can also store `system` messages (the system prompt and tool declarations, and later "section updates"). When it compacts, 1.6.0 merges the whole system prompt in force into one message and stores it in the compaction's `systemMessage` field. When the context is built:

- this checkpoint comes **first** in the compacted context, before the summary;
- `system` messages in the kept range (before the compaction) are **dropped** in its favour; `system` messages after the compaction are sent as usual.

In `data/pi16/compaction-checkpoint.jsonl` a section update lies in the kept range. Both versions side by side:
"""),
    code(r'''
checkpoint_session = load_session(data_file("pi16/compaction-checkpoint.jsonl"))
compaction = next(e for e in checkpoint_session.entries if e["type"] == "compaction")
print(L("压缩条目里存的 systemMessage：", "systemMessage stored in the compaction:"))
print(" ", json.dumps(compaction["systemMessage"]["content"], ensure_ascii=False))
print()
for version in ("0.84.2", "1.6.0"):
    stored_vs_sent(checkpoint_session.branch(), version)
    print()
'''),
    md(zh="""
### 嵌套压缩：1.6.0 不再重复较早的摘要

前面看过，v0.80.4 到 v0.84.2 会把保留区里较早的压缩当作第二条摘要发出。1.6.0 改了：只有**最新**的压缩发言，保留区里的旧压缩什么都不发。同一个真实文件 `small.jsonl`，两个版本给出不同的上下文：
""", en="""
### Nested compactions: 1.6.0 no longer repeats the older summary

Earlier we saw that v0.80.4 to v0.84.2 send an older compaction in the kept range as a second summary. 1.6.0 changed that: only the **newest** compaction speaks, and an older one in the kept range sends nothing. The same real file, `small.jsonl`, gets different contexts from the two versions:
"""),
    code(r'''
for version in ("0.84.2", "1.6.0"):
    roles = [m["role"] for m in build_session_context(small.branch(), pi_version=version).messages]
    print(L(f"Pi {version}：{roles.count('compactionSummary')} 条 compactionSummary  {roles}",
            f"Pi {version}: {roles.count('compactionSummary')} compactionSummary  {roles}"))
'''),
    md(zh="""
这些结果不是凭文档推出来的：课程的测试把 Pi 0.84.2 和 1.6.0 的 npm 包装好，在 `data/` 下的每个文件、Pi 自己写出的会话以及成千上万个随机生成的树上，把 `learn_pi_lab.pi` 的答案和 Pi 自己的代码逐条比较（`tests/test_pi_differential.py`、`tests/test_pi_generated.py`）。命令行默认按 1.6.0 的规则读文件（`--pi-version 0.84.2` 切回基线），因为你 `~/.pi` 里的文件是今天的 Pi 写的；本章的练习仍按 0.84.2 的规则。
""", en="""
None of this is inferred from the docs: the course's tests install the npm packages of Pi 0.84.2 and 1.6.0 and compare `learn_pi_lab.pi` with Pi's own code, answer by answer, on every file under `data/`, on sessions Pi itself wrote, and on thousands of generated trees (`tests/test_pi_differential.py`, `tests/test_pi_generated.py`). The command line reads files by 1.6.0's rules by default (`--pi-version 0.84.2` switches back to the baseline), because the files in your `~/.pi` are written by today's Pi; this chapter's exercise still follows 0.84.2.
"""),
    md(zh="""
## Pi 怎么做，教学模型怎么做

这一章的参考实现（reference implementation）`pi.context` 按 Pi v0.84.2（以及 1.6.0）的行为写成，并用公开文件上 Pi 自己的答案检验过（上面的 `small.jsonl`，以及测试里的其余文件）。有几处是有意的选择，值得写明：

| 话题 | Pi | 教学模型 |
|---|---|---|
| 保留区里的旧压缩 | v0.58.3 丢掉；0.80.4 到 0.84.2 作为第二条摘要发出；1.6.0 又不发了 | 两种都有：`pi_version="0.84.2"`（默认）或 `"1.6.0"` |
| `context_edit`、`usage`、`systemMessage` | 1.x 才有；0.84.2 把前两者当未知条目 | `pi_version="1.6.0"` 时按 1.6.0 处理 |
| 缺少或不在分支上的 `firstKeptEntryId` | 什么都不保留 | 相同 |
| 设置从哪里读 | 整条路径，包括被摘要的部分 | 相同 |
| `branch_summary.fromId` | 代码写的是分叉点（文档说是被放弃的叶子） | 按代码的实际行为 |
| `retainedTail`（v0.84.2 文档里新出现的字段） | 编程智能体（coding agent）的 `SessionManager` 不读它 | 默认不读；`build_session_context(..., retained_tail=True)` 可以试用文档描述的规则（§15） |
| 消息来源 | 消息上不记来源 | 每条消息多一个 `entryId`，指回树上的条目 |
| 提供商层面的整理（跳过出错或中止的助手消息、为没有结果的工具调用补一条结果） | 在 `convertToLlm` **之后**的提供商适配层（§8.1） | 不在本章范围内 |

最后一行提醒我们：就算是 `convert_to_llm` 的输出，也还不是最终发到网络上的字节。“存的”和“发的”之间隔着好几层，每一层都有自己的规则。
""", en="""
## What Pi does, and what the teaching model does

This chapter's reference, `pi.context`, is written to Pi v0.84.2's behaviour (and 1.6.0's) and checked against Pi's own answers on the public files (`small.jsonl` above, and the others in the tests). A few points are deliberate choices and worth stating:

| Topic | Pi | Teaching model |
|---|---|---|
| an older compaction in the kept range | v0.58.3 drops it; 0.80.4 to 0.84.2 emit it as a second summary; 1.6.0 drops it again | both: `pi_version="0.84.2"` (default) or `"1.6.0"` |
| `context_edit`, `usage`, `systemMessage` | 1.x only; 0.84.2 reads the first two as unknown entries | handled as 1.6.0 does with `pi_version="1.6.0"` |
| `firstKeptEntryId` missing or not on the branch | nothing is kept | the same |
| where settings are read from | the whole path, the summarised part included | the same |
| `branch_summary.fromId` | the code writes the branch point (the docs say the abandoned leaf) | what the code does |
| `retainedTail` (a field new in the v0.84.2 docs) | the coding agent's `SessionManager` does not read it | not read by default; `build_session_context(..., retained_tail=True)` tries the documented rule (§15) |
| where a message came from | not recorded | each message gets an `entryId` pointing back at its entry |
| provider-level clean-up (skip errored or aborted assistant messages, add a result for a tool call that has none) | in the provider layer, **after** `convertToLlm` (§8.1) | outside this chapter |

The last row is a reminder that even the output of `convert_to_llm` is not yet the bytes that go over the network. Several layers stand between "stored" and "sent", each with rules of its own.
"""),
    md(zh="""
## 练习：`build_context_messages` 与 `apply_context_edits`

在 `workspace/ch06_context.py` 里完成 **`build_context_messages(path_entries) -> list[dict]`**（练习 id：`build-context`）：按 Pi v0.84.2 的规则，从一条分支（根到叶子的条目列表）构造出模型看到的消息列表，每条消息加上 `entryId`。

- `message`：它的 `message` 原样（`content` 为 null 或缺失时修成 `[]`）；
- `custom_message`：`{"role": "custom", "customType", "content", "display", "details", "timestamp": 毫秒}`，其中 `details` 只在条目有这个键时才加，原样照抄（`null` 和 `{}` 也一样）；
- 非空的 `branch_summary`：`{"role": "branchSummary", "summary", "fromId", "timestamp": 毫秒}`；
- 其他条目不产生消息；
- 压缩：只看**最后一个**；先是它的 `{"role": "compactionSummary", "summary", "tokensBefore", "timestamp": 毫秒}`，再是从 `firstKeptEntryId` 到它之前的条目（保留区里更早的压缩也变成一条 `compactionSummary`），再是它之后的条目。

时间戳要换成毫秒（`"2026-03-01T10:00:05.250Z"` → `1772359205250`）。不要修改输入：先复制消息，再加 `entryId`。参考实现是 `learn_pi_lab.pi.context.build_context_messages`。写完运行下面的检查；也可以在终端里运行 `make verify EX=build-context`。

### 第二个练习（Pi 1.x）：`apply_context_edits`

同一个文件里还有 **`apply_context_edits(path_entries, messages) -> list[dict]`**（练习 id：`apply-edits`）：按 Pi 1.6.0 的规则，把分支上的 `context_edit` 应用到已经构造好的消息上。每个目标只看分支上**最后一个**编辑；`replacement` 为 `null` 就去掉目标的消息；否则只换 `user`、`assistant`、`toolResult`、`custom` 消息的 `content`（给 `assistant` 和 `toolResult` 的字符串要包成一个 `text` 块）；其他消息原样通过。参考实现是 `learn_pi_lab.pi.context.apply_context_edits`，它在测试里和 Pi 1.6.0 自己的 `buildSessionProjection` 对照过。检查：`make verify EX=apply-edits`，或者下面同一个单元格。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch06_context.py`](../../learn_pi_lab/lessons/ch06_context.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。
""", en="""
## Exercises: `build_context_messages` and `apply_context_edits`

Complete **`build_context_messages(path_entries) -> list[dict]`** in `workspace/ch06_context.py` (exercise id `build-context`): with Pi v0.84.2's rules, build the messages the model sees from a branch (the list of entries from the root to the leaf), each message with an `entryId`.

- `message`: its `message` as is (a null or missing `content` becomes `[]`);
- `custom_message`: `{"role": "custom", "customType", "content", "display", "details", "timestamp": ms}`, where `details` is there only when the entry has that key, copied as is (`null` and `{}` included);
- a non-empty `branch_summary`: `{"role": "branchSummary", "summary", "fromId", "timestamp": ms}`;
- any other entry: nothing;
- compaction: only the **latest** counts; first its `{"role": "compactionSummary", "summary", "tokensBefore", "timestamp": ms}`, then the entries from `firstKeptEntryId` up to it (an older compaction in that range becomes a `compactionSummary` too), then the entries after it.

Timestamps become epoch milliseconds (`"2026-03-01T10:00:05.250Z"` → `1772359205250`). Never change the input: copy a message before adding `entryId`. The reference is `learn_pi_lab.pi.context.build_context_messages`. When you are done, run the check below; in a terminal, `make verify EX=build-context` does the same.

### A second exercise (Pi 1.x): `apply_context_edits`

The same file also holds **`apply_context_edits(path_entries, messages) -> list[dict]`** (exercise id `apply-edits`): with Pi 1.6.0's rules, apply the branch's `context_edit` entries to messages already built. For each target only the **latest** edit on the branch counts; a `null` replacement drops the target's messages; otherwise only the `content` of `user`, `assistant`, `toolResult` and `custom` messages is replaced (a string for `assistant` and `toolResult` is wrapped in one `text` block); every other message passes unchanged. The reference is `learn_pi_lab.pi.context.apply_context_edits`, checked in the tests against Pi 1.6.0's own `buildSessionProjection`. Check it with `make verify EX=apply-edits`, or with the same cell below. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch06_context.py`](../../learn_pi_lab/lessons/ch06_context.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.
"""),
    code(r'''
from learn_pi_lab.harness.notebook import check

check("06")
'''),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("06")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- **当前分支不是上下文**。`getBranch` 回答“存了什么”：从根到叶子的全部条目；`buildSessionContext` 回答“模型看到什么”：按规则构造的消息，加上生效的模型和思考级别；`convertToLlm` 再把只有 Pi 认识的角色改写成提供商认识的 `user` 消息。
- **压缩**只是追加一个条目，什么都不删。它让最新压缩的摘要排在上下文最前面，`firstKeptEntryId` 之前的消息被摘要替换；`firstKeptEntryId` 缺失或不在分支上时，什么都不保留。设置仍从整条路径读取。
- **嵌套压缩**：保留区里较早的压缩，v0.80.4 起作为第二条摘要发出（v0.58.3 丢掉它）；真实的 `small.jsonl` 就是这样，课程的结果与 Pi v0.84.2 一致。
- **分支摘要**把被放弃的分支学到的东西带进新分支；它的 `fromId` 在代码里是分叉点，不是文档说的被放弃的叶子。
- `custom_message`（`sendMessage`）进入上下文，`custom`（`appendEntry`）只存档；前者的 `details` 也不发送。
- **Pi 1.x**：`context_edit` 只是又一行，它省略或替换较早消息在上下文里的内容，被编辑的那一行原封不动；编辑相对于分支，回到编辑之前原文就回来了。`usage` 计入用量、不进上下文；压缩的 `systemMessage` 排在压缩后上下文的最前面，取代保留区里的 `system` 消息；1.6.0 不再重复保留区里较早的压缩摘要。
""", en="""
## Summary

- **The current branch is not the context.** `getBranch` answers "what is stored": every entry from the root to the leaf; `buildSessionContext` answers "what the model sees": messages built by rules, plus the model and thinking level in force; `convertToLlm` then rewrites Pi's own roles as `user` messages a provider understands.
- A **compaction** is one appended entry and deletes nothing. It puts the latest compaction's summary first in the context and replaces the messages before `firstKeptEntryId`; if `firstKeptEntryId` is missing or not on the branch, nothing is kept. Settings are still read from the whole path.
- **Nested compactions**: since v0.80.4 an older compaction in the kept range is sent as a second summary (v0.58.3 dropped it); the real `small.jsonl` is exactly this case, and the course's result matches Pi v0.84.2.
- A **branch summary** carries what an abandoned branch learned into the new one; in the code its `fromId` is the branch point, not the abandoned leaf the docs describe.
- `custom_message` (`sendMessage`) enters the context, `custom` (`appendEntry`) is archive only; the former's `details` are not sent either.
- **Pi 1.x**: a `context_edit` is one more line; it omits or replaces what an earlier message contributes to the context while that line stays untouched, and it is relative to its branch: go back before it and the original returns. `usage` counts in the totals and never enters the context; a compaction's `systemMessage` leads the compacted context in place of the `system` messages in the kept range; 1.6.0 no longer repeats an older compaction's summary in the kept range.
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
