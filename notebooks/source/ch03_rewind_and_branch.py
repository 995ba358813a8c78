"""Chapter 03: rewind is moving the leaf, a branch is rewind + append (seed 000 section 4, seed 001)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("03", "rewind-and-branch",
                  zh="回退与分支：移动叶子，然后追加",
                  en="Rewind and branch: move the leaf, then append")

CELLS = [
    md(zh="""
## 学习目标

- 理解**回退**（rewind）只是移动当前叶子（leaf）指针 `leafId`，不删除任何条目（entry）；
- 理解**分支**（branch）= 回退 + 追加：它不是一个单独的功能，而是“只追加（append-only）+ 父指针（parent pointer）”的自然结果；
- 会用 Pi 的三个命令思考问题：`/tree`（在同一个文件里移动叶子，可附带一段分支摘要，branch summary）、`/fork`（`before` / `at`，把一条路径复制成新文件）、`/clone`（复制当前整条分支），并能说出它们各自写了什么、没写什么；
- 在树游乐场（playground）里亲手点选节点、像 Pi 一样操作，看每一步在文件末尾追加的那一行，并完成关卡；
- 完成练习 `branch_from`、`navigate_target`、`fork_path`。
""", en="""
## Learning goals

- understand that a **rewind** only moves the current **leaf** pointer (`leafId`) and deletes nothing;
- understand that a **branch** is a rewind plus an append: not a separate feature, but what append-only plus parent pointers give you for free;
- reason with Pi's three commands: `/tree` (move the leaf within the same file, optionally with a branch summary), `/fork` (`before` / `at`: copy one path into a new file) and `/clone` (copy the whole current branch), and say what each one writes and what it does not;
- act like Pi in the tree playground: click nodes, run the commands, read the one line each step appends to the file, and solve levels;
- complete the exercises `branch_from`, `navigate_target` and `fork_path`.
"""),
    md(zh="""
## 一个故事：第 18 轮才发现第 6 轮错了

你和编程智能体（coding agent）一起重构支付模块，已经聊了 18 轮。这时你才意识到：第 6 轮定下的“用策略模式”是个错误决定，第 7 到 18 轮全都建立在它上面。

如果会话（session）只是一条线性日志，你只有两个坏选择：

- **接着聊，告诉模型“第 6 步错了，撤销”**：错误的上下文（context）还在窗口里，模型会被它拖着走；而且这些 token 在会话剩下的每一轮里都要重新付费；
- **全部重开**：第 1 到 5 轮辛苦建立起来的上下文（读过的代码、补好的测试、抽出的函数）一起丢掉。

你真正想要的是：**回到第 6 轮之前，换个方向重走一遍**。树状会话正好能做到这一点。先把第 18 轮时的会话建出来（`learn_pi_lab.course.labs` 里的示例，id 是为了好读而起的：`u06` 是第 6 轮的用户消息，`a06` 是助手的回答）：
""", en="""
## A story: at turn 18 you find that turn 6 was wrong

You and the agent are refactoring a payment module and are 18 turns in. Only now do you see that the decision of turn 6, "use the strategy pattern", was a mistake, and turns 7 to 18 all stand on it.

If the session were a linear log you would have two bad options:

- **keep going and tell the model "step 6 was wrong, undo it"**: the wrong context is still in the window, and it keeps pulling the model along; and you pay for those tokens again on every remaining turn;
- **start over**: and lose everything turns 1 to 5 established (the code that was read, the tests that were added, the functions that were extracted).

What you actually want is **to go back to just before turn 6 and take another direction**. A tree session does exactly that. First build the session as it stands at turn 18 (the example in `learn_pi_lab.course.labs`; the ids are made readable on purpose: `u06` is the user's turn 6, `a06` the assistant's answer):
"""),
    code("""
from learn_pi_lab.course.text import L
from learn_pi_lab.course.labs import short_text, story_tree
from learn_pi_lab.session_tree import TranscriptTree

story = story_tree()                                  # zh: 完整的示例，这里只从中取条目 # en: the finished example, used as a source of entries
upto = [entry.id for entry in story.entries].index("a18") + 1
linear = TranscriptTree(story.entries[:upto])        # zh: 第 18 轮时的会话 # en: the session as it stood at turn 18
print(linear, L("| 叶子的深度：", "| the leaf's depth:"), linear.depth(linear.leaf_id))
for entry_id in ("u05", "a05", "u06", "a06", "u18", "a18"):
    print(f"  {entry_id:<4} {short_text(linear[entry_id])}")
"""),
    md(zh="""
画出来是一条很长的直线（为了看得清，中间的一长串被折叠成了一个节点）：
""", en="""
Drawn, it is one long straight line (to keep it readable, the long middle run is folded into a single node):
"""),
    code("""
from learn_pi_lab.drawing import draw_session

draw_session(linear)
"""),
    md(zh="""
## 回退 = 移动叶子

会话里唯一“会动”的东西，是一个指针：当前叶子 `leafId`，表示“对话现在进行到哪里”。下一个新条目的 `parentId` 就是它。

**回退**就是把这个指针挪到更早的某个条目上。其他一切都不变：没有条目被删除、被复制、被修改。`TranscriptTree.move_leaf` 返回一棵新树，但它和旧树共用**同一个**条目元组：
""", en="""
## Rewind = move the leaf

The only thing in a session that "moves" is one pointer: the current leaf, `leafId`, meaning "where the conversation is now". The next new entry gets it as its `parentId`.

A **rewind** moves that pointer to an earlier entry. Nothing else changes: no entry is deleted, copied or modified. `TranscriptTree.move_leaf` returns a new tree, but it shares the **very same** tuple of entries with the old one:
"""),
    code("""
rewound = linear.move_leaf("a05")
print(L("移动前的叶子：", "leaf before:"), linear.leaf_id, L("| move_leaf('a05') 之后：", "| after move_leaf('a05'):"), rewound.leaf_id)
print(L("条目数，移动前 / 移动后：", "entries before / after:"), len(linear), "/", len(rewound))
print(L("还是同一批条目（没有复制，也没有删除）：", "the very same entries (nothing copied, nothing deleted):"), rewound.entries is linear.entries)
print(L("当前分支现在的结尾：", "the current branch now ends with:"), [entry.id for entry in rewound.path_to()][-3:])
print(L("第 18 轮还在：", "turn 18 is still there:"), "a18" in rewound, L("| 它所在的分支有", "| its branch has"), len(rewound.path_to("a18")), L("个条目", "entries"))
"""),
    md(zh="""
## 分支 = 回退 + 追加

回退之后再追加一个条目会怎样？新条目的父节点（parent）是当前叶子 `a05`。可 `a05` 本来就有一个孩子 `u06`（错误的那一轮），现在它有两个孩子了：**一个分叉就这样出现了**。我们没有调用任何“创建分支”的函数，因为根本不存在这样的函数。

新的第 6 轮用故事里准备好的文字（“换个方向：用组合”）：
""", en="""
## Branch = rewind + append

What happens when you append after a rewind? The new entry's parent is the current leaf, `a05`. But `a05` already has a child, `u06` (the wrong turn), so now it has two: **a fork in the tree has appeared**. We did not call any "create a branch" function, because there is no such function.

The new turn 6 uses the text the story has ready ("Different direction: composition"):
"""),
    code("""
def retaken(entry_id: str, parent_id: str) -> dict:
    # zh: 故事新分支上的一个条目，父节点用这个单元格给它的那个
    # en: An entry of the story's new branch, with the parent it gets in this cell.
    return dict(story[entry_id].payload, parentId=parent_id)


branched = rewound.append("u06b", "message", retaken("u06b", "a05"))
print("u06b:", short_text(branched["u06b"]))
print(L("它的父节点：", "its parent:"), branched["u06b"].parent_id)
print(L("a05 的子节点：", "children of a05:"), [child.id for child in branched.children("a05")])
print(L("叶子：", "leaves:"), [entry.id for entry in branched.leaves()])
print(L("条目数：", "entries:"), len(linear), "->",
      L(f"{len(branched)}（多了一个，一个没少）", f"{len(branched)} (one more, none fewer)"))
"""),
    md(zh="""
前后对比。左边是第 18 轮时的会话，右边是回退到 `a05` 再追加 `u06b` 之后：旧的分支（`u06` 到 `a18`，图中把 `u06` 到 `u18` 折叠成了一个节点）原封不动地还在，只是不再是当前分支（current branch，图中的粗黑线）了。
""", en="""
Before and after. On the left, the session at turn 18; on the right, after rewinding to `a05` and appending `u06b`. The old branch (`u06` to `a18`; the picture folds `u06` to `u18` into one node) is still there, untouched; it simply is no longer the current branch (the thick black line).
"""),
    code("""
import matplotlib.pyplot as plt
from matplotlib import rc_context
from learn_pi_lab.drawing.style import drawing_rc

with rc_context(drawing_rc()):      # zh: 图用的字体（中文图例需要一个 CJK 字体） # en: the drawing's fonts (Chinese legends need a CJK font)
    fig, (before_ax, after_ax) = plt.subplots(1, 2, figsize=(13, 7))
    draw_session(linear, ax=before_ax)
    draw_session(branched, ax=after_ax)
    fig.tight_layout()
    plt.show()
"""),
    md(zh="""
既然什么都没删，想回到旧分支看看，只要再把叶子移回 `a18`。另外，包里的 `learn_pi_lab.pi.navigation.branch_from` 就是“回退 + 追加”这两步，本章的第一个练习就是写它：
""", en="""
Since nothing was deleted, going back to look at the old branch is just another leaf move, to `a18`. And `learn_pi_lab.pi.navigation.branch_from` in the package is exactly these two steps, rewind plus append; writing it is this chapter's first exercise:
"""),
    code("""
from learn_pi_lab.pi.navigation import branch_from

back = branched.move_leaf("a18")
print(L("切换回去：叶子", "switched back: leaf"), back.leaf_id, L("| 分支长度", "| branch length"), len(back.path_to()))
print(L("每个旧条目都原样保留：", "every old entry survives unchanged:"), all(branched[entry.id] == entry for entry in linear.entries))
same = branch_from(linear, "a05", "u06b", "message", retaken("u06b", "a05"))
print(L("branch_from(linear, 'a05', 'u06b', ...) 得到同一棵树：", "branch_from(linear, 'a05', 'u06b', ...) builds the same tree:"),
      same.entries == branched.entries and same.leaf_id == branched.leaf_id)
"""),
    md(zh="""
### 在磁盘上：分支就是追加一行

这一切落到文件上是什么样子？把第 18 轮时的会话写成文件，然后让写入器（`SessionWriter`）回退到 `a05` 再追加。写入器只做一件事：在文件末尾加一行，`parentId` 取当前叶子。旧文件的每一个字节都原样留在新文件的开头。

重新加载时，Pi 的规则是：**叶子就是文件的最后一行**（§6）。所以新分支上的 `u06b` 自动成了叶子。
""", en="""
### On disk: a branch is one appended line

What does all this look like in the file? Write the session as it stood at turn 18, then have the writer (`SessionWriter`) rewind to `a05` and append. The writer does just one thing: add a line at the end whose `parentId` is the current leaf. Every byte of the old file stays, as it was, at the start of the new one.

On reload Pi's rule is: **the leaf is the last line of the file** (§6). So `u06b`, on the new branch, becomes the leaf by itself.
"""),
    code("""
from learn_pi_lab.course.paths import data_file, scratch_dir, show_path
from learn_pi_lab.jsonl.writer import SessionWriter, write_new_file
from learn_pi_lab.course.labs import story_header
from learn_pi_lab.pi.session import load_session

WORK = scratch_dir("ch03")
story_file = WORK / "story.jsonl"
write_new_file(story_file, story_header(), [dict(entry.payload) for entry in linear.entries])
bytes_at_turn_18 = story_file.read_bytes()

writer = SessionWriter(story_file)
print(L("写入器读完", "the writer's leaf after reading"), show_path(story_file), L("后的叶子 ->", "->"), writer.leaf_id)
writer.leaf_id = "a05"                                     # zh: 回退…… # en: rewind ...
line = {key: value for key, value in story["u06b"].payload.items() if key != "parentId"}
written = writer.append(line)                              # zh: ……再追加 # en: ... then append
print(L("追加的条目", "appended"), written["id"], L("的 parentId 是", "with parentId"), written["parentId"])

now = story_file.read_bytes()
print(L("旧文件原封不动，是新文件的前缀：", "the old file is an untouched prefix of the new one:"), now.startswith(bytes_at_turn_18))
print(L("多出的字节：", "bytes added:"), len(now) - len(bytes_at_turn_18), L("| 多出的行：", "| lines added:"), now.count(b"\\n") - bytes_at_turn_18.count(b"\\n"))
print(L("重新加载后的叶子（最后一行）：", "leaf after reloading (the last line):"), load_session(story_file).leaf_id)
"""),
    md(zh="""
## Pi 的三个工具：`/tree`、`/fork`、`/clone`

有了“回退 = 移动叶子、分支 = 回退 + 追加”，Pi 的会话命令就很好理解了。它们的区别只在于：叶子移到哪里、是否写一个新文件、新文件里放什么。下面逐个用 `learn_pi_lab.pi.navigation` 在 `data/branched.jsonl` 上运行一遍。这个文件讲的就是同一个故事的短版本：第 8 行“用策略模式”走错了，用户回到第 7 行的回答，从第 14 行开始改用组合。

### `/tree`：在同一个文件里移动叶子

`/tree` 打开整棵树，你选一个目标条目（§9.4）：

- 目标是**用户消息**（或 `custom_message`）：叶子移到它的**父节点**，那条消息的文字放回编辑器，你可以改了再发；发出去的新消息就成了原消息的兄弟，也就是一个新分支；
- 目标是其他条目（比如助手的回答）：叶子就移到目标本身，下一条消息接在它后面。

如果不要分支摘要、也不加标签（label），文件里一个字节都不写。
""", en="""
## Pi's three tools: `/tree`, `/fork`, `/clone`

With "rewind = move the leaf, branch = rewind + append" in hand, Pi's session commands are easy to understand. They differ only in where the leaf goes, whether a new file is written, and what goes into it. Let's run each one with `learn_pi_lab.pi.navigation` on `data/branched.jsonl`, a short version of the same story: line 8, "use the strategy pattern", was the wrong turn; the user went back to the answer on line 7 and switched to composition from line 14.

### `/tree`: move the leaf within the same file

`/tree` shows the whole tree and you pick a target entry (§9.4):

- the target is a **user message** (or a `custom_message`): the leaf moves to its **parent**, and the message's text goes back into the editor so you can edit and resend it; what you send becomes a sibling of the original message, which is a new branch;
- the target is anything else (an assistant answer, say): the leaf moves to the target itself, and the next message follows it.

Without a branch summary or a label, not a byte is written to the file.
"""),
    code("""
from learn_pi_lab.pi.navigation import navigate, navigate_target


def message_text(entry: dict) -> str:
    content = entry["message"]["content"]
    return content if isinstance(content, str) else " ".join(
        block.get("text", "") for block in content if block.get("type") == "text")


branched_file = data_file("branched.jsonl")
original_bytes = branched_file.read_bytes()
session = load_session(branched_file)
print(L("加载时的叶子（最后一行）：", "leaf on load (the last line):"), session.leaf_id)

strategy = "c4e2c611"     # zh: 走错的那一轮的用户消息 # en: the user message of the wrong turn
leaf_after = navigate(session, strategy)
print(f"/tree -> {L('用户消息', 'user message')} {strategy}{L('：叶子变成', ': leaf becomes')}",
      L(f"{leaf_after}（它的父节点）", f"{leaf_after} (its parent)"))
print(f"  {L('回到编辑器里的：', 'back in the editor:')}", message_text(session.entry(strategy)))
print(L("/tree -> 助手回答 3b43a8c4：叶子变成", "/tree -> assistant answer 3b43a8c4: leaf becomes"), navigate(session, "3b43a8c4"))
print(L("同一条规则用在单纯的树上，navigate_target：", "the same rule on the bare tree, navigate_target:"), navigate_target(session.tree, strategy))

print(L("文件没有变：", "file unchanged:"), branched_file.read_bytes() == original_bytes)
print(L("重新加载后的叶子：", "leaf after reloading:"), load_session(branched_file).leaf_id, L("- 叶子的移动不会保存", "- a leaf move is not saved"))
"""),
    md(zh="""
最后一行值得记住：**Pi 不保存叶子的移动**（§6）。如果你用 `/tree` 跳到某处，什么都没发就退出了，下次打开时你会回到文件的最后一行。只有追加了新条目（一条消息、一个分支摘要或一个标签），这次跳转才算“落了地”。

### `/tree` 的分支摘要

从一条分支跳走时，`/tree` 可以让模型把“被放弃的那条分支做了什么、学到了什么”总结成一段话，存成一条 `branch_summary` 条目（§3.2、§9.4）。它被追加为新叶子的孩子，随后的对话接在它后面，所以它进入了新分支的上下文：你在 A 路撞过的墙，B 路也知道。

`data/branch-summary.jsonl` 就是这样一个文件。注意 `fromId`：Pi 的文档说它是“被放弃的旧叶子”，但 Pi 的代码（v0.58.3 到 v0.84.2）写入的其实是**分叉点**（branch point），与 `parentId` 相同。
""", en="""
The last line is worth remembering: **Pi does not save leaf moves** (§6). If you jump somewhere with `/tree` and quit without sending anything, the next time you open the session you are back at the last line of the file. A jump only "lands" once something is appended: a message, a branch summary or a label.

### `/tree` with a branch summary

When you leave a branch, `/tree` can have the model summarize what the abandoned branch did and learned, and store it as a `branch_summary` entry (§3.2, §9.4). It is appended as a child of the new leaf, and the conversation continues below it, so it becomes part of the new branch's context: the wall you hit on road A is known on road B.

`data/branch-summary.jsonl` is such a file. Note `fromId`: Pi's docs call it "the old leaf that was abandoned", but Pi's code (v0.58.3 to v0.84.2) actually writes the **branch point**, the same value as `parentId`.
"""),
    code("""
from learn_pi_lab.pi.context import build_session_context

summarised = load_session(data_file("branch-summary.jsonl"))
summary = next(entry for entry in summarised.entries if entry["type"] == "branch_summary")
print("branch_summary", summary["id"], "| parentId", summary["parentId"], "| fromId", summary["fromId"])
print(L("fromId 是分叉点（= parentId）：", "fromId is the branch point (= parentId):"), summary["fromId"] == summary["parentId"])
for text_line in summary["summary"].splitlines()[:4]:
    print("  |", text_line)
print(L("分叉点的子节点：", "children of the branch point:"), [child["id"] for child in summarised.children(summary["parentId"])])
context = build_session_context(summarised.branch())
print(L("模型在新分支上看到的：", "what the model sees on the new branch:"), [(m["role"], m["entryId"]) for m in context.messages])
"""),
    code("""
draw_session(summarised)
"""),
    md(zh="""
图中紫色虚线箭头就是 `fromId`。故事版本也是这样做的：`story_tree()` 在第 18 轮之后回退到 `a05`，先追加一条分支摘要，再重走第 6 轮。它的最终形状如下：
""", en="""
The dashed purple arrow in the picture is `fromId`. The story does the same thing: after turn 18, `story_tree()` rewinds to `a05`, appends a branch summary, and only then takes turn 6 again. Its final shape:
"""),
    code("""
print(L("摘要：", "summary:"), short_text(story["summary"]))
print(L("新分支：", "the new branch:"), " -> ".join(entry.id for entry in story.path_to()[-6:]))
draw_session(story)
"""),
    md(zh="""
同一个例子在命令行里也有：`python3 -m learn_pi_lab lab session-story` 以 JSON 打印从根到当前叶子的那条分支（加 `--leaf a18` 就看被放弃的那条）。下面在子进程里运行它，只打印分支上的 id：
""", en="""
The same example is on the command line: `python3 -m learn_pi_lab lab session-story` prints the branch from the root to the current leaf as JSON (add `--leaf a18` for the abandoned one). The next cell runs it in a subprocess and prints only the ids on the branch:
"""),
    code("""
import json
import subprocess
import sys

from learn_pi_lab.course.paths import repo_root

done = subprocess.run([sys.executable, "-m", "learn_pi_lab", "lab", "session-story"], cwd=repo_root(),
                      capture_output=True, text=True, encoding="utf-8", check=True)
printed = json.loads(done.stdout)
print("$ python3 -m learn_pi_lab lab session-story")
print(L("叶子：", "leaf:"), printed["leaf"], L("| 分支：", "| branch:"), " -> ".join(step["id"] for step in printed["path"]))
print(L("和 story.path_to() 是同一条分支：", "the same branch as story.path_to():"),
      [step["id"] for step in printed["path"]] == [entry.id for entry in story.path_to()])
"""),
    md(zh="""
### `/fork`：把一条路径复制成一个新文件

`/fork` 不在原文件里移动叶子，而是**新建一个会话文件**（§7.4、§9.1、§9.2）：

- 新文件的会话头（header）有新的会话 id，同样的 `cwd`，外加 `parentSession`：原文件的路径；
- 然后是从根到分叉位置的那条路径，逐条复制，**id 保持不变**（所以相关文件之间共享 id）；
- `position="before"`（`/fork` 的默认）：你选的必须是一条用户消息，新文件只复制到它的**父节点**，消息文字回到编辑器，你改了再发；
- `position="at"`：任何条目都可以，新文件复制到它**本身**为止；
- 原文件一个字节都不动。

`write_fork` 把结果写进新文件（拒绝覆盖已有文件）。为了让输出每次都一样，这里给它一个固定的时钟和随机数种子：
""", en="""
### `/fork`: copy one path into a new file

`/fork` does not move the leaf in the original file; it **creates a new session file** (§7.4, §9.1, §9.2):

- the new header has a new session id, the same `cwd`, plus `parentSession`: the path of the original file;
- then comes the path from the root to the fork point, copied entry by entry with **the same ids** (so related files share ids);
- `position="before"` (what `/fork` does by default): you must pick a user message, and the new file copies up to its **parent**; the message text goes back into the editor for you to edit and resend;
- `position="at"`: any entry will do, and the new file copies up to and including **that entry**;
- the original file does not change by a single byte.

`write_fork` writes the result into a new file (it refuses to overwrite one). To make the output the same every time, it gets a fixed clock and a fixed random seed here:
"""),
    code("""
import random
from datetime import datetime, timezone

from learn_pi_lab.pi.navigation import fork_entries, write_fork


def fixed_clock():
    return datetime(2026, 3, 2, 10, 0, 0, tzinfo=timezone.utc)


session = load_session(branched_file)
before_file = write_fork(session, strategy, "before", WORK / "fork-before.jsonl",
                         clock=fixed_clock, rng=random.Random(6))
fork_before = load_session(before_file)
print(L("新文件：", "new file:"), show_path(before_file))
print(L("会话头：", "header:"), {key: value for key, value in fork_before.header.items() if key != "parentSession"})
print("parentSession:", show_path(fork_before.header["parentSession"]))
copied = [entry["id"] for entry in fork_before.entries]
print(L("复制的条目：", "entries copied:"), copied)
fork_point = session.entry(strategy)["parentId"]
print(f"{L('到', 'the same ids as the source branch up to')} {fork_point}{L(' 为止，id 与源分支相同：', ':')}",
      copied == [entry["id"] for entry in session.branch(fork_point)])
print(L("源文件没有变：", "source file unchanged:"), branched_file.read_bytes() == original_bytes)
"""),
    md(zh="""
`at` 则把选中的条目也带上。而对一条非用户消息用 `before` 会被拒绝，因为 Pi 的 `/fork` 选择器只列出用户消息：
""", en="""
`at` takes the chosen entry along too. And `before` on anything but a user message is refused, because Pi's `/fork` picker lists only user messages:
"""),
    code("""
from learn_pi_lab.course.text import L
from learn_pi_lab.i18n import explain

at_file = write_fork(session, "3b43a8c4", "at", WORK / "fork-at.jsonl", clock=fixed_clock, rng=random.Random(6))
fork_at = load_session(at_file)
print(L("在 3b43a8c4 处 fork（at），结尾是：", "fork at 3b43a8c4 ends with:"), [entry["id"] for entry in fork_at.entries][-3:])
print(L("新文件的叶子：", "leaf of the new file:"), fork_at.leaf_id)
try:
    fork_entries(session, "3b43a8c4", "before")
except ValueError as error:
    print(L("对助手回答用 before 会被拒绝：", "fork before an assistant answer is refused:"), explain(error))
try:
    write_fork(session, strategy, "before", before_file)
except FileExistsError as error:
    print(L("往已有的文件上写 fork 会被拒绝：", "writing a fork over an existing file is refused:"),
          type(error).__name__)
"""),
    md(zh="""
### 复制路径时，标签怎么办？

标签本身也是条目（第 05 章细讲），它们就挂在当前分支上。Pi v0.84.2 复制路径时会**去掉**路径上的 `label` 条目，把剩下的条目重新串起来（每条的 `parentId` 改成前一个保留下来的条目），再在末尾为每个**当前仍然有效**的标签新建一个 `label` 条目。v0.79.2 之前 Pi 不重新串联，父节点是标签的条目就成了孤儿（orphan），有用户报告一次 fork 丢了约一半的条目（#5669）。

`data/labelled.jsonl` 的当前分支上有六个标签条目（设置、替换、清除），最后只剩一个有效标签：
""", en="""
### What happens to labels when a path is copied?

Labels are entries too (chapter 05 has the details), and they sit on the current branch. When Pi v0.84.2 copies a path it **drops** the `label` entries from it, re-chains the rest (each copy's `parentId` becomes the previous kept entry), and then appends one new `label` entry at the end for every label that is **still in force**. Before v0.79.2 Pi did not re-chain, so anything whose parent was a label became an orphan; one user reported a fork losing about half of its entries (#5669).

`data/labelled.jsonl` has six label entries on its current branch (set, replaced, cleared), and only one label is still in force:
"""),
    code("""
from learn_pi_lab.pi.navigation import clone_entries

labelled = load_session(data_file("labelled.jsonl"))
print(L("当前分支上的标签条目：", "label entries on the current branch:"), sum(1 for e in labelled.branch() if e["type"] == "label"))
print(L("仍然有效的标签：", "labels in force:"), labelled.labels())

header, lines = clone_entries(labelled, clock=fixed_clock, rng=random.Random(6))
print(f"{'id':<9} {'type':<22} {'parentId':<9} {L('标签', 'label')}")
for entry in lines:
    label = f"{entry['targetId']} = {entry['label']!r}" if entry["type"] == "label" else ""
    print(f"{entry['id']:<9} {entry['type']:<22} {str(entry['parentId']):<9} {label}")
source_parent = labelled.entry("c956c35e")["parentId"]
copy_parent = next(e["parentId"] for e in lines if e["id"] == "c956c35e")
print(f"c956c35e{L('：源文件里的父节点是', ': parent')} {source_parent}{L('（', ' (')}{labelled.entry(source_parent)['type']}{L('）', ')')}"
      f"{L('，副本里的是', ' in the source ->')} {copy_parent}{L('', ' in the copy')}")
"""),
    md(zh="""
### `/clone`：复制当前整条分支

`/clone`（v0.68.0 起）就是“在当前叶子处 `at` 一次 fork”（§9.3）：把从根到叶子的整条当前分支复制成一个新文件。上面的单元格用的正是 `clone_entries`。想给一条干净的分支留一份基线、再在副本上放手尝试时，它最合适。

## 三个工具放在一起比较

下面这张表不是抄来的：每一格都由前面单元格的结果算出来。
""", en="""
### `/clone`: copy the whole current branch

`/clone` (since v0.68.0) is simply "fork `at` the current leaf" (§9.3): the whole current branch, root to leaf, copied into a new file. The cell above used exactly that, `clone_entries`. It is the tool for keeping a clean baseline of a branch while you experiment freely on the copy.

## The three tools side by side

The table below is not copied from anywhere: every cell is computed from the results of the cells above.
"""),
    code("""
from learn_pi_lab.i18n import display_width


def padded(text: str, width: int) -> str:
    # zh: 按显示宽度补空格：一个汉字占两列
    # en: pad to a display width: a Chinese character takes two columns
    return text + " " * (width - display_width(text))


clone_file = WORK / "clone.jsonl"
header, lines = clone_entries(load_session(branched_file), clock=fixed_clock, rng=random.Random(6))
write_new_file(clone_file, header, lines)
clone = load_session(clone_file)

tree_session = load_session(branched_file)
navigate(tree_session, strategy)
source_ids = {entry["id"] for entry in tree_session.entries}

rows = [(L("/tree -> 用户消息", "/tree -> user msg"), L("无（还是原文件）", "none (same file)"), tree_session.leaf_id, "-", "-"),
        ("/fork before", show_path(before_file), fork_before.leaf_id,
         show_path(fork_before.header["parentSession"]), {e["id"] for e in fork_before.entries} <= source_ids),
        ("/fork at", show_path(at_file), fork_at.leaf_id,
         show_path(fork_at.header["parentSession"]), {e["id"] for e in fork_at.entries} <= source_ids),
        ("/clone", show_path(clone_file), clone.leaf_id,
         show_path(clone.header["parentSession"]), {e["id"] for e in clone.entries} <= source_ids)]
print(f"{padded(L('命令', 'command'), 18)} {padded(L('新文件', 'new file'), 42)} {padded(L('叶子', 'leaf'), 9)} "
      f"{'parentSession':<20} {L('id 不变', 'ids kept')}")
for command, new_file, leaf, parent, ids_kept in rows:
    print(f"{padded(command, 18)} {padded(new_file, 42)} {leaf:<9} {parent:<20} {ids_kept}")
print(L("做完这一切，源文件还是没有变：", "source file unchanged after all of it:"), branched_file.read_bytes() == original_bytes)
"""),
    md(zh="""
| | `/tree` | `/fork`（`before`） | `/fork`（`at`） | `/clone` |
|---|---|---|---|---|
| 写到哪里 | 同一个文件；只移动叶子（可选追加分支摘要或标签） | 新文件 | 新文件 | 新文件 |
| 复制什么 | 不复制 | 根到所选用户消息的**父节点** | 根到所选条目**本身** | 整条当前分支 |
| 会话头 | 不变 | 新 id + `parentSession` | 新 id + `parentSession` | 新 id + `parentSession` |
| 条目 id | 不变 | 照原样复制 | 照原样复制 | 照原样复制 |
| 什么时候用 | “回到那个决定之前”，树留在一个文件里 | 换个问法重问，换个方向重走 | 从某个结果处岔开 | 留一份干净的基线 |

回到第 18 轮的故事：最直接的做法是 `/tree` 选中第 6 轮的用户消息（叶子落到第 5 轮的回答上，原话回到编辑器），需要的话附上分支摘要，然后换个方向发出新的第 6 轮。如果想让新方向有一个自己的文件，就用 `/fork` 选第 6 轮的用户消息（`before`）。
""", en="""
| | `/tree` | `/fork` (`before`) | `/fork` (`at`) | `/clone` |
|---|---|---|---|---|
| writes to | the same file; only the leaf moves (optionally a branch summary or label is appended) | a new file | a new file | a new file |
| copies | nothing | root to the **parent** of the chosen user message | root to the chosen entry **itself** | the whole current branch |
| header | unchanged | new id + `parentSession` | new id + `parentSession` | new id + `parentSession` |
| entry ids | unchanged | copied as they are | copied as they are | copied as they are |
| use it to | "go back to before that decision", keeping the tree in one file | ask again differently, take another direction | branch off from a result | keep a clean baseline |

Back to the turn-18 story: the most direct move is `/tree` on turn 6's user message (the leaf lands on turn 5's answer and the original words go back into the editor), with a branch summary if you want one, and then send a new turn 6 in the other direction. If you want the new direction in a file of its own, `/fork` on turn 6's user message (`before`).
"""),
    md(zh="""
## 亲手试试：树游乐场（playground）

下面的游乐场把本章的一切放进了一个界面。它操作的是一个**真实的会话文件**（在 `notebooks/.scratch/` 里，`data/` 下的文件不会被碰），每个按钮都调用本章用过的同一批函数（`navigate`、`SessionWriter`、`write_fork`、`clone_entries`）：

- **点一个节点**选中它；鼠标停在节点上，能看到它的类型、文字和它在文件里的那一行 JSONL；
- **/tree 到选中的**：和 Pi 一样，选中用户消息时叶子落到它的父节点，原话回到编辑框；在“分支摘要”框里写了字，离开分支时就追加一条 `branch_summary`；
- **发送（用户）/ 模型回答**：在叶子处追加一行消息（游乐场替模型回答）；**贴标签 / 清除标签**、**/name**、**/fork（之前 / 在此）**、**/clone**；
- 树的下面是**文件**：每一步之后，新追加的行被标出来，写着文件从多少字节变成多少字节、前面的字节一个没变；fork 和 clone 的新文件显示在原文件下面；
- **撤销 / 重置**：撤销把文件改回上一步的字节。注意，这是沙盒的功能，**Pi 做不到**：Pi 只追加，不改写；在 Pi 里“撤销”就是用 `/tree` 走开，那一行留在文件里；
- **当前分支 / 模型看到的**：一键切换下方的列表和图上的编号；
- **键盘**也能做完一切：点一下树（或用 Tab 进入），↑ 到父节点、↓ 到子节点、←/→ 到兄弟节点，Enter 就是 `/tree`，Ctrl+Z 撤销，编辑框里 Ctrl+Enter 发送。颜色跟着 JupyterLab 的主题走（设置 → 主题：浅色、深色、高对比度都能看清），系统设置了“减少动态效果”时，叶子指针的移动不再有动画；
- **关卡**：左上角选一关，目标树显示在你的树旁边，每做一步自动检查；过关记录保存在仓库根目录的 `.progress/playground.json`（不进 git）。只有游乐场自己的操作才算数：手工改文件不算过关。

先从第 1 关开始：用鼠标（或只用键盘），让 `u2` 多一个兄弟。
""", en="""
## Try it yourself: the tree playground

The playground below puts everything in this chapter into one interface. It acts on a **real session file** (under `notebooks/.scratch/`; the files under `data/` are never touched), and every button calls the same functions this chapter used (`navigate`, `SessionWriter`, `write_fork`, `clone_entries`):

- **click a node** to select it; hover over a node to see its kind, its text and its JSONL line in the file;
- **/tree to selected**: as in Pi, a user message puts the leaf on its parent and its words back in the editor; with text in the "branch summary" box, leaving a branch appends a `branch_summary`;
- **send (user) / model answers**: append a message line at the leaf (the playground plays the model); **label / clear label**, **/name**, **/fork before / at**, **/clone**;
- below the tree, the **file**: after each step the appended line is marked, with the file's size before and after and the fact that every earlier byte is unchanged; a fork's or clone's new file is shown below the source;
- **undo / reset**: undo puts the previous bytes back. That is the sandbox's feature, **not Pi's**: Pi only appends and never rewrites; in Pi you "undo" by moving away with `/tree`, and the line stays in the file;
- **current branch / what the model sees**: one toggle switches the list below and the numbers on the tree;
- the **keyboard** does everything too: click the tree once (or Tab into it), ↑ to the parent, ↓ to a child, ←/→ to a sibling, Enter is `/tree`, Ctrl+Z undoes, Ctrl+Enter in the editor sends. The colours follow JupyterLab's theme (Settings → Theme: light, dark and high contrast all stay legible), and with "reduce motion" set in your system the leaf pointer moves without animation;
- **levels**: pick one at the top left; the target tree is shown beside yours and every step is checked at once; solved levels are kept in `.progress/playground.json` at the repository root (git-ignored). Only the playground's own commands count: editing the file by hand solves nothing.

Start with level 1: with the mouse (or the keyboard alone), give `u2` a sibling.
"""),
    code("""
from learn_pi_lab.playground.levels import default_progress_path
from learn_pi_lab.playground.widget import TreePlayground

playground = TreePlayground(scratch_dir("ch03-playground"), level=1,
                            progress=default_progress_path())   # .progress/playground.json
playground
""", tags=("your-turn",), volatile="interactive widget"),
    md(zh="""
每个按钮都有同名的 Python 方法，所以同样的事也能用代码做，输出是确定的。下面在另一个文件夹里开一个不带界面的 `Playground`，把第 1 关用代码走一遍。

**先预测**：`tree_to("u2")` 之后叶子在哪里？文件多了几个字节？`append_user()` 之后呢？
""", en="""
Every button has a Python method of the same name, so the same steps can be taken in code, with deterministic output. Below, a `Playground` without a view, in another folder, plays level 1 in code.

**Predict first**: after `tree_to("u2")`, where is the leaf, and how many bytes did the file gain? And after `append_user()`?
"""),
    code("""
from learn_pi_lab.playground import Playground

pg = Playground(scratch_dir("ch03-api"), progress=None)
run = pg.level(1)
print(run)
print(L("开始时的检查：", "check at the start:"), run.check().solved)

pg.tree_to("u2")
print("\\n" + L("/tree 到 u2 -> 叶子", "/tree to u2 -> leaf"), pg.leaf_id, L("| 编辑框：", "| editor:"), pg.editor)
print(L("/tree 没有改动文件（移动叶子什么都不写）：", "file unchanged by /tree (a leaf move writes nothing):"), pg.path.read_bytes() == pg.start_bytes)

action = pg.append_user()                      # zh: 像 Pi 一样，把编辑框里的内容发出去 # en: send what the editor holds, as Pi would
change = action.change
print("\\n" + L("append_user -> 新条目", "append_user -> new entry"), action.new_ids[0], L("的 parentId 是", "with parentId"), pg.entry(action.new_ids[0])["parentId"])
print(f"{L('文件大小', 'file size')} {change.size_before} -> {change.size_after} {L('字节；前面的字节没有变：', 'bytes; earlier bytes unchanged:')} {change.prefix_unchanged}")
print(L("唯一的新行：", "the one new line:"), change.added_lines[0][:100] + "...")
print("\\n" + str(run.check()))
""", tags=("predict",)),
    md(zh="""
撤销会把文件改回去，一个字节不差；同一关里犯的错，检查也不会放过。下面故意做错一次：不回退就直接发送，新消息接在 `a2` 后面，而不是成为 `u2` 的兄弟：
""", en="""
Undo puts the file back byte for byte, and the check is not fooled by a mistake. Below, a deliberate wrong move: sending without rewinding, so the new message follows `a2` instead of becoming `u2`'s sibling:
"""),
    code("""
pg.undo(); pg.undo()
print(L("撤销两次之后，文件又是开始时的样子：", "after two undos, the file is the start file again:"), pg.path.read_bytes() == pg.start_bytes)
print(L("操作记录：", "log:"), [action.command for action in pg.log])

pg.append_user(L("改用组合。", "Use composition."))  # zh: 错了：没有先 /tree # en: wrong: no /tree first
print(run.check())
pg.reset()
print(L("重置 -> 条目：", "reset -> entries:"), [entry["id"] for entry in pg.entries], L("| 叶子：", "| leaf:"), pg.leaf_id)
"""),
    md(zh="""
所有关卡都是数据（`learn_pi_lab/playground/levels.json`），检查不需要浏览器：
""", en="""
Every level is data (`learn_pi_lab/playground/levels.json`), and its check needs no browser:
"""),
    code("""
from learn_pi_lab.playground import load_levels

for level in load_levels():
    print(f"{level.number}. {level.title()}")
"""),
    md(zh="""
在上面的游乐场里玩过之后，**重新运行**下面这个单元格：它读出游乐场现在的状态，检查你当前的关卡，并列出你已经过的关。
""", en="""
After playing in the playground above, **re-run** the cell below: it reads the playground's current state, checks your current level and lists the levels you have solved.
"""),
    code("""
from learn_pi_lab.playground.levels import read_progress

current = playground.pg.level_run
print(current if current else L("自由模式", "free play"))
print(current.check() if current else "")
print(L("已过的关：", "solved:"), sorted(read_progress(playground.pg.progress_path)["solved"]))
""", tags=("rerun",), volatile="depends on what you did in the playground"),
    md(zh="""
## Pi 怎么做，教学模型怎么做

- **不可变与可变。** Pi 的 `SessionManager` 是一个可变对象，叶子就是它的一个字段（§7）；教学模型的 `TranscriptTree` 不可变，`move_leaf` 和 `append` 都返回新树。两者表达的是同一件事，不可变的版本更容易在笔记本里前后对比。
- **叶子移动不保存。** 两者一样：`/tree` 之后不追加任何东西就退出，重新打开时叶子回到最后一行（§6）。
- **fork 何时落盘。** Pi 只有在新会话里出现助手消息时才写出 fork 文件（为了修复重复会话头的问题，#1672），v0.80.9 起若原会话还没保存就拒绝 fork；课程的 `write_fork` 立即写出，方便你打开查看，并且像 Pi v0.76 起的 `wx` 一样拒绝覆盖已有文件。
- **标签与重新串联。** 课程按 v0.79.2 之后的行为实现（#5669 的修复）。
- **分支摘要。** Pi 用模型生成摘要，提示词是固定的结构（目标、约束、进展、关键决定、下一步）；本课程的数据文件里是写好的摘要。`fromId` 的文档与代码不一致，课程跟随代码：分叉点，或在根处为字面量 `"root"`。
- **`--fork` 不是 `/fork`。** 命令行的 `pi --fork <文件>`（`forkFrom`）复制源文件的**每一行**（所有分支），而且不做版本迁移（migration，§7.1）；`/fork` 只复制一条路径。
- **`/export` 不是导航。** `/export` 把会话导出成一个独立的 HTML 页面（带树状侧栏，供人阅读、存档），`/share` 再把它传到 gist（§11）；它不移动叶子，也不改会话文件。在树上移动的只有 `/tree`。
""", en="""
## What Pi does, and what the teaching model does

- **Immutable vs mutable.** Pi's `SessionManager` is a mutable object and the leaf is one of its fields (§7); the teaching model's `TranscriptTree` is immutable, and `move_leaf` and `append` return new trees. Both express the same thing; the immutable one is easier to compare before and after in a notebook.
- **Leaf moves are not saved**, in both: quit after `/tree` without appending anything, and on reopening the leaf is back on the last line (§6).
- **When a fork reaches the disk.** Pi writes the fork file only once the new session holds an assistant message (the fix for duplicate headers, #1672), and since v0.80.9 refuses to fork a session that has not been saved yet; the course's `write_fork` writes at once, so you can open the file, and refuses to overwrite an existing file, like Pi's `wx` flag since v0.76.
- **Labels and re-chaining.** The course implements the behaviour from v0.79.2 on (the #5669 fix).
- **Branch summaries.** Pi has the model write the summary, with a fixed structured prompt (goal, constraints, progress, key decisions, next steps); the course's data files hold a prepared one. The docs and the code disagree about `fromId`; the course follows the code: the branch point, or the literal `"root"` at a root.
- **`--fork` is not `/fork`.** The command line's `pi --fork <file>` (`forkFrom`) copies **every line** of the source (every branch) and does not migrate old versions (§7.1); `/fork` copies one path.
- **`/export` is not navigation.** `/export` writes the session out as one self-contained HTML page (with a tree sidebar, for people to read and keep), and `/share` uploads it as a gist (§11); it moves no leaf and changes nothing in the session file. Only `/tree` moves around the tree.
"""),
    md(zh="""
## 练习：`branch_from`、`navigate_target`、`fork_path`

打开 `workspace/ch03_rewind_and_branch.py`。三个函数都作用在 `TranscriptTree` 上，和 `learn_pi_lab.pi.navigation` 里的同名函数签名一致，由同一套测试检查。

**`branch_from(tree, entry_id, new_id, kind="message", payload=None) -> TranscriptTree`**：从 `entry_id` 处继续对话：先回退，再追加。新条目的父节点是 `entry_id`，它成为新树的叶子；原树不变。`entry_id` 不存在时抛出 `UnknownTranscriptEntry`，`new_id` 已存在时抛出 `DuplicateEntryId`（`TranscriptTree` 的方法已经会这样做）。

**`navigate_target(tree, target_id) -> str | None`**：`/tree` 选中 `target_id` 后叶子落在哪里。用户消息（`kind == "message"` 且 `payload["message"]["role"] == "user"`）或 `custom_message`：返回它的父节点 id（根则为 `None`）；其他条目：返回 `target_id` 本身；未知 id：`UnknownTranscriptEntry`。

**`fork_path(tree, entry_id, position="before") -> tuple[TranscriptEntry, ...]`**：一次 fork 复制的、从根开始的路径。`"before"`：`entry_id` 必须是用户消息（否则 `ValueError`），路径到它的父节点为止，它是根时返回 `()`；`"at"`：路径到 `entry_id` 本身为止；其他 `position`：`ValueError`。

写完后运行下面的检查单元格（或 `make verify EX=branch-from` 等）。在你动手之前它显示“未开始”，这是正常的。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch03_rewind_and_branch.py`](../../learn_pi_lab/lessons/ch03_rewind_and_branch.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。
""", en="""
## Exercises: `branch_from`, `navigate_target`, `fork_path`

Open `workspace/ch03_rewind_and_branch.py`. All three functions work on a `TranscriptTree`; their signatures match the functions of the same names in `learn_pi_lab.pi.navigation`, and the same tests check both.

**`branch_from(tree, entry_id, new_id, kind="message", payload=None) -> TranscriptTree`**: continue the conversation from `entry_id`: rewind, then append. The new entry's parent is `entry_id` and it becomes the new tree's leaf; the original tree is unchanged. An unknown `entry_id` raises `UnknownTranscriptEntry` and an existing `new_id` raises `DuplicateEntryId` (the `TranscriptTree` methods already do both).

**`navigate_target(tree, target_id) -> str | None`**: where the leaf lands when `/tree` picks `target_id`. A user message (`kind == "message"` and `payload["message"]["role"] == "user"`) or a `custom_message`: return its parent id (`None` for a root); anything else: return `target_id` itself; an unknown id: `UnknownTranscriptEntry`.

**`fork_path(tree, entry_id, position="before") -> tuple[TranscriptEntry, ...]`**: the root-first path a fork copies. `"before"`: `entry_id` must be a user message (otherwise `ValueError`), the path ends at its parent, and it is `()` when the message is a root; `"at"`: the path ends at `entry_id` itself; any other `position`: `ValueError`.

When you are done, run the check cell below (or `make verify EX=branch-from` and so on). Before you start it shows the exercises as not started; that is expected. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch03_rewind_and_branch.py`](../../learn_pi_lab/lessons/ch03_rewind_and_branch.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.
"""),
    code("""
from learn_pi_lab.harness.notebook import check

check("03")
"""),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("03")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- 会话里唯一会动的是当前叶子指针。**回退**就是移动它，什么都不删除；**分支**就是回退之后再追加，新条目的父节点已经有孩子，于是出现分叉。分支不是一个独立的功能，而是只追加加上父指针的自然结果。
- 在磁盘上，分支就是在文件末尾多写一行；旧文件是新文件原封不动的前缀。重新加载时叶子是最后一行，所以单纯的叶子移动不会被保存。
- `/tree` 在同一个文件里移动叶子：选用户消息时叶子落到它的父节点、原话回到编辑器；可以追加一条分支摘要，把被放弃分支的收获带到新分支上。
- `/fork` 把一条路径复制成一个带 `parentSession` 的新文件，id 保持不变，标签重建：`before` 复制到所选用户消息的父节点，`at` 复制到所选条目本身；`/clone` 就是在当前叶子处 `at`。原文件始终不变。
- 第 18 轮发现第 6 轮错了：回到第 6 轮之前，换个方向继续；既不必背着错误的上下文往前走，也不必丢掉前 5 轮。
""", en="""
## Summary

- The only thing in a session that moves is the current leaf pointer. A **rewind** moves it and deletes nothing; a **branch** is an append after a rewind: the new entry's parent already has a child, so the tree forks. Branching is not a separate feature; it falls out of append-only plus parent pointers.
- On disk a branch is one more line at the end of the file; the old file is an untouched prefix of the new one. On reload the leaf is the last line, so a leaf move on its own is not saved.
- `/tree` moves the leaf within the same file: picking a user message puts the leaf on its parent and the words back in the editor; a branch summary can carry what the abandoned branch learned into the new one.
- `/fork` copies one path into a new file with `parentSession`, same ids, labels re-created: `before` copies up to the chosen user message's parent, `at` up to the chosen entry itself; `/clone` is `at` the current leaf. The original file never changes.
- At turn 18 you find turn 6 was wrong: go back to just before turn 6 and continue in another direction, without dragging the wrong context along and without throwing away turns 1 to 5.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch03-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch03-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch03-q1")
"""),
    code("""ask("ch03-q2")"""),
    code("""ask("ch03-q3")"""),
]
