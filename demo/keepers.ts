/**
 * Keeper child processes for the demo: each keeper is this same program run as `keeper`, with
 * its configuration (and its secret) in the child's environment — never on a command line.
 *
 * @module
 */
import { redactSecrets } from "@vigil/keeper/log/logger";
import { childEnv, denoRunArgs } from "@vigil/util/deno_child";

/**
 * The command that runs this program with `args`: the compiled binary itself, or
 * `deno run -A main.ts` when running from source.
 */
export function selfCommand(args: string[]): { command: string; args: string[] } {
  const exe = Deno.execPath();
  // A compiled binary runs itself (whatever the file is named); otherwise the `deno` runtime runs
  // this program's main.ts (the file name check covers runtimes without `Deno.build.standalone`).
  const isDeno = Deno.build.standalone !== true && /(^|\/)deno(\.exe)?$/.test(exe);
  if (!isDeno) return { command: exe, args };
  // From the cache only, with the lock file: a keeper never downloads anything at start.
  return { command: exe, args: denoRunArgs(new URL("../main.ts", import.meta.url), args) };
}

/** One keeper to start. */
export interface KeeperSpec {
  /** Display and registration name (KEEPER_NAME). */
  name: string;
  /** API port (API_PORT). */
  port: number;
  /** The full keeper environment (KEEPER_SECRET included). */
  env: Record<string, string>;
  /** Hand the keeper's JSON log lines over as they are (a bench keeps them for analysis). */
  raw?: boolean;
}

/** A running keeper process. */
export interface KeeperProcess {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  readonly status: Promise<Deno.CommandStatus>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit status. */
  stop(graceMs?: number): Promise<Deno.CommandStatus>;
}

/** Starts a keeper process; each of its log lines is handed to `onLine` (already redacted). */
export function spawnKeeper(
  spec: KeeperSpec,
  onLine: (name: string, line: string) => void,
): KeeperProcess {
  const { command, args } = selfCommand(["keeper"]);
  const child = new Deno.Command(command, {
    args,
    // A clean environment: only the safe variables (paths, cache, certificates, proxies) plus
    // the keeper's own variables. JSON lines whatever a `.env` says: humanLine parses them.
    clearEnv: true,
    env: childEnv({ ...spec.env, NO_COLOR: "1", LOG_FORMAT: "json" }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const pumps = [
    pump(child.stdout, (l) => onLine(spec.name, l)),
    pump(child.stderr, (l) => {
      onLine(spec.name, spec.raw ? l : humanLine(l));
    }),
  ];
  const status = child.status.then(async (s) => {
    await Promise.all(pumps);
    return s;
  });
  let stopping: Promise<Deno.CommandStatus> | undefined;
  return {
    name: spec.name,
    port: spec.port,
    pid: child.pid,
    status,
    stop(graceMs = 15_000) {
      stopping ??= (async () => {
        try {
          child.kill("SIGTERM");
        } catch { /* already exited */ }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const killed = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            try {
              child.kill("SIGKILL");
            } catch { /* already exited */ }
            resolve();
          }, graceMs);
        });
        const s = await Promise.race([status, killed.then(() => status)]);
        clearTimeout(timer);
        return s;
      })();
      return stopping;
    },
  };
}

/**
 * A keeper's log line that ends its start-up registration (keeper/registration.ts): registered,
 * already registered, failed, or skipped by DRY_RUN.
 */
const REGISTRATION_DONE =
  /registered in the keeper registry|AlreadyRegistered|registration failed|not registered/;

/**
 * Starts the keepers one after another: each once the one before it has finished registering.
 * Registrations that land in the same ledger conflict in the registry (each appends at index
 * `get_keeper_count()`, so the second one's footprint misses the slot the first one took and it
 * fails with `Error(Storage, ExceededLimit)`, on any network); in turn, each registers the first
 * time. A keeper that neither registers nor exits within `waitMs` does not hold up the rest.
 */
export async function spawnKeepersInTurn(
  specs: readonly KeeperSpec[],
  onLine: (name: string, line: string) => void,
  waitMs = 60_000,
): Promise<KeeperProcess[]> {
  const out: KeeperProcess[] = [];
  for (const spec of specs) {
    let done!: () => void;
    const registered = new Promise<void>((resolve) => done = resolve);
    const k = spawnKeeper(spec, (who, line) => {
      if (REGISTRATION_DONE.test(line)) done();
      onLine(who, line);
    });
    out.push(k);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      registered,
      k.status,
      new Promise<void>((resolve) => timer = setTimeout(resolve, waitMs)),
    ]);
    clearTimeout(timer);
  }
  return out;
}

/** Reads a stream line by line. */
async function pump(stream: ReadableStream<Uint8Array>, onLine: (l: string) => void) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trimEnd();
        buf = buf.slice(i + 1);
        if (line) onLine(redactSecrets(line));
      }
    }
    if (buf.trim()) onLine(redactSecrets(buf.trim()));
  } finally {
    reader.releaseLock();
  }
}

/**
 * Turns a keeper's structured JSON log line into a short human line: its `plain` sentence, or
 * (from a keeper without one) its message and fields, the `pool` field first.
 */
export function humanLine(line: string): string {
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    if (typeof o.msg !== "string") return line;
    const level = typeof o.level === "string" ? o.level : "info";
    if (typeof o.plain === "string" && o.plain !== "") {
      return `${level === "info" ? "" : level.toUpperCase() + " "}${o.plain}`;
    }
    const skip = new Set(["ts", "time", "level", "msg", "id", "human"]);
    // The pool first: with several pools, which one a line is about matters most.
    const entries = Object.entries(o).sort(([a], [b]) =>
      Number(b === "pool") - Number(a === "pool")
    );
    const extra = entries
      .filter(([k, v]) => !skip.has(k) && v !== undefined && v !== null && typeof v !== "object")
      .slice(0, 6)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
    return `${level === "info" ? "" : level.toUpperCase() + " "}${o.msg}${
      extra ? " " + extra : ""
    }`;
  } catch {
    return line;
  }
}
