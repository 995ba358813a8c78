// Ask Pi's own code two questions the driver does not: what /fork writes, and /tree's order.
//
//   node pi-node/probe.mjs INSTALL_DIR < requests.json > answers.json
//
// stdin is one JSON array of requests, stdout one JSON array of answers, same order:
//   {"op": "fork", "version": "0.84.2" | "1.6.0", "text": <session file>, "leafId": id}
//     -> {"text": <the file createBranchedSession(leafId) wrote>}
//   {"op": "tree", "version": ..., "text": <session file>}
//     -> {"order": [entry ids, top to bottom, as the /tree selector lists them],
//         "active": [the ids it marks as the current branch, in that order],
//         "selected": the id its cursor starts on (the leaf, or its nearest shown ancestor)}
// Any exception is an answer too: {"thrown": "Error: ..."}.
//
// Only small files belong here, whose tree Pi can build: no parent cycle and no repeated id
// (either can make getTree loop for ever; driver.mjs walks those in a process of its own).
// Pi works on a copy in a temporary folder, which is removed afterwards.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const PACKAGES = { "0.84.2": "pi084", "1.6.0": "pi16" };
const installDir = process.argv[2];
const load = async (version, file) =>
  import(pathToFileURL(join(installDir, "node_modules", PACKAGES[version], "dist", ...file)).href);

let input = "";
for await (const chunk of process.stdin) input += chunk;
const answers = [];
for (const request of JSON.parse(input)) {
  const dir = mkdtempSync(join(tmpdir(), "pi-probe-"));
  try {
    const { SessionManager } = await load(request.version, ["core", "session-manager.js"]);
    const source = join(dir, "source.jsonl");
    writeFileSync(source, request.text);
    const sm = SessionManager.open(source, dir);
    if (request.op === "fork") {
      const written = sm.createBranchedSession(request.leafId);
      answers.push({ text: readFileSync(written, "utf8") });
    } else if (request.op === "tree") {
      const theme = await load(request.version, ["modes", "interactive", "theme", "theme.js"]);
      theme.initTheme();
      const { TreeSelectorComponent } = await load(
        request.version, ["modes", "interactive", "components", "tree-selector.js"]);
      const selector = new TreeSelectorComponent(sm.getTree(), sm.getLeafId(), 40,
                                                 () => {}, () => {}, () => {});
      const list = selector.getTreeList();
      const order = list.flatNodes.map((flat) => flat.node.entry.id);
      answers.push({ order, active: order.filter((id) => list.activePathIds.has(id)),
                     selected: list.filteredNodes[list.selectedIndex]?.node.entry.id ?? null });
    } else {
      answers.push({ thrown: `unknown op ${request.op}` });
    }
  } catch (error) {
    answers.push({ thrown: String(error) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(JSON.stringify(answers));
