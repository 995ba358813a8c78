// The exported page: draws the tree that page.py laid out and, for the node a reader picks,
// shows its JSONL line, its branch from the root and its context. It decides nothing about
// the session: every answer was computed by the course's Python and embedded once as JSON.
// Every text of the session is set with textContent, never as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("lpl-data").textContent);
  var ui = data.ui;
  var SVG = "http://www.w3.org/2000/svg";
  var COLUMN = 150, ROW = 74, BOX_WIDTH = 130, LINE_HEIGHT = 13, MARGIN = 24;
  var SHOWN_AT_ONCE = 200;   // items of a long list drawn before "show all"
  var BRANCH_OPEN = 40;      // a branch this short is listed open; a longer one on request

  function fill(template, n) { return String(template).split("{n}").join(String(n)); }

  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) { made.className = className; }
    if (text !== undefined && text !== null) { made.textContent = String(text); }
    return made;
  }

  function svgElement(tag, attributes) {
    var made = document.createElementNS(SVG, tag);
    Object.keys(attributes || {}).forEach(function (name) {
      made.setAttribute(name, String(attributes[name]));
    });
    return made;
  }

  // -- the tree's shape, from the edges ------------------------------------------------------
  var nodes = {}, parentOf = {}, childrenOf = {}, nodeOfEntry = {};
  data.nodes.forEach(function (node) {
    nodes[node.key] = node;
    childrenOf[node.key] = [];
    if (node.entry >= 0) { nodeOfEntry[node.entry] = node.key; }
    node.members.forEach(function (member) { nodeOfEntry[member] = node.key; });
  });
  var entryOnLine = {};
  data.entries.forEach(function (entry, at) {
    if (entry.line !== null && entryOnLine[entry.line] === undefined) { entryOnLine[entry.line] = at; }
  });
  data.edges.forEach(function (edge) {
    parentOf[edge[1]] = edge[0];
    childrenOf[edge[0]].push(edge[1]);
  });

  function fillColour(node) {
    if (node.kind === "folded") { return data.colours.folded; }
    if (node.kind === "missing") { return data.colours.missing; }
    return data.colours.groups[node.group] || data.colours.groups.unknown;
  }

  function boxLines(node) {
    var lines = node.text.split("\n");
    if (node.label) { lines.push("[" + node.label + "]"); }
    return lines;
  }

  function boxHeight(node) { return boxLines(node).length * LINE_HEIGHT + 8; }

  function place(node) {
    return { x: MARGIN + node.x * COLUMN, y: MARGIN + node.y * ROW };
  }

  // -- the page's frame ----------------------------------------------------------------------
  var header = element("header");
  header.appendChild(element("h1", "", ui.title + (data.source ? ": " + data.source : "")));
  var facts = [data.mode, "Pi " + data.piVersion, fill(ui.entries, data.entries.length),
               fill(ui.diagnostic_count, data.diagnostics.length)];
  header.appendChild(element("p", "", facts.join(" · ")));
  if (data.leftOut > 0) {
    header.appendChild(element("p", "damage", fill(ui.left_out, data.leftOut)));
  }
  header.appendChild(element("p", "muted", ui.keys));
  document.body.appendChild(header);

  var main = element("main");
  var treeBox = element("div");
  treeBox.id = "tree";
  var panel = element("section");
  panel.id = "panel";
  panel.setAttribute("aria-live", "polite");
  main.appendChild(treeBox);
  main.appendChild(panel);
  document.body.appendChild(main);

  // -- the drawing ---------------------------------------------------------------------------
  var width = 0, height = 0;
  data.nodes.forEach(function (node) {
    var at = place(node);
    width = Math.max(width, at.x + BOX_WIDTH + 70);
    height = Math.max(height, at.y + boxHeight(node) + MARGIN);
  });
  var svg = svgElement("svg", { width: width, height: height, role: "group" });
  svg.setAttribute("aria-label", ui.tree);
  var edgeLayer = svgElement("g"), refLayer = svgElement("g"), nodeLayer = svgElement("g");
  svg.appendChild(edgeLayer);
  svg.appendChild(refLayer);
  svg.appendChild(nodeLayer);

  function centreTop(node) { var at = place(node); return [at.x + BOX_WIDTH / 2, at.y]; }
  function centreBottom(node) {
    var at = place(node); return [at.x + BOX_WIDTH / 2, at.y + boxHeight(node)];
  }

  data.edges.forEach(function (edge) {
    var from = centreBottom(nodes[edge[0]]), to = centreTop(nodes[edge[1]]);
    var middle = (from[1] + to[1]) / 2;
    edgeLayer.appendChild(svgElement("path", {
      d: "M" + from[0] + "," + from[1] + " V" + middle + " H" + to[0] + " V" + to[1],
      "class": edge[2] ? "edge on-path" : "edge", fill: "none" }));
  });

  data.references.forEach(function (reference) {
    var from = place(nodes[reference[0]]), to = place(nodes[reference[1]]);
    var colour = reference[2] === "from" ? data.colours.from : data.colours.firstKept;
    var startX = from.x + BOX_WIDTH, startY = from.y + 10;
    var endX = to.x + BOX_WIDTH, endY = to.y + 10;
    var bend = Math.max(startX, endX) + 40;
    refLayer.appendChild(svgElement("path", {
      d: "M" + startX + "," + startY + " C" + bend + "," + startY + " " + bend + "," + endY +
         " " + endX + "," + endY, "class": "ref", stroke: colour }));
  });

  var boxes = {};
  data.nodes.forEach(function (node) {
    var at = place(node), lines = boxLines(node);
    var classes = ["node"];
    if (node.onPath) { classes.push("on-path"); }
    if (node.damage.length || node.kind === "missing") { classes.push("damaged"); }
    var group = svgElement("g", { "class": classes.join(" "), tabindex: -1, role: "button",
                                  "data-key": node.key });
    group.setAttribute("aria-label", lines.join(" ") + (node.leaf ? " " + ui.leaf : ""));
    var rect = svgElement("rect", { x: at.x, y: at.y, width: BOX_WIDTH,
                                    height: boxHeight(node), rx: 5, "class": "box",
                                    fill: fillColour(node) });
    if (node.kind === "folded") { rect.setAttribute("stroke-dasharray", "5 3"); }
    group.appendChild(rect);
    lines.forEach(function (line, number) {
      var text = svgElement("text", { x: at.x + 6, y: at.y + 4 + (number + 1) * LINE_HEIGHT - 2 });
      text.textContent = line.length > 21 ? line.slice(0, 20) + "…" : line;
      group.appendChild(text);
    });
    if (node.leaf) {
      var mark = svgElement("text", { x: at.x + BOX_WIDTH + 6, y: at.y + 14, "class": "leaf-mark" });
      mark.textContent = "◀ " + ui.leaf;
      group.appendChild(mark);
    }
    group.addEventListener("click", function () { chooseNode(node.key, true); });
    nodeLayer.appendChild(group);
    boxes[node.key] = group;
  });
  treeBox.appendChild(svg);

  // -- what the panel shows ------------------------------------------------------------------
  function entryButton(number, text) {
    var button = element("button", "link", text);
    button.type = "button";
    button.addEventListener("click", function () { chooseEntry(number, true); });
    return button;
  }

  function entryTitle(number) {
    var entry = data.entries[number];
    return entry.id + " · " + entry.type + (entry.short ? " · " + entry.short : "");
  }

  // A long list shows its last SHOWN_AT_ONCE items and a button for the rest.
  function longList(items, makeItem, className) {
    var list = element("ol", className);
    function draw(from) {
      list.textContent = "";
      list.start = from + 1;
      for (var at = from; at < items.length; at += 1) { list.appendChild(makeItem(items[at])); }
    }
    var holder = element("div");
    if (items.length > SHOWN_AT_ONCE) {
      var more = element("button", "link", fill(ui.show_all, items.length));
      more.type = "button";
      more.addEventListener("click", function () { draw(0); more.remove(); });
      holder.appendChild(more);
      draw(items.length - SHOWN_AT_ONCE);
    } else {
      draw(0);
    }
    holder.appendChild(list);
    return holder;
  }

  function branchOf(number) {
    var branch = [];
    for (var at = number; at >= 0; at = data.entries[at].parent) { branch.push(at); }
    return branch.reverse();
  }

  function contextOf(number) {
    var parts = [], top = data.contexts[number];
    for (var at = number; at >= 0; at = data.contexts[at].base) { parts.push(data.contexts[at]); }
    var messages = [];
    parts.reverse().forEach(function (part) {
      part.add.forEach(function (message) { messages.push(message); });
    });
    var earlier = parts.length ? (parts[0].earlier || 0) : 0;
    return { top: top, messages: messages, earlier: earlier };
  }

  function roleText(role) {
    if (role === "compactionSummary") { return ui.summary; }
    if (role === "branchSummary") { return ui.branch_summary; }
    return role;
  }

  // A message the page holds once: either its JSON, or "the same as its entry's line",
  // read from that line on demand (page.py: _message_of_line).
  function messageJson(message) {
    if (!message.same) { return message.json; }
    var entry = data.entries[message.entry];
    var read = JSON.parse(entry.raw).message;
    var whole = {};
    Object.keys(read).forEach(function (key) { whole[key] = read[key]; });
    whole.entryId = entry.id;
    return whole;
  }

  function messageItem(number) {
    var message = data.messages[number];
    var item = element("li");
    var role = element("span", "role", roleText(message.role));
    if (message.role === "compactionSummary" || message.role === "branchSummary") {
      item.className = "summary";
    }
    item.appendChild(role);
    item.appendChild(document.createTextNode(" " + (message.text || "")));
    var more = element("details");
    more.appendChild(element("summary", "", ui.json));
    more.addEventListener("toggle", function () {
      if (more.open && more.childNodes.length === 1) {
        more.appendChild(element("pre", "", JSON.stringify(messageJson(message), null, 1)));
      }
    }, { once: false });
    item.appendChild(more);
    if (message.entry >= 0) {
      item.appendChild(document.createTextNode(" "));
      item.appendChild(entryButton(message.entry, "→ " + data.entries[message.entry].id));
    }
    return item;
  }

  function showEntry(number) {
    panel.textContent = "";
    var entry = data.entries[number];
    var title = element("h2", "", entryTitle(number));
    title.setAttribute("data-part", "title");
    title.setAttribute("data-entry", entry.id);
    if (number === data.leaf) { title.appendChild(element("span", "badge", ui.leaf)); }
    else if (branchOf(data.leaf).indexOf(number) >= 0) {
      title.appendChild(element("span", "badge", ui.current));
    }
    panel.appendChild(title);

    panel.appendChild(element("h2", "", fill(ui.line, entry.line === null ? "-" : entry.line)));
    var raw = element("pre", "", entry.raw);
    raw.setAttribute("data-part", "line");
    panel.appendChild(raw);

    var branch = branchOf(number);
    var branchBox = element("details");
    branchBox.setAttribute("data-part", "branch");
    branchBox.open = branch.length <= BRANCH_OPEN;
    branchBox.appendChild(element("summary", "heading", fill(ui.branch, branch.length)));
    branchBox.appendChild(longList(branch, function (at) {
      var item = element("li");
      item.appendChild(entryButton(at, entryTitle(at)));
      return item;
    }, "msgs"));
    panel.appendChild(branchBox);

    var context = contextOf(number);
    panel.appendChild(element("h2", "", fill(ui.context, context.messages.length)));
    if (context.top.error) {
      panel.appendChild(element("p", "damage", ui.error + " " + context.top.error));
    } else {
      var model = context.top.model;
      panel.appendChild(element("p", "muted", ui.model + " " +
        (model ? model.provider + "/" + model.modelId : ui.none) + " · " +
        ui.thinking + " " + context.top.thinking));
      if (context.earlier) { panel.appendChild(element("p", "muted", fill(ui.earlier, context.earlier))); }
      if (!context.messages.length) { panel.appendChild(element("p", "muted", ui.no_context)); }
      else {
        var list = longList(context.messages, messageItem, "msgs");
        list.setAttribute("data-part", "context");
        panel.appendChild(list);
      }
    }
  }

  function showFolded(node) {
    panel.textContent = "";
    panel.appendChild(element("h2", "", node.text.split("\n").join(" ")));
    panel.appendChild(element("p", "muted", ui.folded));
    panel.appendChild(element("h2", "", fill(ui.members, node.members.length)));
    panel.appendChild(longList(node.members, function (at) {
      var item = element("li");
      item.appendChild(entryButton(at, entryTitle(at)));
      return item;
    }, "msgs"));
  }

  function showMissing(node) {
    panel.textContent = "";
    panel.appendChild(element("h2", "damage", node.text.split("\n").join(" ")));
    panel.appendChild(element("p", "muted", ui.missing));
  }

  function showDiagnostics() {
    var box = element("div");
    box.id = "diagnostics";
    box.appendChild(element("h2", "", ui.diagnostics));
    if (!data.diagnostics.length) { box.appendChild(element("p", "muted", ui.none)); }
    var list = element("ul", "plain");
    data.diagnostics.forEach(function (found) {
      var item = element("li", "damage");
      var words = "[" + found.code + "] " + found.text;   // the text names its line
      var at = entryOnLine[found.line];
      item.appendChild(at === undefined ? document.createTextNode(words) : entryButton(at, words));
      list.appendChild(item);
    });
    box.appendChild(list);
    return box;
  }

  // -- choosing ------------------------------------------------------------------------------
  var chosenKey = null;

  function mark(key, focus) {
    if (chosenKey && boxes[chosenKey]) {
      boxes[chosenKey].classList.remove("selected");
      boxes[chosenKey].setAttribute("tabindex", "-1");
      boxes[chosenKey].removeAttribute("aria-current");
    }
    chosenKey = key;
    var box = boxes[key];
    if (!box) { return; }
    box.classList.add("selected");
    box.setAttribute("tabindex", "0");
    box.setAttribute("aria-current", "true");
    if (focus) { box.focus({ preventScroll: true }); }
    var at = place(nodes[key]);
    var view = treeBox.getBoundingClientRect();
    if (at.x < treeBox.scrollLeft || at.x + BOX_WIDTH > treeBox.scrollLeft + view.width ||
        at.y < treeBox.scrollTop || at.y + 60 > treeBox.scrollTop + view.height) {
      treeBox.scrollTo(Math.max(0, at.x - view.width / 3), Math.max(0, at.y - view.height / 3));
    }
  }

  function chooseEntry(number, focus) {
    var key = nodeOfEntry[number];
    if (key !== undefined) { mark(key, focus); }
    showEntry(number);
    panel.appendChild(showDiagnostics());
  }

  function chooseNode(key, focus) {
    var node = nodes[key];
    if (node.entry >= 0) { chooseEntry(node.entry, focus); return; }
    mark(key, focus);
    if (node.kind === "folded") { showFolded(node); } else { showMissing(node); }
    panel.appendChild(showDiagnostics());
  }

  function step(key, move) {
    var parent = parentOf[key];
    var siblings = parent !== undefined ? childrenOf[parent]
      : data.nodes.filter(function (node) { return parentOf[node.key] === undefined; })
          .map(function (node) { return node.key; });
    var place_ = siblings.indexOf(key);
    if (move === "up") { return parent; }
    if (move === "down") {
      var children = childrenOf[key];
      var onPath = children.filter(function (child) { return nodes[child].onPath; });
      return onPath.length ? onPath[0] : children[0];
    }
    if (move === "left") { return siblings[place_ - 1]; }
    if (move === "right") { return siblings[place_ + 1]; }
    return undefined;
  }

  var MOVES = { ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right" };
  svg.addEventListener("keydown", function (event) {
    if (chosenKey === null) { return; }
    var target = null;
    if (MOVES[event.key]) { target = step(chosenKey, MOVES[event.key]); }
    else if (event.key === "Home") { target = data.nodes.length ? data.nodes[0].key : null; }
    else if (event.key === "End" && data.leaf >= 0) { target = nodeOfEntry[data.leaf]; }
    else if (event.key === "Enter" || event.key === " ") {
      var focused = document.activeElement && document.activeElement.getAttribute("data-key");
      target = focused || chosenKey;
    } else { return; }
    event.preventDefault();
    if (target !== undefined && target !== null) { chooseNode(target, true); }
  });

  if (data.leaf >= 0) { chooseEntry(data.leaf, false); }
  else if (data.nodes.length) { chooseNode(data.nodes[0].key, false); }
  else { panel.appendChild(element("p", "muted", ui.no_entries)); panel.appendChild(showDiagnostics()); }
  document.documentElement.setAttribute("data-ready", "true");
}());
