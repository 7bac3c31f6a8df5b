/**
 * Helpers of the live API test (`api_live_test.ts`): the keeper as an operator runs it
 * (`deno run -A main.ts keeper`, API and web pages on one server) as a child process, contract
 * reads by simulation over JSON-RPC (independent of the keeper's code), an SSE reader over
 * `fetch`, and parsers for SSE and the Prometheus text format.
 *
 * @module
 */
import {
  Account,
  BASE_FEE,
  Contract,
  rpc,
  scValToNative,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";
import { childEnv, denoRunArgs } from "@vigil/util/deno_child";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A running `main.ts keeper` child with its output captured. */
export interface LiveKeeper {
  child: Deno.ChildProcess;
  /** The API's base URL, from the `api listening` log line. */
  url: string;
  stderr(): string;
  stdout(): string;
  /** Sends SIGTERM (once) and waits for the exit; returns the status and the complete output. */
  stop(): Promise<{ code: number; stderr: string; stdout: string }>;
}

/**
 * Starts `main.ts keeper` with exactly `env` in a fresh directory (no stray `.env`; only
 * `opts.dotenv` as its `.env` when given), and waits until its API listens. On failure the child is killed and its stderr is in the error.
 */
export async function startMainKeeper(
  env: Record<string, string>,
  timeoutMs = 60_000,
  opts: { dotenv?: Record<string, string> } = {},
): Promise<LiveKeeper> {
  const cwd = await Deno.makeTempDir({ prefix: "vigil-live-keeper-" });
  if (opts.dotenv) {
    // The operator's `.env` in the working directory (mode 0600, as the README asks).
    const text = Object.entries(opts.dotenv).map(([k, v]) => `${k}=${v}\n`).join("");
    await Deno.writeTextFile(`${cwd}/.env`, text, { mode: 0o600 });
  }
  const child = new Deno.Command(Deno.execPath(), {
    // Lock file and cache only; the safe variables only: the test's own never reach the keeper.
    args: denoRunArgs(`${ROOT}main.ts`, ["keeper"]),
    env: childEnv(env),
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  let out = "";
  const pump = async (s: ReadableStream<Uint8Array>, add: (t: string) => void) => {
    const dec = new TextDecoder();
    for await (const chunk of s) add(dec.decode(chunk, { stream: true }));
  };
  const pumps = Promise.all([
    pump(child.stderr, (t) => (err += t)),
    pump(child.stdout, (t) => (out += t)),
  ]);
  let exited = false;
  const status = child.status.then(async (s) => {
    exited = true;
    await pumps;
    await Deno.remove(cwd, { recursive: true });
    return s;
  });
  let stopping: Promise<{ code: number; stderr: string; stdout: string }> | undefined;
  const stop = () =>
    stopping ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const s = await status;
      return { code: s.code, stderr: err, stdout: out };
    })();

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = err.match(/"msg":"api listening".*?"url":"([^"]+)"/);
    if (m) return { child, url: m[1], stderr: () => err, stdout: () => out, stop };
    if (exited || Date.now() > deadline) {
      const why = exited ? "exited" : "did not start listening";
      await stop();
      throw new Error(`keeper ${why}; stderr:\n${err.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Reads a contract function by simulation over JSON-RPC, as any client would: the keeper's own
 * chain code is not involved. Returns the decoded native value.
 */
export async function simulateRead<T = unknown>(
  net: { rpcUrl: string; passphrase: string; source: string },
  contractId: string,
  fn: string,
  args: xdr.ScVal[] = [],
): Promise<T> {
  const server = new rpc.Server(net.rpcUrl, { allowHttp: true });
  const tx = new TransactionBuilder(new Account(net.source, "0"), {
    fee: BASE_FEE,
    networkPassphrase: net.passphrase,
  })
    .addOperation(new Contract(contractId).call(fn, ...args))
    .setTimeout(30)
    .build();
  const sim = await server.simulateTransaction(tx);
  if (!rpc.Api.isSimulationSuccess(sim) || !sim.result) {
    throw new Error(`simulate ${fn}: ${JSON.stringify(sim)}`);
  }
  return scValToNative(sim.result.retval) as T;
}

/** An SSE client over `fetch` that reads continuously in the background. */
export interface SseReader {
  res: Response;
  /** Everything received so far. */
  text(): string;
  /** Waits until `pred(text)` holds; throws with the received text on timeout or end. */
  until(pred: (t: string) => boolean, timeoutMs?: number, what?: string): Promise<string>;
  /** True once the server has ended the stream (waits up to `timeoutMs`). */
  ended(timeoutMs: number): Promise<boolean>;
  /** Cancels the stream and waits for the reader to finish. */
  close(): Promise<void>;
}

/** Opens `GET /api/events`. A refused request (non-2xx) is returned with its body unread. */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
  query = "",
): Promise<SseReader> {
  const res = await fetch(`${url}/api/events${query}`, { headers });
  let buf = "";
  let ended = !res.ok;
  const reader = res.ok ? res.body!.getReader() : undefined;
  const pump = (async () => {
    if (!reader) return;
    const dec = new TextDecoder();
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        buf += dec.decode(r.value, { stream: true });
      }
    } catch {
      // cancelled
    }
    ended = true;
  })();
  return {
    res,
    text: () => buf,
    async until(pred, timeoutMs = 10_000, what = "data") {
      const deadline = Date.now() + timeoutMs;
      while (!pred(buf)) {
        if (ended || Date.now() > deadline) {
          throw new Error(
            `SSE: ${ended ? "stream ended" : "timeout"} waiting for ${what}; got:\n${
              buf.slice(-3000)
            }`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return buf;
    },
    async ended(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return ended;
    },
    async close() {
      if (reader) await reader.cancel().catch(() => {});
      else await res.body?.cancel().catch(() => {});
      await pump;
    },
  };
}

/** An SSE event: id and data. */
export interface SseEvent {
  id: number;
  data: string;
}

/** Parses the complete events (blocks ended by a blank line) of a raw SSE text. */
export function sseEvents(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  const blocks = text.split("\n\n");
  blocks.pop(); // the last piece is incomplete (or empty)
  for (const block of blocks) {
    const id = block.match(/^id: (\d+)$/m);
    const data = block.match(/^data: (.*)$/m);
    if (id && data) out.push({ id: Number(id[1]), data: data[1] });
  }
  return out;
}

/** A parsed Prometheus text exposition. */
export interface Metrics {
  /** `# TYPE` of each metric family. */
  types: Map<string, string>;
  /** Sample lines: name, labels text (without braces, "" when none), value. */
  samples: { name: string; labels: string; value: number }[];
}

/** Parses the Prometheus text format (what prom-client writes). */
export function parseMetrics(text: string): Metrics {
  const types = new Map<string, string>();
  const samples: Metrics["samples"] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const t = line.match(/^# TYPE (\S+) (\S+)$/);
    if (t) {
      types.set(t[1], t[2]);
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m) throw new Error(`unparsable metrics line: ${line}`);
    samples.push({ name: m[1], labels: m[2] ?? "", value: Number(m[3]) });
  }
  return { types, samples };
}

/** The value of a metric sample (the one without labels, or the one whose labels contain `labels`). */
export function metricValue(m: Metrics, name: string, labels = ""): number | undefined {
  return m.samples.find((s) => s.name === name && (labels ? s.labels.includes(labels) : !s.labels))
    ?.value;
}

/**
 * The sum of a labelled metric's samples whose labels contain `labels` (all of them by default):
 * e.g. `keeper_liquidations_total` over its `pool` label.
 */
export function metricSum(m: Metrics, name: string, labels = ""): number {
  return m.samples
    .filter((s) => s.name === name && (!labels || s.labels.includes(labels)))
    .reduce((t, s) => t + s.value, 0);
}

/** Polls `fn` until it returns a truthy value (short intervals; throws with `what` on timeout). */
export async function poll<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs: number,
  what: string,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timeout waiting for ${what}${last ? `; last error: ${last}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
