/**
 * The market scenario: everything deployed and wired (ids, DEX prices in line with the oracle,
 * allocation vault seeded and drifted), `localnet_shock` over JSON-RPC (price moves, borrowers go
 * underwater for the Blend SDK, validation), and `seedBorrowers` (positions at the intended
 * health factors, discoverable from pool events).
 */
import assert from "node:assert/strict";
import { scValToNative } from "@stellar/stellar-sdk";
import { PoolV2, PositionsEstimate } from "@blend-capital/blend-sdk";
import {
  type MarketFixture,
  rpcCall,
  withMarket,
} from "@vigil/testing/protocols/lending_pool_helpers";
import { MARKET_PRICES, seedBorrowers } from "./market.ts";

const E7 = 10_000_000n;

Deno.test("deployMarket: every contract id, DEX prices at the oracle's, allocation vault seeded", async () => {
  await withMarket({}, async ({ node, market, base }) => {
    const c = market.contracts;
    for (
      const name of [
        "lending_pool",
        "oracle",
        "primary_dex_router",
        "fallback_dex_router",
        "allocation_vault",
        "usdc",
        "xlm",
        "weth",
      ]
    ) {
      assert.match(c[name] ?? "", /^C[A-Z2-7]{55}$/, name);
    }
    assert.equal(c.usdc, base.contracts.usdc);
    assert.equal(c.xlm, base.contracts.xlm);
    assert.equal(new Set(Object.values(c)).size, Object.values(c).length, "distinct ids");
    for (const a of Object.values(market.accounts)) {
      assert.match(a.public, /^G[A-Z2-7]{55}$/);
      assert.match(a.secret, /^S[A-Z2-7]{55}$/);
    }
    assert.equal(market.borrowers.length, 7);
    const collateralKinds = new Set(market.borrowers.flatMap((b) => Object.keys(b.collateral)));
    assert.deepEqual([...collateralKinds].sort(), ["usdc", "weth", "xlm"]);

    // The primary router quotes 1 WETH close to the oracle's $3000 (0.3 % fee + tiny impact).
    const quote = await node.view<bigint[]>(c.primary_dex_router, "router_get_amounts_out", {
      amount_in: E7,
      path: [c.weth, c.usdc],
    });
    const out = quote.at(-1)!;
    assert.ok(out < MARKET_PRICES.weth && out > (MARKET_PRICES.weth * 99n) / 100n, `quote ${out}`);

    // The allocation vault holds the 100k USDC seed, idle (drifted from its 60/40 targets).
    // deno-lint-ignore no-explicit-any
    const funds = await node.view<any[]>(c.allocation_vault, "fetch_total_managed_funds", []);
    assert.equal(funds[0].asset, c.usdc);
    assert.equal(funds[0].total_amount, 100_000n * E7);
    assert.equal(funds[0].idle_amount, 100_000n * E7);
  });
});

Deno.test("localnet_shock moves the oracle price over JSON-RPC and validates its params; 3 pools, each shocked under water", async () => {
  const opts = { dex: false, allocationVault: false, pools: 3 };
  await withMarket(opts, async ({ node, market, network }) => {
    const c = market.contracts;
    await checkExtraPools(node, market, network);
    const before = await PoolV2.load(network, c.lending_pool);
    const victim = market.borrowers.find((b) => b.name === "borrower_weth_1")!; // HF 1.08
    const hfOf = async () => {
      const pool = await PoolV2.load(network, c.lending_pool);
      const oracle = await pool.loadOracle();
      const est = PositionsEstimate.build(
        pool,
        oracle,
        (await pool.loadUser(victim.public)).positions,
      );
      return est.totalEffectiveCollateral / est.totalEffectiveLiabilities;
    };
    assert.ok((await hfOf()) > 1);
    const r = await rpcCall<{ asset: string; previous: string; price: string; decimals: number }>(
      node,
      "localnet_shock",
      { asset: c.weth, bps: -1000 },
    );
    assert.equal(r.asset, c.weth);
    assert.equal(BigInt(r.previous), MARKET_PRICES.weth);
    assert.equal(BigInt(r.price), 2700n * E7);
    assert.equal(r.decimals, 7);
    assert.ok((await hfOf()) < 1, "10 % down puts the 1.08 WETH borrower underwater");
    // Up again: compounding from the new price.
    const up = await rpcCall<{ price: string }>(node, "localnet_shock", {
      asset: c.weth,
      bps: 500,
    });
    assert.equal(BigInt(up.price), 2835n * E7);
    assert.ok(before.reserves.size === 3);

    for (
      const bad of [
        { asset: c.weth, bps: -10000 },
        { asset: c.weth, bps: 1.5 },
        { asset: "GABC", bps: -10 },
        { asset: market.accounts.market_admin.public, bps: -10 },
        { bps: -10 },
      ]
    ) {
      await assert.rejects(() => rpcCall(node, "localnet_shock", bad), JSON.stringify(bad));
    }
    // An asset the oracle does not price
    await assert.rejects(() =>
      rpcCall(node, "localnet_shock", { asset: c.lending_pool, bps: -10 })
    );
  });
});

Deno.test("seedBorrowers: many borrowers at HFs in [1.02, 2), discoverable from pool events; per pool", async () => {
  const opts = { dex: false, allocationVault: false, pools: 2 };
  await withMarket(opts, async ({ node, market, network }) => {
    const c = market.contracts;
    const t0 = performance.now();
    const seeded = await seedBorrowers(node, market, 300);
    const ms = performance.now() - t0;
    assert.equal(seeded.length, 300);
    assert.equal(new Set(seeded).size, 300);
    assert.ok(ms < 30_000, `seeding 300 took ${ms} ms`);

    const pool = await PoolV2.load(network, c.lending_pool);
    const oracle = await pool.loadOracle();
    const hfs: number[] = [];
    for (const pk of seeded.slice(0, 40)) {
      const est = PositionsEstimate.build(pool, oracle, (await pool.loadUser(pk)).positions);
      hfs.push(est.totalEffectiveCollateral / est.totalEffectiveLiabilities);
    }
    for (const hf of hfs) assert.ok(hf >= 1.02 - 1e-4 && hf < 2.0, `hf ${hf}`);
    assert.ok(Math.max(...hfs) - Math.min(...hfs) > 0.5, "spread");

    // Discover borrowers as a keeper does: borrow events of the pool.
    const found = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await node.server.getEvents(
        cursor
          ? { cursor, filters: [{ type: "contract", contractIds: [c.lending_pool] }], limit: 200 }
          : {
            startLedger: 1,
            filters: [{ type: "contract", contractIds: [c.lending_pool] }],
            limit: 200,
          },
      );
      for (const e of res.events) {
        if (scValToNative(e.topic[0]) === "borrow") found.add(scValToNative(e.topic[2]));
      }
      if (res.events.length < 200) break;
      cursor = res.cursor;
    }
    for (const pk of seeded) assert.ok(found.has(pk), `seeded ${pk} discoverable`);

    // Into the second pool: at its own (lower) factors, and nothing in the first pool.
    const pool2 = market.pools[1];
    const more = await seedBorrowers(node, market, 30, { pool: pool2.id, offset: 300 });
    const p2 = await PoolV2.load(network, pool2.id);
    const oracle2 = await p2.loadOracle();
    for (const pk of more) {
      const est = PositionsEstimate.build(p2, oracle2, (await p2.loadUser(pk)).positions);
      const hf = est.totalEffectiveCollateral / est.totalEffectiveLiabilities;
      assert.ok(hf >= 1.02 - 1e-4 && hf < 2.0, `pool 2 hf ${hf}`);
      assert.equal((await pool.loadUser(pk)).positions.liabilities.size, 0, "not in pool 1");
    }
    await assert.rejects(
      seedBorrowers(node, market, 1, { pool: c.oracle }),
      /is not a pool of the market/,
    );
  });
});

/**
 * The second and third pools of a 3-pool market: distinct ids from the same factory, active,
 * in the reward zone, their own parameters and backstop deposit, borrowers at their target health factors (by the
 * SDK's maths on each pool's own factors); a 10 % rise of XLM or WETH sinks their XLM- and
 * WETH-debt borrowers, a 10 % fall the ones holding it (checked on a snapshot, then reverted).
 */
async function checkExtraPools(
  node: MarketFixture["node"],
  market: MarketFixture["market"],
  network: MarketFixture["network"],
): Promise<void> {
  const c = market.contracts;
  assert.deepEqual(market.pools.map((p) => p.name), [
    "lending_pool",
    "lending_pool_2",
    "lending_pool_3",
  ]);
  assert.deepEqual(market.pools.map((p) => p.id), [
    c.lending_pool,
    c.lending_pool_2,
    c.lending_pool_3,
  ]);
  assert.equal(new Set(market.pools.map((p) => p.id)).size, 3);
  assert.deepEqual(
    market.borrowers,
    market.pools[0].borrowers,
    "market.borrowers: the first pool's",
  );
  assert.equal(market.pools[0].borrowers.length, 7, "the first pool as before");
  const hfOf = async (pool: PoolV2, user: string) => {
    const est = PositionsEstimate.build(
      pool,
      await pool.loadOracle(),
      (await pool.loadUser(user)).positions,
    );
    return est.totalEffectiveCollateral / est.totalEffectiveLiabilities;
  };
  for (const p of market.pools.slice(1)) {
    const pool = await PoolV2.load(network, p.id);
    assert.equal(pool.metadata.status, 0, `${p.name} active`);
    assert.equal(pool.metadata.backstopRate, 1_000_000 + (p.index - 1) * 500_000, p.name);
    assert.equal(pool.reserves.size, 3);
    assert.equal(pool.reserves.get(c.xlm)!.config.c_factor, 900_0000 - (p.index - 1) * 25_0000);
    assert.ok((await node.view<string[]>(c.backstop, "reward_zone", [])).includes(p.id));
    const bs = await node.view<{ tokens: bigint }>(c.backstop, "pool_data", [p.id]);
    assert.ok(BigInt(bs.tokens) >= 50_000n * E7, `${p.name} backstop deposit`);
    const debts = new Set(p.borrowers.map((b) => Object.keys(b.debt)[0]));
    assert.deepEqual([...debts].sort(), ["usdc", "weth", "xlm"], `${p.name} debts`);
    for (const b of p.borrowers) {
      assert.ok(b.name.endsWith(`_p${p.index}`), b.name);
      assert.equal(b.pool, p.id);
      const hf = await hfOf(pool, b.public);
      assert.ok(Math.abs(hf - Number(b.hf) / 1e7) < 1e-3, `${b.name}: ${hf}`);
    }
  }
  const sunk = async (shocks: { asset: string; bps: number }[]) => {
    const snap = node.snapshot();
    try {
      for (const s of shocks) await rpcCall(node, "localnet_shock", s);
      const out: string[] = [];
      for (const p of market.pools.slice(1)) {
        const pool = await PoolV2.load(network, p.id);
        for (const b of p.borrowers) if ((await hfOf(pool, b.public)) < 1) out.push(b.name);
      }
      return out.sort();
    } finally {
      node.revert(snap);
    }
  };
  const names = (...base: string[]) => base.flatMap((n) => [`${n}_p2`, `${n}_p3`]).sort();
  // One price at a time, as the demo's driver shocks: up sinks the borrowers owing that asset
  // (XLM or WETH debt), down the ones holding it as collateral.
  assert.deepEqual(
    await sunk([{ asset: c.xlm, bps: 1000 }]),
    names("borrower_usdc_1", "borrower_weth_2"),
  );
  assert.deepEqual(
    await sunk([{ asset: c.weth, bps: 1000 }]),
    names("borrower_usdc_2", "borrower_xlm_2"),
  );
  assert.deepEqual(
    await sunk([{ asset: c.xlm, bps: -1000 }]),
    names("borrower_xlm_1", "borrower_xlm_2"),
  );
  assert.deepEqual(
    await sunk([{ asset: c.weth, bps: -1000 }]),
    names("borrower_weth_1", "borrower_weth_2"),
  );
}
