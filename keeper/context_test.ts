import assert from "node:assert/strict";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { createKeeperContext, liquidationSentence, logFormat } from "./context.ts";
import { loadConfig } from "./config.ts";
import { Logger } from "./log/logger.ts";
import { validEnv } from "@vigil/testing/keeper/keeper_process";
import type { LiquidationRecord } from "./state.ts";

const USER = Keypair.random().publicKey();
const POOL = StrKey.encodeContract(new Uint8Array(32).fill(3));
const short = (a: string) => `${a.slice(0, 4)}…${a.slice(-4)}`;

function rec(over: Partial<LiquidationRecord>): LiquidationRecord {
  return {
    id: 1,
    adapter: "lending_pool",
    pool: POOL,
    user: USER,
    outcome: "filled",
    drew: 2_000_000_000n,
    proceeds: 4_052_145_678n,
    profit: 2_052_145_678n,
    responseTimeMs: 1200,
    txHash: "ab".repeat(32),
    ledger: 10,
    auctionBlock: 5,
    time: new Date(0),
    note: null,
    keeper: Keypair.random().publicKey(),
    keeperName: "keeper-1",
    ...over,
  };
}

Deno.test("liquidationSentence: one plain line per outcome, races worded as races", () => {
  assert.equal(
    liquidationSentence(rec({})),
    `keeper-1 filled ${short(USER)} on pool ${short(POOL)}: +205.21 USDC in 1 flash`,
  );
  assert.equal(
    liquidationSentence(rec({ outcome: "lost_race", profit: 0n, note: "ContractCallError …" })),
    `keeper-1 lost the race for ${short(USER)} on pool ${
      short(POOL)
    } to another keeper (our flash reverted, nothing lent)`,
  );
  assert.equal(
    liquidationSentence(
      rec({ outcome: "failed", profit: 0n, pool: null, note: "simulation failed" }),
    ),
    `keeper-1 could not liquidate ${short(USER)}: simulation failed`,
  );
  assert.match(
    liquidationSentence(rec({ note: "profit below the vault's min_fill_profit 10000000" })),
    /: \+205\.21 USDC in 1 flash \(profit below the vault's min_fill_profit 10000000\)$/,
  );
});

Deno.test("logFormat: LOG_FORMAT wins; else text on a terminal, JSON on a pipe", () => {
  assert.equal(logFormat("json", () => true), "json");
  assert.equal(logFormat("text", () => false), "text");
  assert.equal(logFormat(null, () => true), "text");
  assert.equal(logFormat(null, () => false), "json");
  assert.equal(
    logFormat(null, () => {
      throw new Error("no stderr");
    }),
    "json",
  );
});

Deno.test("recordCycle: an overrun is a warning only when liquidating does not explain it", async () => {
  const config = loadConfig({ ...validEnv(), POLL_INTERVAL: "3" });
  const log = new Logger({ sink: null, level: "debug" });
  const ctx = createKeeperContext(config, { log, defaultMetrics: false });
  const startedAt = new Date();
  ctx.recordCycle({ startedAt, durationMs: 1_000, errors: 0 });
  // Two fills, each waiting for its auction's block: 7 s, of which 6.5 s liquidating.
  ctx.recordCycle({ startedAt, durationMs: 7_000, errors: 0, liquidatingMs: 6_500 });
  // Slow without a reason: 5 s of which 1 s liquidating.
  ctx.recordCycle({ startedAt, durationMs: 5_000, errors: 0, liquidatingMs: 1_000 });
  const lines = log.recent().map((l) => [l.level, l.msg]);
  assert.deepEqual(lines, [
    ["debug", "cycle took longer than POLL_INTERVAL while liquidating"],
    ["warn", "cycle took longer than POLL_INTERVAL"],
  ]);
  // Both are overruns in the metric (cycles longer than POLL_INTERVAL).
  assert.match(await ctx.metrics.render(), /^keeper_cycle_overruns_total 2$/m);
});
