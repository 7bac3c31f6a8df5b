/**
 * Swap legs of one flash quoted together (`keeper/dex/joint.ts`), over the node's JSON-RPC on the
 * market's Soroswap-ABI router (ours, or the official Wasm with VIGIL_PROTOCOL_WASM=DIR): the second leg's quote behind the first equals, to the unit,
 * what the router pays when the two swaps run in that order, and it is below the quote the leg
 * gets alone (the overstatement that made the keeper's XLM+WETH flashes fail with #507).
 */
import assert from "node:assert/strict";
import { Asset, Keypair } from "@stellar/stellar-sdk";
import { startLocalnet } from "@vigil/localnet/node";
import { seedTrustline, setupDevChain } from "@vigil/localnet/dev_setup";
import { deployMarket } from "@vigil/localnet/scenarios/market";
import { ChainRpc } from "@vigil/soroban/rpc";
import { soroswapVenue } from "@vigil/keeper/dex/venues";
import { quoteAfter, sharesPair } from "@vigil/keeper/dex/joint";
import { SwapClient } from "@vigil/keeper/dex/swap_client";
import { envDexWasm } from "@vigil/testing/keeper/keeper_fixture";

const E7 = 10_000_000n;

Deno.test("joint legs: a leg behind another on a shared pair is quoted on the reserves the first leaves — exactly what the router pays", async () => {
  const node = await startLocalnet({ port: 0, ledgerMs: 0, onError: () => {} });
  try {
    const dev = await setupDevChain(node);
    // Ours, or the official Soroswap Wasm with VIGIL_PROTOCOL_WASM=DIR.
    const market = await deployMarket(node, dev, {
      allocationVault: false,
      dexWasm: await envDexWasm(),
    });
    const c = market.contracts;
    const router = c.primary_dex_router;
    const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
    const venue = soroswapVenue("primary", router);

    // The XLM leg through WETH, then the WETH leg straight to USDC: both trade on WETH/USDC.
    const xlmLeg = { router, path: [c.xlm, c.weth, c.usdc], amountIn: 50_000n * E7 };
    const wethLeg = { router, path: [c.weth, c.usdc], amountIn: 1n * E7 };
    assert.ok(sharesPair(router, wethLeg.path, [xlmLeg]));
    assert.ok(!sharesPair(router, [c.xlm, c.usdc], [{ ...xlmLeg, path: [c.weth, c.usdc] }]));

    const alone = await venue.quote(chain, c.weth, c.usdc, wethLeg.amountIn);
    const firstAlone = await venue.quotePath!(chain, xlmLeg.path, xlmLeg.amountIn);
    // With no earlier leg the local maths is the router's own quote.
    assert.equal(
      await quoteAfter(chain, router, venue.pairReserves!, [], xlmLeg.path, xlmLeg.amountIn),
      firstAlone,
    );
    const behind = await quoteAfter(
      chain,
      router,
      venue.pairReserves!,
      [xlmLeg],
      wethLeg.path,
      wethLeg.amountIn,
    );
    assert.ok(behind < alone, `behind ${behind} < alone ${alone}`);
    // The client plans the same figure when told about the earlier leg.
    const client = new SwapClient({ usdc: c.usdc, slippageBps: 100, primary: venue });
    const planned = await client.planLeg(chain, c.weth, wethLeg.amountIn, 2_900n * E7, {
      tokens: [c.xlm],
      earlier: [xlmLeg],
    });
    assert.ok(planned.quote >= behind, "the best candidate path is at least the direct one");

    // Run both swaps in that order and compare with what was predicted.
    const trader = Keypair.random().publicKey();
    await node.fund(trader, 60_000n);
    seedTrustline(node, trader, new Asset("USDC", market.usdcIssuer), 0n);
    seedTrustline(node, trader, new Asset("WETH", market.accounts.weth_issuer.public), 1n * E7);
    const swap = (leg: typeof xlmLeg) =>
      node.invoke<bigint[]>(router, "swap_exact_tokens_for_tokens", {
        amount_in: leg.amountIn,
        amount_out_min: 0n,
        path: leg.path,
        to: trader,
        deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
      }, { source: trader });
    const first = await swap(xlmLeg);
    assert.equal(BigInt(first[first.length - 1]), firstAlone);
    const second = await swap(wethLeg);
    assert.equal(BigInt(second[second.length - 1]), behind);
    console.log(
      `WETH leg alone ${Number(alone) / 1e7} USDC, behind the XLM leg ${Number(behind) / 1e7} ` +
        `(−${Number(((alone - behind) * 1_000_000n) / alone) / 100} bps)`,
    );
  } finally {
    await node.close();
  }
});
