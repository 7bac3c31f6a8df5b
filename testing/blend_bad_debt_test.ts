/**
 * Bad debt on the second pool of a two-pool keeper world (which also checks the world: both
 * pools in `pools` and in the vault's flash policy, the node's retention window):
 * - `createBadDebt` leaves a borrower with liabilities and no collateral, and `bad_debt` — what
 *   the keeper will call — is accepted by the pool for it and moves the debt to the backstop;
 * - `liquidateAll` shows why that state needs a fixture: Blend v2's own late 100 % fill moves the
 *   rest of the debt to the backstop itself.
 */
import assert from "node:assert/strict";
import { createBadDebt, liquidateAll, positionsOf } from "./blend_bad_debt.ts";
import { startWorld } from "./keeper/keeper_fixture.ts";

Deno.test("bad debt on pool 2 of 2: createBadDebt + bad_debt, and v2's own late fill (liquidateAll)", async () => {
  const w = await startWorld({ pools: 2, retentionLedgers: 200 });
  try {
    assert.equal(w.pools.length, 2);
    assert.equal(w.pools[0], w.pool);
    assert.equal(w.pools[1], w.market.contracts.lending_pool_2);
    assert.deepEqual([...w.policy.pools].sort(), [...w.pools].sort());
    const health = await w.node.server.getHealth();
    assert.equal(health.ledgerRetentionWindow, 200);

    const pool = w.pools[1];
    const [usdcDebtor, wethDebtor] = ["borrower_weth_1_p2", "borrower_usdc_2_p2"].map((n) =>
      w.market.pools[1].borrowers.find((b) => b.name === n)!
    );
    assert.equal(usdcDebtor.pool, pool);
    const backstopDebt = async (asset: number) =>
      (await positionsOf(w.node, pool, w.market.contracts.backstop)).liabilities.get(asset) ?? 0n;

    // A healthy borrower (HF 1.06, WETH debt) left with its liabilities and no collateral.
    const debt = (await positionsOf(w.node, pool, wethDebtor.public)).liabilities;
    const bad = await createBadDebt(w.node, w.market, wethDebtor.public, { pool });
    const after = await positionsOf(w.node, pool, wethDebtor.public);
    assert.equal(after.collateral.size, 0, "no collateral left");
    assert.deepEqual(after.liabilities, debt, "liabilities unchanged");
    assert.deepEqual(bad.liabilities, { [w.weth]: debt.get(2) });
    // The collateral changed hands: the taker holds it now.
    assert.equal(
      (await positionsOf(w.node, pool, bad.taker)).collateral.get(0),
      8_000n * 10_000_000n,
    );
    // The first pool knows nothing of it.
    assert.equal((await positionsOf(w.node, w.pool, wethDebtor.public)).liabilities.size, 0);
    // What the keeper's hygiene does: bad_debt(user) moves the debt to the backstop.
    const before = await backstopDebt(2);
    await w.node.invoke(pool, "bad_debt", [wethDebtor.public]);
    await w.node.closeLedgers(1);
    assert.equal((await positionsOf(w.node, pool, wethDebtor.public)).liabilities.size, 0);
    assert.equal(await backstopDebt(2), before + debt.get(2)!);

    // Blend v2's own path: healthy, the pool refuses the auction (and the helper says why)…
    await assert.rejects(
      liquidateAll(w.node, w.market, usdcDebtor.public, { pool }),
      /refused a 100 % auction/,
    );
    // …WETH −50 %: HF ≈ 0.53, a 100 % auction of everything, filled at block 300 where the bid
    // is half the debt: the pool moves the other half to the backstop in the fill.
    const usdcDebt = (await positionsOf(w.node, pool, usdcDebtor.public)).liabilities.get(0)!;
    const usdcBefore = await backstopDebt(0);
    const fill = await liquidateAll(w.node, w.market, usdcDebtor.public, {
      pool,
      shock: { asset: w.weth, bps: -5000 },
    });
    assert.ok(
      fill.fillBlock - fill.auctionBlock >= 300,
      `filled ${fill.fillBlock - fill.auctionBlock} in`,
    );
    const moved = fill.toBackstop[w.usdc];
    assert.equal(await backstopDebt(0), usdcBefore + moved);
    assert.ok(
      moved > (usdcDebt * 45n) / 100n && moved < (usdcDebt * 55n) / 100n,
      `${moved} of ${usdcDebt}`,
    );
  } finally {
    await w.close();
  }
});
