// Pi's own session code, loaded from an npm install of this folder's package-lock.json.
//
// Both pinned versions of @earendil-works/pi-coding-agent are installed side by side under
// npm aliases ("pi084" = 0.84.2, "pi16" = 1.6.0). The package's main entry needs Node 22
// (its undici dependency), so we import dist/core/session-manager.js by file path, which
// runs on Node 20.
//
// Two helpers are shared by driver.mjs (the differential tests) and data/pi16/generate.mjs
// (the teaching files):
//   seedPi(seed, startMs)   make Pi's ids and clock reproducible (before loading Pi!)
//   loadPi(installDir)      {"0.84.2": module, "1.6.0": module}
//   readWithPi(sm, version, pi)   what Pi says about an opened session
//   writeWithPi(SessionManager, dir, program)   run append/branch/edit operations
import { createHash } from "node:crypto";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const VERSIONS = { "0.84.2": "pi084", "1.6.0": "pi16" };

const require = createRequire(import.meta.url);
const RealDate = Date;

/** Deterministic ids and clock: Pi's generateId uses crypto.randomUUID, timestamps new Date(). */
export function seedPi(seed, startMs = RealDate.UTC(2026, 10, 20, 9, 0, 0)) {
  const crypto = require("node:crypto");
  let counter = 0;
  crypto.randomUUID = () => {
    counter += 1;
    const hex = createHash("sha256").update(`${seed}:${counter}`).digest("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  syncBuiltinESMExports(); // `import { randomUUID } from "crypto"` in Pi now sees ours
  let now = startMs;
  class SteppingDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) {
        now += 1000; // every "now" is one second after the previous one
        super(now);
      } else {
        super(...args);
      }
    }
    static now() {
      now += 1000;
      return now;
    }
  }
  globalThis.Date = SteppingDate;
  return {
    reseed(newSeed, newStart = startMs) {
      seed = newSeed;
      counter = 0;
      now = newStart;
    },
  };
}

/** Where tests/pi_node.py installs the lockfile: $XDG_CACHE_HOME/learn-pi-lab/pi-node-<hash>. */
export function defaultInstallDir() {
  const lock = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "package-lock.json"));
  const hash = createHash("sha256").update(lock).digest("hex").slice(0, 16);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "learn-pi-lab", `pi-node-${hash}`);
}

export async function loadPi(installDir, only = null) {
  const modules = {};
  for (const [version, alias] of Object.entries(VERSIONS)) {
    if (only && version !== only) continue;
    const file = join(installDir, "node_modules", alias, "dist", "core", "session-manager.js");
    modules[version] = await import(pathToFileURL(file).href);
    const pkg = JSON.parse(readFileSync(join(installDir, "node_modules", alias, "package.json"), "utf8"));
    if (pkg.version !== version) throw new Error(`${alias} is ${pkg.version}, expected ${version}`);
  }
  return modules;
}

function errorText(error) {
  return `${error?.name ?? "Error"}: ${error?.message ?? String(error)}`;
}

/** Safe facts first (they never loop), each in its own try so one throw does not hide the rest. */
export function readSafeFacts(sm) {
  const out = { thrown: {} };
  out.leaf = sm.getLeafId() ?? null;
  out.leafIsUndefined = sm.getLeafId() === undefined;
  out.entryIds = sm.getEntries().map((entry) => entry.id ?? null);
  out.header = sm.getHeader();
  out.labels = Object.fromEntries(sm.labelsById ?? new Map());
  try {
    out.name = sm.getSessionName() ?? null;
  } catch (error) {
    out.thrown.name = errorText(error);
  }
  return out;
}

/** The facts whose parent walk can loop forever on a cyclic file (run them last). */
export function readWalkFacts(sm, version, pi, { path = true, context = true } = {}) {
  const out = { thrown: {} };
  if (path) {
    try {
      out.path = sm.getBranch().map((entry) => entry.id ?? null);
    } catch (error) {
      out.thrown.path = errorText(error);
    }
  }
  if (!context) return out;
  try {
    const messages = [];
    let model = null;
    let thinkingLevel = null;
    if (version === "1.6.0") {
      const projection = sm.buildSessionProjection();
      for (const projected of projection.entries) {
        for (const message of projected.messages) {
          messages.push({ ...message, entryId: projected.sourceEntry.id ?? null });
        }
      }
      model = projection.model;
      thinkingLevel = projection.thinkingLevel;
    } else {
      for (const entry of sm.buildContextEntries()) {
        for (const message of pi.sessionEntryToContextMessages(entry)) {
          messages.push({ ...message, entryId: entry.id ?? null });
        }
      }
      const context = sm.buildSessionContext();
      model = context.model;
      thinkingLevel = context.thinkingLevel;
    }
    out.messages = messages;
    out.model = model;
    out.thinkingLevel = thinkingLevel ?? null;
  } catch (error) {
    out.thrown.context = errorText(error);
  }
  return out;
}

/**
 * Run one program of SessionManager calls and return the file's text.
 * program = {sessionId, cwd, ops: [[name, ...args], ...]}; an argument {"$ref": n} stands for
 * the id returned by the n-th operation (0-based), so a program can edit or branch to an
 * entry it created. Operations that throw are recorded, not fatal.
 */
export function writeWithPi(SessionManager, dir, program) {
  const sm = SessionManager.create(program.cwd ?? "/work/project", dir, { id: program.sessionId });
  const results = [];
  const errors = [];
  const resolve = (arg) => {
    if (arg && typeof arg === "object" && !Array.isArray(arg) && "$ref" in arg) {
      const value = results[arg.$ref];
      return typeof value === "object" && value !== null ? value.id : value;
    }
    return arg;
  };
  program.ops.forEach(([name, ...args], index) => {
    try {
      results.push(sm[name](...args.map(resolve)));
    } catch (error) {
      results.push(null);
      errors.push({ op: index, name, error: errorText(error) });
    }
  });
  const file = sm.getSessionFile();
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    text = ""; // nothing written: Pi writes only once a user or assistant message exists
  }
  return { text, errors, leaf: sm.getLeafId() ?? null };
}
