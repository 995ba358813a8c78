// Pi's own session code doing what the Python side does, for bench/compare.py.
//
//   node bench/pi_bench.mjs OPERATION PACKAGE_DIR FILE SCRATCH_DIR
//
// PACKAGE_DIR is an installed @earendil-works/pi-coding-agent (its dist/core/session-manager.js
// is loaded by path, as pi-node/pi.mjs does, so Node 20 is enough). Operations:
//   load-context   SessionManager.open + buildSessionContext (what `load_session` + context do)
//   context-json   the same, then JSON.stringify of {leaf, model, thinkingLevel, messages}
//                  (indent 2, like `context --json`) written to stdout
//   path-json      SessionManager.open + getBranch, the ids as JSON to stdout (`path --json`)
//   open           SessionManager.open alone (what `tree` and `inspect` are held to); a file
//                  Pi refuses (not a session) counts too: its time is the time to refuse
// Then one JSON line on stderr with this process's own peak memory (VmHWM), as
// bench/child.py reports it; the parent takes CPU time from the children's rusage.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [operation, packageDir, file, scratch] = process.argv.slice(2);
const { SessionManager } = await import(
  pathToFileURL(join(packageDir, "dist", "core", "session-manager.js")).href
);

let manager = null;
try {
  manager = SessionManager.open(file, scratch);
} catch (error) {
  if (operation !== "open") throw error;
}
const leaf = manager ? manager.getLeafId() ?? null : null;
if (operation === "open") {
  // nothing more: the open is what is measured
} else if (operation === "load-context") {
  const context = manager.buildSessionContext();
  if (!Array.isArray(context.messages)) throw new Error("no messages");
} else if (operation === "context-json") {
  const context = manager.buildSessionContext();
  const text = JSON.stringify(
    { leaf, model: context.model ?? null, thinkingLevel: context.thinkingLevel ?? null,
      messages: context.messages },
    null, 2);
  process.stdout.write(text + "\n");
} else if (operation === "path-json") {
  const path = manager.getBranch().map((entry) => entry.id ?? null);
  process.stdout.write(JSON.stringify({ leaf, path }, null, 2) + "\n");
} else {
  throw new Error(`unknown operation ${operation}`);
}

const status = readFileSync("/proc/self/status", "utf8");
const hwm = /VmHWM:\s+(\d+)/.exec(status);
process.stderr.write(JSON.stringify({ peak_mb: hwm ? Number(hwm[1]) / 1024 : null }) + "\n");
