/**
 * Issue 20: the keeper plans a swap inside a flash only on the direct lot-asset/USDC pair or
 * through a hop token the vault's flash policy lists (the liquidator refuses any other path:
 * NotAllowed). Against the real Soroswap router stand-in on a local node, with a "rogue" token
 * whose pairs quote far better than every honest path — the route a keeper-issued token offered
 * in the skim:
 * - no hop token listed: only the direct pair is quoted (too thin here: skipped, never rerouted);
 * - XLM listed: the best of the direct pair and WETH→XLM→USDC; the rogue route never;
 * - the rogue token listed too (an admin's choice): then, and only then, it may be used.
 */
import assert from "node:assert/strict";
import { Asset } from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployDexes } from "@vigil/localnet/protocols/dex/deploy";
import { envDexWasm } from "@vigil/testing/keeper/keeper_fixture";
import { ChainRpc } from "@vigil/soroban/rpc";
import { ErrSlippageExceeded } from "@vigil/soroban/errors";
import { flashPaths, SwapClient } from "@vigil/keeper/dex/swap_client";

const E7 = 10_000_000n;

Deno.test("flashPaths: the direct pair, then one path per listed hop token (never the ends)", () => {
  assert.deepEqual(flashPaths("CW", "CU"), [["CW", "CU"]]);
  assert.deepEqual(flashPaths("CW", "CU", ["CX", "CW", "CU", "CX", "CB"]), [
    ["CW", "CU"],
    ["CW", "CX", "CU"],
    ["CW", "CB", "CU"],
  ]);
});

Deno.test("planLeg on the real router: direct or through listed hop tokens only, the best quote among them", async () => {
  await using node = await startTestNode();
  const dev = await setupDevChain(node, { accounts: [] });
  const admin = await node.newAccount(50_000_000n);
  const issuer = await node.newAccount();
  const weth = await node.deployAsset(new Asset("WETH", issuer.publicKey()));
  const rogue = await node.deployAsset(new Asset("ROGUE", issuer.publicKey()));
  const tokens = { usdc: dev.contracts.usdc, xlm: dev.contracts.xlm, weth, rogue };
  const dex = await deployDexes(node, {
    admin: admin.publicKey(),
    tokens,
    wasm: await envDexWasm(), // VIGIL_PROTOCOL_WASM: the official Soroswap Wasm
    liquidity: [
      // The direct pair is thin and prices WETH at $2,000 (the oracle says $3,000).
      { a: "weth", b: "usdc", amountA: 10n * E7, amountB: 20_000n * E7, venues: ["primary"] },
      // Through XLM: deep and at the oracle's prices ($3,000 = 30,000 XLM at $0.10).
      {
        a: "weth",
        b: "xlm",
        amountA: 1_000n * E7,
        amountB: 30_000_000n * E7,
        venues: ["primary"],
      },
      {
        a: "xlm",
        b: "usdc",
        amountA: 10_000_000n * E7,
        amountB: 1_000_000n * E7,
        venues: ["primary"],
      },
      // Through the rogue token: a far better quote, from pairs anyone could have seeded.
      { a: "weth", b: "rogue", amountA: 100n * E7, amountB: 300_000n * E7, venues: ["primary"] },
      {
        a: "rogue",
        b: "usdc",
        amountA: 100_000n * E7,
        amountB: 1_000_000n * E7,
        venues: ["primary"],
      },
    ],
  });
  const router = dex.primary_dex_router;
  const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
  try {
    const client = await SwapClient.create(chain, {
      usdc: tokens.usdc,
      slippageBps: 300,
      primaryRouter: router,
      fallbackRouter: null,
    });
    const amountIn = 1n * E7; // one WETH
    const ref = 3_000n * E7; // its oracle value in USDC
    const policy = { routers: new Set([router]) };
    const quote = async (path: string[]) => {
      const out = await node.view<bigint[]>(router, "router_get_amounts_out", {
        amount_in: amountIn,
        path,
      });
      return out[out.length - 1];
    };
    const direct = await quote([weth, tokens.usdc]);
    const viaXlm = await quote([weth, tokens.xlm, tokens.usdc]);
    const viaRogue = await quote([weth, rogue, tokens.usdc]);
    assert.ok(viaRogue > viaXlm && viaXlm > direct, `${direct} ${viaXlm} ${viaRogue}`);

    // No hop token listed: only the direct pair, below the floor — skipped, not rerouted.
    const err = await client.planLeg(chain, weth, amountIn, ref, { ...policy, tokens: [] })
      .then(() => null, (e) => e);
    assert.ok(err instanceof ErrSlippageExceeded, String(err));
    assert.equal((err as ErrSlippageExceeded).quote, direct);

    // XLM listed: through XLM (better than the direct pair); the rogue route is never quoted.
    const leg = await client.planLeg(chain, weth, amountIn, ref, {
      ...policy,
      tokens: [tokens.xlm],
    });
    assert.deepEqual(leg.path, [weth, tokens.xlm, tokens.usdc]);
    assert.equal(leg.quote, viaXlm);
    assert.ok(leg.minOut >= leg.floor && leg.floor === (ref * 9_700n) / 10_000n);
    assert.ok(!leg.path.includes(rogue));

    // Only when the vault's admin lists a token does a path go through it.
    const listed = await client.planLeg(chain, weth, amountIn, ref, {
      ...policy,
      tokens: [tokens.xlm, rogue],
    });
    assert.deepEqual(listed.path, [weth, rogue, tokens.usdc]);

    // A lot that is itself a hop token is never routed through itself.
    const xlmLeg = await client.planLeg(chain, tokens.xlm, 10_000n * E7, 1_000n * E7, {
      ...policy,
      tokens: [tokens.xlm, weth],
    });
    assert.equal(new Set(xlmLeg.path).size, xlmLeg.path.length);
    assert.equal(xlmLeg.path[0], tokens.xlm);
  } finally {
    chain.close();
  }
});
