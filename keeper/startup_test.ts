/**
 * `recordResult` switches on the typed outcome: liquidation attempts go to the dashboard (with the
 * fill's ledger and auction block, a lost race's error as the note), everything else to one log
 * line whose JSON is the one the keeper has always written.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { contractId, validEnv } from "@vigil/testing/keeper/keeper_process";
import { type Adapter, noCapitalResult, type Result, type Task } from "./adapters/adapter.ts";
import { loadConfig } from "./config.ts";
import { createKeeperContext } from "./context.ts";
import { Logger } from "./log/logger.ts";
import {
  defaultLiquidator,
  liquidationOutcome,
  neverLiquidates,
  pendingPolicyWarning,
  recordResult,
  waitsForLedgers,
  WallTime,
} from "./startup.ts";

const POOL = contractId(3);
const USER = Keypair.random().publicKey();
const T = new Date("2026-03-01T12:00:00.000Z");

function harness() {
  const config = loadConfig({
    ...validEnv(Keypair.random().secret()),
    LENDING_POOL: POOL,
    USDC_CONTRACT: contractId(4),
  });
  const sunk: string[] = [];
  const log = new Logger({ sink: (l) => sunk.push(l), level: "debug", now: () => T, idBase: 0 });
  const ctx = createKeeperContext(config, { log, defaultMetrics: false });
  return { ctx, sunk };
}

const named = (name: string) => ({ name: () => name }) as Adapter;
const task: Task = { priority: 5, estProfit: 0, data: null, label: "the-label" };

Deno.test("a filled liquidation is recorded with the fill's ledger and auction block", () => {
  const { ctx } = harness();
  const r: Result = {
    drew: 100n,
    proceeds: 130n,
    profit: 30n,
    responseTimeMs: 7,
    txHash: "ab12",
    outcome: {
      status: "filled",
      user: USER,
      percent: 50,
      auctionBlock: 1000,
      fillLedger: 1230,
      targetBlock: 1230,
      ratio: 1.2,
      swaps: 0,
    },
  };
  recordResult(ctx, named("lending_pool"), task, r);
  const [rec] = ctx.state.liquidations;
  assert.equal(rec.outcome, "filled");
  assert.equal(rec.user, USER);
  assert.equal(rec.ledger, 1230);
  assert.equal(rec.auctionBlock, 1000);
  assert.equal(rec.txHash, "ab12");
  assert.equal(rec.profit, 30n);
  assert.equal(rec.note, null);
  assert.equal(ctx.state.stats.fills, 1);
});

Deno.test("a lost race is recorded with its error as the note; a failure without a user takes the task's label", () => {
  const { ctx } = harness();
  recordResult(
    ctx,
    named("lending_pool"),
    task,
    noCapitalResult({ status: "lost_race", user: USER, error: "gone" }, { responseTimeMs: 4 }),
  );
  recordResult(ctx, named("lending_pool"), task, noCapitalResult({ status: "failed" }));
  const [lost, failed] = ctx.state.liquidations;
  assert.deepEqual(
    [lost.outcome, lost.user, lost.note, lost.ledger, lost.responseTimeMs],
    ["lost_race", USER, "gone", null, 4],
  );
  assert.deepEqual([failed.outcome, failed.user, failed.note], ["failed", "the-label", null]);
  assert.equal(ctx.state.stats.lostRaces, 1);
  assert.equal(ctx.state.stats.failed, 1);
});

Deno.test("skips, waits and rebalances are log lines, byte for byte as before", () => {
  const { ctx, sunk } = harness();
  const skip = noCapitalResult({
    status: "skipped",
    user: USER,
    reason: { kind: "unprofitable", simulatedProfit: 0n },
  });
  recordResult(ctx, named("lending_pool"), task, skip);
  recordResult(
    ctx,
    named("lending_pool"),
    task,
    noCapitalResult({ status: "waiting", reason: { kind: "never_profitable", ratioNow: 0.25 } }),
  );
  recordResult(
    ctx,
    named("allocation"),
    task,
    noCapitalResult({ status: "rebalanced", asset: "CA", driftBps: 1500, instructions: 2 }, {
      txHash: "cd34",
    }),
  );
  assert.equal(ctx.state.liquidations.length, 0);
  const lines = sunk.map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [
    ["debug", "lending_pool: skipped"],
    ["debug", "lending_pool: waiting"],
    ["info", "allocation: rebalanced"],
  ]);
  // Every line now also ends with its plain sentence (here, the message): the fields are as before.
  assert.deepEqual(lines.map((l) => l.plain), lines.map((l) => l.msg));
  const rest = (l: Record<string, unknown>) => {
    const { ts: _t, level: _l, msg: _m, id: _i, keeper: _k, operator: _o, plain: _p, ...f } = l;
    return JSON.stringify(f);
  };
  assert.equal(
    rest(lines[0]),
    JSON.stringify({
      adapter: "lending_pool",
      task: "the-label",
      status: "skipped",
      user: USER,
      reason: "simulated flash profit not positive",
      simulated_profit: "0",
    }),
  );
  assert.equal(
    rest(lines[1]),
    JSON.stringify({
      adapter: "lending_pool",
      task: "the-label",
      status: "waiting",
      reason: "never clears MIN_PROFIT (or unpriced)",
      ratio_now: 0.25,
    }),
  );
  assert.equal(
    rest(lines[2]),
    JSON.stringify({
      adapter: "allocation",
      task: "the-label",
      status: "rebalanced",
      tx_hash: "cd34",
      asset: "CA",
      drift_bps: 1500,
      instructions: 2,
    }),
  );
});

Deno.test("only filled, lost_race and failed are liquidation outcomes", () => {
  assert.equal(liquidationOutcome({ status: "failed" }), "failed");
  assert.equal(
    liquidationOutcome({ status: "skipped", reason: { kind: "auction_vanished" } }),
    undefined,
  );
  assert.equal(
    liquidationOutcome({ status: "waiting", reason: { kind: "never_profitable", ratioNow: 1 } }),
    undefined,
  );
});

Deno.test("several pools: each record, log line and metric names the adapter's pool; a fill is notified", async () => {
  const POOL2 = contractId(7);
  const config = loadConfig({
    ...validEnv(Keypair.random().secret()),
    LENDING_POOLS: `${POOL},${POOL2}`,
    USDC_CONTRACT: contractId(4),
  });
  const sunk: string[] = [];
  const notes: string[] = [];
  const log = new Logger({ sink: (l) => sunk.push(l), level: "debug", now: () => T, idBase: 0 });
  const ctx = createKeeperContext(config, {
    log,
    defaultMetrics: false,
    notifier: { notify: (n) => void notes.push(`${n.kind}: ${n.text}`), close: async () => {} },
  });
  const inPool2 = { name: () => "lending_pool", pool: POOL2 } as Adapter;
  recordResult(ctx, inPool2, task, {
    drew: 100n,
    proceeds: 130n,
    profit: 30n,
    responseTimeMs: 7,
    txHash: "cd34",
    outcome: {
      status: "filled",
      user: USER,
      percent: 50,
      auctionBlock: 10,
      fillLedger: 20,
      targetBlock: 20,
      ratio: 1.2,
      swaps: 1,
    },
  });
  recordResult(
    ctx,
    inPool2,
    task,
    noCapitalResult({
      status: "skipped",
      user: USER,
      reason: { kind: "own_position" },
    }),
  );
  assert.equal(ctx.state.liquidations[0].pool, POOL2);
  const lines = sunk.map((l) => JSON.parse(l));
  assert.equal(lines.find((l) => String(l.msg).startsWith("liquidation filled"))?.pool, POOL2);
  assert.equal(lines.find((l) => l.status === "skipped")?.pool, POOL2);
  const metrics = await ctx.metrics.render();
  assert.ok(metrics.includes(`keeper_liquidations_total{pool="${POOL2}"} 1`), metrics);
  assert.equal(notes.length, 1);
  assert.match(notes[0], new RegExp(`^fill: liquidation filled on pool ${POOL2}: ${USER}, .*cd34`));
});

Deno.test("LIQUIDATOR_CONTRACT default: the policy's only executor, named in a warning; else none", () => {
  const { ctx, sunk } = harness();
  const E1 = contractId(21), E2 = contractId(22);
  assert.equal(defaultLiquidator(ctx, { executors: [E1] }), E1);
  assert.match(JSON.parse(sunk.at(-1)!).msg, new RegExp(`using ${E1}, the only executor`));
  assert.equal(defaultLiquidator(ctx, { executors: [E1, E2] }), null);
  assert.match(JSON.parse(sunk.at(-1)!).msg, /lists 2 executors: set it to one of them/);
  assert.equal(defaultLiquidator(ctx, { executors: [] }), null);
  assert.equal(defaultLiquidator(ctx, undefined), null);
  assert.match(JSON.parse(sunk.at(-1)!).msg, /could not be read/);
});

Deno.test("a queued policy that de-lists any one of the keeper's pools is warned about", () => {
  const POOL2 = contractId(7), LIQ = contractId(8);
  const pending = (pools: string[]) => ({
    appliesAt: 1_800_000_000n,
    value: { executors: [LIQ], max_slippage_bps: 300, pools, routers: [], tokens: [] },
  });
  const cfg = { lendingPools: [POOL, POOL2], liquidatorContract: LIQ };
  assert.equal(pendingPolicyWarning(cfg, pending([POOL, POOL2])), null);
  assert.match(pendingPolicyWarning(cfg, pending([POOL]))!, new RegExp(`${POOL2} is not a pool`));
  assert.equal(pendingPolicyWarning({ ...cfg, liquidatorContract: null }, pending([])), null);
});

Deno.test("neverLiquidates: each reason a configured keeper would never liquidate", () => {
  const liq = contractId(5);
  const policy = {
    executors: [liq],
    max_slippage_bps: 300,
    pools: [POOL],
    routers: [],
    tokens: [],
  };
  const cfg = { usdcContract: contractId(4), dryRun: false, lendingPools: [POOL] };
  assert.deepEqual(neverLiquidates(cfg, liq, policy), []);
  assert.deepEqual(neverLiquidates({ ...cfg, usdcContract: null }, null, policy), [
    "USDC_CONTRACT is empty",
  ]);
  assert.match(neverLiquidates(cfg, null, policy).join(), /^no liquidator \(LIQUIDATOR_CONTRACT/);
  assert.deepEqual(neverLiquidates({ ...cfg, lendingPools: [contractId(6)] }, liq, policy), [
    "none of LENDING_POOLS is allowed by the vault's flash policy",
  ]);
  // One pool of two allowed: it can liquidate there (the other pool has its own warning).
  assert.deepEqual(
    neverLiquidates({ ...cfg, lendingPools: [contractId(6), POOL] }, liq, policy),
    [],
  );
  assert.deepEqual(neverLiquidates({ ...cfg, dryRun: true }, liq, policy), [
    "DRY_RUN=true (transactions are simulated, never sent)",
  ]);
});

Deno.test("WallTime: overlapping task intervals count once (tasks run side by side)", () => {
  const w = new WallTime();
  assert.equal(w.ms(), 0);
  w.add(0, 100);
  w.add(50, 100); // overlaps the first: 0–150
  w.add(120, 10); // inside
  w.add(200, 50); // apart: 200–250
  assert.equal(w.ms(), 200);
});

Deno.test("waitsForLedgers: liquidations and their waits and skips count; rebalances, bad debt and early skips don't", () => {
  assert.equal(
    waitsForLedgers({ status: "waiting", reason: { kind: "below_min_profit_at_landing" } }),
    true,
  );
  assert.equal(waitsForLedgers({ status: "lost_race", user: "G", error: "x" }), true);
  assert.equal(
    waitsForLedgers({
      status: "skipped",
      user: "G",
      reason: { kind: "min_profit_reverted", txHash: null },
    }),
    true,
  );
  assert.equal(waitsForLedgers({ status: "skipped", reason: { kind: "own_position" } }), false);
});
