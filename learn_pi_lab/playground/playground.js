// The tree playground's browser side. It draws the state Python sends (model "state") and
// sends commands back ({cmd, args}); every command runs in Python. No imports, no network.
//
// What it adds to the drawing: the keyboard (arrows select along the tree, Enter is /tree,
// Ctrl+Z undoes, Ctrl+Enter sends), accessible names, and the event the lesson is about shown
// as it happens: the leaf pointer glides to its new node, a new entry grows out of its parent,
// the appended line flashes in the file; undo plays it backwards. Each motion lasts at most
// MOTION_MS and none runs under prefers-reduced-motion.

const MOTION_MS = 350;

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function button(className, onclick) {
  const made = h("button", { class: className, type: "button", onclick });
  made.append(h("span", { class: "lpl-icon", "aria-hidden": "true" }), h("span", { class: "lpl-words" }));
  return made;
}

function setButton(made, icon, words, name) {
  made.querySelector(".lpl-icon").textContent = icon;
  made.querySelector(".lpl-words").textContent = words;
  if (name) made.setAttribute("aria-label", name); else made.removeAttribute("aria-label");
}

function calm() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// Where each node and the leaf pointer are on screen, before the tree is drawn again.
function positions(tree) {
  const nodes = {};
  for (const node of tree.querySelectorAll("g.lpl-node")) {
    const box = node.querySelector("rect.lpl-box");
    if (box) nodes[node.getAttribute("data-id")] = { rect: box.getBoundingClientRect(), node };
  }
  const mark = tree.querySelector(".lpl-leaf-mark");
  return { nodes, mark: mark ? mark.getBoundingClientRect() : null };
}

function shift(from, to) {
  return `translate(${from.left - to.left}px, ${from.top - to.top}px)`;
}

// Play the change between two drawings: the pointer glides, new nodes grow from their parent,
// nodes that went away (undo) shrink back into theirs.
function playChange(tree, before, info, oldInfo) {
  if (calm() || !before) return;
  const after = positions(tree);
  const mark = tree.querySelector(".lpl-leaf-mark");
  if (mark && before.mark && after.mark &&
      (before.mark.left !== after.mark.left || before.mark.top !== after.mark.top)) {
    mark.animate([{ transform: shift(before.mark, after.mark) }, { transform: "none" }],
                 { duration: MOTION_MS, easing: "ease-out" });
  }
  for (const [id, now] of Object.entries(after.nodes)) {
    if (before.nodes[id]) continue;
    const parent = after.nodes[(info[id] || {}).parent];
    const from = parent ? shift(parent.rect, now.rect) : "none";
    now.node.animate([{ transform: `${from} scale(0.4)`, opacity: 0 }, { transform: "none", opacity: 1 }],
                     { duration: MOTION_MS, easing: "ease-out" });
  }
  const svg = tree.querySelector("svg");
  for (const [id, was] of Object.entries(before.nodes)) {
    if (after.nodes[id] || !svg) continue;
    const ghost = was.node.cloneNode(true);
    ghost.removeAttribute("data-id");
    ghost.setAttribute("class", "lpl-ghost");
    ghost.setAttribute("aria-hidden", "true");
    svg.append(ghost);
    // the ghost keeps its old coordinates; it shrinks into its parent's new place
    const parent = after.nodes[(oldInfo[id] || {}).parent];
    const to = parent ? shift(parent.rect, was.rect) : "none";
    ghost.animate([{ transform: "none", opacity: 1 }, { transform: `${to} scale(0.4)`, opacity: 0 }],
                  { duration: MOTION_MS, easing: "ease-in" }).onfinish = () => ghost.remove();
  }
}

function render({ model, el }) {
  const send = (cmd, args = {}) => model.send({ cmd, args });
  const state = () => model.get("state") || {};
  const ui = () => state().ui || {};

  // -- the level: what to do and how far you are ----------------------------------------
  const levelSelect = h("select", { class: "lpl-pg-level" });
  levelSelect.addEventListener("change", () => send("level", { level: levelSelect.value }));
  const progress = h("span", { class: "lpl-pg-progress" });
  const hintButton = button("lpl-pg-hint", () => send("hint"));
  const goal = h("div", { class: "lpl-pg-goal" });
  const status = h("div", { class: "lpl-pg-status", role: "status", "aria-live": "polite" });
  const note = h("div", { class: "lpl-pg-note", "aria-live": "polite" });
  const error = h("div", { class: "lpl-pg-error", role: "alert" });

  // -- the toolbar: one row of commands; an input strip opens with the command needing it --
  const selected = h("span", { class: "lpl-pg-selected" });
  const leaf = h("span", { class: "lpl-pg-leaf" });
  const summary = h("input", { class: "lpl-pg-summary", type: "text" });
  const treeButton = button("lpl-pg-tree-button", () => moveLeaf());
  const summaryToggle = button("lpl-pg-summary-toggle", () => toggle(summaryStrip, summary));
  const forkBefore = button("lpl-pg-fork", () => send("fork"));
  const forkAt = button("lpl-pg-fork-at", () => send("fork_at"));
  const cloneButton = button("lpl-pg-clone", () => send("clone"));
  const labelOpen = button("lpl-pg-label-open", () => toggle(labelStrip, labelInput));
  const clearLabel = button("lpl-pg-clear-label", () => send("clear_label"));
  const nameOpen = button("lpl-pg-name-open", () => toggle(nameStrip, nameInput));
  const undoButton = button("lpl-pg-undo", () => send("undo"));
  const resetButton = button("lpl-pg-reset", () => send("reset"));
  const viewBranch = h("button", { class: "lpl-pg-view-branch", type: "button",
                                   onclick: () => send("view", { view: "branch" }) });
  const viewContext = h("button", { class: "lpl-pg-view-context", type: "button",
                                    onclick: () => send("view", { view: "context" }) });
  const viewToggle = h("span", { class: "lpl-pg-view lpl-pg-group", role: "group" }, viewBranch, viewContext);
  const toolbar = h("div", { class: "lpl-pg-toolbar", role: "toolbar" },
    h("span", { class: "lpl-pg-group" }, treeButton, summaryToggle),
    h("span", { class: "lpl-pg-group" }, forkBefore, forkAt, cloneButton),
    h("span", { class: "lpl-pg-group" }, labelOpen, clearLabel, nameOpen),
    h("span", { class: "lpl-pg-group" }, undoButton, resetButton),
    viewToggle);

  const labelInput = h("input", { class: "lpl-pg-label-text", type: "text", size: "14" });
  const labelButton = h("button", { class: "lpl-pg-label", type: "button",
                                    onclick: () => send("label", { label: labelInput.value }) });
  const nameInput = h("input", { class: "lpl-pg-name-text", type: "text", size: "18" });
  const nameButton = h("button", { class: "lpl-pg-name", type: "button",
                                   onclick: () => send("name", { text: nameInput.value }) });
  const summaryStrip = h("div", { class: "lpl-pg-strip lpl-pg-bar" }, summary);
  const labelStrip = h("div", { class: "lpl-pg-strip lpl-pg-bar" }, labelInput, labelButton);
  const nameStrip = h("div", { class: "lpl-pg-strip lpl-pg-bar" }, nameInput, nameButton);
  for (const strip of [summaryStrip, labelStrip, nameStrip]) strip.hidden = true;
  function toggle(strip, input) {
    strip.hidden = !strip.hidden;
    if (!strip.hidden) input.focus();
  }
  labelInput.addEventListener("keydown", (event) => { if (event.key === "Enter") labelButton.click(); });
  nameInput.addEventListener("keydown", (event) => { if (event.key === "Enter") nameButton.click(); });

  // -- the tree, its target, the file ----------------------------------------------------
  const tree = h("div", { class: "lpl-pg-tree", tabindex: "0", role: "group" });
  const keys = h("div", { class: "lpl-pg-keys" });
  const hover = h("pre", { class: "lpl-pg-hover" });
  const treeTitle = h("div", { class: "lpl-pg-title" });
  const target = h("div", { class: "lpl-pg-target" });
  const hintsTitle = h("div", { class: "lpl-pg-title" });
  const hints = h("ul", { class: "lpl-pg-hints" });
  const file = h("div", { class: "lpl-pg-file" });

  // -- writing a message -------------------------------------------------------------------
  const editor = h("textarea", { class: "lpl-pg-editor", rows: "2" });
  const sendButton = h("button", { class: "lpl-pg-send", type: "button",
                                   onclick: () => { sent = true; send("user", { text: editor.value }); } });
  const answer = h("input", { class: "lpl-pg-answer-text", type: "text" });
  const answerButton = h("button", { class: "lpl-pg-answer", type: "button", onclick: () => {
    send("assistant", { text: answer.value }); answer.value = ""; } });
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); sendButton.click(); }
  });
  answer.addEventListener("keydown", (event) => { if (event.key === "Enter") answerButton.click(); });
  const listHeading = h("b");
  const list = h("table", { class: "lpl-pg-list" });

  function moveLeaf(id) {
    const args = { summary: summaryStrip.hidden ? "" : summary.value };
    if (id) args.id = id;
    send("tree", args);
    summary.value = "";
  }

  function showInfo(id) {
    const info = (state().info || {})[id];
    if (info) hover.textContent = `${info.head}\n${info.text}\n${info.json}`;
  }

  tree.addEventListener("click", (event) => {
    const node = event.target.closest("g.lpl-node");
    if (node) send("select", { id: node.getAttribute("data-id") });
    tree.focus({ preventScroll: true });
  });
  tree.addEventListener("dblclick", (event) => {
    const node = event.target.closest("g.lpl-node");
    if (node) moveLeaf(node.getAttribute("data-id"));
  });
  tree.addEventListener("mouseover", (event) => {
    const node = event.target.closest("g.lpl-node");
    if (node) showInfo(node.getAttribute("data-id"));
  });

  // The arrow keys walk the tree as drawn: up to the parent, down to a child (the one on the
  // current branch first), left and right among siblings in file order.
  function step(from, key) {
    const info = state().info || {};
    const ids = Object.keys(info);
    const children = (id) => ids.filter((other) => info[other].parent === id);
    if (key === "ArrowUp") return info[from].parent && info[info[from].parent] ? info[from].parent : null;
    if (key === "ArrowDown") {
      const below = children(from);
      const onBranch = (id) => tree.querySelector(`g.lpl-node.lpl-on-path[data-id="${CSS.escape(id)}"]`);
      return below.find(onBranch) || below[0] || null;
    }
    const parent = info[from].parent && info[info[from].parent] ? info[from].parent : null;
    const siblings = parent ? children(parent) : ids.filter((id) => !info[info[id].parent]);
    const at = siblings.indexOf(from) + (key === "ArrowRight" ? 1 : -1);
    return siblings[at] || null;
  }

  tree.addEventListener("keydown", (event) => {
    const s = state();
    const start = s.selected || s.leaf;
    if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"].includes(event.key)) {
      event.preventDefault(); event.stopPropagation();
      if (!start) return;
      const next = s.selected ? step(start, event.key) : start;
      if (next) send("select", { id: next });
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault(); event.stopPropagation();
      if (s.selected) moveLeaf();
    }
  });
  const root = h("div", { class: "lpl-playground", "data-lm-suppress-shortcuts": "true" },
    h("div", { class: "lpl-pg-bar" }, levelSelect, progress, hintButton),
    status, note, error,
    toolbar, summaryStrip, labelStrip, nameStrip,
    h("div", { class: "lpl-pg-bar" }, selected, leaf),
    h("div", { class: "lpl-pg-main" },
      h("div", { class: "lpl-pg-left" }, treeTitle, tree, keys, hover),
      h("div", { class: "lpl-pg-side" }, goal, target, hintsTitle, hints)),
    h("div", { class: "lpl-pg-compose" }, editor, sendButton, answer, answerButton),
    file, listHeading, list);
  root.addEventListener("keydown", (event) => {
    const typing = event.target.closest("input, textarea, select");
    if (!typing && (event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === "z") {
      event.preventDefault(); event.stopPropagation();
      send("undo");
    } else if (event.target.closest("input, textarea, .lpl-pg-tree")) {
      event.stopPropagation();   // typing and walking the tree are not notebook shortcuts
    }
  });
  el.append(root);

  let shownEditor = null;
  let sent = false;   // a message just sent: the editor shows what Python says next (empty once sent)
  let lastLines = null;
  let lastInfo = {};
  function update() {
    const s = state();
    const u = ui();
    // the static labels (they follow the language)
    setButton(hintButton, "?", u.hint);
    setButton(treeButton, "↰", u.tree);
    setButton(summaryToggle, "✎", u.with_summary);
    setButton(forkBefore, "⎇", u.fork_before);
    setButton(forkAt, "⎇", u.fork_at);
    setButton(cloneButton, "❐", u.clone);
    setButton(labelOpen, "⚑", u.label_open);
    setButton(clearLabel, "⚐", u.clear_label);
    setButton(nameOpen, "✎", u.name_open);
    setButton(undoButton, "↶", u.undo, `${u.undo} (Ctrl+Z)`);
    undoButton.title = u.undo_note;
    setButton(resetButton, "⟲", u.reset);
    toolbar.setAttribute("aria-label", u.commands);
    summary.placeholder = u.summary_placeholder; summary.setAttribute("aria-label", u.summary_placeholder);
    labelInput.placeholder = u.label_placeholder; labelInput.setAttribute("aria-label", u.label_placeholder);
    labelButton.textContent = u.label;
    nameInput.placeholder = u.name_placeholder; nameInput.setAttribute("aria-label", u.name_placeholder);
    nameButton.textContent = u.name;
    viewBranch.textContent = u.view_branch; viewContext.textContent = u.view_context;
    viewBranch.classList.toggle("lpl-active", s.view === "branch");
    viewContext.classList.toggle("lpl-active", s.view === "context");
    viewBranch.setAttribute("aria-pressed", String(s.view === "branch"));
    viewContext.setAttribute("aria-pressed", String(s.view === "context"));
    editor.placeholder = u.editor_placeholder; editor.setAttribute("aria-label", u.editor_placeholder);
    sendButton.textContent = u.send;
    answer.placeholder = u.answer_placeholder; answer.setAttribute("aria-label", u.answer_placeholder);
    answerButton.textContent = u.answer;
    treeTitle.textContent = u.your_tree;
    tree.setAttribute("aria-label", u.tree_name);
    keys.textContent = u.keys;
    hover.textContent = hover.textContent || u.hover;

    // levels
    const current = s.level ? String(s.level.number) : "sandbox";
    levelSelect.replaceChildren(h("option", { value: "sandbox" }, u.sandbox),
      ...(s.levels || []).map((level) => h("option", { value: String(level.number) }, level.text)));
    levelSelect.value = current;
    levelSelect.setAttribute("aria-label", u.sandbox + " / " + (s.progress || ""));
    progress.textContent = s.progress || "";
    hintButton.disabled = !(s.level && s.level.more_hints);
    if (s.level) {
      goal.textContent = s.level.goal;
      hintsTitle.textContent = s.level.hints.length ? u.hints : "";
      hints.replaceChildren(...s.level.hints.map((text) => h("li", {}, text)));
      status.textContent = s.level.status;
      status.classList.toggle("lpl-solved", !!s.level.solved);
      const files = s.level.target_files.map((copy) => {
        const box = h("div", {}, h("div", { class: "lpl-pg-title" }, copy.command));
        box.insertAdjacentHTML("beforeend", copy.svg);
        return box;
      });
      target.replaceChildren(h("div", { class: "lpl-pg-title" }, u.target_tree));
      target.insertAdjacentHTML("beforeend", s.level.target_svg);
      target.append(...files);
      target.style.display = "";
    } else {
      goal.textContent = ""; hints.replaceChildren(); hintsTitle.textContent = ""; status.textContent = "";
      status.classList.remove("lpl-solved"); target.replaceChildren(); target.style.display = "none";
    }

    // the tree, the selection, the leaf: drawn again, then the change is played
    const before = tree.firstChild ? positions(tree) : null;
    tree.innerHTML = s.tree_svg || "";
    playChange(tree, before, s.info || {}, lastInfo);
    lastInfo = s.info || {};
    selected.textContent = s.selected_text || ""; leaf.textContent = s.leaf_text || "";
    if (s.selected) {
      const chosen = tree.querySelector(`g.lpl-node[data-id="${CSS.escape(s.selected)}"]`);
      if (chosen) chosen.setAttribute("aria-current", "true");
      showInfo(s.selected);
    }
    if (sent ? !s.error : s.editor !== shownEditor) { editor.value = s.editor || ""; }
    shownEditor = s.editor; sent = false;   // a refused send keeps what the learner typed

    // the file: the appended line scrolled to and flashed; lines taken back fade out
    const f = s.file || { lines: [], copies: [] };
    const change = f.change ? h("div", { class: "lpl-pg-change" + (f.change.prefix_unchanged ? "" : " lpl-bad") },
      f.change.size ? h("div", {}, f.change.size) : "", h("div", {}, f.change.prefix),
      // the exact bytes appended, with every newline shown as \n (a torn file gets one first)
      f.change.added ? h("pre", { class: "lpl-pg-added-text" }, f.change.added.replace(/\n/g, "\\n\n")) : "") : "";
    const lines = f.lines.map((row) => h("div", { class: "lpl-pg-line" + (row.new ? " lpl-pg-added" : "") },
      h("span", { class: "lpl-pg-n" }, String(row.n)), row.text));
    const copies = f.copies.map((copy) => h("div", { class: "lpl-pg-copy" + (copy.new ? " lpl-pg-copy-new" : "") },
      h("div", { class: "lpl-pg-title" }, copy.size),
      ...copy.lines.map((text, index) => h("div", { class: "lpl-pg-line" + (copy.new ? " lpl-pg-added" : "") },
        h("span", { class: "lpl-pg-n" }, String(index + 1)), text))));
    const taken = lastLines && lastLines.length > f.lines.length && !calm()
      ? lastLines.slice(f.lines.length).map((row) => h("div", { class: "lpl-pg-taken", "aria-hidden": "true" },
          h("span", { class: "lpl-pg-n" }, String(row.n)), row.text))
      : [];
    file.replaceChildren(h("div", { class: "lpl-pg-title" }, `${u.file}: ${f.name} (${f.size} B)`),
      change, ...lines, ...taken, ...copies);
    const added = file.querySelector(".lpl-pg-added");
    if (added) {
      file.scrollTop = Math.max(0, added.offsetTop - file.offsetTop - file.clientHeight / 2);
      if (!calm()) for (const row of file.querySelectorAll(".lpl-pg-added")) row.classList.add("lpl-pg-flash");
    }
    for (const row of taken) {
      row.animate([{ opacity: 1 }, { opacity: 0 }], { duration: MOTION_MS, easing: "ease-in" }).onfinish = () => row.remove();
    }
    lastLines = f.lines;

    // the list, the notes
    listHeading.textContent = s.rows_heading || "";
    list.replaceChildren(...(s.rows || []).map((row, index) => h("tr", { class: row.id === s.leaf ? "lpl-pg-leaf-row" : "" },
      h("td", {}, String(index + 1)), h("td", {}, row.id), h("td", {}, row.kind), h("td", {}, row.text))));
    note.textContent = s.note || "";
    error.textContent = s.error || "";
  }
  model.on("change:state", update);
  update();
  return () => model.off("change:state", update);
}

export default { render };
