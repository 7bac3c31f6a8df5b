/**
 * Issue 24: debt in an asset other than USDC, on a real Blend auction of the market scenario,
 * over JSON-RPC with the keeper's real signature. `borrower_usdc_1` (USDC collateral, XLM debt) is
 * pushed under water by XLM +10 % and auctioned with an XLM bid. The liquidator buys the XLM with
 * the flash's USDC (an exact-output buy leg), the pool takes what the debt needs and refunds the
 * rest, and the leftover is sold back to USDC with the lot: the vault is paid exactly what the
 * liquidation produced and the keeper ends as it started.
 *
 * Attacks, each refused with its named error and nothing moved: a buy path through an unlisted
 * token or on an unlisted router (NotAllowed); a buy leg for an asset the plan does not repay, two
 * buy legs for one asset, a bought asset without a sell leg, and a keeper parking the leftover in
 * its own position (InvalidPlan); a buy above the keeper's max_in or, on a pair skewed far above
 * the oracle, above the oracle ceiling whatever max_in says (SwapAboveCeiling).
 */
import assert from "node:assert/strict";
import { scValToNative, xdr } from "@stellar/stellar-sdk";
import { auditVaultTransfers } from "@vigil/testing/transfer_audit";
import {
  borrowerNamed,
  type MarketWorld,
  type PlanBuy,
  type PlanLeg,
  type PlanRequest,
  planScVal,
  Req,
  setOraclePrice,
  startMarketWorld,
  WITHDRAW_ALL,
} from "@vigil/testing/contracts/market_world";
import { expectErr, TX_OPTS, USDC } from "@vigil/testing/contracts/vigil_fixture";

const T = TX_OPTS;

/** USDC `transfer` events (from, to, amount) of one transaction. */
async function usdcTransfers(w: MarketWorld, from: number, txHash: string) {
  const r = await w.server._getEvents({
    filters: [{ type: "contract", contractIds: [w.usdc] }],
    startLedger: from,
    limit: 1000,
  });
  const out: { from: string; to: string; amount: bigint }[] = [];
  for (const e of r.events ?? []) {
    if (e.txHash !== txHash) continue;
    const topics = (e.topic ?? []).map((t) => scValToNative(xdr.ScVal.fromXDR(t, "base64")));
    if (topics[0] !== "transfer") continue;
    const amount = scValToNative(xdr.ScVal.fromXDR(e.value ?? "", "base64")) as bigint;
    out.push({ from: String(topics[1]), to: String(topics[2]), amount: BigInt(amount) });
  }
  return out;
}
/** Blend's SupplyCollateral request (the liquidator refuses it). */
const SUPPLY_COLLATERAL = 2;

/**
 * XLM +10 % (borrower_usdc_1's health factor 1.05 → ≈ 0.95), then `borrower_usdc_1`'s auction:
 * bid XLM, lot USDC, at the first percent the pool accepts, 300 blocks deep (the whole lot on
 * offer, half the bid). Returns the bid (XLM d-tokens at 100 % of the curve).
 */
async function openXlmDebtAuction(w: MarketWorld, user: string): Promise<bigint> {
  await setOraclePrice(w, w.xlm, 1_100_000n);
  let bid: bigint | undefined;
  for (const percent of [50, 60, 40, 70, 30, 80, 90, 100, 20, 10]) {
    try {
      const data = await w.node.invoke<{ bid: [string, bigint][] }>(w.pool, "new_auction", {
        auction_type: 0,
        user,
        bid: [w.xlm],
        lot: [w.usdc],
        percent,
      });
      bid = new Map(data.bid).get(w.xlm);
      break;
    } catch { /* 1213/1214: another percent */ }
  }
  assert.ok(bid !== undefined && bid > 0n, "no liquidation percent accepted");
  await w.node.closeLedgers(300);
  return bid;
}

Deno.test("liquidator: an XLM-debt auction filled through a buy leg pays the vault exactly what it produced; buy-leg attacks revert with their errors and move nothing", async () => {
  const w = await startMarketWorld();
  try {
    const e = w.eve.publicKey();
    const ev = await w.client(w.vault, w.eve);
    const user = borrowerNamed(w, "borrower_usdc_1");
    const fallback = w.market.contracts.fallback_dex_router;
    const bidD = await openXlmDebtAuction(w, user);
    // At block 300 the bid is half the auction's; 60 % of it in XLM covers the d-rate and leaves
    // a leftover the pool refunds (sold back by the XLM leg).
    const amountOut = (bidD * 60n) / 100n;
    const quote = async () =>
      (await w.node.view<bigint[]>(w.router, "router_get_amounts_in", {
        amount_out: amountOut,
        path: [w.usdc, w.xlm],
      }))[0];
    const cost = await quote();
    // Room for the buy at the oracle price (the pair is moved there below) and then some.
    const amount = (cost * 115n) / 100n;
    const buyXlm = (over: Partial<PlanBuy> = {}): PlanBuy => ({
      amountOut,
      maxIn: amount,
      path: [w.usdc, w.xlm],
      router: w.router,
      ...over,
    });
    const sellXlm: PlanLeg = {
      amountIn: 1n,
      kind: 0,
      minOut: 0n,
      path: [w.xlm, w.usdc],
      router: w.router,
    };
    const requests = (extra: PlanRequest[] = []): PlanRequest[] => [
      { address: user, amount: 100n, type: Req.Fill },
      { address: w.xlm, amount: amountOut, type: Req.Repay },
      { address: w.usdc, amount: WITHDRAW_ALL, type: Req.WithdrawCollateral },
      ...extra,
    ];
    const flash = (buys: PlanBuy[], swaps: PlanLeg[] = [sellXlm], reqs = requests()) =>
      ev.flash({
        keeper: e,
        executor: w.liquidator,
        amount,
        data: planScVal(w.pool, reqs, swaps, 1_000_000, buys),
        response_time_ms: 5n,
      }, T);
    const snap = async () => ({
      usdc: await w.bal(w.usdc, e),
      xlm: await w.bal(w.xlm, e),
      weth: await w.bal(w.weth, e),
      state: await w.state(),
      liquidator: [await w.bal(w.usdc, w.liquidator), await w.bal(w.xlm, w.liquidator)],
      positions: await w.node.view(w.pool, "get_positions", { address: e }),
    });
    const before = await snap();

    // Plan checks (before anything moves).
    expectErr(await flash([buyXlm({ path: [w.usdc, w.weth, w.xlm] })]), "NotAllowed");
    expectErr(await flash([buyXlm({ router: fallback })]), "NotAllowed");
    expectErr(await flash([buyXlm({ path: [w.usdc, w.weth] })]), "InvalidPlan");
    expectErr(await flash([]), "InvalidPlan");
    expectErr(await flash([buyXlm(), buyXlm()]), "InvalidPlan");
    expectErr(await flash([buyXlm({ path: [w.usdc, w.usdc, w.xlm] })]), "InvalidPlan");
    expectErr(await flash([buyXlm()], []), "InvalidPlan");
    // Keeping the leftover: parked as the keeper's own collateral in the pool.
    expectErr(
      await flash(
        [buyXlm()],
        [sellXlm],
        requests([{
          address: w.xlm,
          amount: amountOut / 4n,
          type: SUPPLY_COLLATERAL,
        }]),
      ),
      "InvalidPlan",
    );
    // The keeper's own ceiling: the router's exact-input quote above max_in.
    expectErr(await flash([buyXlm({ maxIn: cost - 1n })]), "SwapAboveCeiling");
    assert.deepEqual(await snap(), before, "nothing moved");

    // A pair skewed far above the oracle: XLM bought on the DEX until it costs ≈ 30 % more than
    // the oracle's $0.11 — refused by the oracle ceiling (+ max_slippage_bps) whatever max_in says.
    await w.mintUsdc(w.whale, 320_000n * USDC);
    const whaleXlm = await w.dexBuyXlm(320_000n * USDC);
    assert.ok((await quote()) > (cost * 125n) / 100n, "the pair is skewed");
    expectErr(await flash([buyXlm({ maxIn: amount * 10n })]), "SwapAboveCeiling");
    assert.deepEqual(await snap(), before, "nothing moved");
    // The whale sells its XLM back, then arbitrages the pair up to the oracle's $0.11 (the shock
    // moved only the oracle): the buy then costs about the oracle value, and the leftover sells
    // above the oracle floor (less max_slippage_bps).
    await w.dexSellXlm(whaleXlm / USDC);
    await w.dexBuyXlm(97_000n * USDC);
    const costNow = await quote();
    const oracleValue = (amountOut * 11n) / 100n;
    assert.ok(
      costNow > oracleValue && costNow < (oracleValue * 1015n) / 1000n,
      `pair at the oracle (${costNow} vs ${oracleValue})`,
    );

    // The honest fill: buy the XLM, repay it, withdraw the USDC lot, sell the refunded leftover.
    const from = w.node.latestLedger().sequence;
    const vaultUsdc = await w.bal(w.usdc, w.vault);
    const { result: profit, fee, hash } = await w.sendFee<bigint>(
      await flash([buyXlm({ maxIn: amount })]),
    );
    const after = await snap();
    console.log(
      `liquidator, XLM debt bought inside the flash: cost ${costNow} units, profit ${profit}`,
    );
    assert.ok(profit > 0n);
    assert.equal(after.state.total_usdc, before.state.total_usdc + profit);
    assert.equal(await w.bal(w.usdc, w.vault), vaultUsdc + profit);
    assert.equal(after.usdc, before.usdc, "the keeper's USDC unchanged");
    assert.equal(after.xlm, before.xlm - fee, "the keeper keeps no XLM leftover");
    assert.equal(after.weth, before.weth);
    assert.deepEqual(after.liquidator, [0n, 0n], "the liquidator holds nothing");
    assert.deepEqual(after.positions, before.positions, "the keeper holds no position");
    // What the liquidation produced, read from the USDC transfers of the flash: the USDC lot the
    // pool paid the keeper, plus what the XLM pair paid the liquidator for the leftover, minus
    // what the liquidator paid the pair for the XLM — exactly the vault's profit.
    const moves = await usdcTransfers(w, from, hash);
    const sum = (f: (t: (typeof moves)[number]) => boolean) =>
      moves.filter(f).reduce((s, t) => s + t.amount, 0n);
    const lot = sum((t) => t.from === w.pool && t.to === e);
    const sold = sum((t) => t.from === w.pair && t.to === w.liquidator);
    const bought = sum((t) => t.from === w.liquidator && t.to === w.pair);
    console.log(`  lot ${lot}, leftover sold for ${sold}, XLM bought for ${bought}`);
    assert.ok(lot > 0n && sold > 0n && bought > 0n);
    assert.equal(bought, costNow, "the buy cost the router's quote");
    assert.equal(
      lot + sold - bought,
      profit,
      "the vault got exactly what the liquidation produced",
    );
    const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault, from, [w.xlm, w.weth]);
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(audit.keeperGains, []);
    const tx = audit.txs.find((t) => t.txHash === hash);
    assert.ok(tx?.flash);
    assert.equal(tx.in - tx.out, profit, "the vault's net USDC in the flash is its profit");
  } finally {
    await w.close();
  }
});
