/**
 * The on-chain history maths without a network: the share-price series rebuilt backwards
 * from the current state equals the books after every event, depositor shares line up with
 * it, liquidations join the registry's response time, and the derived figures (series
 * fallback, ranges, liquidation rows) behave.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ChainEvent, ChainHistory } from "../../lib/history.ts";
import { liquidationRows, liquidationSummary, priceSeries, withinDays } from "../../lib/derive.ts";
import type { ApiPerformance } from "../../lib/api.ts";

const NET = { rpcUrl: "http://127.0.0.1:9/rpc", passphrase: "x" };
const A = "GA" + "A".repeat(54), B = "GB" + "B".repeat(54), K = "GK" + "K".repeat(54);
const MIN_LIQ = 1000n;

type Op =
  | { kind: "deposit"; who: 0 | 1; amount: bigint }
  | { kind: "withdraw"; who: 0 | 1; frac: number }
  | { kind: "liq"; drew: bigint; profit: bigint };

/** Forward model of the vault's books emitting the contract's events. */
function simulate(ops: Op[]) {
  const h = new ChainHistory(NET, "CV", "CR");
  let usdc = 0n, shares = 0n, seq = 0, t = 1_700_000_000_000;
  const held = [0n, 0n];
  const truth: { usdc: bigint; shares: bigint; held: bigint[] }[] = [];
  const ev = (e: Omit<ChainEvent, "id" | "ledger" | "time">) => {
    seq++;
    t += 60_000;
    h.record({ ...e, id: String(seq).padStart(19, "0") + "-0000000000", ledger: seq, time: t });
  };
  for (const op of ops) {
    if (op.kind === "deposit") {
      let minted: bigint;
      if (shares === 0n) {
        minted = op.amount - MIN_LIQ;
        if (minted <= 0n) continue;
        shares += MIN_LIQ;
      } else {
        minted = (op.amount * shares) / usdc;
        if (minted === 0n) continue;
      }
      shares += minted;
      usdc += op.amount;
      held[op.who] += minted;
      ev({
        contract: "vault",
        name: "deposit",
        subject: [A, B][op.who],
        data: [op.amount, minted],
        txHash: `d${seq}`,
      });
    } else if (op.kind === "withdraw") {
      const burn = (held[op.who] * BigInt(Math.round(op.frac * 100))) / 100n;
      if (burn === 0n) continue;
      const out = (burn * usdc) / shares;
      if (out === 0n) continue;
      held[op.who] -= burn;
      shares -= burn;
      usdc -= out;
      ev({
        contract: "vault",
        name: "withdraw",
        subject: [A, B][op.who],
        data: [burn, out],
        txHash: `w${seq}`,
      });
    } else {
      if (shares === 0n || op.drew > usdc) continue;
      // One flash transaction: the registry's execution and the vault's flash event.
      const profit = op.profit;
      usdc = usdc + profit;
      const tx = `f${seq + 1}`;
      ev({
        contract: "registry",
        name: "execution",
        subject: K,
        data: [true, profit, 1234n, 1n],
        txHash: tx,
      });
      ev({
        contract: "vault",
        name: "flash",
        subject: K,
        data: [op.drew, op.drew + profit, profit, "CEXECUTOR"],
        txHash: tx,
      });
    }
    truth.push({ usdc, shares, held: [...held] });
  }
  return { h, usdc, shares, held, truth, t };
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("deposit" as const),
    who: fc.constantFrom(0 as const, 1 as const),
    amount: fc.bigInt({ min: 1n, max: 10n ** 12n }),
  }),
  fc.record({
    kind: fc.constant("withdraw" as const),
    who: fc.constantFrom(0 as const, 1 as const),
    frac: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({
    kind: fc.constant("liq" as const),
    drew: fc.bigInt({ min: 1n, max: 10n ** 10n }),
    profit: fc.bigInt({ min: 0n, max: 10n ** 10n }),
  }),
);

Deno.test("statePoints rebuilds the books after every event from the current state", () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), (ops) => {
      const { h, usdc, shares, held, truth, t } = simulate(ops);
      const current = { total_usdc: usdc, total_shares: shares, total_profit: 0n, active_liq: 0n };
      const pts = h.statePoints(current, t + 1);
      const expected = truth.filter((s) => s.shares > 0n && s.usdc > 0n);
      // One point per book-changing event plus "now".
      assert.equal(pts.length, expected.length + (shares > 0n && usdc > 0n ? 1 : 0));
      expected.forEach((s, i) => {
        assert.equal(pts[i].total_usdc, s.usdc);
        assert.equal(pts[i].total_shares, s.shares);
      });
      for (let i = 1; i < pts.length; i++) assert.ok(pts[i].time >= pts[i - 1].time);
      // Depositor shares line up with the same points.
      const aShares = h.depositorShares(A, held[0], pts);
      const aTruth = truth.filter((s) => s.shares > 0n && s.usdc > 0n).map((s) => s.held[0]);
      aTruth.forEach((v, i) => assert.equal(aShares[i], v));
    }),
    { numRuns: 300 },
  );
});

Deno.test("liquidations come from vault flash events, with the registry's response time", () => {
  const { h } = simulate([
    { kind: "deposit", who: 0, amount: 1_000_000n },
    { kind: "liq", drew: 200_000n, profit: 10_000n },
    { kind: "liq", drew: 100_000n, profit: 0n },
  ]);
  const l = h.liquidations();
  assert.equal(l.length, 2);
  // Newest first; a flash never books a loss.
  assert.deepEqual([l[0].drew, l[0].proceeds, l[0].profit, l[0].loss], [
    100_000n,
    100_000n,
    0n,
    0n,
  ]);
  assert.equal(l[0].executor, "CEXECUTOR");
  assert.deepEqual([l[1].drew, l[1].proceeds, l[1].profit, l[1].loss], [
    200_000n,
    210_000n,
    10_000n,
    0n,
  ]);
  assert.equal(l[1].responseTimeMs, 1234);
  assert.equal(liquidationSummary(l).profit, 10_000n);
  assert.equal(liquidationSummary([]).avgProfit, null);
  // Depositor history: only that address's deposits/withdrawals.
  assert.equal(h.depositorHistory(A).length, 1);
  assert.equal(h.depositorHistory(B).length, 0);
});

Deno.test("liquidation rows take the borrower from the keeper API by tx hash", () => {
  const { h } = simulate([
    { kind: "deposit", who: 0, amount: 1_000_000n },
    { kind: "liq", drew: 200_000n, profit: 10_000n },
  ]);
  const chain = h.liquidations();
  const rows = liquidationRows(chain, [{
    outcome: "filled",
    user: "GUSER",
    pool: null,
    drew: 1n, // the chain's figures win over the API's
    proceeds: 1n,
    profit: 1n,
    response_time_ms: 99,
    tx_hash: chain[0].txHash,
    ledger: null,
    time: null,
    keeper: K,
    keeper_name: "api-name",
  }], new Map([[K, "chain-name"]]));
  assert.equal(rows[0].user, "GUSER");
  assert.equal(rows[0].drew, 200_000n);
  assert.equal(rows[0].responseTimeMs, 1234);
  assert.equal(rows[0].keeperName, "chain-name");
  assert.equal(liquidationRows(chain, null, new Map())[0].user, null);
});

Deno.test("priceSeries prefers the chain, falls back to the keeper API, never invents", () => {
  const perf: ApiPerformance = {
    sharePriceSeries: [
      { time: "2026-08-01T00:00:00Z", total_usdc: 100n, total_shares: 100n },
      { time: "2026-08-09T00:00:00Z", total_usdc: 110n, total_shares: 100n },
    ],
    liquidations: [],
    stats: null,
  };
  const chainPts = [
    { time: 1, ledger: 1, seq: 0, total_usdc: 100n, total_shares: 100n },
    { time: 2, ledger: 2, seq: 1, total_usdc: 101n, total_shares: 100n },
  ];
  assert.equal(priceSeries(chainPts, perf).source, "chain");
  assert.equal(priceSeries(chainPts.slice(0, 1), perf).source, "keeper");
  assert.equal(priceSeries(null, perf).points[1].price, 11_000_000n);
  assert.deepEqual(priceSeries(null, null), { points: [], source: "none" });
  const one = priceSeries(chainPts.slice(0, 1), null);
  assert.equal(one.points.length, 1);

  const day = 86_400_000;
  const pts = [0, 5, 20, 29].map((d) => ({ t: d * day, price: 10_000_000n + BigInt(d) }));
  const last7 = withinDays(pts, 7, 29 * day);
  // The point in force at the range start is kept (moved to the start), then the rest.
  assert.deepEqual(last7.map((p) => p.t), [22 * day, 29 * day]);
  assert.equal(last7[0].price, 10_000_020n);
  assert.equal(withinDays(pts, null, 29 * day).length, 4);
});
