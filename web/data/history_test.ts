/**
 * The on-chain history maths without a network: the share-price series rebuilt backwards
 * from the current state equals the books after every event, the profit lock replayed forwards
 * equals the vault's (issue 20: a flash's profit unlocks linearly; shares are priced with the
 * unlocked capital, so that price never falls), depositor shares line up with it, liquidations
 * join the registry's response time, and the derived figures (series fallback, ranges,
 * liquidation rows) behave.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ChainEvent, ChainHistory, ProfitLockReplay } from "./history.ts";
import { liquidationRows, liquidationSummary, priceSeries, withinDays } from "./derive.ts";
import type { ApiPerformance } from "./api.ts";

const NET = { rpcUrl: "http://127.0.0.1:9/rpc", passphrase: "x" };
const A = "GA" + "A".repeat(54), B = "GB" + "B".repeat(54), K = "GK" + "K".repeat(54);
const MIN_LIQ = 1000n;

type Op =
  | { kind: "deposit"; who: 0 | 1; amount: bigint }
  | { kind: "withdraw"; who: 0 | 1; frac: number }
  | { kind: "liq"; drew: bigint; profit: bigint };

/**
 * Forward model of the vault's books emitting the contract's events, with its profit lock
 * (contracts/vault: locked(t) = ceil(amount·(until − t)/(until − from)); a new profit p with r
 * still locked unlocks over floor((r·(until − now) + p·U)/(r + p))) and shares priced with the
 * unlocked capital. `unlockSecs` U is announced by an `init` event unless `announce` is false.
 */
function simulate(ops: Op[], unlockSecs = 0n, announce = true) {
  const h = new ChainHistory(NET, "CV", "CR");
  let usdc = 0n, shares = 0n, seq = 0, t = 1_700_000_000_000;
  let lock = { amount: 0n, from: 0n, until: 0n };
  const lockedAt = (now: bigint) =>
    now >= lock.until || lock.amount === 0n
      ? 0n
      : (lock.amount * (lock.until - now) + (lock.until - lock.from) - 1n) /
        (lock.until - lock.from);
  const held = [0n, 0n];
  const truth: { usdc: bigint; shares: bigint; held: bigint[]; locked: bigint }[] = [];
  const ev = (e: Omit<ChainEvent, "id" | "ledger" | "time">) => {
    seq++;
    t += 60_000;
    h.record({ ...e, id: String(seq).padStart(19, "0") + "-0000000000", ledger: seq, time: t });
  };
  const secs = () => BigInt(t / 1000);
  if (announce) {
    ev({
      contract: "vault",
      name: "init",
      subject: null,
      data: ["GADMIN", "CUSDC", { profit_unlock_secs: unlockSecs }],
      txHash: "init",
    });
  }
  for (const op of ops) {
    // The event's ledger time (ev moves the clock first).
    const now = BigInt((t + 60_000) / 1000);
    const unlocked = usdc - lockedAt(now);
    if (op.kind === "deposit") {
      let minted: bigint;
      if (shares === 0n) {
        minted = op.amount - MIN_LIQ;
        if (minted <= 0n) continue;
        shares += MIN_LIQ;
      } else {
        if (unlocked <= 0n) continue;
        minted = (op.amount * shares) / unlocked;
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
      const out = (burn * unlocked) / shares;
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
      if (profit > 0n) {
        // The flash event comes after the registry's execution event: one more minute.
        const at = now + 60n;
        // What is still locked and the new profit unlock together, until max(old end, at + T).
        const total = lockedAt(at) + profit, end = at + unlockSecs;
        lock = { amount: total, from: at, until: lock.until > end ? lock.until : end };
      }
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
    truth.push({ usdc, shares, held: [...held], locked: lockedAt(secs()) });
  }
  return { h, usdc, shares, held, truth, t, locked: lockedAt(secs()), until: lock.until };
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

Deno.test("statePoints rebuilds the books and the profit lock after every event", () => {
  fc.assert(
    fc.property(
      fc.array(opArb, { minLength: 1, maxLength: 30 }),
      fc.constantFrom(0n, 90n, 150n, 600n),
      (ops, unlockSecs) => {
        const { h, usdc, shares, held, truth, t, locked, until } = simulate(ops, unlockSecs);
        const current = {
          total_usdc: usdc,
          total_shares: shares,
          total_profit: 0n,
          active_liq: 0n,
          locked_profit: locked,
          unlock_end: locked > 0n ? until : 0n,
        };
        const all = h.statePoints(current, t + 1);
        // Event points (and "now"); the rest are vertices where a lock ran out between events.
        const eventTimes = new Set(
          h.all().filter((e) => ["deposit", "withdraw", "flash"].includes(e.name)).map((e) =>
            e.time
          ),
        );
        const pts = all.filter((p, i) => eventTimes.has(p.time) || i === all.length - 1);
        const expected = truth.filter((s) => s.shares > 0n && s.usdc > 0n);
        assert.equal(pts.length, expected.length + (shares > 0n && usdc > 0n ? 1 : 0));
        expected.forEach((s, i) => {
          assert.equal(pts[i].total_usdc, s.usdc);
          assert.equal(pts[i].total_shares, s.shares);
          assert.equal(pts[i].locked_profit, s.locked, `locked at point ${i}`);
        });
        for (let i = 1; i < all.length; i++) assert.ok(all[i].time >= all[i - 1].time);
        // A vertex sits where the lock ran out: nothing locked there, books unchanged.
        for (const [i, p] of all.entries()) {
          if (eventTimes.has(p.time) || i === all.length - 1) continue;
          assert.equal(p.locked_profit, 0n);
          assert.equal(p.total_usdc, all[i - 1].total_usdc);
          assert.ok(all[i - 1].locked_profit > 0n);
        }
        // The price depositors get (unlocked capital per share) never falls.
        const prices = all.map((p) =>
          ((p.total_usdc - p.locked_profit) * 10n ** 7n) / p.total_shares
        );
        for (let i = 1; i < prices.length; i++) {
          assert.ok(prices[i] >= prices[i - 1], `price fell at point ${i}`);
        }
        // Depositor shares line up with the same points.
        const aShares = h.depositorShares(A, held[0], pts);
        const aTruth = expected.map((s) => s.held[0]);
        aTruth.forEach((v, i) => assert.equal(aShares[i], v));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("statePoints: a flash's profit reaches the price linearly; config events set the unlock time", () => {
  const ops: Op[] = [
    { kind: "deposit", who: 0, amount: 1_000_000_000n },
    { kind: "liq", drew: 100n, profit: 10_000_000n },
  ];
  // Unannounced unlock time: the caller's fallback (the vault's current config) is used.
  const { h, usdc, shares, t, locked, until } = simulate(ops, 300n, false);
  const current = {
    total_usdc: usdc,
    total_shares: shares,
    total_profit: 10_000_000n,
    active_liq: 0n,
    locked_profit: locked,
    unlock_end: until,
  };
  const now = t + 600_000; // 10 minutes after the flash: all unlocked
  const pts = h.statePoints({ ...current, locked_profit: 0n }, now, 300n);
  // deposit, flash (all locked: price unchanged), the lock's end (vertex), now.
  assert.deepEqual(pts.map((p) => p.locked_profit), [0n, 10_000_000n, 0n, 0n]);
  assert.equal(pts[2].time, t + 300_000);
  const price = (p: (typeof pts)[number]) =>
    ((p.total_usdc - p.locked_profit) * 10n ** 7n) / p.total_shares;
  assert.equal(price(pts[1]), price(pts[0]));
  assert.ok(price(pts[2]) > price(pts[1]));
  // Without the fallback the lock is unknown: the profit counts at once (the old behaviour).
  assert.equal(
    h.statePoints(current, now).slice(0, -1).find((p) => p.locked_profit > 0n),
    undefined,
  );

  // The replay follows set_config, config_queued (from its applies_at) and pending_cancelled.
  const r = new ProfitLockReplay(100n);
  r.observe({ name: "set_config", data: [{ profit_unlock_secs: 200n }] }, 10n);
  assert.equal(r.unlockSecs, 200n);
  r.observe({ name: "config_queued", data: [{ profit_unlock_secs: 50n }, 1000n] }, 20n);
  r.observe({ name: "flash", data: [1n, 11n, 10n] }, 30n);
  assert.equal(r.until, 230n, "the queued config is not in force before applies_at");
  r.observe({ name: "flash", data: [1n, 1n, 0n] }, 1000n);
  assert.equal(r.unlockSecs, 50n, "in force from applies_at");
  r.observe({ name: "config_queued", data: [{ profit_unlock_secs: 5n }, 2000n] }, 1500n);
  r.observe({ name: "pending_cancelled", data: [null] }, 1600n);
  r.observe({ name: "flash", data: [1n, 1n, 0n] }, 2500n);
  assert.equal(r.unlockSecs, 50n, "a cancelled change never applies");
  // Two profits: the rest still locked and the new one together, over the full unlock time.
  const two = new ProfitLockReplay(100n);
  two.lock(100n, 0n);
  assert.equal(two.lockedAt(50n), 50n);
  two.lock(50n, 50n);
  assert.deepEqual([two.amount, two.from, two.until], [100n, 50n, 50n + 100n]);
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

Deno.test("liquidation rows take the borrower and pool from the keeper API by tx hash", () => {
  const { h } = simulate([
    { kind: "deposit", who: 0, amount: 1_000_000n },
    { kind: "liq", drew: 200_000n, profit: 10_000n },
  ]);
  const chain = h.liquidations();
  const rows = liquidationRows(chain, [{
    outcome: "filled",
    user: "GUSER",
    pool: "CPOOL2",
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
  assert.equal(rows[0].pool, "CPOOL2");
  assert.equal(rows[0].drew, 200_000n);
  assert.equal(rows[0].responseTimeMs, 1234);
  assert.equal(rows[0].keeperName, "chain-name");
  assert.equal(liquidationRows(chain, null, new Map())[0].user, null);
  assert.equal(liquidationRows(chain, null, new Map())[0].pool, null);
});

Deno.test("priceSeries prefers the chain, falls back to the keeper API, never invents", () => {
  const perf: ApiPerformance = {
    sharePriceSeries: [
      { time: "2026-08-01T00:00:00Z", total_usdc: 100n, total_shares: 100n, locked_profit: 0n },
      { time: "2026-08-09T00:00:00Z", total_usdc: 112n, total_shares: 100n, locked_profit: 2n },
    ],
    liquidations: [],
    stats: null,
  };
  const chainPts = [
    { time: 1, ledger: 1, seq: 0, total_usdc: 100n, total_shares: 100n, locked_profit: 0n },
    { time: 2, ledger: 2, seq: 1, total_usdc: 101n, total_shares: 100n, locked_profit: 0n },
  ];
  assert.equal(priceSeries(chainPts, perf).source, "chain");
  assert.equal(priceSeries(chainPts.slice(0, 1), perf).source, "keeper");
  // The keeper's points are priced with the unlocked capital: (112 − 2) / 100.
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

Deno.test("every keeper's fill names its borrower: the pool's fill_auction of the same tx", async () => {
  const { nativeToScVal, Keypair, StrKey } = await import("@stellar/stellar-sdk");
  const { setRpcServer } = await import("@vigil/soroban/client");
  const net = { rpcUrl: "http://127.0.0.1:9/pool-fills", passphrase: "x" };
  const vault = StrKey.encodeContract(new Uint8Array(32).fill(1));
  const pool = StrKey.encodeContract(new Uint8Array(32).fill(2));
  const user = Keypair.random().publicKey(), filler = Keypair.random().publicKey();
  const sym = (s: string) => nativeToScVal(s, { type: "symbol" });
  const addr = (a: string) => nativeToScVal(a, { type: "address" });
  const u32 = (n: number) => nativeToScVal(n, { type: "u32" });
  const asked: unknown[] = [];
  const poolEvents = [
    // A liquidation fill (auction type 0) and a bad-debt auction fill (type 1) in another tx.
    { topic: [sym("fill_auction"), u32(0), addr(user)], value: [filler, 100], txHash: "tx1" },
    { topic: [sym("fill_auction"), u32(1), addr(user)], value: [filler, 100], txHash: "tx2" },
  ].map((e, i) => ({
    id: `000${i}`,
    contractId: pool,
    topic: e.topic,
    value: nativeToScVal(e.value, { type: ["address", "u32"] }),
    ledger: 10,
    ledgerClosedAt: "2026-01-01T00:00:00Z",
    txHash: e.txHash,
  }));
  setRpcServer(
    net.rpcUrl,
    {
      getHealth: () => Promise.resolve({ oldestLedger: 5, latestLedger: 20 }),
      getEvents: (req: { filters: { contractIds: string[]; topics?: string[][] }[] }) => {
        asked.push(req.filters);
        const forPool = req.filters[0].contractIds.includes(pool);
        return Promise.resolve({ events: forPool ? poolEvents : [], cursor: "c" });
      },
    } as unknown as Parameters<typeof setRpcServer>[1],
  );
  const h = new ChainHistory(net, vault, null);
  h.watchPools([pool]);
  await h.sync();
  assert.equal(h.lastError, null);
  assert.deepEqual(h.poolFill("tx1"), { pool, user, filler, txHash: "tx1" });
  assert.equal(h.poolFill("tx2"), null, "only liquidation auctions");
  // One filter for the pools, on the fill_auction topic only.
  const poolFilter = (asked[1] as { contractIds: string[]; topics: string[][] }[])[0];
  assert.deepEqual(poolFilter.contractIds, [pool]);
  assert.equal(poolFilter.topics[0][0], sym("fill_auction").toXDR("base64"));
  // The rows take it for any keeper, before the keeper API's record.
  const rows = liquidationRows(
    [{
      keeper: K,
      drew: 1n,
      proceeds: 2n,
      profit: 1n,
      loss: 0n,
      executor: null,
      responseTimeMs: null,
      txHash: "tx1",
      ledger: 10,
      time: 0,
    }],
    null,
    new Map(),
    (tx) => h.poolFill(tx),
  );
  assert.equal(rows[0].user, user);
  assert.equal(rows[0].pool, pool);
});

Deno.test("attemptSummary counts a keeper's attempts by outcome; lost races worded as races", async () => {
  const { attemptSummary, outcomeText } = await import("./derive.ts");
  const a = (outcome: string) => ({
    outcome,
    user: null,
    pool: null,
    drew: null,
    proceeds: null,
    profit: null,
    response_time_ms: null,
    tx_hash: null,
    ledger: null,
    time: null,
    keeper: null,
    keeper_name: null,
  });
  assert.deepEqual(
    attemptSummary(["filled", "lost_race", "lost_race", "failed", "held"].map(a)),
    { attempts: 5, filled: 2, lostRaces: 2, failed: 1 },
  );
  assert.match(outcomeText("lost_race"), /lost the race \(another keeper filled first/);
});

Deno.test("history keeps reading past a sparse stretch: the RPC scans 10,000 ledgers a request", async () => {
  const { cursorLedger, moreToRead } = await import("./history.ts");
  const at = (ledger: number) =>
    `${(BigInt(ledger) << 32n | 0xfffff_fffn).toString().padStart(19, "0")}-4294967295`;
  assert.equal(cursorLedger(at(12_345)), 12_345);
  assert.equal(cursorLedger("nonsense"), null);
  // A scan that ended partway with no events: read on.
  assert.equal(moreToRead({ events: [], cursor: at(10_000), latestLedger: 50_000 }, 1000), true);
  // At the latest ledger with a short page: done.
  assert.equal(moreToRead({ events: [1], cursor: at(50_000), latestLedger: 50_000 }, 1000), false);
  // A full page: read on whatever the cursor.
  assert.equal(moreToRead({ events: new Array(1000), cursor: "x" }, 1000), true);
});
