/**
 * A lot too large for the DEX's depth (issue 26): selling the whole lot inside the flash would
 * push the pair below the keeper's oracle-based slippage floor, while a part of it would not. The
 * keeper's real lending-pool adapter (in process, over JSON-RPC, on the real Blend pool and
 * Soroswap router) fills the largest part that sells above the floor (`fitToDepth`) instead of
 * skipping the auction; the vault books the profit; the rest stays in the auction for a later
 * fill, which the keeper makes once the pair has recovered.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import { LendingPoolAdapter } from "@vigil/keeper/adapters/lending_pool/lending_pool_adapter";
import { oracleRefValue } from "@vigil/keeper/adapters/lending_pool/execute";
import { loadPoolState } from "@vigil/keeper/adapters/lending_pool/pool_state";
import type { Result } from "@vigil/keeper/adapters/adapter";
import { SwapClient } from "@vigil/keeper/dex/swap_client";
import { soroswapVenue } from "@vigil/keeper/dex/venues";
import { VaultContract } from "@vigil/keeper/vault_client";
import { ChainRpc } from "@vigil/soroban/rpc";
import { ErrSlippageExceeded } from "@vigil/soroban/errors";
import {
  type MarketWorld,
  openAuction,
  startMarketWorld,
} from "@vigil/testing/contracts/market_world";

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

Deno.test("a lot too large for the DEX's depth: the keeper fills the part that sells above its floor, the rest later", async () => {
  const w = await startMarketWorld();
  const chain = new ChainRpc(w.node.rpcUrl, { networkPassphrase: w.node.networkPassphrase });
  const dex = new SwapClient({
    usdc: w.usdc,
    slippageBps: SLIPPAGE_BPS,
    primary: soroswapVenue("primary", w.router),
  });
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const adapter = new LendingPoolAdapter({
    poolId: w.pool,
    keeper: w.eve.publicKey(),
    usdc: w.usdc,
    liquidator: w.liquidator,
    minProfit: 1.02,
    pollIntervalSec: 3,
    dex,
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
  });
  const vault = new VaultContract(chain, w.eve, w.vault).client();
  const liquidate = async (): Promise<Result> => {
    const task = (await adapter.getTasks(chain)).find((t) => t.data.user === w.borrower);
    assert.ok(task, "the open auction is a task");
    return await adapter.execute(chain, w.eve, task, vault);
  };
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
