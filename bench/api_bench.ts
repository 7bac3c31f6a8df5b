/**
 * Benchmark of the keeper HTTP API (loopback only, bounded):
 *  1. `/api/state` requests per second and latency percentiles under concurrent load, with a
 *     realistic state (1,000 positions, 500 liquidations, 500 log lines, 20 keepers): the default
 *     body as a browser asks for it (compressed), the full body, a body rebuilt per request and
 *     the 304 path. The first result is the `api_state:` line (the target of issue 26: p99 < 10 ms
 *     at ≥ 2,000 req/s at concurrency 16);
 *  2. the delay for one log line to reach 100 SSE clients.
 *
 * The server runs in a child process (`api_bench.ts serve`) so the load generator does not share
 * its event loop. The `api_state:` line's load comes from autocannon (a load generator that, like
 * wrk, reads the bytes without decoding them: on a 2-core machine a client that decodes every
 * body takes about three times the server's CPU); the other lines use Deno's `fetch`. Usage: `deno run -A bench/api_bench.ts [--seconds=5] [--concurrency=16]`.
 */
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import autocannon from "autocannon";
import { Hono } from "hono";
import { loadConfig } from "@vigil/keeper/config";
import { createKeeperContext, type KeeperContext } from "@vigil/keeper/context";
import { createApi, serveApi } from "@vigil/keeper/api/server";
import { Logger } from "@vigil/keeper/log/logger";
import {
  setDepositors,
  setKeepers,
  setLatestLedger,
  setPositions,
  setVault,
} from "@vigil/keeper/state";

const arg = (name: string, dflt: number) => {
  const a = Deno.args.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.split("=")[1]) : dflt;
};

const now = () => performance.timeOrigin + performance.now();

/** What a browser sends (Chrome's header). */
const BROWSER_ENCODING = "gzip, deflate, br, zstd";

function populate(ctx: KeeperContext): void {
  const s = ctx.state;
  const t = new Date();
  const g = () => Keypair.random().publicKey();
  const pool = StrKey.encodeContract(new Uint8Array(32).fill(3));
  setLatestLedger(s, 1_000_000);
  setKeepers(
    s,
    Array.from({ length: 20 }, (_, i) => ({
      address: i === 0 ? s.self.address : g(),
      name: `keeper-${i + 1}`,
      stake: 1_000_000_000n,
      active: true,
      hasActiveDraw: i % 5 === 0,
      drawMarkedAt: i % 5 === 0 ? t : null,
      registeredAt: t,
      totalExecutions: BigInt(i * 3),
      successfulFills: BigInt(i * 3),
      totalProfit: BigInt(i) * 12_345_678n,
      avgResponseTimeMs: 2000 + i,
    })),
  );
  setPositions(
    s,
    pool,
    Array.from({ length: 1000 }, (_, i) => ({
      pool,
      user: g(),
      healthFactor: i % 10 === 0 ? null : 0.5 + (i % 100) / 50,
      collateralValue: BigInt(1_000_000_000 + i),
      liabilitiesValue: i % 10 === 0 ? 0n : BigInt(800_000_000 + i),
      auction: null,
      updatedAt: t,
    })),
  );
  setVault(s, {
    totalUsdc: 6_259_603_340n,
    totalShares: 6_000_000_000n,
    totalProfit: 259_603_340n,
    activeLiq: 0n,
    lockedProfit: 59_603_340n,
    unlockEnd: new Date(t.getTime() + 3_600_000),
    ledger: 1_000_000,
    readAt: t,
  });
  setDepositors(
    s,
    Array.from({ length: 50 }, () => ({
      address: g(),
      shares: 100_000_000n,
      usdcValue: 104_326_720n,
      readAt: t,
    })),
  );
  for (let i = 0; i < 500; i++) {
    ctx.recordLiquidation({
      adapter: "lending_pool",
      pool,
      user: g(),
      outcome: "filled",
      drew: 202_154_468n,
      proceeds: 228_114_802n,
      responseTimeMs: 3200,
      txHash: "ab".repeat(32),
      ledger: 999_000 + i,
      time: t,
    });
  }
}

/** Child mode: serve the API (plus a bench-only trigger route) and print the port. */
async function serve(): Promise<void> {
  const config = loadConfig({
    KEEPER_SECRET: Keypair.random().secret(),
    REGISTRY_CONTRACT: StrKey.encodeContract(new Uint8Array(32).fill(1)),
    VAULT_CONTRACT: StrKey.encodeContract(new Uint8Array(32).fill(2)),
    LENDING_POOL: StrKey.encodeContract(new Uint8Array(32).fill(3)),
  });
  const log = new Logger({ sink: null, base: { operator: config.operator } });
  const ctx = createKeeperContext(config, { log, defaultMetrics: true });
  populate(ctx);
  const app = new Hono();
  // Bench-only: emit one log line carrying its emit time (epoch ms, sub-ms precision).
  app.post("/bench/log", (c) => {
    ctx.log.info("bench line", { emitted_at: now().toFixed(3) });
    return c.body(null, 204);
  });
  app.route("/", createApi(ctx));
  const server = serveApi(ctx, { port: 0, hostname: "127.0.0.1", app });
  console.log(JSON.stringify({ port: server.addr.port }));
  // Stop when the parent closes our stdin.
  for await (const _ of Deno.stdin.readable) { /* drain */ }
  await server.shutdown();
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function loadState(
  base: string,
  seconds: number,
  concurrency: number,
  opts: { etag?: string; rebuild?: boolean; query?: string; encoding?: string } = {},
) {
  const { etag, rebuild } = opts;
  let n = 0;
  const lat: number[] = [];
  let bytes = 0;
  let statuses = new Map<number, number>();
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      // A distinct `events` count per request defeats the server's body cache (worst case).
      const q = rebuild ? `?events=${100 + (n++ % 300)}` : (opts.query ?? "");
      const headers: Record<string, string> = {
        // identity unless asked: Deno's fetch would otherwise ask for gzip/br by itself.
        "accept-encoding": opts.encoding ?? "identity",
      };
      if (etag) headers["if-none-match"] = etag;
      const r = await fetch(`${base}/api/state${q}`, { headers });
      const body = await r.arrayBuffer();
      lat.push(performance.now() - t0);
      // What crossed the wire: fetch hands back the decoded body.
      bytes = Number(r.headers.get("content-length") ?? body.byteLength);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const out = {
    requests: lat.length,
    rps: lat.length / elapsed,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: lat.at(-1)!,
    bytes,
    statuses: Object.fromEntries(statuses),
  };
  statuses = new Map();
  return out;
}

/**
 * Closed-loop load with autocannon: `concurrency` keep-alive connections, each sending its next
 * request when the answer is in, for `seconds` (its rate limits send in bursts, so none is used).
 */
async function cannon(
  url: string,
  seconds: number,
  concurrency: number,
  encoding: string,
) {
  // autocannon's own percentiles are whole milliseconds; each response's time is exact.
  const lat: number[] = [];
  const job = autocannon({
    url,
    connections: concurrency,
    duration: seconds,
    headers: { "accept-encoding": encoding },
  });
  job.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => {
    lat.push(ms);
  });
  const r = await job;
  lat.sort((a, b) => a - b);
  // What crossed the wire for one body (compressed).
  const probe = await fetch(url, { headers: { "accept-encoding": encoding } });
  await probe.arrayBuffer();
  return {
    requests: r.requests.total,
    rps: r.requests.average,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: lat.at(-1)!,
    mean: lat.reduce((a, b) => a + b, 0) / Math.max(1, lat.length),
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    bytes: Number(probe.headers.get("content-length")),
    coding: probe.headers.get("content-encoding") ?? "identity",
  };
}

async function sseFanout(base: string, clients: number, lines: number) {
  const arrivals: Map<string, number>[] = [];
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  const pumps: Promise<void>[] = [];
  for (let i = 0; i < clients; i++) {
    const res = await fetch(`${base}/api/events`);
    if (res.status !== 200) throw new Error(`client ${i} refused: ${res.status}`);
    const reader = res.body!.getReader();
    readers.push(reader);
    const seen = new Map<string, number>();
    arrivals.push(seen);
    pumps.push((async () => {
      const dec = new TextDecoder();
      let buf = "";
      try {
        for (;;) {
          const r = await reader.read();
          if (r.done) return;
          const at = now();
          buf += dec.decode(r.value, { stream: true });
          let i: number;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const m = block.match(/emitted_at=(\d+\.\d+)/);
            if (m) seen.set(m[1], at);
          }
        }
      } catch {
        // cancelled
      }
    })());
  }
  const delaysAll: number[] = [];
  const delaysMean: number[] = [];
  for (let k = 0; k < lines; k++) {
    const r = await fetch(`${base}/bench/log`, { method: "POST" });
    await r.body?.cancel();
    // Wait until every client has the newest line.
    const deadline = performance.now() + 5000;
    let key: string | undefined;
    while (performance.now() < deadline) {
      key = [...arrivals[0].keys()].at(-1);
      if (key && arrivals.every((a) => a.has(key!))) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    if (!key || !arrivals.every((a) => a.has(key!))) throw new Error("a client missed a line");
    const emitted = Number(key);
    const ds = arrivals.map((a) => a.get(key!)! - emitted);
    delaysAll.push(Math.max(...ds));
    delaysMean.push(ds.reduce((x, y) => x + y, 0) / ds.length);
    for (const a of arrivals) a.clear();
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.all(readers.map((r) => r.cancel().catch(() => {})));
  await Promise.all(pumps);
  delaysAll.sort((a, b) => a - b);
  delaysMean.sort((a, b) => a - b);
  return {
    lines,
    allReceivedP50: pct(delaysAll, 50),
    allReceivedMax: delaysAll.at(-1)!,
    meanDelayP50: pct(delaysMean, 50),
  };
}

async function main(): Promise<void> {
  const seconds = arg("seconds", 5);
  const concurrency = arg("concurrency", 16);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--cached-only", "--frozen", new URL(import.meta.url).pathname, "serve"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const r = await reader.read();
    if (r.done) throw new Error("server did not start");
    first += r.value;
  }
  const { port } = JSON.parse(first.split("\n")[0]);
  const base = `http://127.0.0.1:${port}`;
  try {
    // Warm-up.
    await loadState(base, 0.5, 4, { encoding: BROWSER_ENCODING });
    await cannon(`${base}/api/state`, 1, concurrency, BROWSER_ENCODING); // warm-up (JIT)
    const state = await cannon(`${base}/api/state`, seconds, concurrency, BROWSER_ENCODING);
    const dflt = await loadState(base, seconds, concurrency, { encoding: BROWSER_ENCODING });
    const full = await loadState(base, seconds, concurrency, {
      query: "?positions=500&events=100",
    });
    const rebuilt = await loadState(base, seconds, concurrency, { rebuild: true });
    const probe = await fetch(`${base}/api/state`);
    const etag = probe.headers.get("etag")!;
    await probe.body?.cancel();
    const cached = await loadState(base, Math.max(1, seconds / 2), concurrency, { etag });
    const fan = await sseFanout(base, 100, 20);
    const f = (n: number) => n.toFixed(2);
    // The machine's load says how much the figures owe to other work on the same cores.
    const load = Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
    console.log(
      `api_bench (loopback, server in a child process, ${navigator.hardwareConcurrency} cores, ` +
        `load average ${load} at the end)`,
    );
    console.log(
      `api_state: ${Math.round(state.rps)} req/s p50 ${f(state.p50)} ms p99 ${f(state.p99)} ms ` +
        `body ${state.bytes} B (c=${concurrency}, compressed)`,
    );
    console.log(
      `  (autocannon, default /api/state — 50 positions, 50 events — with Accept-Encoding: ` +
        `${BROWSER_ENCODING} → ${state.coding}; ${state.requests} requests in ${seconds}s, mean ` +
        `${f(state.mean)} ms, max ${f(state.max)} ms, non-2xx ${state.non2xx}, errors ` +
        `${state.errors})`,
    );
    console.log(
      `/api/state, the same with Deno's fetch as the client (it decodes every body): ` +
        `${f(dflt.rps)} req/s, p50 ${f(dflt.p50)} ms, p99 ${f(dflt.p99)} ms, max ${f(dflt.max)} ms`,
    );
    console.log(
      `/api/state?positions=500&events=100 200, uncompressed (state unchanged → cached body): ${full.requests} requests in ${seconds}s at concurrency ${concurrency}: ` +
        `${f(full.rps)} req/s, p50 ${f(full.p50)} ms, p99 ${f(full.p99)} ms, max ${
          f(full.max)
        } ms, ` +
        `${full.bytes} bytes/response (the body before issue 26: 1000 positions → 500 shown, 100 events)`,
    );
    console.log(
      `/api/state 200, uncompressed, body rebuilt for every request: ${f(rebuilt.rps)} req/s, ` +
        `p50 ${f(rebuilt.p50)} ms, p99 ${f(rebuilt.p99)} ms, max ${f(rebuilt.max)} ms`,
    );
    console.log(
      `/api/state 304 (If-None-Match): ${f(cached.rps)} req/s, p50 ${f(cached.p50)} ms, ` +
        `p99 ${f(cached.p99)} ms, statuses ${JSON.stringify(cached.statuses)}`,
    );
    console.log(
      `SSE fan-out, 100 clients, ${fan.lines} lines: one line reaches all 100 clients in ` +
        `p50 ${f(fan.allReceivedP50)} ms, max ${f(fan.allReceivedMax)} ms ` +
        `(mean per-client delay p50 ${f(fan.meanDelayP50)} ms)`,
    );
  } finally {
    await reader.cancel();
    await child.stdin.close();
    await child.status;
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "serve") await serve();
  else await main();
}
