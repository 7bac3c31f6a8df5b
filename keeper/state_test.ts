import assert from "node:assert/strict";
import {
  addSharePricePoint,
  createState,
  listPositions,
  positionCounts,
  recordLiquidation,
  setPositions,
  setVault,
  sharePriceUnits,
} from "./state.ts";

const base = () => createState({ name: "k", address: "GSELF", mode: "liquidation" });
const liq = (over: Partial<Parameters<typeof recordLiquidation>[1]> = {}) => ({
  adapter: "lending_pool",
  pool: "CPOOL",
  user: "GUSER",
  outcome: "filled" as const,
  drew: 100n,
  proceeds: 130n,
  responseTimeMs: 1200,
  txHash: "ab",
  ledger: 7,
  time: new Date("2026-01-01T00:00:00Z"),
  ...over,
});

Deno.test("recordLiquidation derives profit from the outcome, never from the caller", () => {
  const s = base();
  assert.equal(recordLiquidation(s, liq()).profit, 30n);
  assert.equal(recordLiquidation(s, liq({ proceeds: 90n })).profit, 0n); // a loss books 0
  assert.equal(recordLiquidation(s, liq({ outcome: "lost_race", proceeds: 100n })).profit, 0n);
  assert.equal(recordLiquidation(s, liq({ outcome: "held", proceeds: 0n })).profit, 0n);
  assert.equal(recordLiquidation(s, liq({ outcome: "failed", proceeds: 0n })).profit, 0n);
  const st = s.stats;
  assert.equal(st.fills, 3); // filled ×2 + held
  assert.equal(st.held, 1);
  assert.equal(st.lostRaces, 1);
  assert.equal(st.failed, 1);
  assert.equal(st.totalDrew, 300n);
  assert.equal(st.totalProceeds, 220n);
  assert.equal(st.totalProfit, 30n);
  assert.equal(st.responseTimeSumMs, 3600);
  assert.deepEqual(s.liquidations.map((r) => r.id), [1, 2, 3, 4, 5]);
  assert.equal(s.liquidations[0].keeper, "GSELF");
  assert.throws(() => recordLiquidation(s, liq({ drew: -1n })), RangeError);
});

Deno.test("liquidation history is bounded, keeping the newest", () => {
  const s = createState({ name: "k", address: "G", mode: "liquidation", maxLiquidations: 3 });
  for (let i = 0; i < 5; i++) recordLiquidation(s, liq());
  assert.deepEqual(s.liquidations.map((r) => r.id), [3, 4, 5]);
  assert.equal(s.stats.fills, 5);
});

Deno.test("positions: non-finite health factors become null; order riskiest first", () => {
  const s = base();
  const at = new Date();
  const p = (user: string, hf: number | null) => ({
    pool: "X",
    user,
    healthFactor: hf,
    collateralValue: null,
    liabilitiesValue: null,
    auction: null,
    updatedAt: at,
  });
  setPositions(s, "CPOOL", [p("A", 1.5), p("B", Infinity), p("C", 0.4), p("D", NaN), p("E", 0.99)]);
  const list = listPositions(s);
  assert.deepEqual(list.map((x) => x.user), ["C", "E", "A", "B", "D"]);
  assert.deepEqual(list.map((x) => x.healthFactor), [0.4, 0.99, 1.5, null, null]);
  assert.ok(list.every((x) => x.pool === "CPOOL"));
  assert.deepEqual(positionCounts(s), { tracked: 5, withDebt: 3, underwater: 2 });
  setPositions(s, "CPOOL", [p("A", 0.9)]);
  assert.deepEqual(positionCounts(s), { tracked: 1, withDebt: 1, underwater: 1 });
});

Deno.test("share-price series: a point on change or after the flat gap, sorted, bounded", () => {
  const s = createState({
    name: "k",
    address: "G",
    mode: "monitor",
    sharePriceFlatGapMs: 1000,
    maxSharePricePoints: 4,
  });
  const v = (usdc: bigint, shares: bigint, t: number, locked = 0n) => ({
    totalUsdc: usdc,
    totalShares: shares,
    totalProfit: 0n,
    activeLiq: 0n,
    lockedProfit: locked,
    unlockEnd: locked > 0n ? new Date(t + 300_000) : null,
    ledger: t,
    readAt: new Date(t),
  });
  setVault(s, v(100n, 100n, 0));
  setVault(s, v(200n, 200n, 500)); // same price, within the gap: no point
  assert.equal(s.sharePrice.length, 1);
  setVault(s, v(200n, 200n, 1000)); // same price, gap elapsed: point
  setVault(s, v(210n, 200n, 1100)); // price changed: point
  assert.deepEqual(s.sharePrice.map((p) => p.time.getTime()), [0, 1000, 1100]);
  addSharePricePoint(s, {
    time: new Date(50),
    totalUsdc: 1n,
    totalShares: 1n,
    lockedProfit: 0n,
    ledger: null,
  });
  assert.deepEqual(s.sharePrice.map((p) => p.time.getTime()), [0, 50, 1000, 1100]);
  setVault(s, v(220n, 200n, 1200));
  assert.deepEqual(s.sharePrice.map((p) => p.time.getTime()), [50, 1000, 1100, 1200]);
  assert.equal(s.vault?.totalUsdc, 220n);
  const before = s.version;
  setVault(s, v(220n, 200n, 1300));
  assert.ok(s.version > before);
  // Issue 20: a flash's profit arrives locked — the share price (unlocked capital per share)
  // does not move, so no point; it moves as the profit unlocks.
  setVault(s, v(240n, 200n, 1350, 20n));
  assert.equal(s.sharePrice.at(-1)?.time.getTime(), 1200);
  setVault(s, v(240n, 200n, 1400, 10n));
  assert.equal(s.sharePrice.at(-1)?.time.getTime(), 1400);
  assert.equal(s.sharePrice.at(-1)?.lockedProfit, 10n);
});

Deno.test("sharePriceUnits floors and is null without shares", () => {
  assert.equal(sharePriceUnits(0n, 0n), null);
  assert.equal(sharePriceUnits(625960334n, 600000000n), 10432672n);
  assert.equal(sharePriceUnits(1n, 3n), 3333333n);
});
