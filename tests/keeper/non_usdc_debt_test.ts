/**
 * Issue 24: debt in any asset the DEX can buy. `borrower_usdc_1` (USDC collateral, XLM debt) is
 * pushed under water by XLM +10 %; the keeper (a child process, real host, real Blend Wasm)
 * auctions it with an XLM bid and fills it in ONE flash that buys the XLM with the vault's USDC,
 * repays it, withdraws the USDC lot and sells the XLM the pool refunded.
 *
 * First, with buying XLM on the DEX far dearer than the oracle (both routes the policy allows,
 * USDC→XLM and USDC→WETH→XLM, pushed up by a whale), the keeper prices both legs before sending
 * and refuses: it logs why (`unprofitable after swaps` with the figures) and sends no flash. Once
 * the whale sells back and the USDC/XLM pair is at the oracle price, it fills: the vault books
 * exactly what the flash returned above what it lent, the keeper keeps nothing, the liquidator
 * holds nothing. One world and one keeper for both (each keeper child-process test costs
 * 20–40 s).
 */
import assert from "node:assert/strict";
import { auditVaultTransfers } from "@vigil/testing/transfer_audit";
import {
  auctionOf,
  balance,
  dexTrader,
  events,
  keeperEnv,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  USDC,
  vaultState,
  type World,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";

const E7 = 10_000_000n;

/** USDC for `xlm` units of XLM on the primary router's direct pair (its spot cost). */
function buyCost(w: World, xlm: bigint): Promise<bigint> {
  return w.node.view<bigint[]>(w.market.contracts.primary_dex_router, "router_get_amounts_in", {
    amount_out: xlm,
    path: [w.usdc, w.xlm],
  }).then((a) => a[0]);
}

Deno.test("non-USDC debt: refused while buying XLM would eat the profit (logged, no flash); then filled in one flash with exact profit booking, keeper +0", async () => {
  const w = await startWorld({ config: { max_draw_per_keeper: 40_000n * USDC } });
  const keeper = w.keepers[0];
  const me = keeper.publicKey();
  let k: KeeperChild | undefined;
  try {
    const user = w.market.borrowers.find((b) => b.name === "borrower_usdc_1")!.public;
    const trade = await dexTrader(w);
    // XLM on the DEX ≈ +43 % on both routes the policy allows (USDC/XLM, and WETH/XLM behind
    // USDC/WETH), far above the oracle's $0.11 after the shock below.
    const xlmFromUsdc = await trade(392_000n * USDC, [w.usdc, w.xlm]);
    const xlmFromWeth = await trade(65n * E7, [w.weth, w.xlm]);
    assert.ok((await buyCost(w, 1_000n * E7)) > 140n * E7, "buying XLM costs > $0.14");
    // +10 % XLM: borrower_usdc_1 (HF 1.05) goes under water.
    await shock(w, w.xlm, 1000);
    const started = await startKeeper(keeperEnv(w, keeper));
    k = started.k;

    const created = await until(
      async () =>
        (await events(w, w.pool, "new_auction")).find((e) => String(e.topics[2]) === user),
      60_000,
      "the XLM-debt position's auction",
    );
    const [percent, data] = created.value as [number, { bid: Record<string, bigint> }];
    assert.deepEqual(Object.keys(data.bid), [w.xlm], "the auction bids the XLM debt");
    console.log(`XLM-debt auction created at ${percent}%`);
    // Near the first block that clears MIN_PROFIT on the oracle (≈ 203: the bid starts falling
    // at 200); the keeper then prices both swaps and refuses.
    await w.node.closeLedgers(190);
    const refused = await until(
      () =>
        Promise.resolve(
          logLines(k!).find((l) => String(l.msg).startsWith("unprofitable after swaps")),
        ),
      60_000,
      "the keeper's unprofitable-after-swaps line",
    );
    console.log(`refused: ${JSON.stringify(refused)}`);
    assert.equal(refused.user, user);
    assert.ok(BigInt(String(refused.proceeds)) < BigInt(String(refused.cost)) * 102n / 100n);
    assert.ok(Number(refused.ratio) < 1.02);
    assert.equal((await events(w, w.vault, "flash")).length, 0, "no flash sent");

    // The whale sells back; then the USDC/XLM pair is moved to the oracle's $0.11 (the shock
    // moved only the oracle): the leftover sells above the oracle floor.
    await trade(xlmFromWeth, [w.xlm, w.weth]);
    await trade(xlmFromUsdc, [w.xlm, w.usdc]);
    await trade(97_000n * USDC, [w.usdc, w.xlm]);
    const spot = await buyCost(w, 1_000n * E7);
    assert.ok(spot > 109n * E7 && spot < 112n * E7, `XLM ≈ $0.11 on the DEX (${spot})`);

    const before = await vaultState(w);
    const usdcBefore = await balance(w, w.usdc, me);
    const start = w.node.latestLedger().sequence;
    const flashes = await until(
      async () => {
        const f = await events(w, w.vault, "flash", start);
        return f.length > 0 ? f : undefined;
      },
      90_000,
      "the flash",
    );
    // Let a second, partial fill (if any) land before reading the books.
    await until(async () => !(await auctionOf(w, user)) || undefined, 30_000, "auction filled");
    const all = await events(w, w.vault, "flash", start);
    const after = await vaultState(w);
    let booked = 0n;
    for (const f of all) {
      const [amount, returned, profit, executor] = f.value as [bigint, bigint, bigint, string];
      assert.equal(executor, w.liquidator);
      assert.equal(profit, returned - amount, "profit = repaid − principal");
      assert.ok(profit > 0n);
      booked += profit;
      console.log(`XLM-debt flash: lent ${amount}, repaid ${returned}, profit ${profit} units`);
    }
    assert.ok(flashes.length >= 1);
    assert.equal(after.total_usdc - before.total_usdc, booked, "vault total_usdc delta");
    assert.equal(after.total_profit - before.total_profit, booked);
    const fills = await events(w, w.pool, "fill_auction", start);
    assert.deepEqual(new Set(fills.map((f) => f.txHash)), new Set(all.map((f) => f.txHash)));
    // The keeper keeps nothing: USDC unchanged, no net XLM/WETH gain in any flash, no position.
    assert.equal(await balance(w, w.usdc, me), usdcBefore);
    const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault, start, [
      w.xlm,
      w.weth,
    ]);
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(audit.keeperGains, []);
    const pos = await w.node.view<{ liabilities: object; collateral: object }>(
      w.pool,
      "get_positions",
      [me],
    );
    assert.equal(Object.keys(pos.liabilities).length, 0, "no debt left");
    assert.equal(Object.keys(pos.collateral).length, 0, "no collateral left");
    for (const t of [w.usdc, w.xlm, w.weth]) {
      assert.equal(await balance(w, t, w.liquidator), 0n, "the liquidator holds nothing");
    }
    // The keeper logs the buy once its flash is confirmed (the chain may show it first).
    await until(
      () =>
        Promise.resolve(
          /bought bid asset \S+ with USDC on primary \(soroswap\) inside the flash/.test(
            k!.stderr(),
          ),
        ),
      30_000,
      "the keeper's line for the buy",
    );
    const problems = logLines(k).filter((l) =>
      (l.level === "warn" || l.level === "error") &&
      /execute failed|refused to sign/.test(String(l.msg))
    );
    assert.deepEqual(problems.map((l) => l.msg), [], "no execute errors, no refused signature");
  } catch (e) {
    if (k) {
      console.error(
        k.stderr().split("\n").filter((l) =>
          !l.includes('"level":"debug"') || /waiting|error|fail|refus|skip/i.test(l)
        ).slice(-60).join("\n"),
      );
    }
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});
