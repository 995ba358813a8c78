// The tree playground's browser side. It draws the state Python sends (model "state") and
// sends commands back ({cmd, args}); every command runs in Python. No imports, no network.

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

function render({ model, el }) {
  const send = (cmd, args = {}) => model.send({ cmd, args });
  const state = () => model.get("state") || {};
  const ui = () => state().ui || {};

  const levelSelect = h("select", { class: "lpl-pg-level" });
  levelSelect.addEventListener("change", () => send("level", { level: levelSelect.value }));
  const progress = h("span", { class: "lpl-pg-progress" });
  const goal = h("div", { class: "lpl-pg-goal" });
  const hints = h("ul", { class: "lpl-pg-hints" });
  const status = h("div", { class: "lpl-pg-status" });
  const hintButton = h("button", { class: "lpl-pg-hint", onclick: () => send("hint") });

  const selected = h("span", { class: "lpl-pg-selected" });
  const leaf = h("span", { class: "lpl-pg-leaf" });
  const summary = h("input", { class: "lpl-pg-summary", type: "text" });
  const treeButton = h("button", { class: "lpl-pg-tree-button", onclick: () => {
    send("tree", { summary: summary.value }); summary.value = ""; } });
  const labelInput = h("input", { class: "lpl-pg-label-text", type: "text", size: "10" });
  const labelButton = h("button", { class: "lpl-pg-label", onclick: () => send("label", { label: labelInput.value }) });
  const clearLabel = h("button", { class: "lpl-pg-clear-label", onclick: () => send("clear_label") });
  const forkBefore = h("button", { class: "lpl-pg-fork", onclick: () => send("fork") });
  const forkAt = h("button", { class: "lpl-pg-fork-at", onclick: () => send("fork_at") });
  const cloneButton = h("button", { class: "lpl-pg-clone", onclick: () => send("clone") });
  const undoButton = h("button", { class: "lpl-pg-undo", onclick: () => send("undo") });
  const resetButton = h("button", { class: "lpl-pg-reset", onclick: () => send("reset") });
  const viewBranch = h("button", { class: "lpl-pg-view-branch", onclick: () => send("view", { view: "branch" }) });
  const viewContext = h("button", { class: "lpl-pg-view-context", onclick: () => send("view", { view: "context" }) });
  const viewToggle = h("span", { class: "lpl-pg-view" }, viewBranch, viewContext);

  const tree = h("div", { class: "lpl-pg-tree" });
  const hover = h("pre", { class: "lpl-pg-hover" });
  const treeTitle = h("div", { class: "lpl-pg-title" });
  const target = h("div", { class: "lpl-pg-target" });
  const file = h("div", { class: "lpl-pg-file" });

  const editor = h("textarea", { class: "lpl-pg-editor", rows: "2" });
  const sendButton = h("button", { class: "lpl-pg-send", onclick: () => {
    send("user", { text: editor.value }); } });
  const answer = h("input", { class: "lpl-pg-answer-text", type: "text" });
  const answerButton = h("button", { class: "lpl-pg-answer", onclick: () => {
    send("assistant", { text: answer.value }); answer.value = ""; } });
  const nameInput = h("input", { class: "lpl-pg-name-text", type: "text", size: "16" });
  const nameButton = h("button", { class: "lpl-pg-name", onclick: () => send("name", { text: nameInput.value }) });
  const note = h("div", { class: "lpl-pg-note" });
  const error = h("div", { class: "lpl-pg-error" });
  const listHeading = h("b");
  const list = h("table", { class: "lpl-pg-list" });

  tree.addEventListener("click", (event) => {
    const node = event.target.closest("g.lpl-node");
    if (node) send("select", { id: node.getAttribute("data-id") });
  });
  tree.addEventListener("dblclick", (event) => {
    const node = event.target.closest("g.lpl-node");
    if (node) send("tree", { id: node.getAttribute("data-id"), summary: summary.value });
  });
  tree.addEventListener("mouseover", (event) => {
    const node = event.target.closest("g.lpl-node");
    const info = node && (state().info || {})[node.getAttribute("data-id")];
    if (info) hover.textContent = `${info.id}  ${info.kind}  (${info.lineText})\n${info.text}\n${info.json}`;
  });

  const root = h("div", { class: "lpl-playground" },
    h("div", { class: "lpl-pg-bar" }, levelSelect, progress, hintButton),
    goal, hints, status, note, error,
    h("div", { class: "lpl-pg-bar" }, selected, leaf, treeButton, summary),
    h("div", { class: "lpl-pg-bar" }, labelInput, labelButton, clearLabel, forkBefore, forkAt,
      cloneButton, undoButton, resetButton, viewToggle),
    h("div", { class: "lpl-pg-main" },
      h("div", { class: "lpl-pg-left" }, treeTitle, tree, hover),
      target, file),
    h("div", { class: "lpl-pg-bar" }, editor, sendButton, answer, answerButton, nameInput, nameButton),
    listHeading, list);
  el.append(root);

  let shownEditor = null;
  function update() {
    const s = state();
    const u = ui();
    // the static labels (they follow the language)
    hintButton.textContent = u.hint; treeButton.textContent = u.tree;
    summary.placeholder = u.summary_placeholder; labelInput.placeholder = u.label_placeholder;
    labelButton.textContent = u.label; clearLabel.textContent = u.clear_label;
    forkBefore.textContent = u.fork_before; forkAt.textContent = u.fork_at;
    cloneButton.textContent = u.clone; undoButton.textContent = u.undo;
    undoButton.title = u.undo_note; resetButton.textContent = u.reset;
    viewBranch.textContent = u.view_branch; viewContext.textContent = u.view_context;
    viewBranch.classList.toggle("lpl-active", s.view === "branch");
    viewContext.classList.toggle("lpl-active", s.view === "context");
    editor.placeholder = u.editor_placeholder; sendButton.textContent = u.send;
    answer.placeholder = u.answer_placeholder; answerButton.textContent = u.answer;
    nameInput.placeholder = u.name_placeholder; nameButton.textContent = u.name;
    treeTitle.textContent = u.your_tree;
    hover.textContent = hover.textContent || u.hover;

    // levels
    const current = s.level ? String(s.level.number) : "sandbox";
    levelSelect.replaceChildren(h("option", { value: "sandbox" }, u.sandbox),
      ...(s.levels || []).map((level) => h("option", { value: String(level.number) }, level.text)));
    levelSelect.value = current;
    progress.textContent = s.progress || "";
    hintButton.disabled = !(s.level && s.level.more_hints);
    if (s.level) {
      goal.textContent = s.level.goal;
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
      goal.textContent = ""; hints.replaceChildren(); status.textContent = "";
      status.classList.remove("lpl-solved"); target.replaceChildren(); target.style.display = "none";
    }

    // the tree, the selection, the leaf
    tree.innerHTML = s.tree_svg || "";
    selected.textContent = s.selected_text || ""; leaf.textContent = s.leaf_text || "";
    for (const info of Object.values(s.info || {})) info.lineText = (u.line || "line {line}").replace("{line}", info.line);
    if (s.editor !== shownEditor) { editor.value = s.editor || ""; shownEditor = s.editor; }

    // the file
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
    file.replaceChildren(h("div", { class: "lpl-pg-title" }, `${u.file}: ${f.name} (${f.size} B)`),
      change, ...lines, ...copies);

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
