/**
 * The liquidator's issue-20 checks on a real Blend auction of the market scenario, over JSON-RPC
 * with the keeper's real signature: a swap path may pass only through hop tokens the vault's
 * policy lists (else NotAllowed), never through a token twice (InvalidPlan), and the USDC a swap
 * returns is measured by the liquidator itself — a listed router that takes the lot and returns
 * less than the floor is refused (SwapBelowFloor), whatever it reports.
 */
import assert from "node:assert/strict";
import { auditVaultTransfers } from "@vigil/testing/transfer_audit";
import {
  honestRequests,
  openAuction,
  type PlanLeg,
  planScVal,
  startMarketWorld,
} from "@vigil/testing/contracts/market_world";
import { expectErr, TX_OPTS, USDC } from "@vigil/testing/contracts/vigil_fixture";
import { deployFixture } from "@vigil/testing/contracts/mod";

const T = TX_OPTS;

Deno.test("liquidator (real Blend auction): a hop token outside the policy is NotAllowed, a listed one settles; a token twice is InvalidPlan; a listed router returning less than the floor is SwapBelowFloor", async () => {
  const w = await startMarketWorld();
  try {
    const e = w.eve.publicKey();
    const ev = await w.client(w.vault, w.eve);
    const amount = 6_000n * USDC;
    const flash = (swaps: PlanLeg[]) =>
      ev.flash({
        keeper: e,
        executor: w.liquidator,
        amount,
        data: planScVal(w.pool, honestRequests(w, amount), swaps),
        response_time_ms: 5n,
      }, T);
    const leg = (path: string[], router = w.router): PlanLeg => ({
      amountIn: 1n,
      kind: 0,
      minOut: 0n,
      path,
      router,
    });
    const viaWeth = leg([w.xlm, w.weth, w.usdc]);
    // WETH is not a hop token of the deployed policy: refused before anything moves (the plan is
    // checked first, so no auction is needed for this).
    expectErr(await flash([viaWeth]), "NotAllowed");

    // The admin lists WETH as a hop token, and a second router that later turns hostile. A
    // wider policy: queued for the deployed 72 h, refused until then.
    const short = await deployFixture(w.node, "short_router");
    await w.mintUsdc(short, 1_000n);
    const policy = await w.policy();
    const admin = await w.client(w.vault, w.admin);
    await w.sendFee(
      await admin.set_flash_policy({
        policy: { ...policy, routers: [w.router, short], tokens: [w.weth] },
      }, T),
    );
    expectErr(await flash([viaWeth]), "NotAllowed");
    await w.node.advanceTime(72 * 3600);
    assert.deepEqual((await w.policy()).tokens, [w.weth]);
    // A token twice in a path: InvalidPlan (even through listed hops).
    for (
      const path of [
        [w.xlm, w.weth, w.xlm, w.usdc],
        [w.xlm, w.xlm, w.usdc],
        [w.xlm, w.weth, w.weth, w.usdc],
      ]
    ) {
      expectErr(await flash([leg(path)]), "InvalidPlan");
    }
    // A hop that is not listed is still refused next to a listed one.
    expectErr(await flash([leg([w.xlm, w.weth, w.pool, w.usdc])]), "NotAllowed");

    await openAuction(w);
    const snap = async () => ({
      usdc: await w.bal(w.usdc, e),
      xlm: await w.bal(w.xlm, e),
      weth: await w.bal(w.weth, e),
      state: await w.state(),
      short: [await w.bal(w.xlm, short), await w.bal(w.usdc, short)],
    });
    const before = await snap();
    // (The audit below reads events from here: it stops at 10,000 ledgers without any.)
    const from = w.node.latestLedger().sequence;
    // The listed router turned hostile: it takes the lot and pays back 1 unit, claiming it paid
    // the floor. The liquidator measures its own USDC gain: SwapBelowFloor, nothing moves.
    expectErr(await flash([leg([w.xlm, w.usdc], short)]), "SwapBelowFloor");
    assert.deepEqual(await snap(), before, "nothing moved");

    // Through the listed hop token: the whole lot is sold XLM → WETH → USDC, above the oracle
    // floor, and the vault books the profit; the keeper ends +0.
    const { result: profit, fee, hash } = await w.sendFee<bigint>(await flash([viaWeth]));
    const after = await snap();
    console.log(`liquidator, listed hop token (XLM -> WETH -> USDC): profit ${profit} units`);
    assert.ok(profit > 0n);
    assert.equal(after.usdc, before.usdc);
    assert.equal(after.xlm, before.xlm - fee);
    assert.equal(after.weth, before.weth);
    assert.equal(after.state.total_usdc, before.state.total_usdc + profit);
    const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault, from, [w.xlm, w.weth]);
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(audit.keeperGains, []);
    assert.ok(audit.txs.find((t) => t.txHash === hash)?.flash);
  } finally {
    await w.close();
  }
});
