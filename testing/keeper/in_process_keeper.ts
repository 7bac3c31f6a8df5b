/**
 * The keeper's real lending-pool adapter on a {@link MarketWorld}'s pool, in process, signing as
 * eve over JSON-RPC: for tests that act between the keeper's steps (a front-run after its quote,
 * a price written in its transaction's ledger), where a child process would be out of reach.
 *
 * @module
 */
import assert from "node:assert/strict";
import { LendingPoolAdapter } from "@vigil/keeper/adapters/lending_pool/lending_pool_adapter";
import type { Result } from "@vigil/keeper/adapters/adapter";
import { SwapClient } from "@vigil/keeper/dex/swap_client";
import { soroswapVenue } from "@vigil/keeper/dex/venues";
import { VaultContract } from "@vigil/keeper/vault_client";
import { ChainRpc } from "@vigil/soroban/rpc";
import type { MarketWorld } from "../contracts/market_world.ts";

/** A log line the adapter wrote. */
export interface LoggedLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

/**
 * The adapter on `w`'s pool with a DEX client on the world's Soroswap router (`SLIPPAGE_BPS`
 * `slippageBps`, default 100), built by `makeDex` when the test needs its own subclass; MIN_PROFIT
 * 1.02, a 3 s poll interval. `liquidate` runs one cycle's execution of a borrower's task.
 */
export function inProcessKeeper<D extends SwapClient = SwapClient>(
  w: MarketWorld,
  opts: { slippageBps?: number; makeDex?: (o: ConstructorParameters<typeof SwapClient>[0]) => D } =
    {},
) {
  const chain = new ChainRpc(w.node.rpcUrl, { networkPassphrase: w.node.networkPassphrase });
  const dexOptions = {
    usdc: w.usdc,
    slippageBps: opts.slippageBps ?? 100,
    primary: soroswapVenue("primary", w.router),
  };
  const dex = (opts.makeDex?.(dexOptions) ?? new SwapClient(dexOptions)) as D;
  const logs: LoggedLine[] = [];
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
  /** One cycle's execution of `user`'s liquidation (default: the world's borrower). */
  const liquidate = async (user = w.borrower): Promise<Result> => {
    const task = (await adapter.getTasks(chain)).find((t) => t.data.user === user);
    assert.ok(task, "the borrower is a task");
    return await adapter.execute(chain, w.eve, task, vault);
  };
  return { chain, dex, logs, liquidate };
}
