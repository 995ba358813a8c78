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
// they loop, Pi's walk is run in a separate small-heap Node process (`--single`), and its death
// is the answer (`hang`). The guard only decides where Pi runs, never what Pi answers.
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { seedPi, loadPi, readSafeFacts, readWalkFacts, writeWithPi } from "./pi.mjs";

const TIME_LIMIT_MS = Number(process.env.PI_DRIVER_TIME_LIMIT_MS ?? 20000);
const HEAP_MB = 96;

if (process.argv[2] === "--single") {
  await single(process.argv[3], process.argv[4], process.argv[5]);
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
  let current = null;
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
        finish({ ...safe, hang: `no answer within ${TIME_LIMIT_MS} ms` });
      }, TIME_LIMIT_MS);
      w.on("message", onMessage);
      w.once("error", onDeath);
      w.once("exit", onDeath);
      w.postMessage(request);
    });

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    current = request;
    const answer = await ask(request);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
  current = null;
  await w.terminate();
}

async function worker() {
  const seeding = seedPi("driver");
  const pi = await loadPi(workerData.installDir);
  const scratch = mkdtempSync(join(tmpdir(), "pi-driver-"));
  process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
  let counter = 0;
  parentPort.on("message", (request) => {
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
      if (walkLoops(sm)) {
        parentPort.postMessage({ type: "done", data: walkInChild(workerData.installDir, request.version, file) });
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

/** Would Pi's parent walk (getBranch, buildSessionPath) from the leaf ever come back to an entry? */
function walkLoops(sm) {
  const entries = sm.getEntries();
  const starts = [sm.byId.get(sm.getLeafId()), entries[entries.length - 1]];
  for (const start of starts) {
    const seen = new Set();
    let current = start;
    while (current) {
      if (seen.has(current)) return true;
      seen.add(current);
      current = current.parentId ? sm.byId.get(current.parentId) : undefined;
    }
  }
  return false;
}

function walkInChild(installDir, version, file) {
  const script = fileURLToPath(import.meta.url);
  const run = spawnSync(process.execPath, ["--max-old-space-size=64", script, "--single", installDir, version, file], {
    timeout: TIME_LIMIT_MS,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status === 0) return JSON.parse(run.stdout);
  const how = run.signal ? `killed by ${run.signal}` : `exit status ${run.status}`;
  const oom = /heap out of memory/.test(run.stderr ?? "") ? "out of memory" : how;
  return { thrown: {}, hang: `Pi's parent walk never returned (${oom})` };
}

/** Child mode: open one file and walk (the parent decides whether this may loop). */
async function single(installDir, version, file) {
  const pi = await loadPi(installDir);
  const sm = pi[version].SessionManager.open(file, join(file, ".."));
  process.stdout.write(JSON.stringify(readWalkFacts(sm, version, pi[version])));
}
