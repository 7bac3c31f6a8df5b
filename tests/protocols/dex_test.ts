/**
 * DEX venues on the local node over JSON-RPC: `contract.Client` with real signatures against the
 * Soroswap router (primary) and the Phoenix multihop (fallback) deployed by `deployDexes`.
 * Quotes and swaps against the constant-product formula with each venue's fee rounding,
 * deadlines, `amount_out_min`, multi-hop, events via getEvents, and the fault switches
 * (transient, skew below an oracle-style slippage floor, admin only).
 */
import assert from "node:assert/strict";
import { Asset, contract, Keypair, nativeToScVal, scValToNative, xdr } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "../helpers/localnet.ts";
import { type Client, ok, send, simError, TX } from "./helpers/client.ts";
import { seedTrustline, setupDevChain } from "../../localnet/dev_setup.ts";
import { deployDexes, type DexDeployment } from "../../localnet/protocols/dex/deploy.ts";
import {
  getAmountIn,
  getAmountOut,
  phoenixComputeSwap,
  slippageFloor,
  sortTokens,
} from "../../localnet/protocols/dex/math.ts";

const E7 = 10_000_000n;

interface Fixture {
  node: TestNode;
  admin: Keypair;
  alice: Keypair;
  usdc: string;
  xlm: string;
  weth: string;
  d: DexDeployment;
  client(id: string, signer: Keypair): Promise<Client>;
}

async function fixture(): Promise<Fixture> {
  const node = await startTestNode();
  try {
    const base = await setupDevChain(node, { accounts: ["alice"] });
    const admin = await node.newAccount(50_000_000n);
    const alice = Keypair.fromSecret(base.accounts.alice.secret);
    const wethIssuer = await node.newAccount();
    const wethAsset = new Asset("WETH", wethIssuer.publicKey());
    const weth = await node.deployAsset(wethAsset);
    seedTrustline(node, alice.publicKey(), wethAsset, 50n * E7);
    const { usdc, xlm } = base.contracts;
    const d = await deployDexes(node, {
      admin: admin.publicKey(),
      tokens: { usdc, xlm, weth },
      liquidity: [
        { a: "xlm", b: "usdc", amountA: 10_000_000n * E7, amountB: 1_200_000n * E7 },
        { a: "weth", b: "xlm", amountA: 500n * E7, amountB: 12_500_000n * E7 },
      ],
    });
    await node.closeLedgers(1);
    const client = (id: string, signer: Keypair) => node.clientFor<Client>(id, signer);
    return { node, admin, alice, usdc, xlm, weth, d, client };
  } catch (e) {
    await node.close();
    throw e;
  }
}

async function withFixture(fn: (f: Fixture) => Promise<void>): Promise<void> {
  const f = await fixture();
  try {
    await fn(f);
  } finally {
    await f.node.close();
  }
}

async function balance(f: Fixture, token: string, who: string): Promise<bigint> {
  return await f.node.view<bigint>(token, "balance", [who]);
}

async function reserves(f: Fixture, key: string, a: string, b: string): Promise<[bigint, bigint]> {
  const pair = await f.client(f.d.soroswap_pairs[key], f.alice);
  const [r0, r1] = ok<[bigint, bigint]>(await pair.get_reserves());
  return sortTokens(a, b)[0] === a ? [r0, r1] : [r1, r0];
}

function deadline(f: Fixture, ahead = 600n): bigint {
  return f.node.latestLedger().closeTime + ahead;
}

Deno.test("soroswap over RPC: quote = formula, swap pays exactly the quote, swap event", async () => {
  await withFixture(async (f) => {
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const amountIn = 1_000n * E7 + 7n;
    const [rIn, rOut] = await reserves(f, "xlm/usdc", f.xlm, f.usdc);
    const fee = (amountIn * 3n + 999n) / 1000n;
    const formula = ((amountIn - fee) * rOut) / (rIn + amountIn - fee);
    assert.equal(getAmountOut(amountIn, rIn, rOut), formula);
    const quote = await router.router_get_amounts_out({
      amount_in: amountIn,
      path: [f.xlm, f.usdc],
    });
    assert.equal(quote.isReadCall, true);
    assert.deepEqual(ok(quote), [amountIn, formula]);

    const usdcBefore = await balance(f, f.usdc, f.alice.publicKey());
    const tx = await router.swap_exact_tokens_for_tokens({
      amount_in: amountIn,
      amount_out_min: formula,
      path: [f.xlm, f.usdc],
      to: f.alice.publicKey(),
      deadline: deadline(f),
    }, TX);
    // The caller signs as source account: no extra auth entries to sign.
    assert.deepEqual(tx.needsNonInvokerSigningBy(), []);
    const sent = await send(tx);
    assert.deepEqual(ok(sent), [amountIn, formula]);
    assert.equal(await balance(f, f.usdc, f.alice.publicKey()) - usdcBefore, formula);
    assert.deepEqual(await reserves(f, "xlm/usdc", f.xlm, f.usdc), [
      rIn + amountIn,
      rOut - formula,
    ]);

    // Event: topics [String "SoroswapRouter", Symbol "swap"], data {amounts, path, to}.
    const topic0 = xdr.ScVal.scvString("SoroswapRouter").toXDR("base64");
    const topic1 = xdr.ScVal.scvSymbol("swap").toXDR("base64");
    const events = await f.node.server.getEvents({
      startLedger: 2,
      filters: [{
        type: "contract",
        contractIds: [f.d.primary_dex_router],
        topics: [[topic0, topic1]],
      }],
    });
    assert.equal(events.events.length, 1);
    const data = scValToNative(events.events[0].value) as {
      amounts: bigint[];
      path: string[];
      to: string;
    };
    assert.deepEqual(data, {
      amounts: [amountIn, formula],
      path: [f.xlm, f.usdc],
      to: f.alice.publicKey(),
    });
  });
});

Deno.test("soroswap over RPC: deadline (503), amount_out_min (507), missing pair (509)", async () => {
  await withFixture(async (f) => {
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const args = {
      amount_in: 10n * E7,
      amount_out_min: 0n,
      path: [f.xlm, f.usdc],
      to: f.alice.publicKey(),
      deadline: deadline(f),
    };
    const now = f.node.latestLedger().closeTime;
    assert.equal(
      simError(await router.swap_exact_tokens_for_tokens({ ...args, deadline: now }, TX)),
      503,
    );
    const q = ok<bigint[]>(
      await router.router_get_amounts_out({ amount_in: 10n * E7, path: [f.xlm, f.usdc] }),
    )[1];
    assert.equal(
      simError(await router.swap_exact_tokens_for_tokens({ ...args, amount_out_min: q + 1n }, TX)),
      507,
    );
    assert.equal(
      simError(await router.swap_exact_tokens_for_tokens({ ...args, path: [f.weth, f.usdc] }, TX)),
      509,
    );
    const err = await router.swap_exact_tokens_for_tokens({ ...args, amount_out_min: q + 1n }, TX);
    assert.equal(
      (err.result as contract.Result<unknown>).unwrapErr().message,
      "SoroswapRouter: insufficient output amount",
    );
    // A deadline that passes between simulation and inclusion fails on chain (FAILED, fee paid).
    const tight = await router.swap_exact_tokens_for_tokens({ ...args, deadline: now + 10n }, TX);
    await f.node.advanceTime(30);
    const late = await tight.signAndSend({ force: true });
    assert.equal(late.getTransactionResponse?.status, "FAILED");
    assert.equal(await balance(f, f.usdc, f.alice.publicKey()), 100_000n * E7, "nothing swapped");
    const xlmPair = f.d.soroswap_pairs["xlm/usdc"];
    assert.equal(await balance(f, f.usdc, xlmPair), 1_200_000n * E7, "pair untouched");
  });
});

Deno.test("soroswap over RPC: multi-hop weth -> xlm -> usdc and exact-out", async () => {
  await withFixture(async (f) => {
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const [a0, a1] = await reserves(f, "weth/xlm", f.weth, f.xlm);
    const [b0, b1] = await reserves(f, "xlm/usdc", f.xlm, f.usdc);
    const hop1 = getAmountOut(2n * E7, a0, a1);
    const hop2 = getAmountOut(hop1, b0, b1);
    const usdcBefore = await balance(f, f.usdc, f.alice.publicKey());
    const xlmBefore = await balance(f, f.xlm, f.alice.publicKey());
    const sent = await send(
      await router.swap_exact_tokens_for_tokens({
        amount_in: 2n * E7,
        amount_out_min: hop2,
        path: [f.weth, f.xlm, f.usdc],
        to: f.alice.publicKey(),
        deadline: deadline(f),
      }, TX),
    );
    assert.deepEqual(ok(sent), [2n * E7, hop1, hop2]);
    assert.equal(await balance(f, f.usdc, f.alice.publicKey()) - usdcBefore, hop2);
    // Only fees left alice's XLM: the intermediate XLM moved pair to pair.
    assert.ok(xlmBefore - (await balance(f, f.xlm, f.alice.publicKey())) < 1n * E7);

    const [c0, c1] = await reserves(f, "xlm/usdc", f.xlm, f.usdc);
    const want = 500n * E7;
    const need = getAmountIn(want, c0, c1);
    assert.deepEqual(
      ok(await router.router_get_amounts_in({ amount_out: want, path: [f.xlm, f.usdc] })),
      [need, want],
    );
    const before = await balance(f, f.usdc, f.alice.publicKey());
    await send(
      await router.swap_tokens_for_exact_tokens({
        amount_out: want,
        amount_in_max: need,
        path: [f.xlm, f.usdc],
        to: f.alice.publicKey(),
        deadline: deadline(f),
      }, TX),
    );
    assert.equal(await balance(f, f.usdc, f.alice.publicKey()) - before, want);
  });
});

Deno.test("phoenix over RPC: simulate_swap = compute_swap, swap delivers it, errors", async () => {
  await withFixture(async (f) => {
    const m = await f.client(f.d.fallback_dex_router, f.alice);
    const pool = await f.client(f.d.phoenix_pools["xlm/usdc"], f.alice);
    const info = ok<{ asset_a: { address: string; amount: bigint }; asset_b: { amount: bigint } }>(
      await pool.query_pool_info(),
    );
    const [offerPool, askPool] = info.asset_a.address === f.xlm
      ? [info.asset_a.amount, info.asset_b.amount]
      : [info.asset_b.amount, info.asset_a.amount];
    const amount = 2_500n * E7;
    const expected = phoenixComputeSwap(offerPool, askPool, amount, 30n);
    const ops = (min: bigint | undefined = undefined) => [
      { ask_asset: f.usdc, ask_asset_min_amount: min, offer_asset: f.xlm },
    ];
    const sim = ok<{ ask_amount: bigint; spread_amount: bigint[] }>(
      await m.simulate_swap({ operations: ops(), amount, pool_type: 0 }),
    );
    assert.equal(sim.ask_amount, expected.returnAmount);
    assert.deepEqual(sim.spread_amount, [expected.spreadAmount]);

    const before = await balance(f, f.usdc, f.alice.publicKey());
    const swapArgs = {
      recipient: f.alice.publicKey(),
      operations: ops(expected.returnAmount),
      max_spread_bps: undefined,
      amount,
      pool_type: 0,
      deadline: deadline(f),
      max_allowed_fee_bps: undefined,
    };
    await send(await m.swap(swapArgs, TX));
    assert.equal(await balance(f, f.usdc, f.alice.publicKey()) - before, expected.returnAmount);

    // The pool moved: asking the old return again is below the new one.
    assert.equal(simError(await m.swap(swapArgs, TX)), 320);
    assert.equal(simError(await m.swap({ ...swapArgs, operations: [] }, TX)), 201);
    assert.equal(
      simError(
        await m.swap({
          ...swapArgs,
          operations: [{ ask_asset: f.usdc, ask_asset_min_amount: undefined, offer_asset: f.weth }],
        }, TX),
      ),
      103,
    );
    const now = f.node.latestLedger().closeTime;
    assert.equal(
      simError(await m.swap({ ...swapArgs, operations: ops(), deadline: now - 1n }, TX)),
      321,
    );
  });
});

Deno.test("fault switches over RPC: transient fails quotes/swaps, then clears; skew < floor", async () => {
  await withFixture(async (f) => {
    const adminRouter = await f.client(f.d.primary_dex_router, f.admin);
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const quote = async () =>
      await router.router_get_amounts_out({ amount_in: 100n * E7, path: [f.xlm, f.usdc] });
    const normal = ok<bigint[]>(await quote())[1];

    // Admin only: alice's set_fault needs the admin's signature and cannot be sent without it.
    const bad = await router.set_fault({ mode: { tag: "Skew", values: [500] } }, TX);
    assert.deepEqual(bad.needsNonInvokerSigningBy(), [f.admin.publicKey()]);
    await assert.rejects(() => bad.signAndSend());

    await send(await adminRouter.set_fault({ mode: { tag: "Transient", values: [2] } }, TX));
    assert.equal(simError(await quote()), 590);
    assert.equal(
      simError(
        await router.swap_exact_tokens_for_tokens({
          amount_in: 100n * E7,
          amount_out_min: 0n,
          path: [f.xlm, f.usdc],
          to: f.alice.publicKey(),
          deadline: deadline(f),
        }, TX),
      ),
      590,
    );
    await f.node.closeLedgers(3);
    assert.equal(ok<bigint[]>(await quote())[1], normal, "transient fault expired");

    // Skew: the quote (and the swap) drop 3 %, below a 1 % slippage floor of the fair value.
    await send(await adminRouter.set_fault({ mode: { tag: "Skew", values: [300] } }, TX));
    const fault = ok<{ active: boolean; mode: { tag: string } }>(await router.get_fault());
    assert.equal(fault.active, true);
    assert.equal(fault.mode.tag, "Skew");
    const skewed = ok<bigint[]>(await quote())[1];
    assert.equal(skewed, (normal * 9700n) / 10000n);
    const floor = slippageFloor(normal, 100);
    assert.ok(skewed < floor, "a keeper rejects this quote (ErrSlippageExceeded)");
    // A swap that insists on the floor fails on chain-side checks (507).
    assert.equal(
      simError(
        await router.swap_exact_tokens_for_tokens({
          amount_in: 100n * E7,
          amount_out_min: floor,
          path: [f.xlm, f.usdc],
          to: f.alice.publicKey(),
          deadline: deadline(f),
        }, TX),
      ),
      507,
    );

    // Phoenix venue: transient until cleared (290), then skew on simulate_swap.
    const adminM = await f.client(f.d.fallback_dex_router, f.admin);
    const m = await f.client(f.d.fallback_dex_router, f.alice);
    const ops = [{ ask_asset: f.usdc, ask_asset_min_amount: undefined, offer_asset: f.xlm }];
    const sim = async () =>
      await m.simulate_swap({ operations: ops, amount: 100n * E7, pool_type: 0 });
    const pNormal = ok<{ ask_amount: bigint }>(await sim()).ask_amount;
    await send(await adminM.set_fault({ mode: { tag: "Transient", values: [0] } }, TX));
    assert.equal(simError(await sim()), 290);
    await f.node.closeLedgers(5);
    assert.equal(simError(await sim()), 290, "Transient(0) lasts until cleared");
    await send(await adminM.set_fault({ mode: { tag: "Skew", values: [250] } }, TX));
    assert.equal(ok<{ ask_amount: bigint }>(await sim()).ask_amount, (pNormal * 9750n) / 10000n);
    await send(await adminM.set_fault({ mode: { tag: "None" } }, TX));
    assert.equal(ok<{ ask_amount: bigint }>(await sim()).ask_amount, pNormal);
  });
});

Deno.test("deployDexes: pairs and pools registered, LP owned by the admin", async () => {
  await withFixture(async (f) => {
    const factory = await f.client(f.d.soroswap_factory, f.alice);
    assert.equal(ok(await factory.all_pairs_length()), 2);
    assert.equal(
      ok(await factory.get_pair({ token_a: f.usdc, token_b: f.xlm })),
      f.d.soroswap_pairs["xlm/usdc"],
    );
    assert.equal(simError(await factory.get_pair({ token_a: f.usdc, token_b: f.weth })), 205);
    const pair = await f.client(f.d.soroswap_pairs["xlm/usdc"], f.alice);
    const total = ok<bigint>(await pair.total_shares());
    const adminLp = ok<bigint>(await pair.balance({ id: f.admin.publicKey() }));
    assert.equal(adminLp, total - 1000n, "minimum liquidity stays locked in the pair");
    const pf = await f.client(f.d.phoenix_factory, f.alice);
    assert.deepEqual(
      ok<string[]>(await pf.query_pools()).sort(),
      Object.values(f.d.phoenix_pools).sort(),
    );
    // The SAC balance of a pair equals its reserves after seeding.
    const [r0] = ok<[bigint, bigint]>(await pair.get_reserves());
    const [t0] = sortTokens(f.xlm, f.usdc);
    assert.equal(await balance(f, t0, f.d.soroswap_pairs["xlm/usdc"]), r0);
    void nativeToScVal;
  });
});
