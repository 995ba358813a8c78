"""Chapter 00: what this workbook is, how to use it, and whether your environment is ready."""

from learn_pi_lab.course.cells import chapter, code, md

CHAPTER = chapter("00", "start-here", zh="从这里开始", en="Start here")

CHAPTERS = [
    ("01", "jsonl-vs-json-array",
     "JSONL 还是 JSON 数组：为什么一行一条", "JSONL vs a JSON array: one entry per line"),
    ("02", "parent-pointers",
     "认父不认子：只存 parentId 的树", "Parent pointers only: a tree from parentId"),
    ("03", "rewind-and-branch",
     "回退就是移动叶子，分支就是回退再追加", "Rewind moves the leaf; a branch is rewind + append"),
    ("04", "failure-experiments",
     "四个故障实验：把文件弄坏，再看会发生什么", "Four failure experiments: damage a file, watch what happens"),
    ("05", "record-types-and-state",
     "记录类型与任意节点上的状态", "Record types and the state at any entry"),
    ("06", "context-vs-branch",
     "模型看到的上下文 vs 存下来的分支", "What the model sees vs what is stored"),
    ("07", "real-sessions",
     "真实的 Pi 会话文件（只读）", "Real Pi session files (read-only)"),
    ("08", "design-your-own",
     "设计你自己的会话存储", "Design your own session store"),
]


def chapter_map(lang: str) -> str:
    """The chapter table; links stay inside the same edition's folder."""
    header = ("| # | 章节 | 文件 |\n|---|---|---|" if lang == "zh"
              else "| # | Chapter | File |\n|---|---|---|")
    rows = []
    for number, slug, zh, en in CHAPTERS:
        name = f"{number}-{slug}.ipynb"
        rows.append(f"| {number} | [{zh if lang == 'zh' else en}]({name}) | `{name}` |")
    return "\n".join([header, *rows])


# (中文, English, 中文释义, English meaning)
TERMS = [
    ("会话", "session", "一次与 Pi 的对话，存成一个 .jsonl 文件",
     "one conversation with Pi, stored as one .jsonl file"),
    ("头部", "header", "文件第一行，type 为 session：版本、id、工作目录",
     "the first line, type session: version, id, working directory"),
    ("条目", "entry", "头部之后的每一行：一个带 id 和 parentId 的 JSON 对象",
     "every line after the header: a JSON object with id and parentId"),
    ("父节点", "parent", "parentId 指向的条目；条目只记父，不记子",
     "the entry parentId points to; an entry records its parent, never its children"),
    ("子节点", "child", "读文件时才推算出来：谁的 parentId 指向我",
     "worked out when reading: whose parentId points at me"),
    ("根", "root", "parentId 为 null 的条目", "an entry whose parentId is null"),
    ("叶子", "leaf", "没有子节点的条目；当前叶子（leaf）是下一条的父节点",
     "an entry with no children; the current leaf is the parent of the next entry"),
    ("分支", "branch", "从根走到某个叶子的一条路径", "the path from the root to one leaf"),
    ("回退", "rewind", "把当前叶子移回更早的条目；什么都不删",
     "moving the current leaf back to an earlier entry; nothing is deleted"),
    ("分叉", "fork", "把一条分支复制进新文件（/fork，before 或 at）",
     "copying one branch into a new file (/fork, before or at)"),
    ("克隆", "clone", "把当前分支整条复制进新文件（/clone）",
     "copying the whole current branch into a new file (/clone)"),
    ("追加写", "append-only", "只在文件末尾加新行，从不改写已写的字节",
     "only add lines at the end; never rewrite a byte already written"),
    ("压缩", "compaction", "用一段摘要代替较早的消息，让上下文变短",
     "a summary that stands in for older messages so the context gets shorter"),
    ("分支摘要", "branch summary", "离开一条分支时，把它学到的东西带到新位置",
     "what an abandoned branch learned, carried to where you moved"),
    ("上下文", "context", "真正发给模型的消息，不等于存下来的分支",
     "the messages actually sent to the model; not the same as the stored branch"),
    ("标签", "label", "给某个条目起的书签名（label 条目）",
     "a bookmark name for an entry (a label entry)"),
    ("诊断", "diagnostic", "读文件时发现的问题，带行号", "a problem found while reading, with its line number"),
    ("孤儿", "orphan", "parentId 指向不存在条目的条目", "an entry whose parentId names a missing entry"),
    ("迁移", "migration", "在内存里把 v1/v2 文件升级成 v3，不改原文件",
     "upgrading a v1/v2 file to v3 in memory, never in the file"),
    ("扩展", "extension", "给 Pi 加功能的插件；用 custom 条目存自己的状态",
     "a plug-in that adds to Pi; keeps its own state in custom entries"),
    ("练习区", "workspace", "workspace/：你写练习代码的地方，课程更新不会覆盖",
     "workspace/: where you write the exercises; course updates never overwrite it"),
    ("参考实现", "reference implementation", "learn_pi_lab/ 里完整、经过测试的代码",
     "the complete, tested code in learn_pi_lab/"),
]


def terms_table(lang: str) -> str:
    """中文 | English in the Chinese edition, English | 中文 in the English one."""
    if lang == "zh":
        lines = ["| 中文 | English | 含义 |", "|---|---|---|"]
        lines += [f"| {zh} | {en} | {zh_note} |" for zh, en, zh_note, _ in TERMS]
    else:
        lines = ["| English | 中文 | Meaning |", "|---|---|---|"]
        lines += [f"| {en} | {zh} | {en_note} |" for zh, en, _, en_note in TERMS]
    return "\n".join(lines)


CELLS = [
    md(zh="""
## 学习目标

读完这一章，你能够：

- 说出这本练习册要讲清楚的是什么：Pi 怎样把一次对话存成一棵树；
- 按正确的方式运行 notebook，知道练习写在哪里、怎样检查；
- 确认你的环境已经就绪（下面的检查表全部是 [OK]）；
- 看懂后面各章会用到的中英文术语。
""", en="""
## Learning goals

After this chapter you can:

- say what this workbook is about: how Pi stores one conversation as a tree;
- run the notebooks the right way, and know where the exercises live and how they are checked;
- confirm that your environment is ready (every line of the check below says [OK]);
- read the Chinese and English terms the later chapters use.
"""),
    md(zh="""
## 这本练习册讲什么

Pi 是一个编程助手（coding agent）。你和它的每一次对话叫作一个**会话（session）**，
存成一个 JSONL 文件：第一行是**头部（header）**，之后每一行是一个**条目（entry）**。
每个条目只记录自己的 `parentId`，所有条目靠这一个字段连成一棵树。
进程退出、机器重启，只要文件还在，对话就能接着进行。

整本练习册围绕这个设计展开，你会亲手运行、破坏、再重建它：

1. **为什么用 JSONL 而不是 JSON 数组**：追加一条是 O(1)，可以逐行流式读取，坏一行只丢一条记录；
2. **认父不认子**：只存 `parentId`，所以从不需要改写已经写下的行；子节点是读取时推算出来的；
3. **回退就是移动叶子（leaf），分支就是回退再追加**：什么都不删除；`/tree`、`/fork`、`/clone` 的区别；
4. **四个故障实验**：最后一行写到一半、同一条目写两次、父节点不存在、从中间节点继续；
5. **按职责划分的记录类型**：元数据、对话内容、操作；模型和思考级别（thinking level）也是树上的节点；
6. **模型看到的不等于存下的**：压缩（compaction）、分支摘要（branch summary）、只存档的 `custom` 条目；
7. **真实文件**：读 Pi 的 v1 / v2 / v3 会话，在内存中迁移（migration），绝不改写正在使用的文件；
8. **设计你自己的**：一个文件一棵树、只追加、可替换的存储后端、按分支重建扩展状态。

每一个结论都有一个你能运行的实验，不需要只凭文字相信。
""", en="""
## What this workbook is about

Pi is a coding agent. Each conversation you have with it is a **session**, stored as a JSONL
file: the first line is the **header**, every later line is one **entry**. Each entry records
only its `parentId`, and that single field links the entries into a tree. The process may
exit and the machine may restart: as long as the file is there, the conversation goes on.

The whole workbook is about this design; you will run it, break it and build it again:

1. **Why JSONL, not a JSON array**: appending is O(1), a reader can stream line by line, and
   one bad line costs one record, not the whole file;
2. **Know your parent, not your children (认父不认子)**: storing only `parentId` means a
   written line never has to be rewritten; children are worked out when reading;
3. **Rewind moves the leaf; a branch is rewind plus append**: nothing is deleted; how `/tree`,
   `/fork` and `/clone` differ;
4. **Four failure experiments**: a half-written last line, the same entry written twice, a
   parent that does not exist, continuing from an entry in the middle;
5. **Record types by responsibility**: metadata, conversation content, operations; the model
   and the thinking level are tree nodes too;
6. **What the model sees is not what is stored**: compaction, branch summaries, archive-only
   `custom` entries;
7. **Real files**: reading Pi's v1 / v2 / v3 sessions, migrating them in memory, never
   rewriting a live session file;
8. **Design your own**: one tree per file, append-only, swappable storage backends, extension
   state rebuilt per branch.

Every claim comes with an experiment you can run, so you never have to take the text's word for it.
"""),
    md(zh="""
## 怎么使用

- **从上到下运行单元格**（Shift+Enter，或菜单 Run → Run All Cells）。后面的单元格会用到前面定义的变量；
  如果顺序乱了，就选 Kernel → Restart Kernel and Run All Cells 重新来一遍。
- notebook 以它所在的文件夹（`notebooks/zh/`）为工作目录运行。要找文件时，用
  `learn_pi_lab.course.paths`：`data_file("…")` 找示例数据，`workspace_dir()` 找你的练习区；
  会被故意弄坏的文件放在 `scratch_dir("…")` 给出的临时文件夹里（`notebooks/.scratch/`，不进 git）。
- **练习写在 `workspace/` 里**，每章一个文件，比如 `workspace/ch02_parent_pointers.py`。
  包 `learn_pi_lab/` 里是完整的参考实现（reference implementation）——notebook 运行、画图用的都是它；
  你的代码和它同名、同签名，由同一套测试检查。课程更新不会覆盖 `workspace/`。
- **检查你的练习**，在仓库根目录的终端里：
  - `make verify`：检查全部练习，显示进度、结果表、第一个失败和提示；
  - `make verify EX=path-to`：只检查一个练习（`EX=` 后面是练习编号）。
- **每章都有一个检查单元格**：`learn_pi_lab.harness.notebook.check("02")`，在 notebook 里运行这一章的练习测试，
  结果和 `make verify` 一致。
- **每章结尾有 2–3 道自测题**：选一个答案，点“检查答案”，马上看到对错和解释。
  没有交互控件时，用 `answer("ch00-q1", "B")` 这样的文字方式作答。
""", en="""
## How to use it

- **Run the cells from top to bottom** (Shift+Enter, or Run → Run All Cells). Later cells use
  what earlier ones defined; if the order gets mixed up, use Kernel → Restart Kernel and Run All
  Cells.
- A notebook runs with its own folder (`notebooks/en/`) as the working directory. To find
  files, use `learn_pi_lab.course.paths`: `data_file("…")` for the example data,
  `workspace_dir()` for your workspace; files damaged on purpose go into the folder
  `scratch_dir("…")` gives you (under `notebooks/.scratch/`, kept out of git).
- **The exercises live in `workspace/`**, one file per chapter, e.g.
  `workspace/ch02_parent_pointers.py`. The package `learn_pi_lab/` holds the complete
  reference implementation, which the notebooks run and draw; your code has the same names and
  signatures and is checked by the same tests. Updating the course never overwrites `workspace/`.
- **Check your exercises** in a terminal at the repository root:
  - `make verify`: every exercise, with a progress bar, a table, the first failure and its hint;
  - `make verify EX=path-to`: one exercise (`EX=` takes the exercise id).
- **Every chapter has a check cell**: `learn_pi_lab.harness.notebook.check("02")` runs the
  chapter's exercise tests inside the notebook, with the same result as `make verify`.
- **Every chapter ends with 2–3 self-check questions**: pick an answer, press Check, and see at
  once whether it is right and why. Without interactive widgets, answer in text with
  `answer("ch00-q1", "B")`.
"""),
    md(zh="""
## 环境检查

运行下面的单元格。每一行都应该是 `[OK]`；如果有 `[FAIL]`，按箭头后面的提示修好，再重新运行。
""", en="""
## Environment check

Run the cell below. Every line should say `[OK]`; if one says `[FAIL]`, fix it as the text
after the arrow suggests, then run the cell again.
"""),
    code("""
from learn_pi_lab.course.envcheck import print_environment_report

print_environment_report()
"""),
    md(zh="""
这些是你的练习文件。路径都相对于仓库根目录打印（`show_path`），所以在任何机器上输出都一样：
""", en="""
These are your exercise files. Paths are printed relative to the repository root
(`show_path`), so the output is the same on every machine:
"""),
    code("""
from learn_pi_lab.course.paths import show_path, workspace_dir

for path in sorted(workspace_dir().glob("ch*.py")):
    print(show_path(path))
"""),
    md(zh="## 术语表（中文 → English）\n\n" + terms_table("zh"),
       en="## Terms (English → 中文)\n\n" + terms_table("en")),
    md(zh="## 章节地图\n\n" + chapter_map("zh") + "\n\n每章的练习文件在 `workspace/chNN_*.py`。",
       en="## Chapter map\n\n" + chapter_map("en")
          + "\n\nEach chapter's exercises are in `workspace/chNN_*.py`."),
    md(zh="""
## 小结

- 这本练习册讲的是一个设计：Pi 把会话存成只追加（append-only）的 JSONL 文件，条目只靠 `parentId` 连成树。
- 从上到下运行单元格；找文件用 `learn_pi_lab.course.paths`，不要写死路径。
- 练习写在 `workspace/`；`make verify`（或 `make verify EX=练习编号`）和每章的检查单元格用同一套测试检查它。
- 环境检查全部 `[OK]` 之后，就可以进入第 01 章了。
""", en="""
## Summary

- The workbook is about one design: Pi stores a session as an append-only JSONL file whose
  entries form a tree through `parentId` alone.
- Run the cells from top to bottom; find files with `learn_pi_lab.course.paths`, never with
  hard-coded paths.
- Write the exercises in `workspace/`; `make verify` (or `make verify EX=exercise-id`) and
  each chapter's check cell grade them with the same tests.
- Once every environment check says `[OK]`, go on to chapter 01.
"""),
    md(zh="## 自测", en="## Self-check"),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch00-q1")
"""),
    code("""ask("ch00-q2")"""),
]
