"""Chapter 00: what this workbook is, how to use it, and whether your environment is ready."""

from pathlib import Path

from learn_pi_lab.course.cells import chapter, code, md
from learn_pi_lab.course.editions import load_source, source_files
from learn_pi_lab.course.glossary import glossary_table

CHAPTER = chapter("00", "start-here", zh="从这里开始", en="Start here")

SOURCE_DIR = Path(__file__).resolve().parent
# The chapter titles come from the chapter sources themselves, so the map cannot drift.
CHAPTERS = [load_source(path).chapter for path in source_files(SOURCE_DIR)
            if not path.name.startswith("ch00_")]


def chapter_map(lang: str) -> str:
    """The chapter table: a link to each chapter in this edition and in the other one."""
    other = "en" if lang == "zh" else "zh"
    header = ("| # | 章节 | English |\n|---|---|---|" if lang == "zh"
              else "| # | Chapter | 中文 |\n|---|---|---|")
    rows = [f"| {c.number} | [{c.title(lang)}]({c.filename}) | [{c.title(other)}](../{other}/{c.filename}) |"
            for c in CHAPTERS]
    return "\n".join([header, *rows])


# The terms table is learn_pi_lab/course/glossary.json (glossary_table), the one list the
# course's wording is checked against (tests/test_glossary.py).

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

Pi 是一个编程智能体（coding agent）。你和它的每一次对话叫作一个**会话（session）**，
存成一个 JSONL 文件：第一行是**会话头（header）**，之后每一行是一个**条目（entry）**。
每个条目只记录自己的 `parentId`，所有条目靠这一个字段连成一棵树。
进程退出、机器重启，只要文件还在，对话就能接着进行。

整本练习册围绕这个设计展开，你会亲手运行、破坏、再重建它：

1. **为什么用 JSONL 而不是 JSON 数组**：追加一条是 O(1)，可以逐行流式读取（streaming），坏一行只丢一个条目；
2. **认父不认子**：只存父指针（parent pointer）`parentId`，所以从不需要改写已经写下的行；子节点（child）是读取时推算出来的；
3. **回退（rewind）就是移动叶子（leaf），分支（branch）就是回退再追加**：什么都不删除；`/tree`、`/fork`、`/clone` 的区别；
4. **四个故障实验**：最后一行写到一半、同一条目写两次、父节点不存在、从中间节点继续；
5. **按职责划分的记录类型（record type）**：元数据、对话内容、操作；模型和思考级别（thinking level）也是树上的节点；
6. **模型看到的不等于存下的**：上下文（context）、压缩（compaction）、分支摘要（branch summary）、只存档的 `custom` 条目；
7. **真实文件**：读 Pi 的 v1 / v2 / v3 会话，在内存中迁移（migration），绝不改写正在使用的文件；
8. **设计你自己的**：一个文件一棵树、只追加（append-only）、可替换的存储后端（backend）、按分支重建扩展状态。

每一个结论都有一个你能运行的实验，不需要只凭文字相信。

这本练习册的出发点是原课程 **whkp/learn-pi**（一门讲 Pi 编程智能体的中文课程）里关于会话管理的两课：会话怎样存储、恢复与分叉，以及 Pi 为什么把历史存成一棵树。后面各章提到“原课程”时，指的都是它。这里把它的结论一条条变成可以运行、可以弄坏的实验，再和 Pi 的真实代码对照。
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
6. **What the model sees is not what is stored**: the context, compaction, branch summaries,
   archive-only `custom` entries;
7. **Real files**: reading Pi's v1 / v2 / v3 sessions, migrating them in memory, never
   rewriting a live session file;
8. **Design your own**: one tree per file, append-only, swappable storage backends, extension
   state rebuilt per branch.

Every claim comes with an experiment you can run, so you never have to take the text's word for it.

The starting point of this workbook is the original course **whkp/learn-pi** (a Chinese course on the Pi coding agent), namely its two lessons on session management: how a conversation is stored, resumed and forked, and why Pi keeps history as a tree. Whenever a later chapter says "the original course", it means that one. Here its conclusions become experiments you can run and break, checked against Pi's real code.
"""),
    code("""
from learn_pi_lab.drawing import draw_roadmap

draw_roadmap("00")  # zh: 本章在全课中的位置 # en: where this chapter sits in the course
"""),
    md(zh="""
## 怎么使用

- **两个命令**，在仓库根目录的终端里运行（README 开头也写着）：
  - `make lab`：第一次运行时创建环境（`.venv`）并安装依赖，然后在 JupyterLab 里打开本章；
    `make lab LANG_EDITION=en` 打开英文版。JupyterLab 左边的文件浏览器显示整个仓库：
    两个版本的章节（`notebooks/zh`、`notebooks/en`）、你的练习区 `workspace/`，都在里面；
  - `make test`：运行全部测试，包括参考模型、练习评分器和两个版本的 notebook。它检查的是课程本身，假定 `workspace/` 里还是原样的练习模板：你写了答案之后，有些测试会因此失败（它会提醒你），这不说明你的代码有错。检查你的练习用下面的 `make verify`。
- **从上到下运行单元格**（Shift+Enter，或菜单 运行 → 运行所有单元格）。后面的单元格会用到前面定义的变量；
  如果顺序乱了，就选 内核 → 重启内核 和 运行所有单元格… 重新来一遍。`make lab` 打开的 JupyterLab，菜单是中文的
  （`make lab LANG_EDITION=en` 打开的是英文菜单；想换，用 设置 → 语言）。
  只运行、没改过单元格的章节，保存时文件保持原样（运行结果留在屏幕上），这样以后用 `git pull`
  更新课程不会和你的文件冲突；改过单元格（比如写下了预测）的章节照常整个保存。
- notebook 以它所在的文件夹（`notebooks/zh/`）为工作目录运行。要找文件时，用
  `learn_pi_lab.course.paths`：`data_file("…")` 找示例数据，`workspace_dir()` 找你的练习区；
  会被故意弄坏的文件放在 `scratch_dir("…")` 给出的临时文件夹里（`notebooks/.scratch/`，不进 git）。
- **练习写在练习区（workspace）`workspace/` 里**，每章一个文件，比如 [`workspace/ch02_parent_pointers.py`](../../workspace/ch02_parent_pointers.py)（点链接就在 JupyterLab 里打开它；练习区的说明在 [`workspace/README.md`](../../workspace/README.md)）。
  包 `learn_pi_lab/` 里是完整的参考实现（reference implementation），notebook 运行、画图用的都是它；
  你的代码和它同名、同签名，由同一套测试检查。课程更新不会覆盖 `workspace/`。
- **检查你的练习**，在仓库根目录的终端里：
  - `make verify`：检查全部练习，显示进度、结果表、第一个失败和提示；
  - `make verify EX=path-to`：只检查一个练习（`EX=` 后面是练习 id）；
  - 报告用什么语言：在 `make lab` 打开的 JupyterLab 里新开的终端（文件 → 新建 → 终端）跟着你打开的版本，这里是中文；在别的终端里跟着系统的语言设置，要中文就写 `make verify LANG_EDITION=zh`。
  - 大多数练习的最后一个测试用**随机抽取的输入**（drawn inputs）：几十个每次运行都不同的小会话，你的答案要和参考实现一致。测试是公开的，照着它们背答案过不了这一关，只能真的去算。它失败时，报告会给出那个输入和重现它的命令，比如 `LEARN_PI_LAB_DRAWN_SEED=1234567890 make verify EX=path-to`（种子 seed 相同，抽到的输入就相同）。
- **每章都有一个检查单元格**：`learn_pi_lab.harness.notebook.check("02")`，在 notebook 里运行这一章的练习测试，
  结果和 `make verify` 一致。它下面的单元格 `model_answer("02")` 在你的练习通过之后，显示 `learn_pi_lab/lessons/` 里的模型答案（model answer），和你的写法对照。
- **每章结尾有 2–4 道自测题**：选一个答案，点“检查答案”，马上看到对错和解释。
  没有交互控件时，用 `answer("ch00-q1", "B")` 这样的文字方式作答。

## 动手，而不是看

每章都有三种要你动手的单元格，标题里会写明：

- **先预测，再运行**：把 `my_guess = None` 里的 `None` 换成你的猜测，运行它；下一个实验单元格会把答案和你的猜测放在一起。不猜也能运行，只是少了“原来如此”的那一下。
- **轮到你了**：用你自己在 `workspace/` 里写的函数跑这一章的数据。还没写时，它只说明还是练习模板，不会报一大段错误；你的函数出错时，它用一行话说出错在哪一行；陷进死循环时，20 秒后它会停下来并告诉你停在哪一行。
- **改一改，再运行**：改一个数（崩溃的位置、分叉的位置……），先想好会发生什么，再运行看看。

等你的练习通过了，后面的章节还能直接用你的代码运行：章节开头有一个开关 `use_my_code(False)`，改成 `True` 再从头运行，本章用到练习函数的地方就换成你的（没通过的会注明，并退回参考实现）。

下面就是一个最小的例子。先猜：`workspace/` 里有几个练习文件（`ch*.py`）？
""", en="""
## How to use it

- **Two commands**, run in a terminal at the repository root (the README starts with them):
  - `make lab`: the first time, it creates the environment (`.venv`) and installs everything,
    then opens this chapter in JupyterLab; `make lab LANG_EDITION=en` opens the English edition.
    JupyterLab's file browser on the left shows the whole repository: both editions of the
    chapters (`notebooks/zh`, `notebooks/en`) and your `workspace/`;
  - `make test`: runs every test: the reference models, the exercise grader, and both editions
    of the notebooks. It checks the course itself and expects `workspace/` to hold the
    untouched stubs: once you have written answers, some tests fail because of them (it tells
    you so), which says nothing about your code. Check your exercises with `make verify`, below.
- **Run the cells from top to bottom** (Shift+Enter, or Run → Run All Cells). Later cells use
  what earlier ones defined; if the order gets mixed up, use Kernel → Restart Kernel and Run All
  Cells. The JupyterLab that `make lab LANG_EDITION=en` opens has its menus in English (plain
  `make lab` opens the Chinese edition, with Chinese menus; Settings → Language switches). A chapter you only ran, without editing a cell, is saved as the file was (what you ran
  stays on screen), so updating the course later with `git pull` does not clash with your files;
  a chapter whose cells you edited (a prediction you wrote, say) is saved whole, as usual.
- A notebook runs with its own folder (`notebooks/en/`) as the working directory. To find
  files, use `learn_pi_lab.course.paths`: `data_file("…")` for the example data,
  `workspace_dir()` for your workspace; files damaged on purpose go into the folder
  `scratch_dir("…")` gives you (under `notebooks/.scratch/`, kept out of git).
- **The exercises live in `workspace/`**, one file per chapter, e.g.
  [`workspace/ch02_parent_pointers.py`](../../workspace/ch02_parent_pointers.py) (the link opens
  it in JupyterLab; the workspace is explained in [`workspace/README.md`](../../workspace/README.md)). The package `learn_pi_lab/` holds the complete
  reference implementation, which the notebooks run and draw; your code has the same names and
  signatures and is checked by the same tests. Updating the course never overwrites `workspace/`.
- **Check your exercises** in a terminal at the repository root:
  - `make verify`: every exercise, with a progress bar, a table, the first failure and its hint;
  - `make verify EX=path-to`: one exercise (`EX=` takes the exercise id);
  - the report's language: a terminal opened in the JupyterLab that `make lab` started (File → New → Terminal) follows the edition you opened, here English; any other terminal follows the system's locale, and `make verify LANG_EDITION=en` asks for English.
  - most exercises end with a test on **drawn inputs**: a few dozen small sessions drawn afresh on every run, on which your answers must agree with the reference implementation's. The tests are public, so answers learned by heart from them do not get past this one; only computing does. When it fails, the report shows the input and the command that draws it again, e.g. `LEARN_PI_LAB_DRAWN_SEED=1234567890 make verify EX=path-to` (the same seed draws the same inputs).
- **Every chapter has a check cell**: `learn_pi_lab.harness.notebook.check("02")` runs the
  chapter's exercise tests inside the notebook, with the same result as `make verify`. The
  cell under it, `model_answer("02")`, shows the model answer from `learn_pi_lab/lessons/`
  once your exercise passes, to compare with yours.
- **Every chapter ends with 2–4 self-check questions**: pick an answer, press Check, and see at
  once whether it is right and why. Without interactive widgets, answer in text with
  `answer("ch00-q1", "B")`.

## Do, not watch

Every chapter has three kinds of cell that ask you to act, and its heading says which:

- **Predict first, then run**: replace the `None` in `my_guess = None` with your guess and run it; the next experiment cell shows the answer next to your guess. The cells run without a guess too, you just miss the "so that's why" moment.
- **Your turn**: runs the chapter's data through your own functions in `workspace/`. While you have not written them, it says they are still the stub, instead of a wall of errors; when your function raises, one line says where; when it loops for ever, it is stopped after 20 seconds and you are told the line it was on.
- **Change it and re-run**: change one number (where the crash hits, where the branch grows, ...), decide what will happen, then run it.

Once your exercises pass, later chapters can run on your own code: at the top of a chapter there is a switch `use_my_code(False)`; change it to `True` and run the chapter again, and the places that use an exercise function use yours (one that does not pass yet is noted, and the reference is used).

Here is the smallest example. Guess first: how many exercise files (`ch*.py`) are in `workspace/`?
""", tags=("predict",)),
    code("""
from learn_pi_lab.course.act import predict, reveal

my_guess = None   # zh: 一个整数 # en: a whole number
predict("ch00-p1", my_guess)
""", tags=("predict",)),
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
这些是你的练习文件（预测的答案也在下面）。路径都相对于仓库根目录打印（`show_path`），所以在任何机器上输出都一样：
""", en="""
These are your exercise files (and the answer to the prediction). Paths are printed relative
to the repository root (`show_path`), so the output is the same on every machine:
"""),
    code("""
from learn_pi_lab.course.paths import show_path, workspace_dir

exercise_files = sorted(workspace_dir().glob("ch*.py"))
for path in exercise_files:
    print(show_path(path))
reveal("ch00-p1", len(exercise_files))
"""),
    md(zh="## 术语表（中文 → English）\n\n" + glossary_table("zh"),
       en="## Terms (English → 中文)\n\n" + glossary_table("en")),
    md(zh="## 章节地图\n\n每一行链接到本版的这一章，右边是同一章的英文版。\n\n"
          + chapter_map("zh") + "\n\n每章的练习文件在 `workspace/chNN_*.py`（见 [workspace/README.md](../../workspace/README.md)）。",
       en="## Chapter map\n\nEach row links to the chapter in this edition and, on the right, to"
          " the same chapter in Chinese.\n\n" + chapter_map("en")
          + "\n\nEach chapter's exercises are in `workspace/chNN_*.py` (see [workspace/README.md](../../workspace/README.md))."),
    md(zh="""
## 回顾

- 这本练习册讲的是一个设计：Pi 把会话存成只追加（append-only）的 JSONL 文件，条目只靠 `parentId` 连成树。
- `make lab` 打开练习册，`make test` 运行全部测试；单元格从上到下运行；找文件用 `learn_pi_lab.course.paths`，不要写死路径。
- 练习写在 `workspace/`；`make verify`（或 `make verify EX=<练习 id>`）和每章的检查单元格用同一套测试检查它。
- 环境检查全部 `[OK]` 之后，就可以进入第 01 章了。
""", en="""
## Summary

- The workbook is about one design: Pi stores a session as an append-only JSONL file whose
  entries form a tree through `parentId` alone.
- `make lab` opens the workbook and `make test` runs every test; run the cells from top to
  bottom; find files with `learn_pi_lab.course.paths`, never with hard-coded paths.
- Write the exercises in `workspace/`; `make verify` (or `make verify EX=exercise-id`) and
  each chapter's check cell grade them with the same tests.
- Once every environment check says `[OK]`, go on to chapter 01.
"""),
    md(zh="""
## 自测

运行下面的单元格，选一个答案，马上就能看到对错和解释。没有交互控件时，用文字作答，例如 `answer("ch00-q1", "B")`。
""", en="""
## Self-check

Run each cell below and pick an answer to see at once whether it is right, and why. Without interactive widgets, answer in text, e.g. `answer("ch00-q1", "B")`.
"""),
    code("""
from learn_pi_lab.course.selfcheck import answer, ask

ask("ch00-q1")
"""),
    code("""ask("ch00-q2")"""),
]
