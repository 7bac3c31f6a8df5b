/**
 * The market moves under the keeper (issue 26). The keeper's real lending-pool adapter, in
 * process, over JSON-RPC, on the real Blend pool and Soroswap router:
 *
 * - a lot too large for the DEX's depth: selling the whole lot inside the flash would push the
 *   pair below the keeper's oracle-based slippage floor, a part of it would not. The keeper fills
 *   the largest part that sells above the floor (`fitToDepth`) instead of skipping the auction;
 *   the vault books the profit; the rest stays in the auction, and the keeper fills it once the
 *   pair has recovered;
 * - a lot asset the keeper account holds no trustline for: the trustline is made in the first cycle
 *   that meets the auction (its profitable block ~200 ledgers away), once;
 * - the pool's accepted liquidation band moves (a price written in the ledger of the keeper's
 *   `new_auction`, applied before it): the transaction fails with the band's error; the keeper
 *   chooses the percent again from the new prices and creates the auction in the same task.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import { oracleRefValue } from "@vigil/keeper/adapters/lending_pool/execute";
import { loadPoolState } from "@vigil/keeper/adapters/lending_pool/pool_state";
import { ErrSlippageExceeded } from "@vigil/soroban/errors";
import { Asset, Operation } from "@stellar/stellar-sdk";
import { sendClassic } from "@vigil/soroban/change_trust";
import {
  borrowerNamed,
  type MarketWorld,
  openAuction,
  setOraclePrice,
  startMarketWorld,
} from "@vigil/testing/contracts/market_world";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import { calledFunction } from "@vigil/testing/keeper/keeper_fixture";
import { inProcessKeeper } from "@vigil/testing/keeper/in_process_keeper";

const SLIPPAGE_BPS = 100;

/** The borrower's open auction's XLM lot (the whole lot: the auction is past block 200). */
async function lotXlm(w: MarketWorld): Promise<bigint | undefined> {
  try {
    const a = await w.node.view<{ lot: [string, bigint][] }>(
      w.pool,
      "get_auction",
      [0, w.borrower],
    );
    return new Map(a.lot).get(w.xlm);
  } catch (err) {
    // Blend's get_auction traps (unwraps nothing) when no auction is open.
    if (String(err).includes("UnreachableCodeReached")) return undefined;
    throw err;
  }
}

/** The keeper's lending-pool adapter on `w`'s pool, in process. */
function keeperOn(w: MarketWorld) {
  return inProcessKeeper(w, { slippageBps: SLIPPAGE_BPS });
}

Deno.test("a lot too large for the DEX's depth: the keeper fills the part that sells above its floor, the rest later", async () => {
  const w = await startMarketWorld();
  const { chain, dex, logs, liquidate } = keeperOn(w);
  /** Whether `amount` XLM sells above the keeper's floor on the pair as it is now. */
  const sells = async (amount: bigint): Promise<boolean> => {
    const state = await loadPoolState(chain, w.pool, {});
    const ref = oracleRefValue(state, w.xlm, amount, w.usdc);
    try {
      await dex.planLeg(chain, w.xlm, amount, ref, { maxSlippageBps: SLIPPAGE_BPS });
      return true;
    } catch (err) {
      if (err instanceof ErrSlippageExceeded) return false;
      throw err;
    }
  };
  try {
    await openAuction(w);
    const lot = await lotXlm(w);
    assert.ok(lot && lot > 0n, "an XLM lot");
    console.log(`lot ${lot} XLM units`);
    // The whale sells XLM in steps of an eighth of the lot (each moves the pair's price by about a
    // quarter of the whole lot's price impact) until the whole lot no longer sells above the
    // floor: a fifth of it still does then.
    const step = lot / 8n / 10_000_000n + 1n;
    let sold = 0n;
    while (await sells(lot)) {
      await w.dexSellXlm(step);
      sold += step;
      assert.ok(sold < 50_000_000n, "the pair never fell below the floor");
    }
    assert.ok(await sells(lot / 5n), "a fifth of the lot still sells above the floor");
    const before = await w.state();

    const r = await liquidate();
    assert.equal(r.outcome.status, "filled", JSON.stringify(logs.slice(-5)));
    const percent = r.outcome.status === "filled" ? r.outcome.percent : 0;
    console.log(`whale sold ${sold} XLM; the keeper filled ${percent}% of the auction`);
    assert.ok(percent >= 20 && percent < 100, `filled ${percent}%`);
    assert.equal(r.retryAfterMs, 0, "the cycle is asked to come back for the rest at once");
    assert.ok(
      logs.some((l) =>
        l.msg === `lot too large for the DEX's depth: filling ${percent}% of the auction`
      ),
    );
    const after = await w.state();
    assert.ok(after.total_profit > before.total_profit, "the vault booked the part's profit");
    assert.equal(after.active_liq, 0n);
    // The rest is still in the auction, for a later fill.
    const rest = await lotXlm(w);
    assert.ok(rest !== undefined && rest > 0n && rest < lot, `the rest of the lot: ${rest}`);
    assert.ok(rest <= lot - (lot * BigInt(percent)) / 100n + 1n);

    // The pair recovers (the whale buys its XLM back): the keeper fills the rest.
    await w.dexBuyXlm(await w.bal(w.usdc, w.whale));
    const again = await liquidate();
    assert.equal(again.outcome.status, "filled", JSON.stringify(logs.slice(-5)));
    assert.equal(await lotXlm(w), undefined, "the auction is filled");
    assert.ok((await w.state()).total_profit > after.total_profit);
  } finally {
    chain.close();
    await w.close();
  }
});

Deno.test("the pool's band moves before new_auction applies: the keeper chooses the percent again and creates the auction", async () => {
  const w = await startMarketWorld();
  const { chain, logs, liquidate } = keeperOn(w);
  const ledger = w.node.chain;
  const submit = ledger.submit.bind(ledger);
  const onQueued = ledger.onQueued;
  const attempts: string[] = [];
  try {
    // borrower_xlm_1 under water (XLM −15 %), no auction yet: the keeper creates it.
    await setOraclePrice(w, w.xlm, 850_000n);
    // The keeper's first new_auction: before its ledger closes, XLM recovers 10 % (a direct
    // write applies before every transaction of the open ledger), so the percent it found by
    // simulation no longer leaves the borrower inside the pool's band.
    let moved: Promise<unknown> | undefined;
    let creating = false;
    ledger.submit = (env, b64) => {
      // (The ledger calls onQueued from inside submit.)
      creating = calledFunction(env)?.fn === "new_auction";
      const out = submit(env, b64);
      if (out.status === "PENDING" && creating) attempts.push(out.hash);
      return out;
    };
    ledger.onQueued = () => {
      if (creating && !moved) {
        moved = w.node.invoke(w.oracle, "set_price", {
          asset: stellarAsset(w.xlm),
          price: 935_000n,
        }, { source: w.market.accounts.market_admin.public }).then(() => onQueued?.());
        return;
      }
      onQueued?.();
    };
    const r = await liquidate();
    assert.equal(attempts.length, 2, "new_auction sent twice");
    const first = await w.node.server.getTransaction(attempts[0]);
    const second = await w.node.server.getTransaction(attempts[1]);
    assert.equal(first.status, "FAILED", "the band moved under the first");
    assert.equal(second.status, "SUCCESS");
    assert.ok(
      logs.some((l) =>
        l.msg === "the pool's accepted band moved before the auction applied; choosing again"
      ),
    );
    assert.ok(logs.some((l) => /^liquidation auction created for /.test(l.msg)));
    // The auction is open (the task then waits for its profitable block).
    assert.ok(await lotXlm(w));
    assert.equal(r.outcome.status, "waiting", JSON.stringify(r.outcome));
  } finally {
    ledger.submit = submit;
    ledger.onQueued = onQueued;
    chain.close();
    await w.close();
  }
});

Deno.test("a lot asset the keeper has no trustline for: made when the keeper first meets the auction, long before its block", async () => {
  const w = await startMarketWorld();
  const { chain, logs, liquidate } = keeperOn(w);
  try {
    // Eve holds no WETH trustline (the world seeds one at 0: removed).
    const weth = new Asset("WETH", w.market.accounts.weth_issuer.public);
    const removed = await sendClassic(chain, w.eve, [
      Operation.changeTrust({ asset: weth, limit: "0" }),
    ]);
    assert.equal(removed.failed, undefined);
    await assert.rejects(w.bal(w.weth, w.eve.publicKey()), "no WETH trustline");
    // borrower_weth_1 (WETH collateral) under water: WETH −20 %.
    const user = borrowerNamed(w, "borrower_weth_1");
    const { price } = await w.node.view<{ price: bigint }>(w.oracle, "lastprice", [
      stellarAsset(w.weth),
    ]);
    await setOraclePrice(w, w.weth, (price * 80n) / 100n);
    // The keeper creates the auction; its profitable block is ~200 ledgers away, so the task
    // waits — and the trustline is already there.
    const first = await liquidate(user);
    assert.equal(first.outcome.status, "waiting", JSON.stringify(first.outcome));
    assert.ok(logs.some((l) => /^liquidation auction created for /.test(l.msg)));
    assert.equal(await w.bal(w.weth, w.eve.publicKey()), 0n, "the WETH trustline exists");
    const made = () =>
      logs.filter((l) => l.msg === `trustline created for auction asset ${w.weth}`);
    assert.equal(made().length, 1);
    // The next cycle makes none.
    const again = await liquidate(user);
    assert.equal(again.outcome.status, "waiting");
    assert.equal(made().length, 1);
  } finally {
    chain.close();
    await w.close();
  }
});
