"""Chapter 02: a tree that stores only parentId (认父不认子, seed 000 section 3)."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("02", "parent-pointers",
                  zh="认父不认子：只存 parentId 的树",
                  en="Parent pointers only: a tree that stores nothing but parentId")

CELLS = [
    md(zh="""
## 学习目标

- 理解会话（session）树的每个条目（entry）为什么只存 `parentId`（父指针，parent pointer），而从不存孩子列表：这叫**认父不认子**，它让只追加（append-only）的文件也能长出分支；
- 会从父指针在读取时推导出孩子、根（root）和叶子（leaf），并画出一棵真实的会话树；
- 亲眼看到“存孩子列表”的设计在长出新分支（branch）时必须改写父节点（parent）那一行，从而破坏只追加；
- 理解 `path_to`：沿着父指针往上走到根，再反转；知道它为什么必须是循环而不是递归；
- 认识四种结构错误：重复 id、悬空父节点（dangling parent）、自指（self-parent，自己是自己的父节点）、环（cycle），以及 `validate` 如何用带类型的错误指出涉事的 id；
- 完成练习 `path_to` 和 `validate`。
""", en="""
## Learning goals

- understand why each entry of a session tree stores only its `parentId` (a **parent pointer**) and never a list of its children: "know your parent, not your children" is what lets an append-only file grow branches;
- derive children, roots and leaves from parent pointers at read time, and draw a real session tree;
- see for yourself that a "child list" design has to rewrite the parent's line whenever a branch grows, which breaks append-only;
- understand `path_to`: walk up the parent pointers to a root, then reverse; and why it must be a loop, not recursion;
- know the four structural errors (duplicate id, dangling parent, self-parent, cycle) and how `validate` names the ids involved with a typed error;
- complete the exercises `path_to` and `validate`.
"""),
    code("""
from learn_pi_lab.drawing import draw_roadmap

draw_roadmap("02")  # zh: 本章在全课中的位置 # en: where this chapter sits in the course
"""),
    md(zh="""
## 一个不对称：父亲早就知道，孩子还没出生

上一章的结论是：会话文件只追加，旧行一个字节都不改。那么，怎样在一个“只能往后加”的文件里存一棵树？

看一个条目被写下的那一刻。它的**父节点**是谁，此时已经完全确定：就是当前的叶子（对话进行到的位置），而且以后永远不会变。它的**孩子**却一个都还不存在；将来会有几个孩子、是谁，写它的时候根本无从知道。

所以只有一种信息可以在写下时一次写对、永不再改：`parentId`。Pi 的每个条目关于树的信息就只有它（`pi-session-format.md` §3.1）；第一个条目的 `parentId` 是 `null`，表示它是根。关于“孩子”的一切，都等到读取时再从父指针推导出来。

先看一个真实形状的会话文件 `data/branched.jsonl`，一行一个条目：
""", en="""
## An asymmetry: the parent is known, the children are not born yet

The previous chapter's conclusion: a session file is append-only, and not one byte of an old line ever changes. So how do you store a tree in a file you can only add to?

Look at the moment an entry is written. Its **parent** is already fully known: it is the current leaf (wherever the conversation has got to), and it will never change. Its **children** do not exist yet; how many there will be, and which, cannot be known when it is written.

So there is exactly one piece of tree information that can be written correctly once and never touched again: `parentId`. It is the only tree information a Pi entry carries (`pi-session-format.md` §3.1); the first entry has `parentId: null`, which marks a root. Everything about children is derived later, at read time, from the parent pointers.

Here is a realistically shaped session file, `data/branched.jsonl`, one entry per line:
"""),
    code("""
from learn_pi_lab.course.act import predict, reveal, your_turn
from learn_pi_lab.course.paths import data_file, show_path
from learn_pi_lab.course.text import L, figure_fonts, pad
from learn_pi_lab.course.labs import short_text
from learn_pi_lab.pi.session import load_session

figure_fonts()
session = load_session(data_file("branched.jsonl"))
tree = session.tree
print(show_path(session.file.path), "-", len(tree), L("个条目（不算会话头）", "entries after the header"))
print(f"{L('  行', 'line')}  {'id':<9} {'parentId':<9} {'type':<22} {L('内容', 'text')}")
for loaded in session.file.entries:
    obj = loaded.obj
    parent = obj["parentId"] or "null"
    print(f"{loaded.line:>4}  {obj['id']:<9} {parent:<9} {obj['type']:<22} {short_text(tree[obj['id']])[:38]}")
print(L("各行出现过的键：", "keys that appear on any line:"), sorted({key for obj in session.entries for key in obj}))
"""),
    md(zh="""
文件里没有任何一行提到“孩子”。可是孩子、根、叶子，一个都没丢：读取时扫一遍所有条目，按 `parentId` 分组，就得到了每个节点的孩子。`TranscriptTree` 就是这样做的（`children_of`，按文件顺序）：

- **根**：`parentId` 为 `null` 的条目；
- **叶子**：没有任何条目把它当作父节点；
- **分叉点**（branch point）：孩子不止一个的条目。

**先预测。** 只看上面那张表（`id` 和 `parentId` 两列），这棵树有几个叶子？在下面写下你数出的个数并运行，再运行下一个单元格。
""", en="""
No line anywhere mentions children. Yet nothing is lost: children, roots and leaves all come from one pass over the entries, grouping them by `parentId`. That is what `TranscriptTree` does (`children_of`, in file order):

- a **root** is an entry whose `parentId` is `null`;
- a **leaf** is an entry that no other entry names as its parent;
- a **branch point** is an entry with more than one child.

**Predict first.** From the table above alone (the `id` and `parentId` columns), how many leaves does this tree have? Write your count below and run the cell, then run the one after it.
""", tags=("predict",)),
    code("""
my_guess = None   # zh: 叶子的个数 # en: the number of leaves
predict("ch02-p1", my_guess)
""", tags=("predict",)),
    code("""
from learn_pi_lab.session_tree import children_of

print(L("根：    ", "roots: "), [entry.id for entry in tree.roots()])
print(L("叶子：  ", "leaves:"), [entry.id for entry in tree.leaves()])
branch_points = [entry for entry in tree.entries if len(tree.children(entry.id)) > 1]
derived = children_of(tree.entries)  # zh: 只从 parentId 推导出的孩子 # en: children computed from parentId alone
for point in branch_points:
    print(L("分叉点", "branch point"), point.id, L("的孩子：", "has children"),
          [child.id for child in derived[point.id]])
print(L("当前叶子（最后一行）：", "current leaf (the last line):"), session.leaf_id)
reveal("ch02-p1", len(tree.leaves()))
"""),
    md(zh="""
把它画出来。`draw_session` 只读父指针：每条边从 `parentId` 指向条目本身。粗黑线是当前分支（current branch）：从根走到当前叶子（current leaf）的那条路径；节点颜色表示条目的类别（第 05 章细讲）。
""", en="""
Now draw it. `draw_session` reads nothing but parent pointers: every edge goes from the `parentId` to the entry. The thick black line is the current branch (the path from a root to the current leaf); node colours show the record group (chapter 05 covers them).
"""),
    code("""
from learn_pi_lab.drawing import draw_session

draw_session(session)
"""),
    md(zh="""
## 反面设计：如果每个条目都存自己的孩子列表

假设换一种设计：每个条目不存 `parentId`，而是存 `children: [...]`。读起来似乎更方便，从根往下走就行。问题出在**写**上：条目写下时孩子列表是空的，以后每长出一个孩子，**父节点那一行**就得改。

我们来做实验。把同一批条目分别写成两种文件，然后从一个已经有孩子的中间节点再长出一个新分支，比较文件前后的差异。
""", en="""
## The opposite design: every entry stores its child list

Suppose a different design: instead of `parentId`, each entry stores `children: [...]`. Reading looks easier, you just walk down from the root. The trouble is **writing**: when an entry is written its child list is empty, and every time a child is born, **the parent's line** has to change.

Let's try it. Write the same entries both ways, then grow a new branch from an inner entry that already has children, and compare each file before and after.
"""),
    code("""
import difflib

from learn_pi_lab.course.paths import scratch_dir
from learn_pi_lab.jsonl.writer import to_json_line

WORK = scratch_dir("ch02")


def parent_pointer_text(objects: list[dict]) -> str:
    # zh: Pi 的设计：每行原样写出，带着自己的 parentId
    # en: Pi's design: each line as it is, with its parentId
    return "".join(to_json_line(obj) + "\\n" for obj in objects)


def child_list_text(objects: list[dict]) -> str:
    # zh: 反面设计：不存 parentId，每行存一个 children 列表
    # en: the opposite design: no parentId, but a `children` list on every line
    kids: dict = {}
    for obj in objects:
        kids.setdefault(obj["parentId"], []).append(obj["id"])
    lines = []
    for obj in objects:
        stored = {key: value for key, value in obj.items() if key != "parentId"}
        stored["children"] = kids.get(obj["id"], [])
        lines.append(to_json_line(stored) + "\\n")
    return "".join(lines)


branch_point = branch_points[0].id
new_entry = {"type": "message", "id": "feed0001", "parentId": branch_point,
             "timestamp": "2026-03-02T09:34:00.000Z",
             "message": {"role": "user", "content": [{"type": "text", "text": "One more idea."}],
                         "timestamp": 1772444040000}}
before = session.entries
after = before + [new_entry]

designs = {L("父指针", "parent pointers"): parent_pointer_text, L("孩子列表", "child lists"): child_list_text}
for name, write in designs.items():
    old, new = write(before), write(after)
    (WORK / f"{write.__name__}-before.jsonl").write_text(old, encoding="utf-8")
    (WORK / f"{write.__name__}-after.jsonl").write_text(new, encoding="utf-8")
    print(f"--- {name}{L('：从这里长出新分支', ': grow a branch from')} {branch_point}")
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++")):
            continue
        print("   ", line if len(line) <= 100 else line[:44] + " ... " + line[-51:])
"""),
    md(zh="""
差别一目了然。父指针的文件只多了一行（`+`），别的什么都没动。孩子列表的文件除了多出的那一行，分叉点自己那一行也变了（`-` 旧的、`+` 新的）：它的 `children` 多了一个 id。

改一行为什么这么糟？上一章说过，文件里的一行一旦长度改变，它**后面的所有字节**都得挪位置，也就是要重写。下面精确地数一数：新文件和旧文件从第几个字节开始不同？从那里到旧文件末尾，有多少**已经写好的字节**必须重写？
""", en="""
The difference is plain. The parent-pointer file gained one line (`+`) and nothing else moved. The child-list file gained that line too, but the branch point's own line also changed (`-` old, `+` new): its `children` grew by one id.

Why is changing one line so bad? As the previous chapter showed, once a line changes length, **every byte after it** has to move, which means rewriting. Let's count exactly: at which byte do the new and old files first differ, and how many **already written bytes**, from there to the old end of file, must be rewritten?
"""),
    code("""
def first_difference(old: str, new: str) -> int:
    # zh: 第一个不同字节的位置（如果 new 只是在后面加，就是旧文件的长度）
    # en: offset of the first byte that differs (the old length if `new` only adds)
    old_bytes, new_bytes = old.encode("utf-8"), new.encode("utf-8")
    for offset, (a, b) in enumerate(zip(old_bytes, new_bytes)):
        if a != b:
            return offset
    return min(len(old_bytes), len(new_bytes))


def old_bytes_rewritten(old: str, new: str) -> int:
    # zh: 把 old 变成 new，磁盘上已有的字节要重写多少个
    # en: how many bytes already on disk must be written again to turn `old` into `new`
    return len(old.encode("utf-8")) - first_difference(old, new)


print(pad(L("设计", "design"), 16), pad(L("旧文件字节", "old size"), 12),
      pad(L("要重写的旧字节", "old bytes rewritten"), 20), L("新文件以旧文件开头", "old file is a prefix"))
for name, write in designs.items():
    old, new = write(before), write(after)
    print(pad(name, 16), pad(f"{len(old.encode()):,}", 12), pad(f"{old_bytes_rewritten(old, new):,}", 20),
          new.startswith(old))
"""),
    md(zh="""
父指针设计：旧文件原封不动地是新文件的前缀，要重写的旧字节为 0，这正是“只追加”的定义。孩子列表设计：从分叉点那一行开始，后面的旧字节全部要重写。

分叉点越靠前，要重写的就越多。下面用一条 200 个条目的链，依次从第 k 条长出新分支，画出每种设计要重写的旧字节数：
""", en="""
Parent pointers: the old file is, untouched, a prefix of the new one, and zero old bytes are rewritten: that is exactly what append-only means. Child lists: every old byte from the branch point's line to the end has to be rewritten.

The earlier the branch point, the more there is to rewrite. Take a chain of 200 entries, grow a branch from entry k for every k, and plot the old bytes each design has to rewrite:
"""),
    code("""
import matplotlib.pyplot as plt

chain = [{"type": "message", "id": f"{i:08x}", "parentId": f"{i - 1:08x}" if i else None,
          "timestamp": f"2026-03-01T10:{i // 60:02d}:{i % 60:02d}.000Z"} for i in range(200)]
points = range(len(chain))
rewritten = {name: [] for name in designs}
for k in points:
    sprout = {"type": "message", "id": "feed0002", "parentId": chain[k]["id"],
              "timestamp": "2026-03-01T11:00:00.000Z"}
    for name, write in designs.items():
        rewritten[name].append(old_bytes_rewritten(write(chain), write(chain + [sprout])))

fig, ax = plt.subplots(figsize=(8, 3.8))
for name, values in rewritten.items():
    ax.plot(points, [v / 1000 for v in values], label=name)
ax.set_xlabel(L("新分支从哪个条目长出（0 = 根，199 = 最后一条）",
                "entry the new branch grows from (0 = the root, 199 = the last entry)"))
ax.set_ylabel(L("必须重写的旧 kB", "old kB that must be rewritten"))
ax.set_title(L("在 200 个条目的文件里长出一个分支", "Growing one branch in a 200-entry file"))
ax.legend()
plt.show()

size = len(child_list_text(chain).encode())
pointers, lists = rewritten.values()
print(L("父指针，各分叉点要重写的旧字节（最少 / 最多）：", "parent pointers, old bytes rewritten (fewest / most):"),
      min(pointers), "/", max(pointers))
print(L("孩子列表，从根分叉：", "child lists, branching from the root:"), f"{lists[0]:,} / {size:,}")
print(L("孩子列表，从最后一条分叉：", "child lists, branching from the last entry:"), f"{lists[-1]:,}")
"""),
    md(zh="""
哪怕分叉点是最后一行，孩子列表也得改写它（方括号里多了一个 id）；分叉点在开头，就几乎要重写整个文件。重写又把上一章的风险全带了回来：写到一半崩溃，被截断的是**旧历史**，不只是新的那一行。

还有一个更隐蔽的问题：同一个关系存了两遍。“B 是 A 的孩子”在孩子列表里是 A 那一行的事；若还想从孩子找回父亲，要么再存一个 `parentId`，要么每次读整棵树去反查。存两遍就可能不一致，而只存 `parentId` 时，每个“父子关系”恰好由一个字段表达，不可能自相矛盾。

**结论：** 这个实验比较的是两种设计。父指针在任何位置分叉都不重写一个旧字节；孩子列表每次分叉都要改写旧字节。它说明的是：一行里只应写下写它那一刻就已确定、以后不会变的信息，`parentId` 正是这样的信息，所以认父不认子让只追加的文件也能长出分支。它并没有证明这是唯一的办法：比如另追加一行“A 多了孩子 B”的记录，也能只追加地记下孩子，代价是同一个关系又存了两遍。
""", en="""
Even when the branch point is the last line, the child list still has to rewrite it (one more id in its brackets); a branch point near the top means rewriting almost the whole file. And rewriting brings back every risk from the previous chapter: a crash halfway through truncates **old history**, not just the new line.

There is a subtler problem too: the same relationship would be stored twice. "B is a child of A" lives on A's line in a child list; to get from a child back to its parent you either store a `parentId` as well, or search the whole tree on every read. Two copies can disagree. With `parentId` alone every parent-child relation is exactly one field, so it cannot contradict itself.

**Conclusion:** the experiment compares two designs. Parent pointers rewrite no old byte wherever the branch grows; child lists rewrite old bytes on every branch. What it shows: a line should hold only what is settled when it is written and never changes afterwards, and `parentId` is exactly that, so knowing only your parent lets an append-only file grow branches. It does not prove this is the only way: appending a separate line "A gained child B" would also record children append-only, at the price of storing the same relation twice again.
"""),
    md(zh="""
**改一改，再运行。** 下面的 `K` 是分叉点在链上的位置。先想好答案再改：把 `K` 从 150 改成 20，孩子列表要重写的字节会多还是少？大约差几倍？父指针呢？
""", en="""
**Change it and re-run.** `K` below is where on the chain the branch grows. Decide on your answer before you change it: moving `K` from 150 to 20, do the child lists rewrite more or fewer bytes, and by roughly what factor? And the parent pointers?
""", tags=("rerun",)),
    code("""
K = 150   # zh: 改成 0 到 199 之间的值，再运行 # en: change to a value from 0 to 199, then run again
sprout = {"type": "message", "id": "feed0003", "parentId": chain[K]["id"], "timestamp": "2026-03-01T11:00:00.000Z"}
for name, write in designs.items():
    print(pad(name, 16), f"{old_bytes_rewritten(write(chain), write(chain + [sprout])):>8,}",
          L("个旧字节要重写", "old bytes rewritten"))
""", tags=("rerun",)),
    md(zh="""
## `path_to`：沿着父指针回家

只存父指针，最常用的问题“从根到这个叶子的对话是什么”要怎么回答？从叶子出发，一步步走到父节点，直到遇见 `parentId` 为 `null` 的根；走过的路径是“叶子→根”的顺序，**反转**一下就是“根→叶子”。这就是一个**分支**（branch），也是模型看到的对话历史的骨架（第 06 章再讲压缩（compaction）等细节）。

最朴素的写法只有几行：
""", en="""
## `path_to`: walking home along parent pointers

With only parent pointers, how do you answer the most common question, "what is the conversation from the root to this leaf"? Start at the leaf, step to its parent, and keep going until you reach a root (`parentId` is `null`). The walk visits entries leaf-to-root, so **reverse** it to read root-to-leaf. That is a **branch**, and it is the backbone of the history the model sees (chapter 06 adds compaction and the other details).

The plainest version takes a few lines:
"""),
    code("""
def naive_path_to(entries_by_id: dict, leaf_id: str) -> list[str]:
    walked = []
    current = entries_by_id[leaf_id]
    while True:
        walked.append(current.id)
        if current.parent_id is None:  # zh: 到根了 # en: reached a root
            break
        current = entries_by_id[current.parent_id]
    walked.reverse()  # zh: 走的方向是叶子 -> 根 # en: we walked leaf -> root
    return walked


by_id = {entry.id: entry for entry in tree.entries}
for leaf in tree.leaves():
    print(f"{L('到', 'branch to')} {leaf.id}:", " -> ".join(naive_path_to(by_id, leaf.id)))
"""),
    md(zh="""
参考实现（reference implementation）`learn_pi_lab.session_tree.path_to` 做的是同一件事，但多了三道防护，正是练习要你实现的：

1. 叶子 id 不存在：抛出 `UnknownTranscriptEntry`，指出这个 id；
2. 走到一半，某个 `parentId` 指向文件里没有的条目：同样抛出 `UnknownTranscriptEntry`，`entry_id` 是缺失的那个 id，`referenced_by` 是引用它的孩子；
3. 走回了已经走过的条目（父指针成环）：抛出 `ParentCycle` 并列出环上的 id，而不是永远转下去。

朴素版本遇到第 3 种情况会怎样？它会一直走下去，永不返回。所以下面的单元格让它在一个小环上最多走 20 步就停下，看看它卡在哪里：
""", en="""
The reference `learn_pi_lab.session_tree.path_to` does the same thing with three safeguards, which are exactly what the exercise asks you to build:

1. the leaf id does not exist: raise `UnknownTranscriptEntry` naming that id;
2. partway up, a `parentId` names an entry that is not in the file: raise `UnknownTranscriptEntry` too, with `entry_id` the missing id and `referenced_by` the child that names it;
3. the walk comes back to an entry it already visited (the parent pointers form a loop): raise `ParentCycle` listing the ids on the loop, instead of going round forever.

What does the naive version do in case 3? It walks forever and never returns. So the next cell lets it take at most 20 steps on a small loop, to show where it gets stuck:
"""),
    code("""
from learn_pi_lab.i18n import explain
from learn_pi_lab.session_tree import ParentCycle, TranscriptEntry, path_to

loop = {"a": TranscriptEntry("a", None), "b": TranscriptEntry("b", "c"), "c": TranscriptEntry("c", "b")}

steps, current = [], loop["b"]
while current.parent_id is not None and len(steps) < 20:  # zh: 朴素的走法，加了步数上限 # en: the naive walk, with a step limit
    steps.append(current.id)
    current = loop[current.parent_id]
print(L("朴素走法的前 20 步：", "naive walk, first 20 steps:"), " ".join(steps), "...")

try:
    path_to(loop, "b")
except ParentCycle as error:
    print(type(error).__name__, "-", explain(error), L("- 环上的 id：", "- ids:"), error.cycle)
"""),
    md(zh="""
## 四种结构错误与 `validate`

一个正常追加出来的文件里，孩子总是写在父节点之后，`parentId` 总是指向前面已经存在的条目。但文件可能被别的工具写坏、被人手工改过、在同步中被拼接过，读取方不能假设一切都好。`validate(entries)` 检查整批条目能否构成一片森林（forest，若干棵树），遇到问题就抛出一个**带类型的错误**，并在错误里写明涉事的 id：

| 错误 | 异常类型 | 为什么是错 |
|---|---|---|
| 重复 id | `DuplicateEntryId` | 两个不同的条目同名，指向它的 `parentId` 就有了歧义 |
| 悬空父节点 | `UnknownTranscriptEntry` | 父节点不在文件里，这条分支无法走回根 |
| 自指：自己是自己的父节点 | `SelfParent` | 往上走永远停在原地 |
| 环 | `ParentCycle` | 往上走会绕回起点，永远到不了根 |

悬空父节点实际抛出的是 `DanglingParent`，它是 `UnknownTranscriptEntry` 的子类（同时也是 `MalformedTranscript` 的子类），所以下面打印出的类型名是 `DanglingParent`，而 `except UnknownTranscriptEntry` 照样能接住它。

检查的顺序是固定的：先查重复 id（按文件顺序），再查自指，再查悬空父节点（按文件顺序取第一个），最后查环。顺序固定，同一份坏数据每次报的就是同一个问题。下面逐个演示：
""", en="""
## Four structural errors and `validate`

In a correctly appended file a child is always written after its parent, and `parentId` always names an entry that already exists above it. But files get damaged by other tools, edited by hand, spliced together by sync; a reader cannot assume all is well. `validate(entries)` checks that a set of entries forms a forest (one or more trees) and, when it does not, raises a **typed error** that names the ids involved:

| error | exception | why it is an error |
|---|---|---|
| duplicate id | `DuplicateEntryId` | two different entries share a name, so a `parentId` pointing at it is ambiguous |
| dangling parent | `UnknownTranscriptEntry` | the parent is not in the file, so this branch cannot walk back to a root |
| self-parent | `SelfParent` | walking up stays where it is forever |
| cycle | `ParentCycle` | walking up comes back round and never reaches a root |

A dangling parent actually raises `DanglingParent`, a subclass of `UnknownTranscriptEntry` (and of `MalformedTranscript` too), so the cells below print the class name `DanglingParent`, and `except UnknownTranscriptEntry` still catches it.

The checks run in a fixed order: duplicate ids (in file order), then self-parents, then dangling parents (the first in file order), then cycles. A fixed order means the same bad data always reports the same problem. One at a time:
"""),
    code("""
from learn_pi_lab.i18n import explain
from learn_pi_lab.session_tree import TranscriptError, validate

E = TranscriptEntry
broken = {
    L("重复 id", "duplicate id"):        [E("a", None), E("b", "a"), E("b", "a")],
    L("悬空父节点", "dangling parent"):  [E("a", None), E("b", "a"), E("c", "gone")],
    L("自指", "self-parent"):            [E("a", None), E("b", "b")],
    L("环", "cycle"):                    [E("a", None), E("b", "c"), E("c", "d"), E("d", "b")],
}
for problem, entries in broken.items():
    try:
        validate(entries)
        print(pad(problem, 16), L("没有报错？！", "no error?!"))
    except TranscriptError as error:
        print(pad(problem, 16), f"{type(error).__name__:<23} ids={error.entry_ids}  {explain(error)}")

print(L("健康的文件：validate 返回", "a healthy file: validate returns"), validate(tree.entries))
"""),
    md(zh="""
每个错误都是 `TranscriptError` 的子类，都带着 `entry_ids`。调用方可以按类型分别处理（第 04 章的加载器就把它们变成带行号的诊断（diagnostic）），人也能拿着 id 直接去文件里找。悬空父节点的错误同时给出了缺失的 id（`gone`）和引用它的孩子（`c`）：只说“有个父节点不见了”是没法修的。

还要注意第二个教训：**悬空父节点不能被悄悄丢掉。** 如果读取器只是默默略过 `c`，那条分支就从树上消失了，而且没有人知道该去找它。
""", en="""
Every one of them is a subclass of `TranscriptError` and carries `entry_ids`. A caller can handle each type on its own terms (chapter 04's loader turns them into diagnostics with line numbers), and a person can take the ids straight to the file. The dangling-parent error names both the missing id (`gone`) and the child that names it (`c`): "some parent is missing" alone is impossible to fix.

Note the second lesson too: **a dangling parent must never be dropped quietly.** If a reader simply skipped `c`, that branch would vanish from the tree, and nobody would know to look for it.
"""),
    md(zh="""
## 为什么必须用循环：一百万个条目的链

`path_to` 也可以写成递归：`path_to(x) = path_to(parent(x)) + [x]`。看起来更优雅，但 Python 的递归深度默认上限大约是 1000 层，而一个长会话有几千、几万个条目毫不稀奇（工具调用、工具结果、设置变更都是条目）。Pi 自己也吃过深度的亏：长会话曾让 TUI 栈溢出（#2651），深分支曾让路径和上下文（context）的构建变成平方时间（#5909，v0.79.9 修成线性）。

先看递归版本在一条 10 万个条目的链上的下场：
""", en="""
## Why it has to be a loop: a chain of a million entries

`path_to` could be written recursively: `path_to(x) = path_to(parent(x)) + [x]`. It looks elegant, but Python's recursion depth is limited to about 1,000 by default, and a long session with thousands or tens of thousands of entries is nothing unusual (tool calls, tool results and settings changes are all entries). Pi itself has been bitten by depth: long sessions once overflowed the TUI's stack (#2651), and deep branches once made building paths and context quadratic (#5909, linear since v0.79.9).

First, the recursive version on a chain of 100,000 entries:
"""),
    code("""
from types import MappingProxyType

NO_PAYLOAD = MappingProxyType({})  # zh: 所有条目共用一个空 payload，长链占的内存就小 # en: one shared empty payload keeps a long chain small in memory


def make_chain(length: int) -> dict:
    by_id, parent = {}, None
    for i in range(length):
        entry_id = f"{i:08x}"
        by_id[entry_id] = TranscriptEntry(entry_id, parent, kind="message", payload=NO_PAYLOAD)
        parent = entry_id
    return by_id


def recursive_path_to(entries_by_id: dict, entry_id: str) -> list[str]:
    entry = entries_by_id[entry_id]
    if entry.parent_id is None:
        return [entry.id]
    return recursive_path_to(entries_by_id, entry.parent_id) + [entry.id]


hundred_thousand = make_chain(100_000)
try:
    recursive_path_to(hundred_thousand, f"{100_000 - 1:08x}")
except RecursionError as error:
    print(L("递归版本：", "recursive version:"), type(error).__name__, "-", error)
print(L("循环版本：路径长度", "loop version: a path of"), len(path_to(hundred_thousand, f"{100_000 - 1:08x}")))
del hundred_thousand
"""),
    md(zh="""
再把链加长到一百万条。参考实现的 `path_to` 和 `validate` 都是循环，耗时与条目数成正比。耗时每次运行都不同，所以计时单独放在一个单元格里；结果本身（路径长度、首尾 id）是确定的，放在下一个单元格里打印。（这一步要占用几百 MB 内存，几秒钟时间。）
""", en="""
Now make the chain a million entries long. The reference `path_to` and `validate` are both loops, and their time grows in proportion to the number of entries. Times differ on every run, so the timing has a cell of its own; the result itself (path length, first and last id) is deterministic and is printed in the next cell. (This takes a few hundred MB of memory and a few seconds.)
"""),
    code("""
import time

million = make_chain(1_000_000)
last_id = f"{1_000_000 - 1:08x}"
started = time.perf_counter()
long_path = path_to(million, last_id)
walk_seconds = time.perf_counter() - started
started = time.perf_counter()
validate(million.values())
validate_seconds = time.perf_counter() - started
print(f"path_to, 1,000,000 {L('个条目：', 'entries:')} {walk_seconds:.2f} s")
print(f"validate, 1,000,000 {L('个条目：', 'entries:')} {validate_seconds:.2f} s")
""", volatile="wall-clock timings differ on every run"),
    code("""
print(L("路径长度：", "path length:"), len(long_path))
print(L("起点（根）：", "starts at the root:"), long_path[0].id, "parentId", long_path[0].parent_id)
print(L("终点（叶子）：", "ends at the leaf:"), long_path[-1].id)
print(L("前三步（父 -> 子）：", "first three steps (parent -> child):"),
      [(parent.id, child.id, child.parent_id) for parent, child in zip(long_path[:3], long_path[1:4])])
del million, long_path
"""),
    md(zh="""
## Pi 怎么做，教学模型怎么做

Pi 的 `SessionManager` 同样认父不认子（§7.3）：`getTree()` 在读取时从 `parentId` 建出孩子，并按条目时间戳排序（以迭代方式进行，避免栈溢出）；`getBranch()` 就是本章的 `path_to`：沿父指针走到根再反转。但对四种结构错误，Pi v0.84.2 的处理与教学模型不同（§6、§12b）：

| 问题 | Pi v0.84.2 | 教学模型 |
|---|---|---|
| 重复 id | 后出现的那行在索引里胜出；`getTree()` 会把它同时挂到每个点名它的父节点下 | 文件层：完全相同的重复被去掉并报 `duplicate-entry`，内容不同报 `conflicting-duplicate`；树层：`DuplicateEntryId` |
| 悬空父节点 | 变成一个额外的根，路径和上下文在那里截断，不提示 | 加载时给出带行号的 `dangling-parent` 诊断；经过它的路径抛出 `UnknownTranscriptEntry` 并点名缺失的 id |
| 自己是父节点 | `getTree()` 把它当根；`getBranch()` 永不返回 | `SelfParent` |
| 环 | 环和它下面的一切从 `getTree()` 里消失；`getBranch()` 永不返回（最终 V8 内存耗尽中止） | `ParentCycle`，列出环上的 id |

Pi 没有环检测，这是它的一个已知缺陷（§13）。本课程的加载器有一个 `mode="pi"`，可以重现 Pi 的行为用于对照，但在 Pi 会死循环的地方，它会抛出 `ParentCycle`，而不是真的卡死。下面用一个父节点缺失的小文件对比两种模式：
""", en="""
## What Pi does, and what the teaching model does

Pi's `SessionManager` knows only parents too (§7.3): `getTree()` builds the children from `parentId` at read time and sorts them by entry timestamp (iteratively, to avoid a stack overflow); `getBranch()` is this chapter's `path_to`: walk the parent pointers to a root, then reverse. But Pi v0.84.2 handles the four structural errors differently from the teaching model (§6, §12b):

| problem | Pi v0.84.2 | teaching model |
|---|---|---|
| duplicate id | the later line wins in the index; `getTree()` hangs it under every parent that names it | file layer: an identical repeat is dropped with `duplicate-entry`, a different one is `conflicting-duplicate`; tree layer: `DuplicateEntryId` |
| dangling parent | becomes an extra root; the path and the context stop there, silently | a `dangling-parent` diagnostic with a line number at load; a path through it raises `UnknownTranscriptEntry` naming the missing id |
| self-parent | `getTree()` shows it as a root; `getBranch()` never returns | `SelfParent` |
| cycle | the loop and everything below it vanish from `getTree()`; `getBranch()` never returns (V8 eventually aborts, out of memory) | `ParentCycle` listing the ids on the loop |

Pi has no cycle guard, a known gap (§13). The course's loader has a `mode="pi"` that reproduces Pi's behaviour for comparison, but where Pi would loop forever it raises `ParentCycle` instead of actually hanging. Here are both modes on a small file whose parent is missing:
"""),
    code("""
from learn_pi_lab.i18n import explain
from learn_pi_lab.pi.session import session_from_text
from learn_pi_lab.session_tree import UnknownTranscriptEntry

orphan_file = "\\n".join([
    '{"type":"session","version":3,"id":"demo","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}',
    '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
    '{"type":"message","id":"b2","parentId":"a1","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"user","content":"next","timestamp":2}}',
    '{"type":"message","id":"d4","parentId":"c3","timestamp":"2026-03-01T10:00:04.000Z","message":{"role":"user","content":"lost?","timestamp":4}}',
]) + "\\n"

as_pi = session_from_text(orphan_file, mode="pi")
print(L("pi 模式：  根", "pi mode:       roots"), [e.id for e in as_pi.tree.roots()],
      L("| 到 d4 的分支：", "| branch to d4:"), [e["id"] for e in as_pi.branch("d4")])

as_teaching = session_from_text(orphan_file)
for d in as_teaching.diagnostics:
    print(L("教学模式：", "teaching mode:"), explain(d))
try:
    as_teaching.branch("d4")
except UnknownTranscriptEntry as error:
    print(L("教学模式：到 d4 的分支 ->", "teaching mode: branch to d4 ->"), type(error).__name__, "-", explain(error))
"""),
    md(zh="""
pi 模式（pi mode）下，`d4` 悄悄成了第二个根，通往它的“分支”只有它自己，前面的对话全没了，却没有任何提示。教学模式（teaching mode）照样把文件读进来，但第 4 行有一条诊断，问到 `d4` 的分支时会明确指出缺的是 `c3`、是 `d4` 在引用它。第 04 章会把这类损坏系统地做一遍。
""", en="""
In pi mode `d4` quietly becomes a second root, the "branch" to it is just itself, the conversation before it is gone, and nothing says so. Teaching mode loads the file as well, but line 4 carries a diagnostic, and asking for the branch to `d4` says plainly that `c3` is missing and that `d4` names it. Chapter 04 goes through this kind of damage systematically.
"""),
    md(zh="""
## 练习：`path_to` 与 `validate`

打开 [`workspace/ch02_parent_pointers.py`](../../workspace/ch02_parent_pointers.py)，实现两个函数。它们和 `learn_pi_lab.session_tree` 里的同名函数签名一样，检查它们的也是同一套测试。

**`path_to(entries_by_id, leaf_id) -> tuple[TranscriptEntry, ...]`**

- `entries_by_id` 是 `{id: TranscriptEntry}`；返回从根到 `leaf_id` 的条目元组，根在前；
- `leaf_id` 不存在：抛出 `UnknownTranscriptEntry(leaf_id)`；
- 某个 `parent_id` 不存在：抛出 `UnknownTranscriptEntry(缺失的 id, referenced_by=引用它的孩子的 id)`；
- 走回走过的条目：抛出 `ParentCycle(环上的 id)`，绝不能死循环；
- 用循环，不用递归（测试里有很长的链）。

**`validate(entries) -> None`**

- `entries` 是任意可迭代的 `TranscriptEntry`（可能是生成器，只能遍历一次，先转成列表）；没有问题时返回 `None`；
- 按固定顺序检查：重复 id → `DuplicateEntryId`；自指 → `SelfParent`；悬空父节点（文件顺序第一个）→ `UnknownTranscriptEntry(父 id, referenced_by=孩子 id)`；环 → `ParentCycle`；
- 线性时间：每个条目往上走的过程中，遇到“已经证明能走到根”的条目就停下。

写完后运行下面的检查单元格（或在终端运行 `make verify EX=path-to` 和 `make verify EX=validate`）。在你动手之前它显示“未开始”，这是正常的。 通过之后，检查单元格下面的单元格会显示 [`learn_pi_lab/lessons/ch02_parent_pointers.py`](../../learn_pi_lab/lessons/ch02_parent_pointers.py)里课程按同样朴素的思路写的模型答案（model answer），和你的写法对照；同一套测试检查它，包里的参考实现是同一条规则的引擎版。

检查你的代码的，和检查参考实现的，是同一套测试：`tests/test_04_session_tree.py`。不指定练习区时它测的是包里的参考模型，在仓库根目录运行 `python3 -m unittest tests.test_04_session_tree -v` 就能看到每一条测试的名字，它们就是这两个函数的完整规格。
""", en="""
## Exercises: `path_to` and `validate`

Open [`workspace/ch02_parent_pointers.py`](../../workspace/ch02_parent_pointers.py) and implement two functions. Their signatures match the functions of the same names in `learn_pi_lab.session_tree`, and the same tests check both.

**`path_to(entries_by_id, leaf_id) -> tuple[TranscriptEntry, ...]`**

- `entries_by_id` is `{id: TranscriptEntry}`; return the entries from a root down to `leaf_id`, root first;
- an unknown `leaf_id`: raise `UnknownTranscriptEntry(leaf_id)`;
- a `parent_id` that does not exist: raise `UnknownTranscriptEntry(missing_id, referenced_by=the child's id)`;
- coming back to an entry already walked: raise `ParentCycle(ids on the loop)`, never loop forever;
- use a loop, not recursion (the tests include very long chains).

**`validate(entries) -> None`**

- `entries` is any iterable of `TranscriptEntry` (it may be a generator you can walk only once, so make a list first); return `None` when all is well;
- check in a fixed order: duplicate ids -> `DuplicateEntryId`; self-parent -> `SelfParent`; dangling parent (the first in file order) -> `UnknownTranscriptEntry(parent_id, referenced_by=child_id)`; cycles -> `ParentCycle`;
- linear time: while walking an entry up, stop as soon as you reach an entry already proven to reach a root.

When you are done, run the check cell below (or `make verify EX=path-to` and `make verify EX=validate` in a terminal). Before you start it shows the exercises as not started; that is expected. Once it passes, the cell after the check shows the model answer from [`learn_pi_lab/lessons/ch02_parent_pointers.py`](../../learn_pi_lab/lessons/ch02_parent_pointers.py), written in the same plain way, to compare with yours; the same tests check it, and the package's reference is the engine version of the same rules.

The tests that check your code are the ones that check the reference: `tests/test_04_session_tree.py`. Without a workspace they test the package's reference model; `python3 -m unittest tests.test_04_session_tree -v` at the repository root lists every test by name, and together they are the full specification of these two functions.
"""),
    md(zh="""
**轮到你了。** 下面的单元格把本章的数据交给**你自己**在 [`workspace/ch02_parent_pointers.py`](../../workspace/ch02_parent_pointers.py) 里写的函数：`path_to` 走 `branched.jsonl` 的每个叶子，`validate` 检查四个坏例子。还是练习模板时，它会告诉你；写好后再运行，和上面参考实现的输出对一对。
""", en="""
**Your turn.** The cell below hands this chapter's data to **your own** functions in [`workspace/ch02_parent_pointers.py`](../../workspace/ch02_parent_pointers.py): `path_to` walks to every leaf of `branched.jsonl`, `validate` checks the four broken examples. While they are stubs it tells you so; once written, run it again and compare with the reference's output above.
""", tags=("your-turn",)),
    code("""
for leaf in tree.leaves():
    walked = your_turn("path-to", by_id, leaf.id)
    if walked is None:
        break
    print(f"  {L('到', 'branch to')} {leaf.id}:", " -> ".join(entry.id for entry in walked))
for problem, entries in broken.items():
    print(f"{problem}{L('：', ':')}")
    if your_turn("validate", entries, expect_errors=(TranscriptError,)) is None:  # zh: 应当抛出带类型的错误 # en: should raise a typed error
        break  # zh: 还是练习模板，或者没有报错：先看上面这一条 # en: still the stub, or no error at all: read the line above first
""", tags=("your-turn",)),
    code("""
from learn_pi_lab.harness.notebook import check

check("02")
"""),
    code("""
from learn_pi_lab.course.act import model_answer

model_answer("02")  # zh: 检查通过之后，再运行这个单元格 # en: run this cell again once the check passes
"""),
    md(zh="""
## 回顾

- 一个条目写下时，父节点已经确定、永不改变，孩子却还不存在。所以只有 `parentId` 能一次写对、永不再改：**认父不认子**。
- 孩子、根、叶子、分叉点，都在读取时从父指针推导出来；画一棵树也只需要父指针。
- 存孩子列表的设计，每长一个分支都要改写父节点那一行，从那里到文件末尾的旧字节都得重写，只追加就此破产。父指针在任何位置分叉都不改一个旧字节：认父不认子让只追加的文件也能长出分支。
- `path_to` 沿父指针走到根再反转；必须用循环（一百万条的链也没问题），并防住未知 id、缺失的父节点和环。
- `validate` 按固定顺序拒绝四种结构错误，每种都是带类型的错误，并点名涉事的 id。Pi 对这些错误要么悄悄处理（孤儿（orphan）变成根），要么卡死（环）；教学模型把它们都摆到明处。
""", en="""
## Summary

- When an entry is written its parent is already known and will never change, while its children do not exist yet. So `parentId` is the only tree fact that can be written once and never touched: **know your parent, not your children**.
- Children, roots, leaves and branch points are all derived at read time from parent pointers; drawing a tree needs nothing else.
- A child-list design has to rewrite the parent's line whenever a branch grows, and every old byte from there to the end of the file with it: append-only is gone. Parent pointers rewrite no old byte wherever the branch grows: knowing only your parent lets an append-only file grow branches.
- `path_to` walks the parent pointers to a root and reverses; it must be a loop (a million-entry chain is fine) and must guard against unknown ids, missing parents and cycles.
- `validate` rejects the four structural errors in a fixed order, each as a typed error naming the ids involved. Pi either handles them silently (an orphan becomes a root) or hangs (a cycle); the teaching model brings every one of them into the open.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch02-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch02-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch02-q1")
"""),
    code("""ask("ch02-q2")"""),
    code("""ask("ch02-q3")"""),
]
