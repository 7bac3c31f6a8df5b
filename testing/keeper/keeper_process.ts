/** Test helper: runs `keeper/daemon.ts` as a real child process. */
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { childEnv, denoRunArgs } from "@vigil/util/deno_child";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A contract address (C…) derived from a small number, for configs. */
export function contractId(n: number): string {
  return StrKey.encodeContract(new Uint8Array(32).fill(n));
}

/** A complete minimal environment for a keeper that can start (no chain needed). */
export function validEnv(secret = Keypair.random().secret()): Record<string, string> {
  return {
    KEEPER_SECRET: secret,
    REGISTRY_CONTRACT: contractId(1),
    VAULT_CONTRACT: contractId(2),
    API_PORT: "0",
    API_HOST: "127.0.0.1",
    // Loopback only: a closed port, so chain calls fail at once instead of reaching the internet.
    SOROBAN_RPC: "http://127.0.0.1:9/rpc",
    HORIZON_URL: "http://127.0.0.1:9",
  };
}

/** A running keeper child process. */
export interface KeeperChild {
  child: Deno.ChildProcess;
  /** All stderr text so far. */
  stderr(): string;
  /** Waits until stderr matches (or the process exits / timeout). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Waits for exit; returns code and the complete stderr/stdout. */
  finish(): Promise<{ code: number; stderr: string; stdout: string }>;
}

/**
 * Spawns the keeper with exactly `env` (plus what Deno needs) in `cwd`. `script` is what runs:
 * `keeper/daemon.ts` (the API only) by default, or e.g. `["main.ts", "keeper"]` (API + pages).
 */
export function spawnKeeper(
  env: Record<string, string>,
  cwd?: string,
  script: string[] = ["keeper/daemon.ts"],
): KeeperChild {
  // Without a given directory the keeper runs in a fresh empty one (so no stray .env is read).
  const tmp = cwd === undefined ? Deno.makeTempDirSync({ prefix: "vigil-keeper-" }) : undefined;
  const child = new Deno.Command(Deno.execPath(), {
    // Lock file and cache only (`npm ci` filled it): the child never downloads anything. Only the
    // safe variables (paths, cache, certificates, proxies) pass; the test's own keeper variables
    // do not.
    args: denoRunArgs(`${ROOT}${script[0]}`, script.slice(1)),
    env: childEnv(env),
    clearEnv: true,
    cwd: cwd ?? tmp,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  let err = "";
  let out = "";
  let exited = false;
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  const pump = async (stream: ReadableStream<Uint8Array>, add: (s: string) => void) => {
    const dec = new TextDecoder();
    for await (const chunk of stream) {
      add(dec.decode(chunk, { stream: true }));
      notify();
    }
  };
  const pumps = Promise.all([
    pump(child.stderr, (s) => (err += s)),
    pump(child.stdout, (s) => (out += s)),
  ]);
  const status = child.status.then(async (s) => {
    await pumps;
    if (tmp) Deno.removeSync(tmp, { recursive: true });
    exited = true;
    notify();
    return s;
  });
  return {
    child,
    stderr: () => err,
    waitFor(re, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined = undefined;
        const check = () => {
          const m = err.match(re);
          if (m || exited) {
            waiters.delete(check);
            clearTimeout(timer);
            if (m) resolve(m);
            else reject(new Error(`keeper exited before ${re}; stderr:\n${err}`));
          }
        };
        timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timeout waiting for ${re}; stderr:\n${err}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async finish() {
      const s = await status;
      return { code: s.code, stderr: err, stdout: out };
    },
  };
}

/** Runs a keeper that is expected to exit by itself (configuration errors). */
export async function runKeeperToExit(
  env: Record<string, string>,
  cwd?: string,
): Promise<{ code: number; stderr: string; stdout: string }> {
  const k = spawnKeeper(env, cwd);
  // A safety net only (a config error exits within a second or two on a quiet machine); generous
  // because many of these start at once, each loading the keeper's module graph, on a loaded CI.
  const timer = setTimeout(() => k.child.kill("SIGKILL"), 120_000);
  try {
    return await k.finish();
  } finally {
    clearTimeout(timer);
  }
}

/** Parses the JSON log lines of a keeper's stderr. */
export function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
}
