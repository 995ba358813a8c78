// Ask Pi's own code about many session files in one Node process.
//
//   node pi-node/driver.mjs INSTALL_DIR < requests.jsonl > answers.jsonl
//
// One JSON request per line, one JSON answer per line, same order:
//   {"op": "read", "version": "0.84.2" | "1.6.0", "b64": <the file's bytes, base64>}
//     -> {leaf, entryIds, labels, name, path, messages (each with entryId), model,
//         thinkingLevel, thrown: {stage: "TypeError: ..."}, hang?: "why"}
//   {"op": "write", "seed": "s", "startMs": n, "program": {sessionId, cwd, ops}}
//     -> {text, errors, leaf}          (Pi 1.6.0's SessionManager writes the file)
//
// Pi is given a temporary copy, never the caller's file (1.6.0's open appends a missing final
// newline, and a v1 file is rewritten in place). Each request runs in a worker thread with a
// time limit; a worker that dies or stalls is reported as `hang` and replaced.
//
// A walk into a parent cycle never returns in Pi: it grows an array until V8 aborts the whole
// process. So before Pi walks, a guard follows the same parent pointers with a `seen` set; if
// they loop, Pi's walk is run in a separate small-heap Node process (a "spare", started ahead
// of time with Pi already loaded), and its death is the answer (`hang`). The guard only decides
// where Pi runs, never what Pi answers. (After PI_DRIVER_CONFIRM_HANGS confirmed hangs in one
// run, default 12, further looping walks are reported as predicted: `hangPredicted: true`.)
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { seedPi, loadPi, readSafeFacts, readWalkFacts, writeWithPi } from "./pi.mjs";

const TIME_LIMIT_MS = Number(process.env.PI_DRIVER_TIME_LIMIT_MS ?? 60000); // generous: a busy machine
const HEAP_MB = 96;
const CONFIRM_HANGS = Number(process.env.PI_DRIVER_CONFIRM_HANGS ?? 12);

if (process.argv[2] === "--spare") {
  await spareProcess(process.argv[3]);
} else if (isMainThread) {
  await main();
} else {
  await worker();
}

async function main() {
  const installDir = process.argv[2];
  if (!installDir) {
    process.stderr.write("usage: node driver.mjs INSTALL_DIR < requests.jsonl\n");
    process.exit(2);
  }
  const spawn = () => {
    const w = new Worker(new URL(import.meta.url), {
      workerData: { installDir },
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
      stderr: true,
    });
    w.stderr.resume(); // an out-of-memory worker prints a stack we do not need
    return w;
  };
  let w = spawn();
  const ask = (request) =>
    new Promise((resolve) => {
      let safe = {};
      let done = false;
      const finish = (answer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        w.off("message", onMessage);
        w.off("error", onDeath);
        w.off("exit", onDeath);
        resolve(answer);
      };
      const onMessage = (message) => {
        if (message.type === "safe") safe = message.data;
        else if (message.type === "done") finish({ ...safe, ...message.data, thrown: { ...safe.thrown, ...message.data.thrown } });
      };
      const onDeath = (error) => {
        const why = error?.code === "ERR_WORKER_OUT_OF_MEMORY" ? "out of memory (endless parent walk)" : `worker died: ${error?.message ?? error}`;
        w = spawn();
        finish({ ...safe, hang: why });
      };
      const timer = setTimeout(() => {
        const dying = w;
        w = spawn();
        dying.terminate();
        finish({ ...safe, hang: `no answer within ${2 * TIME_LIMIT_MS} ms` });
      }, 2 * TIME_LIMIT_MS); // the worker's own spare has TIME_LIMIT_MS; this is the last resort
      w.on("message", onMessage);
      w.once("error", onDeath);
      w.once("exit", onDeath);
      w.postMessage(request);
    });

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    const answer = await ask(request);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
  await w.terminate();
  // Spares still waiting for a file see their stdin close when we exit, and exit too.
  process.stdout.write("", () => process.exit(0));
}

async function worker() {
  const seeding = seedPi("driver");
  const pi = await loadPi(workerData.installDir);
  const scratch = mkdtempSync(join(tmpdir(), "pi-driver-"));
  process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
  let counter = 0;
  // Two spares (started at the first looping file), so that the second version's walk of the
  // same file finds one ready. Each confirmation costs a Node process, so after CONFIRM_HANGS
  // of them a looping walk is reported as predicted (`hangPredicted`), not run again.
  const spares = [];
  let confirmations = 0;
  const walkInSpare = async (version, file) => {
    confirmations += 1;
    while (spares.length < 2) spares.push(startSpare(workerData.installDir));
    let used = spares.shift();
    if (confirmations < CONFIRM_HANGS) spares.push(startSpare(workerData.installDir));
    if (!(await used.ready)) {
      used = startSpare(workerData.installDir); // one more try: a busy machine can starve a start
      if (!(await used.ready)) {
        return { thrown: { driver: `a spare Node process did not start: ${used.err.join("").slice(-300)}` } };
      }
    }
    used.child.stdin.end(`${JSON.stringify({ version, file })}\n`);
    const timer = setTimeout(() => used.child.kill("SIGKILL"), TIME_LIMIT_MS);
    const { code, signal } = await used.exited;
    clearTimeout(timer);
    if (code === 0) return JSON.parse(used.out.join("").slice("ready\n".length));
    const stderr = used.err.join("");
    const how = /heap out of memory/.test(stderr) ? "out of memory" : signal ? `killed by ${signal}` : `exit status ${code}`;
    return { thrown: {}, hang: `Pi's parent walk never returned (${how})` };
  };
  process.on("exit", () => spares.forEach((spare) => spare.child.kill("SIGKILL")));
  parentPort.on("message", async (request) => {
    counter += 1;
    const dir = join(scratch, String(counter));
    mkdirSync(dir);
    try {
      if (request.op === "write") {
        seeding.reseed(request.seed ?? "write", request.startMs);
        const answer = writeWithPi(pi["1.6.0"].SessionManager, dir, request.program);
        parentPort.postMessage({ type: "safe", data: { thrown: {} } });
        parentPort.postMessage({ type: "done", data: answer });
        return;
      }
      seeding.reseed(`read:${counter}`);
      const module = pi[request.version];
      if (!module) throw new Error(`unknown version ${request.version}`);
      const file = join(dir, "session.jsonl");
      writeFileSync(file, Buffer.from(request.b64, "base64"));
      let sm;
      try {
        sm = module.SessionManager.open(file, dir);
      } catch (error) {
        parentPort.postMessage({ type: "safe", data: { thrown: {} } });
        parentPort.postMessage({ type: "done", data: { thrown: { open: `${error?.name}: ${error?.message}` } } });
        return;
      }
      parentPort.postMessage({ type: "safe", data: readSafeFacts(sm) });
      const loops = walkLoops(sm);
      if (loops.context) {
        // getBranch() may still return (a leaf with no id starts nowhere); the context walk not.
        const facts = loops.path ? { thrown: {}, pathHang: true } : readWalkFacts(sm, request.version, module, { context: false });
        let walked;
        if (confirmations >= CONFIRM_HANGS) {
          const hang = `Pi's parent walk loops (predicted: ${CONFIRM_HANGS} such walks already never returned in this run)`;
          walked = { thrown: {}, hang, hangPredicted: true };
        } else {
          walked = await walkInSpare(request.version, file);
        }
        parentPort.postMessage({ type: "done", data: { ...walked, ...facts, thrown: { ...walked.thrown, ...facts.thrown } } });
      } else {
        parentPort.postMessage({ type: "done", data: readWalkFacts(sm, request.version, module) });
      }
    } catch (error) {
      parentPort.postMessage({ type: "safe", data: { thrown: {} } });
      parentPort.postMessage({ type: "done", data: { thrown: { driver: `${error?.name}: ${error?.message}` } } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/**
 * Would Pi's parent walks come back to an entry they passed? `path`: getBranch() from the leaf
 * id; `context`: buildSessionPath(), which starts from the leaf id's entry or else the last entry.
 */
function walkLoops(sm) {
  const loopsFrom = (start) => {
    const seen = new Set();
    let current = start;
    while (current) {
      if (seen.has(current)) return true;
      seen.add(current);
      current = current.parentId ? sm.byId.get(current.parentId) : undefined;
    }
    return false;
  };
  const entries = sm.getEntries();
  const leafId = sm.getLeafId();
  const path = leafId ? loopsFrom(sm.byId.get(leafId)) : false;
  const contextStart = (leafId ? sm.byId.get(leafId) : undefined) ?? entries[entries.length - 1];
  return { path, context: leafId === null ? false : loopsFrom(contextStart) };
}

/** A Node process with Pi loaded, waiting for one file to walk: a walk that loops kills it. */
function startSpare(installDir) {
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ["--max-old-space-size=40", script, "--spare", installDir], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out = [];
  const err = [];
  let markReady;
  const ready = new Promise((resolve) => (markReady = resolve)); // true once Pi is loaded
  child.stdout.on("data", (chunk) => {
    out.push(chunk.toString());
    if (out.join("").startsWith("ready\n")) markReady(true);
  });
  child.stderr.on("data", (chunk) => err.push(chunk.toString()));
  child.stdin.on("error", () => {}); // a spare that died early is reported by `exited`
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => {
    markReady(false); // no effect if it was ready; a spare that died while loading is not a hang
    resolve({ code, signal });
  }));
  return { child, out, err, ready, exited };
}

/** Spare mode: load Pi, then open and walk the one file named on stdin. */
async function spareProcess(installDir) {
  const pi = await loadPi(installDir);
  process.stdout.write("ready\n");
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const { version, file } = JSON.parse(line);
    const sm = pi[version].SessionManager.open(file, join(file, ".."));
    process.stdout.write(JSON.stringify(readWalkFacts(sm, version, pi[version], { path: false })));
    break;
  }
}
