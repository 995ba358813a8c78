// Teaching files written by Pi 1.6.0's own SessionManager (MIT), one per 1.x case.
//
//   node data/pi16/generate.mjs [--check] [--pi INSTALL_DIR]
//
// Each file is a short program of SessionManager calls (appendMessage, appendContextEdit,
// appendUsage, appendCompaction, resetLeaf, branchWithSummary, ...), run by Pi itself with
// seeded ids and a stepping clock (pi-node/pi.mjs), so the bytes are the same on every run.
// --check exits 1 when a committed file differs from what Pi writes now.
// INSTALL_DIR defaults to the folder tests/pi_node.py installs pi-node/package-lock.json into.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultInstallDir, loadPi, seedPi, writeWithPi } from "../../pi-node/pi.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const check = args.includes("--check");
const installDir = args.includes("--pi") ? args[args.indexOf("--pi") + 1] : defaultInstallDir();
const START = Date.UTC(2026, 10, 21, 9, 0, 0);

const seeding = seedPi("pi16-data", START);
const pi = await loadPi(installDir, "1.6.0");
const { SessionManager } = pi["1.6.0"];

// --- message builders (what Pi's agent loop hands to appendMessage) ---------------------
let clock = START;
const at = () => (clock += 1000); // near the entry timestamps Pi's clock gives
const MODEL = { provider: "anthropic", model: "claude-sonnet-4-5" };
const usage = (input, output) => ({
  input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output,
  cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0,
          total: input * 3e-6 + output * 15e-6 },
});
const system = (text) => ["appendMessage", { role: "system", content: text, timestamp: at() }];
const user = (text) => ["appendMessage", { role: "user", content: [{ type: "text", text }], timestamp: at() }];
const say = (text, tokens = [900, 60]) => ["appendMessage", {
  role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", ...MODEL,
  usage: usage(...tokens), stopReason: "stop", timestamp: at(),
}];
const callRead = (id, path) => ["appendMessage", {
  role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path } }],
  api: "anthropic-messages", ...MODEL, usage: usage(800, 40), stopReason: "toolUse", timestamp: at(),
}];
const result = (id, text) => ["appendMessage", {
  role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text }],
  isError: false, timestamp: at(),
}];
const ref = (n) => ({ $ref: n });
const PROMPT = "You are Pi, a coding agent. Tools: read, bash, edit, write.";
const CHECKOUT = ["def charge(order, method):", "    if method == 'card':", "        ...  # 60 lines",
  "    elif method == 'paypal':", "        ...  # 70 lines", "    elif method == 'invoice':",
  "        ...  # 70 lines"].join("\n");

// --- the files ------------------------------------------------------------------------------
// Op numbers matter: {$ref: n} is the id returned by the n-th operation (0-based).
const FILES = {
  // The read result is big; an edit replaces it with a note, a later edit with a shorter note
  // (the latest edit wins), and a wrong answer is omitted. Going back to op 4 and asking again
  // starts a branch on which none of the edits exist.
  "context-edit.jsonl": () => [
    system(PROMPT),                                              // 0
    user("Refactor payments/checkout.py: charge() is one 200-line function."), // 1
    callRead("call_1", "payments/checkout.py"),                  // 2
    result("call_1", CHECKOUT),                                  // 3
    say("Use one strategy class per payment method."),          // 4  (wrong idea)
    user("No classes, please. Small functions."),                // 5
    say("Then split it into validate(), add_fees() and send_to_gateway()."), // 6
    ["appendContextEdit", ref(3), { content: "[checkout.py was read here: 200 lines]" }], // 7
    ["appendContextEdit", ref(4), null],                         // 8  omit the wrong idea
    ["appendContextEdit", ref(3), { content: "[checkout.py: read earlier]" }], // 9 latest wins
    user("Go on with validate()."),                              // 10
    ["branch", ref(6)],                                          // 11 back before the edits
    user("Show me the old function once more."),                 // 12 a branch without edits
  ],
  // Cache warming spends tokens outside any message: a usage entry.
  "usage.jsonl": () => [
    system(PROMPT),
    user("Run the payment tests."),
    say("All 42 tests pass.", [1200, 30]),
    ["appendUsage", "cache_warm", "anthropic", "claude-sonnet-4-5",
      { input: 0, output: 1, cacheRead: 0, cacheWrite: 14000, totalTokens: 14001,
        cost: { input: 0, output: 0.000015, cacheRead: 0, cacheWrite: 0.0525, total: 0.052515 } },
      "idle cache warm"],
    user("Now the invoice tests."),
    say("The invoice tests pass too.", [1500, 25]),
  ],
  // A compaction in 1.6.0 stores the system checkpoint in force (systemMessage); the later
  // system message inside the kept range is dropped from the context in its favour.
  "compaction-checkpoint.jsonl": () => [
    system(PROMPT),                                              // 0
    user("Refactor charge()."),                                  // 1
    say("Here is a plan in three steps."),                       // 2
    system("Section update: the project uses pytest and black."), // 3
    user("Step one, please."),                                   // 4
    say("validate() is done."),                                  // 5
    ["appendCompaction", "The user wants charge() split into small functions; validate() is done.", ref(3), 5200], // 6
    user("Step two."),
    say("add_fees() is done."),
  ],
  // The second compaction keeps everything from op 1 on, so the first compaction lies inside
  // its kept range: 0.84.2 repeats the older summary there, 1.6.0 does not.
  "nested-compactions.jsonl": () => [
    system(PROMPT),                                              // 0
    user("Refactor charge()."),                                  // 1
    say("Plan: validate, add_fees, send_to_gateway."),          // 2
    ["appendCompaction", "First summary: the plan.", ref(1), 3000], // 3
    user("validate() first."),                                   // 4
    say("validate() is done."),                                  // 5
    ["appendCompaction", "Second summary: plan made, validate() done.", ref(1), 4100], // 6
    user("Next: add_fees()."),
    say("add_fees() is done."),
  ],
  // A compaction that keeps nothing: 1.6.0 writes its own id as firstKeptEntryId.
  "compaction-retain-none.jsonl": () => [
    system(PROMPT),
    user("Refactor charge()."),
    say("Done: three small functions."),
    ["appendCompaction", "charge() is now three small functions.", null, 2600],
    user("Write the changelog entry."),
    say("Added under 'Changed'."),
  ],
  // Several roots on purpose: resetLeaf() (re-edit the first message) and
  // branchWithSummary(null, ...) (start over, carrying a summary) each start a new root.
  "several-roots.jsonl": () => [
    system(PROMPT),                                              // 0
    user("Refactor checkout.py with classes."),                  // 1
    say("Here are three strategy classes."),                     // 2
    ["resetLeaf"],                                               // 3
    user("Refactor checkout.py with small functions."),          // 4  a second root
    say("Here are three small functions."),                      // 5
    ["branchWithSummary", null, "Two attempts so far: classes (rejected), functions (kept)."], // 6 third root
    user("Start from the functions version and add tests."),
    say("Added tests for each function."),
  ],
};

const SESSION_IDS = {
  "context-edit.jsonl": "0195a0e0-0101-7000-8000-00000000c0de",
  "usage.jsonl": "0195a0e0-0102-7000-8000-00000000c0de",
  "compaction-checkpoint.jsonl": "0195a0e0-0103-7000-8000-00000000c0de",
  "nested-compactions.jsonl": "0195a0e0-0104-7000-8000-00000000c0de",
  "compaction-retain-none.jsonl": "0195a0e0-0105-7000-8000-00000000c0de",
  "several-roots.jsonl": "0195a0e0-0106-7000-8000-00000000c0de",
};

let differs = 0;
const scratch = mkdtempSync(join(tmpdir(), "pi16-data-"));
try {
  for (const [index, [name, make]] of Object.entries(FILES).entries()) {
    seeding.reseed(`pi16-data:${name}`, START + index * 3600_000);
    clock = START + index * 3600_000;
    const ops = make();
    const dir = mkdtempSync(join(scratch, "s-"));
    const { text, errors } = writeWithPi(SessionManager, dir, {
      sessionId: SESSION_IDS[name], cwd: "/home/learner/payments", ops,
    });
    if (errors.length) throw new Error(`${name}: Pi refused ${JSON.stringify(errors)}`);
    const target = join(HERE, name);
    if (check) {
      let old = null;
      try { old = readFileSync(target, "utf8"); } catch { old = null; }
      if (old !== text) {
        differs += 1;
        process.stderr.write(`${name} differs from what Pi 1.6.0 writes\n`);
      }
    } else {
      writeFileSync(target, text);
      process.stdout.write(`wrote data/pi16/${name} (${text.split("\n").length - 1} lines)\n`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(differs ? 1 : 0);
