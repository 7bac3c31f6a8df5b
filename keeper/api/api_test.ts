import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { loadConfig } from "../config.ts";
import { createKeeperContext, type KeeperContext } from "../context.ts";
import { type ApiServer, createApi, serveApi, type SseOptions } from "./server.ts";
import { Logger, REDACTED } from "../log/logger.ts";
import {
  setDepositors,
  setKeepers,
  setLatestLedger,
  setPendingChanges,
  setPositions,
  setVault,
  setVaultConfig,
} from "../state.ts";
import { contractId, validEnv } from "@vigil/testing/keeper/keeper_process";

const SECRET = Keypair.random().secret();
const OPERATOR = Keypair.fromSecret(SECRET).publicKey();
const OTHER = Keypair.random().publicKey();
const DEPOSITOR = Keypair.random().publicKey();
const POOL = contractId(3);
const T0 = new Date("2026-03-01T12:00:00.000Z");

interface Harness {
  ctx: KeeperContext;
  server: ApiServer;
  url: string;
  /** JSON lines the logger wrote (what would go to stderr). */
  sunk: string[];
  close(): Promise<void>;
}

function start(opts: { sse?: SseOptions; env?: Record<string, string> } = {}): Harness {
  const config = loadConfig({
    ...validEnv(SECRET),
    LENDING_POOL: POOL,
    USDC_CONTRACT: contractId(4),
    KNOWN_DEPOSITORS: DEPOSITOR,
    ...opts.env,
  });
  const sunk: string[] = [];
  const log = new Logger({ sink: (l) => sunk.push(l), base: { operator: config.operator } });
  const ctx = createKeeperContext(config, { log, sse: opts.sse, defaultMetrics: true });
  const server = serveApi(ctx, { port: 0, hostname: "127.0.0.1", app: createApi(ctx) });
  return { ctx, server, url: server.url, sunk, close: () => server.shutdown() };
}

/** Fills the state the way a cycle would, including attempts to log the secret. */
function populate(ctx: KeeperContext): void {
  const s = ctx.state;
  setLatestLedger(s, 12345);
  setKeepers(s, [
    {
      address: OPERATOR,
      name: "keeper-1",
      stake: 1_000_000_000n,
      active: true,
      hasActiveDraw: false,
      drawMarkedAt: null,
      registeredAt: T0,
      totalExecutions: 2n,
      successfulFills: 2n,
      totalProfit: 25960334n,
      avgResponseTimeMs: 3200,
    },
    {
      address: OTHER,
      name: null,
      stake: null,
      active: null,
      hasActiveDraw: true,
      drawMarkedAt: T0,
      registeredAt: null,
      totalExecutions: null,
      successfulFills: null,
      totalProfit: null,
      avgResponseTimeMs: NaN,
    },
  ], T0);
  const pos = (user: string, hf: number | null) => ({
    pool: POOL,
    user,
    healthFactor: hf,
    collateralValue: 1000n,
    liabilitiesValue: hf === null ? 0n : 900n,
    auction: user === "GUNDER" ? { startBlock: 12000, percent: 50 } : null,
    updatedAt: T0,
  });
  setPositions(s, POOL, [
    pos("GSAFE", 1.3),
    pos("GNODEBT", Infinity),
    pos("GUNDER", 0.45),
    pos("GNAN", NaN),
  ]);
  setVault(s, {
    totalUsdc: 6259603340n,
    totalShares: 6000000000n,
    totalProfit: 259603340n,
    activeLiq: 202154468n,
    // Issue 20: the last flash's profit still unlocking (not in the share price).
    lockedProfit: 59603340n,
    unlockEnd: new Date(T0.getTime() + 300_000),
    ledger: 12345,
    readAt: T0,
  });
  setVaultConfig(s, {
    depositCap: 100_000_000_000_000n,
    withdrawCooldownSec: 3600,
    maxDrawPerKeeper: 100_000_000_000n,
    minFillProfit: 10_000_000n,
    policyDelaySec: 7200,
    profitUnlockSec: 300,
  });
  setPendingChanges(s, {
    appliesAt: new Date(T0.getTime() + 7_200_000),
    value: {
      executors: [contractId(5)],
      maxSlippageBps: 300,
      pools: [contractId(6)],
      routers: [],
      tokens: [contractId(7)],
    },
    warning: `LENDING_POOL ${POOL} de-listed`,
  }, null);
  setDepositors(s, [{
    address: DEPOSITOR,
    shares: 5000000000n,
    usdcValue: 5216336116n,
    readAt: T0,
  }]);
  ctx.recordLiquidation({
    adapter: "lending_pool",
    pool: POOL,
    user: "GUNDER",
    outcome: "filled",
    drew: 202154468n,
    proceeds: 228114802n,
    responseTimeMs: 3200,
    txHash: "ff".repeat(32),
    ledger: 12340,
    auctionBlock: 12000,
    time: T0,
  });
  ctx.recordLiquidation({
    adapter: "lending_pool",
    pool: POOL,
    user: "GRACE",
    outcome: "lost_race",
    drew: 100n,
    proceeds: 100n,
    responseTimeMs: 0,
    txHash: null,
    ledger: null,
    time: new Date(T0.getTime() + 1000),
  });
  ctx.recordLiquidation({
    adapter: "lending_pool",
    pool: POOL,
    user: "GHELD",
    outcome: "held",
    drew: 500n,
    proceeds: 0n,
    responseTimeMs: 100,
    txHash: "aa".repeat(32),
    ledger: 12350,
    time: new Date(T0.getTime() + 2000),
    note: "no DEX configured; lot is not USDC",
  });
  ctx.recordCycle({ startedAt: T0, durationMs: 420, errors: 0 });
  ctx.recordCycle({ startedAt: T0, durationMs: 380, errors: 1 });
  ctx.recordError("execute", new Error(`simulation failed for ${SECRET}`), {
    adapter: "lending_pool",
  });
  ctx.log.info(`attempt to leak ${SECRET}`, {
    secret: SECRET,
    kp: ctx.config.keypair,
    cfg: ctx.config,
  });
}

/** An SSE client over fetch that reads continuously in the background. */
async function sseClient(url: string, headers: Record<string, string> = {}, query = "") {
  const res = await fetch(`${url}/api/events${query}`, { headers });
  let buf = "";
  let ended = false;
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  const pump = (async () => {
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
  const poll = async (cond: () => boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while (!cond()) {
      if (Date.now() > deadline) {
        throw new Error(`SSE timeout (${what}); got:\n${buf.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return {
    res,
    text: () => buf,
    /** Waits until `pred(buffer)` holds. */
    async until(pred: (b: string) => boolean, timeoutMs = 5000): Promise<string> {
      await poll(() => pred(buf) || ended, timeoutMs, "data");
      if (!pred(buf)) throw new Error(`SSE ended; got:\n${buf.slice(-2000)}`);
      return buf;
    },
    /** True if the server closes the stream within the timeout. */
    async ended(timeoutMs = 5000): Promise<boolean> {
      try {
        await poll(() => ended, timeoutMs, "end");
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}

/** Parsed SSE events (id + data) of a raw stream text. */
function events(text: string): { id: number; data: string }[] {
  const out: { id: number; data: string }[] = [];
  for (const block of text.split("\n\n")) {
    const id = block.match(/^id: (\d+)$/m);
    const data = block.match(/^data: (.*)$/m);
    if (id && data) out.push({ id: Number(id[1]), data: data[1] });
  }
  return out;
}

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const DIGITS = /^\d+$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// ------------------------------------------------------------------------------------------

Deno.test("GET /healthz: 200 with an empty body; HEAD too", async () => {
  const h = start();
  try {
    const r = await fetch(`${h.url}/healthz`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), "");
    const head = await fetch(`${h.url}/healthz`, { method: "HEAD" });
    assert.equal(head.status, 200);
    await head.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("GET /api/state: shape and content for a populated state", async () => {
  const h = start();
  try {
    populate(h.ctx);
    const r = await fetch(`${h.url}/api/state`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json; charset=utf-8");
    const text = await r.text();
    assert.ok(!/NaN|Infinity/.test(text), "non-finite number in JSON");
    const j = JSON.parse(text);
    assert.deepEqual(Object.keys(j), [
      "api_version",
      "generated_at",
      "keeper",
      "keepers",
      "keepers_total",
      "keepers_read_at",
      "positions",
      "positions_summary",
      "vault",
      "vault_config",
      "pending_changes",
      "dry_run",
      "events",
      "events_summary",
    ]);
    assert.equal(j.dry_run, null); // DRY_RUN off
    assert.equal(j.api_version, 1);
    assert.match(j.generated_at, ISO);
    assert.equal(j.keeper.address, OPERATOR);
    assert.equal(j.keeper.mode, "liquidation");
    assert.equal(j.keeper.lending_pool, POOL);
    assert.deepEqual(j.keeper.lending_pools, [POOL]);
    assert.equal(j.keeper.dry_run, false);
    assert.equal(j.keeper.latest_ledger, 12345);
    assert.equal(j.keeper.poll_interval_seconds, 10);
    assert.deepEqual(j.keeper.last_cycle, {
      number: 2,
      started_at: T0.toISOString(),
      duration_ms: 380,
      errors: 1,
    });
    // Registered keepers, unknowns as null, amounts as strings.
    assert.equal(j.keepers.length, 2);
    assert.deepEqual(j.keepers[0], {
      address: OPERATOR,
      name: "keeper-1",
      is_self: true,
      stake: "1000000000",
      active: true,
      has_active_draw: false,
      draw_marked_at: null,
      registered_at: T0.toISOString(),
      total_executions: "2",
      successful_fills: "2",
      total_profit: "25960334",
      avg_response_time_ms: 3200,
    });
    assert.equal(j.keepers[1].is_self, false);
    assert.equal(j.keepers[1].avg_response_time_ms, null); // NaN → null
    assert.equal(j.keepers[1].draw_marked_at, T0.toISOString());
    // Positions: riskiest first; no debt → health_factor null.
    assert.deepEqual(j.positions.map((p: { user: string }) => p.user), [
      "GUNDER",
      "GSAFE",
      "GNAN",
      "GNODEBT",
    ]);
    assert.deepEqual(j.positions[0], {
      pool: POOL,
      user: "GUNDER",
      health_factor: 0.45,
      underwater: true,
      collateral_value: "1000",
      liabilities_value: "900",
      auction: { start_block: 12000, percent: 50 },
      updated_at: T0.toISOString(),
    });
    assert.equal(j.positions[3].health_factor, null);
    assert.equal(j.positions[3].underwater, false);
    assert.deepEqual(j.positions_summary, {
      tracked: 4,
      with_debt: 2,
      underwater: 1,
      shown: 4,
      truncated: false,
    });
    assert.deepEqual(j.vault, {
      total_usdc: "6259603340",
      total_shares: "6000000000",
      total_profit: "259603340",
      active_liq: "202154468",
      idle: "6057448872",
      locked_profit: "59603340",
      unlock_end: new Date(T0.getTime() + 300_000).toISOString(),
      // (6259603340 − 59603340) / 6000000000: the locked profit is not in the price.
      share_price: "10333333",
      ledger: 12345,
      read_at: T0.toISOString(),
    });
    assert.deepEqual(j.vault_config, {
      deposit_cap: "100000000000000",
      withdraw_cooldown_seconds: 3600,
      max_draw_per_keeper: "100000000000",
      min_fill_profit: "10000000",
      policy_delay_seconds: 7200,
      profit_unlock_seconds: 300,
    });
    assert.equal(j.keepers_total, 2);
    assert.deepEqual(j.pending_changes, {
      flash_policy: {
        applies_at: new Date(T0.getTime() + 7_200_000).toISOString(),
        policy: {
          executors: [contractId(5)],
          max_slippage_bps: 300,
          pools: [contractId(6)],
          routers: [],
          tokens: [contractId(7)],
        },
        warning: `LENDING_POOL ${POOL} de-listed`,
      },
      config: null,
    });
    // Events: the log lines, oldest first, contiguous increasing ids.
    assert.ok(j.events.length >= 5);
    for (const e of j.events) {
      assert.ok(Number.isSafeInteger(e.id));
      assert.match(e.ts, ISO);
      assert.ok(["debug", "info", "warn", "error"].includes(e.level));
      assert.ok(e.text.startsWith(`${e.ts} ${e.level.toUpperCase()} `));
    }
    for (let i = 1; i < j.events.length; i++) assert.equal(j.events[i].id, j.events[i - 1].id + 1);
    assert.ok(
      j.events.some((e: { text: string }) => e.text.includes("liquidation filled: GUNDER")),
    );
    // Query limits.
    const small = await (await fetch(`${h.url}/api/state?events=2&positions=1`)).json();
    assert.equal(small.events.length, 2);
    assert.equal(small.events[1].id, j.events.at(-1).id);
    assert.deepEqual(small.positions.map((p: { user: string }) => p.user), ["GUNDER"]);
    assert.equal(small.positions_summary.truncated, true);
  } finally {
    await h.close();
  }
});

Deno.test("GET /api/state before any data: nulls and empty lists, still valid", async () => {
  const h = start();
  try {
    const j = await (await fetch(`${h.url}/api/state`)).json();
    assert.equal(j.vault, null);
    assert.equal(j.vault_config, null);
    assert.deepEqual(j.pending_changes, { flash_policy: null, config: null });
    assert.equal(j.keepers_total, null);
    assert.deepEqual(j.keepers, []);
    assert.deepEqual(j.positions, []);
    assert.equal(j.keeper.last_cycle, null);
    assert.equal(j.keeper.latest_ledger, null);
    const p = await (await fetch(`${h.url}/api/performance`)).json();
    assert.equal(p.keeper_stats.avg_response_time_ms, null);
    assert.equal(p.keeper_stats.outstanding_draw, null);
    assert.deepEqual(p.liquidations, []);
    assert.deepEqual(p.share_price_series, []);
  } finally {
    await h.close();
  }
});

Deno.test("GET /api/performance: vault, depositors, keeper stats, liquidation history", async () => {
  const h = start();
  try {
    populate(h.ctx);
    const text = await (await fetch(`${h.url}/api/performance`)).text();
    assert.ok(!/NaN|Infinity/.test(text));
    const j = JSON.parse(text);
    assert.deepEqual(Object.keys(j), [
      "api_version",
      "generated_at",
      "vault",
      "vault_config",
      "share_price_series",
      "depositors",
      "keeper_stats",
      "keepers",
      "liquidations",
      "liquidations_summary",
    ]);
    assert.equal(j.vault.share_price, "10333333");
    assert.deepEqual(j.share_price_series, [{
      time: T0.toISOString(),
      share_price: "10333333",
      total_usdc: "6259603340",
      total_shares: "6000000000",
      locked_profit: "59603340",
      ledger: 12345,
    }]);
    assert.deepEqual(j.depositors, [{
      address: DEPOSITOR,
      shares: "5000000000",
      usdc_value: "5216336116",
      read_at: T0.toISOString(),
    }]);
    assert.deepEqual(j.keeper_stats, {
      name: "keeper-1",
      address: OPERATOR,
      cycles: 2,
      fills: 2,
      lost_races: 1,
      held: 1,
      failed: 0,
      total_drew: "202154968",
      total_proceeds: "228114802",
      total_profit: "25960334",
      avg_response_time_ms: 1650,
      errors: 1,
      outstanding_draw: null,
      native_balance: null,
      last_liquidation_at: new Date(T0.getTime() + 2000).toISOString(),
    });
    // Newest first.
    assert.deepEqual(j.liquidations.map((l: { user: string }) => l.user), [
      "GHELD",
      "GRACE",
      "GUNDER",
    ]);
    assert.deepEqual(j.liquidations[2], {
      id: 1,
      adapter: "lending_pool",
      pool: POOL,
      user: "GUNDER",
      outcome: "filled",
      drew: "202154468",
      proceeds: "228114802",
      profit: "25960334",
      response_time_ms: 3200,
      tx_hash: "ff".repeat(32),
      ledger: 12340,
      auction_block: 12000,
      ledgers_after_first_profitable: null,
      time: T0.toISOString(),
      keeper: OPERATOR,
      keeper_name: "keeper-1",
      note: null,
    });
    assert.equal(j.liquidations[1].profit, "0"); // lost race: no profit or loss
    assert.equal(j.liquidations[0].profit, "0"); // held: not booked
    for (const l of j.liquidations) {
      for (const k of ["drew", "proceeds", "profit"]) assert.match(l[k], DIGITS);
      assert.match(l.time, ISO);
    }
  } finally {
    await h.close();
  }
});

Deno.test("ETag: an unchanged state answers 304; a change gives a new body", async () => {
  const h = start();
  try {
    populate(h.ctx);
    const r1 = await fetch(`${h.url}/api/state`);
    await r1.body?.cancel();
    const etag = r1.headers.get("etag")!;
    assert.ok(etag.startsWith('W/"'));
    const r2 = await fetch(`${h.url}/api/state`, { headers: { "if-none-match": etag } });
    assert.equal(r2.status, 304);
    await r2.body?.cancel();
    h.ctx.log.info("something new");
    const r3 = await fetch(`${h.url}/api/state`, { headers: { "if-none-match": etag } });
    assert.equal(r3.status, 200);
    await r3.body?.cancel();
    const p1 = await fetch(`${h.url}/api/performance`);
    await p1.body?.cancel();
    const p2 = await fetch(`${h.url}/api/performance`, {
      headers: { "if-none-match": p1.headers.get("etag")! },
    });
    assert.equal(p2.status, 304);
    await p2.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("defaults page the lists (50 positions, 50 events, 50 liquidations); totals stay in the body", async () => {
  const h = start();
  try {
    populate(h.ctx);
    setPositions(
      h.ctx.state,
      POOL,
      Array.from({ length: 120 }, (_, i) => ({
        pool: POOL,
        user: `GU${i}`,
        healthFactor: 0.5 + i / 100,
        collateralValue: 100n,
        liabilitiesValue: 90n,
        auction: null,
        updatedAt: T0,
      })),
    );
    for (let i = 0; i < 80; i++) h.ctx.log.info(`line ${i}`);
    for (let i = 0; i < 60; i++) {
      h.ctx.recordLiquidation({
        adapter: "lending_pool",
        pool: POOL,
        user: `GL${i}`,
        outcome: "filled",
        drew: 100n,
        proceeds: 110n,
        responseTimeMs: 10,
        txHash: null,
        ledger: 1000 + i,
        time: T0,
      });
    }
    const s = await (await fetch(`${h.url}/api/state`)).json();
    assert.equal(s.positions.length, 50);
    assert.equal(s.positions[0].user, "GU0", "riskiest first");
    assert.deepEqual(s.positions_summary, {
      tracked: 120,
      with_debt: 120,
      underwater: 50,
      shown: 50,
      truncated: true,
    });
    assert.equal(s.events.length, 50);
    assert.equal(s.events_summary.shown, 50);
    assert.equal(s.events_summary.truncated, true);
    assert.ok(s.events_summary.buffered >= 80);
    assert.equal(s.events.at(-1).id, h.ctx.log.lastId, "the newest lines");
    // Asking for more: the pages and scripts say what they need.
    const more = await (await fetch(`${h.url}/api/state?positions=all&events=500`)).json();
    assert.equal(more.positions.length, 120);
    assert.equal(more.events.length, more.events_summary.buffered);
    assert.equal(more.events_summary.truncated, false);
    const p = await (await fetch(`${h.url}/api/performance`)).json();
    assert.equal(p.liquidations.length, 50);
    assert.equal(p.liquidations[0].user, "GL59", "newest first");
    assert.deepEqual(p.liquidations_summary, { kept: 63, shown: 50, truncated: true });
    const all = await (await fetch(`${h.url}/api/performance?liquidations=all`)).json();
    assert.equal(all.liquidations.length, 63);
    assert.equal(all.liquidations_summary.truncated, false);
    const two = await (await fetch(`${h.url}/api/performance?liquidations=2`)).json();
    assert.deepEqual(two.liquidations.map((l: { user: string }) => l.user), ["GL59", "GL58"]);
  } finally {
    await h.close();
  }
});

Deno.test("compression: br or gzip by Accept-Encoding, compressed once per body and coding", async () => {
  const h = start();
  try {
    populate(h.ctx);
    for (let i = 0; i < 60; i++) {
      h.ctx.log.info(`a line long enough to make the body compressible ${i}`);
    }
    const get = async (path: string, ae: string | null) => {
      // Deno's fetch decodes the body itself; content-length is what went over the wire.
      const r = await fetch(`${h.url}${path}`, {
        headers: ae === null ? {} : { "accept-encoding": ae },
      });
      const text = await r.text();
      return { r, text, wire: Number(r.headers.get("content-length")) };
    };
    for (const path of ["/api/state", "/api/performance"]) {
      const plain = await get(path, "identity");
      assert.equal(plain.r.headers.get("content-encoding"), null);
      assert.equal(plain.wire, new TextEncoder().encode(plain.text).byteLength);
      assert.match(plain.r.headers.get("vary")!, /Accept-Encoding/);
      const etag = plain.r.headers.get("etag");
      for (
        const [ae, coding] of [
          ["gzip, deflate, br, zstd", "br"],
          ["gzip", "gzip"],
          ["br;q=0.5, gzip", "gzip"],
          ["gzip;q=0, br", "br"],
          ["*", "br"],
          ["br;q=0, gzip;q=0", null],
          ["deflate", null],
        ] as const
      ) {
        const c = await get(path, ae);
        assert.equal(c.r.status, 200);
        assert.equal(c.r.headers.get("content-encoding"), coding, `${path} ${ae}`);
        assert.equal(c.text, plain.text, `${path} ${ae}: the same JSON`);
        assert.equal(c.r.headers.get("etag"), etag, "one ETag for every coding");
        if (coding) assert.ok(c.wire < plain.wire / 2, `${path} ${ae}: ${c.wire} of ${plain.wire}`);
      }
      // The 304 path is unchanged whatever the coding.
      const nm = await fetch(`${h.url}${path}`, {
        headers: { "if-none-match": etag!, "accept-encoding": "br" },
      });
      assert.equal(nm.status, 304);
      assert.equal(nm.headers.get("content-encoding"), null);
      await nm.body?.cancel();
    }
  } finally {
    await h.close();
  }
});

Deno.test("GET /metrics: content type, TYPE lines and values that follow the state", async () => {
  const h = start();
  try {
    populate(h.ctx);
    const r = await fetch(`${h.url}/metrics`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = await r.text();
    for (
      const [name, type] of [
        ["keeper_cycles_total", "counter"],
        ["keeper_liquidations_total", "counter"],
        ["keeper_vault_tvl", "gauge"],
        ["keeper_sse_active", "gauge"],
        ["keeper_cycle_duration_seconds", "histogram"],
        ["keeper_errors_total", "counter"],
        ["keeper_rpc_requests_total", "counter"],
        ["keeper_rpc_failures_total", "counter"],
        ["keeper_outstanding_draw_usdc", "gauge"],
        ["keeper_native_balance_xlm", "gauge"],
        ["process_cpu_seconds_total", "counter"],
        ["process_resident_memory_bytes", "gauge"],
      ]
    ) {
      assert.ok(text.includes(`# TYPE ${name} ${type}\n`), `${name} ${type}`);
    }
    assert.match(text, /^keeper_cycles_total 2$/m);
    // filled + held are fills; every liquidation series names its pool.
    assert.ok(text.includes(`\nkeeper_liquidations_total{pool="${POOL}"} 2\n`), text);
    assert.ok(
      text.includes(`\nkeeper_liquidation_attempts_total{outcome="lost_race",pool="${POOL}"} 1\n`),
    );
    assert.match(text, /^keeper_vault_tvl 625\.960334$/m); // total_usdc 6259603340 / 1e7
    assert.match(text, /^keeper_sse_active 0$/m);
    assert.match(text, /^keeper_errors_total\{kind="execute",adapter="lending_pool"\} 1$/m);
    assert.match(text, /^keeper_cycle_duration_seconds_count 2$/m);
    assert.ok(text.includes(`\nkeeper_positions_underwater{pool="${POOL}"} 1\n`));
  } finally {
    await h.close();
  }
});

Deno.test("unknown paths give JSON 404; wrong methods 405 with Allow", async () => {
  const h = start();
  try {
    for (const p of ["/nope", "/api/nope", "/api/state/extra"]) {
      const r = await fetch(`${h.url}${p}`);
      assert.equal(r.status, 404);
      assert.equal(r.headers.get("content-type"), "application/json; charset=utf-8");
      assert.deepEqual(await r.json(), { error: "not_found", path: p });
    }
    for (
      const [method, p] of [["POST", "/api/state"], ["DELETE", "/metrics"], ["PUT", "/healthz"], [
        "POST",
        "/api/events",
      ]]
    ) {
      const r = await fetch(`${h.url}${p}`, {
        method,
        body: method === "DELETE" ? undefined : "x",
      });
      assert.equal(r.status, 405, `${method} ${p}`);
      assert.equal(r.headers.get("allow"), "GET, HEAD, OPTIONS");
      assert.equal((await r.json()).error, "method_not_allowed");
    }
    assert.equal(h.ctx.sse.active, 0);
  } finally {
    await h.close();
  }
});

Deno.test("CORS: localhost dev origins by default, configured origins, nothing for others", async () => {
  const h = start();
  const h2 = start({ env: { API_CORS_ORIGINS: "https://vigil.example" } });
  try {
    const get = async (url: string, origin: string) => {
      const r = await fetch(`${url}/api/state`, { headers: { origin } });
      await r.body?.cancel();
      return r.headers.get("access-control-allow-origin");
    };
    assert.equal(await get(h.url, "http://localhost:5173"), "http://localhost:5173");
    assert.equal(await get(h.url, "http://127.0.0.1:8000"), "http://127.0.0.1:8000");
    assert.equal(await get(h.url, h.url), h.url); // own origin
    assert.equal(await get(h.url, "https://evil.example"), null);
    assert.equal(await get(h2.url, "https://vigil.example"), "https://vigil.example");
    assert.equal(await get(h2.url, "http://localhost:5173"), null);

    const pre = await fetch(`${h.url}/api/events`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "GET",
        "access-control-request-headers": "last-event-id",
      },
    });
    await pre.body?.cancel();
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "http://localhost:3000");
    assert.match(pre.headers.get("access-control-allow-headers")!, /Last-Event-ID/);
    assert.equal(h.ctx.sse.active, 0, "a preflight must not open a stream");
    const bad = await fetch(`${h.url}/api/state`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    await bad.body?.cancel();
    assert.equal(bad.headers.get("access-control-allow-origin"), null);
  } finally {
    await h.close();
    await h2.close();
  }
});

Deno.test("SSE: retry hint, ids, live lines equal to /api/state events", async () => {
  const h = start();
  try {
    const c = await sseClient(h.url);
    assert.equal(c.res.status, 200);
    assert.equal(c.res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(c.res.headers.get("cache-control"), "no-cache, no-transform");
    await c.until((b) => b.includes(": connected"));
    assert.match(c.text(), /^retry: 3000$/m);
    h.ctx.log.info("first live line", { n: 1 });
    h.ctx.log.warn("second live line");
    await c.until((b) => events(b).length >= 2);
    const got = events(c.text());
    const state = await (await fetch(`${h.url}/api/state`)).json();
    const last2 = state.events.slice(-2);
    assert.deepEqual(got.map((e) => e.id), last2.map((e: { id: number }) => e.id));
    assert.deepEqual(got.map((e) => e.data), last2.map((e: { text: string }) => e.text));
    assert.equal(got[1].id, got[0].id + 1);
    assert.equal(h.ctx.sse.active, 1);
    await c.close();
    await waitFor(() => h.ctx.sse.active === 0);
  } finally {
    await h.close();
  }
});

Deno.test("SSE ?format=json: each data is the /api/state event, with the plain sentence", async () => {
  const h = start();
  try {
    const c = await sseClient(h.url, {}, "?format=json");
    await c.until((b) => b.includes(": connected"));
    h.ctx.log.info("liquidation filled: GX", { plain: "keeper-1 filled GX", drew: 5n });
    h.ctx.log.warn("registration failed", { err: new Error("connection refused") });
    await c.until((b) => events(b).length >= 2);
    const got = events(c.text()).map((e) => JSON.parse(e.data));
    const state = await (await fetch(`${h.url}/api/state`)).json();
    assert.deepEqual(got, state.events.slice(-2));
    assert.equal(got[0].plain, "keeper-1 filled GX");
    assert.match(got[0].text, /INFO liquidation filled: GX drew=5$/);
    assert.equal(got[1].plain, "registration failed: connection refused");
    await c.close();
  } finally {
    await h.close();
  }
});

Deno.test("SSE: Last-Event-ID replays exactly the missed lines, then continues live", async () => {
  const h = start();
  try {
    const lines = [1, 2, 3, 4, 5].map((i) => h.ctx.log.log("info", `line ${i}`)!);
    const c = await sseClient(h.url, { "last-event-id": String(lines[1].id) });
    h.ctx.log.info("line 6");
    await c.until((b) => events(b).length >= 4);
    const got = events(c.text());
    assert.deepEqual(got.map((e) => e.id), [
      lines[2].id,
      lines[3].id,
      lines[4].id,
      lines[4].id + 1,
    ]);
    assert.ok(got[0].data.endsWith("INFO line 3"));
    assert.ok(got[3].data.endsWith("INFO line 6"));
    await c.close();

    // Up to date: nothing replayed. Unknown (e.g. previous process) id: the whole buffer, flagged.
    const c2 = await sseClient(h.url, { "last-event-id": String(lines[4].id + 1) });
    const c3 = await sseClient(h.url, { "last-event-id": "1" });
    h.ctx.log.info("line 7");
    await c2.until((b) => events(b).length >= 1);
    assert.deepEqual(events(c2.text()).map((e) => e.data.slice(-6)), ["line 7"]);
    await c3.until((b) => events(b).length >= 7);
    assert.match(c3.text(), /: gap/);
    assert.equal(events(c3.text())[0].id, lines[0].id);
    await c2.close();
    await c3.close();

    // Query-parameter form for clients that cannot set headers, and ?backlog for fresh clients.
    const r = await fetch(`${h.url}/api/events?lastEventId=${lines[3].id}`);
    const rd = r.body!.getReader();
    let buf = "";
    while (events(buf).length < 3) buf += new TextDecoder().decode((await rd.read()).value);
    assert.deepEqual(events(buf).map((e) => e.data.slice(-6)), ["line 5", "line 6", "line 7"]);
    await rd.cancel();
    const b = await fetch(`${h.url}/api/events?backlog=2`);
    const rb = b.body!.getReader();
    buf = "";
    while (events(buf).length < 2) buf += new TextDecoder().decode((await rb.read()).value);
    assert.deepEqual(events(buf).map((e) => e.data.slice(-6)), ["line 6", "line 7"]);
    await rb.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("SSE: heartbeat comments keep idle streams alive", async () => {
  const h = start({ sse: { heartbeatMs: 50 } });
  try {
    const c = await sseClient(h.url);
    await c.until((b) => (b.match(/^: heartbeat /gm) ?? []).length >= 2, 3000);
    assert.equal(events(c.text()).length, 0); // heartbeats are comments, not events
    await c.close();
  } finally {
    await h.close();
  }
});

Deno.test("SSE cap: 100 accepted, the 101st refused, accepted again after one leaves", async () => {
  const h = start();
  const clients: Awaited<ReturnType<typeof sseClient>>[] = [];
  try {
    for (let i = 0; i < 100; i++) clients.push(await sseClient(h.url));
    assert.ok(clients.every((c) => c.res.status === 200));
    assert.equal(h.ctx.sse.active, 100);
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    assert.match(metrics, /^keeper_sse_active 100$/m);

    const refused = await fetch(`${h.url}/api/events`);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "5");
    assert.equal(refused.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(await refused.json(), {
      error: "too_many_sse_clients",
      limit: 100,
      active: 100,
    });
    // A HEAD does not take a slot and is not refused.
    const head = await fetch(`${h.url}/api/events`, { method: "HEAD" });
    assert.equal(head.status, 200);
    await head.body?.cancel();

    // Every accepted client still receives live lines.
    h.ctx.log.info("broadcast");
    await Promise.all(clients.map((c) => c.until((b) => b.includes("INFO broadcast"))));

    await clients.shift()!.close();
    await waitFor(() => h.ctx.sse.active === 99);
    const again = await sseClient(h.url);
    assert.equal(again.res.status, 200);
    clients.push(again);
    assert.equal(h.ctx.sse.active, 100);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await waitFor(() => h.ctx.sse.active === 0);
    await h.close();
  }
});

Deno.test("SSE: a client that stops reading is dropped; a reading client is not", async () => {
  const h = start({ sse: { maxQueuedEvents: 50 } });
  try {
    const reader = await sseClient(h.url);
    // A raw TCP client that never reads: socket buffers fill, then its stream queue grows.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: h.server.addr.port });
    await conn.write(new TextEncoder().encode("GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n"));
    await waitFor(() => h.ctx.sse.active === 2);
    const big = "x".repeat(4000);
    let n = 0;
    let lastId = 0;
    // Yield often, as a real keeper does between log lines, so the reading client keeps up.
    while (h.ctx.sse.active > 1 && n < 50_000) {
      lastId = h.ctx.log.log("info", `flood ${n++}`, { big })!.id;
      if (n % 10 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    assert.equal(h.ctx.sse.active, 1, "the non-reading client should have been dropped");
    assert.ok(n > 50, "dropped before its socket buffers could have filled");
    await reader.until((b) => b.includes(`id: ${lastId}\n`), 10_000);
    assert.equal(events(reader.text()).length, n, "the reading client lost lines");
    conn.close();
    await reader.close();
  } finally {
    await h.close();
  }
});

Deno.test("shutdown closes open SSE streams and the server", async () => {
  const h = start();
  const c = await sseClient(h.url);
  await c.until((b) => b.includes(": connected"));
  const closing = h.close();
  assert.equal(await c.ended(), true, "stream not closed by shutdown");
  await closing;
  assert.equal(h.ctx.sse.active, 0);
  await assert.rejects(fetch(`${h.url}/healthz`));
});

Deno.test("the secret appears in no log line, SSE event, API response or metric", async () => {
  const h = start();
  try {
    const c = await sseClient(h.url, { "last-event-id": "0" });
    populate(h.ctx);
    await c.until((b) => b.includes("attempt to leak"));
    const bodies = await Promise.all(
      ["/api/state?events=500", "/api/performance", "/metrics", "/healthz", "/nope"].map((p) =>
        fetch(`${h.url}${p}`).then((r) => r.text())
      ),
    );
    const everything = [...h.sunk, c.text(), ...bodies].join("\n");
    assert.ok(!everything.includes(SECRET), "secret leaked");
    assert.ok(everything.includes(REDACTED), "the redaction guard should have fired");
    assert.ok(h.sunk.every((l) => JSON.parse(l).operator === OPERATOR));
    await c.close();
  } finally {
    await h.close();
  }
});

/** Every key path of a JSON value (`a.b`, `list[].c`); arrays merge their elements. */
function keyPaths(v: unknown, prefix = "", out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) {
    for (const x of v) keyPaths(x, `${prefix}[]`, out);
  } else if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const p = prefix ? `${prefix}.${k}` : k;
      out.add(p);
      keyPaths(x, p, out);
    }
  }
  return out;
}

Deno.test("keeper/api/README.md: the JSON examples have exactly the fields the API returns", async () => {
  // The documented shapes are the contract with operators' scripts: a field added, renamed or
  // dropped in the code without the README (or the other way round) fails here.
  const doc = await Deno.readTextFile(new URL("./README.md", import.meta.url));
  const example = (path: string): unknown => {
    const at = doc.indexOf(`### \`GET ${path}\``);
    assert.ok(at >= 0, `README section for ${path}`);
    const m = doc.slice(at).match(/```json\n([\s\S]*?)\n```/);
    assert.ok(m, `a JSON example for ${path}`);
    return JSON.parse(m[1]);
  };
  const h = start();
  try {
    populate(h.ctx);
    const state = example("/api/state") as { keepers: unknown[] };
    const perf = example("/api/performance") as { keepers: unknown[] };
    // The performance example abbreviates its registry rows as "…same rows as /api/state…".
    assert.match(String(perf.keepers[0]), /same rows as \/api\/state/);
    perf.keepers = state.keepers;
    const examples: Record<string, unknown> = { "/api/state": state, "/api/performance": perf };
    for (const path of ["/api/state", "/api/performance"]) {
      const real = await (await fetch(`${h.url}${path}`)).json();
      const documented = keyPaths(examples[path]);
      const served = keyPaths(real);
      assert.ok(served.size > 20, `${path}: the populated response has content`);
      assert.deepEqual(
        [...served].filter((p) => !documented.has(p)),
        [],
        `${path}: returned but not in the README example`,
      );
      assert.deepEqual(
        [...documented].filter((p) => !served.has(p)),
        [],
        `${path}: in the README example but not returned`,
      );
    }
  } finally {
    await h.close();
  }
});
