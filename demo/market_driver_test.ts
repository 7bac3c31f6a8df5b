/**
 * The demo's market driver on a two-pool market: its new borrowers open in both pools (each at
 * its pool's own factors), and `openBorrower` opens one where it is told.
 */
import assert from "node:assert/strict";
import { withMarket } from "@vigil/testing/protocols/lending_pool_helpers";
import { positionsOf } from "@vigil/testing/blend_bad_debt";
import { openBorrower, startMarketDriver } from "./market_driver.ts";

Deno.test("market driver: borrowers open in every pool; openBorrower in the pool it is given", async () => {
  const opts = { dex: false, allocationVault: false, pools: 2 };
  await withMarket(opts, async ({ node, market }) => {
    const [p1, p2] = market.pools;
    const b = await openBorrower(node, market, {
      token: "xlm",
      usd: 2_000,
      hf: 1_0500000n,
      pool: p2,
    });
    assert.equal(b.pool, p2.id);
    assert.equal((await positionsOf(node, p2.id, b.address)).liabilities.size, 1);
    assert.equal((await positionsOf(node, p1.id, b.address)).liabilities.size, 0);

    const lines: string[] = [];
    const driver = startMarketDriver(node, market, {
      tickMs: 20,
      borrowersPerMinute: 1e6, // one per tick
      shocksPerMinute: 0,
      firstShockSec: 3600,
      seed: 7,
      log: (l) => lines.push(l),
    });
    try {
      const deadline = Date.now() + 20_000;
      while (driver.stats.borrowers < 12 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await driver.stop();
    }
    assert.equal(driver.stats.errors, 0, lines.join("\n"));
    const opened = lines.filter((l) => l.startsWith("borrower "));
    assert.ok(opened.length >= 12, lines.join("\n"));
    for (const pool of [p1, p2]) {
      assert.ok(opened.some((l) => l.includes(` in ${pool.name}:`)), `none in ${pool.name}`);
    }
  });
});
