/**
 * The DEX stand-ins run in-process (tests/protocols/helpers/dex_fake_host.ts): Soroswap router
 * quotes/swaps against the constant-product formula with Soroswap's fee rounding, error codes,
 * multi-hop, liquidity; Phoenix multihop/pool; the fault switches. The same behaviour over
 * JSON-RPC on the local node is covered by dex_test.ts.
 */
import assert from "node:assert/strict";
import { scValToNative } from "@stellar/stellar-sdk";
import { ContractError } from "../../contracts/sdk.ts";
import { asDexHost, FakeHost, fakeToken } from "./helpers/dex_fake_host.ts";
import { deployDexes, type DexDeployment } from "../../localnet/protocols/dex/deploy.ts";
import {
  getAmountIn,
  getAmountOut,
  phoenixComputeSwap,
  sortTokens,
} from "../../localnet/protocols/dex/math.ts";

const E7 = 10_000_000n;
const FAR = 4_000_000_000n;

interface World {
  h: FakeHost;
  admin: string;
  user: string;
  usdc: string;
  xlm: string;
  weth: string;
  d: DexDeployment;
}

async function world(): Promise<World> {
  const h = new FakeHost();
  const admin = h.account();
  const user = h.account();
  const usdc = h.deploy(fakeToken, { symbol: "USDC" });
  const xlm = h.deploy(fakeToken, { symbol: "native" });
  const weth = h.deploy(fakeToken, { symbol: "WETH" });
  const d = await deployDexes(asDexHost(h), {
    admin,
    tokens: { usdc, xlm, weth },
    liquidity: [
      { a: "xlm", b: "usdc", amountA: 10_000_000n * E7, amountB: 1_200_000n * E7 },
      { a: "weth", b: "xlm", amountA: 500n * E7, amountB: 12_500_000n * E7 },
    ],
  });
  h.invoke(xlm, "mint", { to: user, amount: 100_000n * E7 });
  h.invoke(weth, "mint", { to: user, amount: 100n * E7 });
  return { h, admin, user, usdc, xlm, weth, d };
}

/** Reserves of a Soroswap pair in (a, b) order. */
function reserves(w: World, pairKey: string, a: string, b: string): [bigint, bigint] {
  const [r0, r1] = w.h.invoke<[bigint, bigint]>(w.d.soroswap_pairs[pairKey], "get_reserves");
  return sortTokens(a, b)[0] === a ? [r0, r1] : [r1, r0];
}

const bal = (w: World, token: string, who: string) =>
  w.h.invoke<bigint>(token, "balance", { id: who });

Deno.test("deployDexes seeds both venues with the given liquidity", async () => {
  const w = await world();
  assert.deepEqual(reserves(w, "xlm/usdc", w.xlm, w.usdc), [10_000_000n * E7, 1_200_000n * E7]);
  const info = w.h.invoke<{ asset_a: { address: string; amount: bigint } }>(
    w.d.phoenix_pools["xlm/usdc"],
    "query_pool_info",
  );
  const [t0] = sortTokens(w.xlm, w.usdc);
  assert.equal(info.asset_a.address, t0);
  assert.equal(info.asset_a.amount, t0 === w.xlm ? 10_000_000n * E7 : 1_200_000n * E7);
  assert.equal(
    w.h.invoke(w.d.primary_dex_router, "router_pair_for", { token_a: w.usdc, token_b: w.xlm }),
    w.d.soroswap_pairs["xlm/usdc"],
  );
  assert.equal(
    w.h.invoke(w.d.phoenix_factory, "query_for_pool_by_token_pair", {
      token_a: w.usdc,
      token_b: w.xlm,
    }),
    w.d.phoenix_pools["xlm/usdc"],
  );
});

Deno.test("Soroswap quote and swap follow x*y=k with the ceil(0.3%) input fee", async () => {
  const w = await world();
  const r = w.d.primary_dex_router;
  const amountIn = 1_234n * E7 + 5n;
  const [rIn, rOut] = reserves(w, "xlm/usdc", w.xlm, w.usdc);
  const expected = getAmountOut(amountIn, rIn, rOut);
  // Independent check of the formula.
  const fee = (amountIn * 3n + 999n) / 1000n;
  assert.equal(expected, ((amountIn - fee) * rOut) / (rIn + amountIn - fee));
  const quote = w.h.invoke<bigint[]>(r, "router_get_amounts_out", {
    amount_in: amountIn,
    path: [w.xlm, w.usdc],
  });
  assert.deepEqual(quote, [amountIn, expected]);
  const before = bal(w, w.usdc, w.user);
  const amounts = w.h.invoke<bigint[]>(r, "swap_exact_tokens_for_tokens", {
    amount_in: amountIn,
    amount_out_min: expected,
    path: [w.xlm, w.usdc],
    to: w.user,
    deadline: FAR,
  });
  assert.deepEqual(amounts, [amountIn, expected]);
  assert.equal(bal(w, w.usdc, w.user) - before, expected);
  assert.deepEqual(reserves(w, "xlm/usdc", w.xlm, w.usdc), [rIn + amountIn, rOut - expected]);
  // The user authorized the router call and the token pull; the pair paid out by invoker rule.
  assert.ok(w.h.auths.some((a) => a.address === w.user && a.fn === "swap_exact_tokens_for_tokens"));
  assert.ok(w.h.auths.some((a) => a.address === w.user && a.fn === "transfer"));
  // Router swap event: ("SoroswapRouter" String, "swap" Symbol) {amounts, path, to}.
  const ev = w.h.events.find((e) =>
    e.contract === r && e.topics[0].type === "scvString" &&
    scValToNative(e.topics[1]) === "swap"
  );
  assert.ok(ev, "router swap event");
  assert.equal(scValToNative(ev.topics[0]), "SoroswapRouter");
  const data = scValToNative(ev.data) as { amounts: bigint[]; path: string[]; to: string };
  assert.deepEqual(data.amounts, [amountIn, expected]);
  assert.deepEqual(data.path, [w.xlm, w.usdc]);
  assert.equal(data.to, w.user);
  // Pair emitted swap + sync.
  const pairEvents = w.h.events.filter((e) => e.contract === w.d.soroswap_pairs["xlm/usdc"]);
  assert.ok(pairEvents.some((e) => scValToNative(e.topics[1]) === "swap"));
});

Deno.test("Soroswap multi-hop weth -> xlm -> usdc chains the hops through the pairs", async () => {
  const w = await world();
  const amountIn = 2n * E7;
  const [a0, a1] = reserves(w, "weth/xlm", w.weth, w.xlm);
  const hop1 = getAmountOut(amountIn, a0, a1);
  const [b0, b1] = reserves(w, "xlm/usdc", w.xlm, w.usdc);
  const hop2 = getAmountOut(hop1, b0, b1);
  const amounts = w.h.invoke<bigint[]>(w.d.primary_dex_router, "swap_exact_tokens_for_tokens", {
    amount_in: amountIn,
    amount_out_min: hop2,
    path: [w.weth, w.xlm, w.usdc],
    to: w.user,
    deadline: FAR,
  });
  assert.deepEqual(amounts, [amountIn, hop1, hop2]);
  assert.equal(bal(w, w.usdc, w.user), hop2);
  // The intermediate xlm went pair to pair, not through the user.
  assert.equal(bal(w, w.xlm, w.user), 100_000n * E7);
});

Deno.test("Soroswap exact-out: input = get_amount_in, capped by amount_in_max (508)", async () => {
  const w = await world();
  const r = w.d.primary_dex_router;
  const want = 1_000n * E7;
  const [rIn, rOut] = reserves(w, "xlm/usdc", w.xlm, w.usdc);
  const need = getAmountIn(want, rIn, rOut);
  assert.deepEqual(
    w.h.invoke(r, "router_get_amounts_in", { amount_out: want, path: [w.xlm, w.usdc] }),
    [need, want],
  );
  assert.equal(
    w.h.invokeError(r, "swap_tokens_for_exact_tokens", {
      amount_out: want,
      amount_in_max: need - 1n,
      path: [w.xlm, w.usdc],
      to: w.user,
      deadline: FAR,
    }),
    508,
  );
  const xlmBefore = bal(w, w.xlm, w.user);
  w.h.invoke(r, "swap_tokens_for_exact_tokens", {
    amount_out: want,
    amount_in_max: need,
    path: [w.xlm, w.usdc],
    to: w.user,
    deadline: FAR,
  });
  assert.equal(bal(w, w.usdc, w.user), want);
  assert.equal(xlmBefore - bal(w, w.xlm, w.user), need);
});

Deno.test("Soroswap errors: deadline, min out, negative, path, identical, missing pair", async () => {
  const w = await world();
  const r = w.d.primary_dex_router;
  const swap = (o: Record<string, unknown>) =>
    w.h.invokeError(r, "swap_exact_tokens_for_tokens", {
      amount_in: 10n * E7,
      amount_out_min: 0n,
      path: [w.xlm, w.usdc],
      to: w.user,
      deadline: FAR,
      ...o,
    });
  // Deadline is exclusive: ledger.timestamp >= deadline fails.
  assert.equal(swap({ deadline: w.h.ledger.timestamp }), 503);
  assert.equal(swap({ deadline: w.h.ledger.timestamp - 1n }), 503);
  const q = w.h.invoke<bigint[]>(r, "router_get_amounts_out", {
    amount_in: 10n * E7,
    path: [w.xlm, w.usdc],
  })[1];
  assert.equal(swap({ amount_out_min: q + 1n }), 507);
  assert.equal(swap({ amount_in: -1n }), 502);
  assert.equal(swap({ amount_in: 0n }), 512);
  assert.equal(swap({ path: [w.xlm] }), 514);
  assert.equal(swap({ path: [w.xlm, w.xlm] }), 515);
  assert.equal(swap({ path: [w.weth, w.usdc] }), 509);
  // A failed swap moved nothing.
  assert.equal(bal(w, w.xlm, w.user), 100_000n * E7);
  // Not initialised router.
  const bare = w.h.deploy(
    (await import("../../localnet/protocols/dex/soroswap/router.ts")).soroswapRouter,
    {
      admin: w.admin,
    },
  );
  assert.equal(w.h.invokeError(bare, "get_factory"), 501);
  assert.equal(w.h.invokeError(r, "initialize", { factory: w.d.soroswap_factory }), 504);
});

Deno.test("Soroswap pair rejects one unit above the quote (114) and bad calls", async () => {
  const w = await world();
  const pair = w.d.soroswap_pairs["xlm/usdc"];
  const [t0] = sortTokens(w.xlm, w.usdc);
  const amountIn = 50n * E7;
  const [rIn, rOut] = reserves(w, "xlm/usdc", w.xlm, w.usdc);
  const out = getAmountOut(amountIn, rIn, rOut);
  const outs = (o: bigint): [bigint, bigint] => (t0 === w.xlm ? [0n, o] : [o, 0n]);
  w.h.invoke(w.xlm, "transfer", { from: w.user, to: pair, amount: amountIn });
  assert.equal(
    w.h.invokeError(pair, "swap", {
      amount_0_out: outs(out + 1n)[0],
      amount_1_out: outs(out + 1n)[1],
      to: w.user,
    }),
    114,
  );
  w.h.invoke(pair, "swap", { amount_0_out: outs(out)[0], amount_1_out: outs(out)[1], to: w.user });
  assert.equal(bal(w, w.usdc, w.user), out);
  assert.equal(
    w.h.invokeError(pair, "swap", { amount_0_out: 0n, amount_1_out: 0n, to: w.user }),
    108,
  );
  assert.equal(
    w.h.invokeError(pair, "swap", { amount_0_out: 1n, amount_1_out: 0n, to: w.xlm }),
    111,
  );
  assert.equal(
    w.h.invokeError(pair, "swap", { amount_0_out: 1n, amount_1_out: 0n, to: w.user }),
    112,
  );
  assert.equal(
    w.h.invokeError(pair, "initialize_pair", { factory: w.admin, token_0: w.xlm, token_1: w.usdc }),
    101,
  );
});

Deno.test("Soroswap add/remove liquidity keep the ratio and return LP shares", async () => {
  const w = await world();
  const r = w.d.primary_dex_router;
  w.h.invoke(w.usdc, "mint", { to: w.user, amount: 12_000n * E7 });
  const [rX, rU] = reserves(w, "xlm/usdc", w.xlm, w.usdc);
  const [a, b, lp] = w.h.invoke<[bigint, bigint, bigint]>(r, "add_liquidity", {
    token_a: w.xlm,
    token_b: w.usdc,
    amount_a_desired: 100_000n * E7,
    amount_b_desired: 12_000n * E7,
    amount_a_min: 0n,
    amount_b_min: 0n,
    to: w.user,
    deadline: FAR,
  });
  assert.equal(b, (a * rU) / rX > 12_000n * E7 ? 12_000n * E7 : (a * rU) / rX);
  assert.ok(lp > 0n);
  const pair = w.d.soroswap_pairs["xlm/usdc"];
  assert.equal(w.h.invoke(pair, "balance", { id: w.user }), lp);
  const [outA, outB] = w.h.invoke<[bigint, bigint]>(r, "remove_liquidity", {
    token_a: w.xlm,
    token_b: w.usdc,
    liquidity: lp,
    amount_a_min: 0n,
    amount_b_min: 0n,
    to: w.user,
    deadline: FAR,
  });
  // Round trip loses at most rounding dust: about reserve / total_shares units per side.
  const total = w.h.invoke<bigint>(pair, "total_shares");
  const dust = (r: bigint) => r / total + 2n;
  assert.ok(a - outA >= 0n && a - outA <= dust(rX), `${a} vs ${outA}`);
  assert.ok(b - outB >= 0n && b - outB <= dust(rU), `${b} vs ${outB}`);
  const add = (aDesired: bigint, bDesired: bigint, aMin: bigint, bMin: bigint) =>
    w.h.invokeError(r, "add_liquidity", {
      token_a: w.xlm,
      token_b: w.usdc,
      amount_a_desired: aDesired,
      amount_b_desired: bDesired,
      amount_a_min: aMin,
      amount_b_min: bMin,
      to: w.user,
      deadline: FAR,
    });
  // Pool price is 0.12 USDC/XLM: 10 XLM wants 1.2 USDC, 1 USDC wants 8.33 XLM.
  assert.equal(add(10n * E7, 10n * E7, 0n, 10n * E7), 506);
  assert.equal(add(10n * E7, 1n * E7, 10n * E7, 0n), 505);
});

Deno.test("Soroswap fault switch: transient (590) for n ledgers or until cleared; skew", async () => {
  const w = await world();
  const r = w.d.primary_dex_router;
  const quote = () =>
    w.h.invoke<bigint[]>(r, "router_get_amounts_out", {
      amount_in: 100n * E7,
      path: [w.xlm, w.usdc],
    })[1];
  const normal = quote();

  w.h.invoke(r, "set_fault", { mode: { tag: "Transient", values: [2] } });
  assert.deepEqual(w.h.invoke(r, "get_fault"), {
    active: true,
    mode: { tag: "Transient", values: [2] },
    set_ledger: 100,
  });
  assert.equal(
    w.h.invokeError(r, "router_get_amounts_out", { amount_in: 100n * E7, path: [w.xlm, w.usdc] }),
    590,
  );
  assert.equal(
    w.h.invokeError(r, "swap_exact_tokens_for_tokens", {
      amount_in: 100n * E7,
      amount_out_min: 0n,
      path: [w.xlm, w.usdc],
      to: w.user,
      deadline: FAR,
    }),
    590,
  );
  w.h.ledger.sequence += 2; // still within set_ledger + 2
  assert.equal(
    w.h.invokeError(r, "router_get_amounts_out", { amount_in: 100n * E7, path: [w.xlm, w.usdc] }),
    590,
  );
  w.h.ledger.sequence += 1;
  assert.equal(quote(), normal);

  w.h.invoke(r, "set_fault", { mode: { tag: "Transient", values: [0] } });
  w.h.ledger.sequence += 1000;
  assert.equal(
    w.h.invokeError(r, "router_get_amounts_out", { amount_in: 100n * E7, path: [w.xlm, w.usdc] }),
    590,
  );
  w.h.invoke(r, "set_fault", { mode: { tag: "None" } });
  assert.equal(quote(), normal);

  w.h.invoke(r, "set_fault", { mode: { tag: "Skew", values: [300] } });
  const skewed = quote();
  assert.equal(skewed, (normal * 9700n) / 10000n);
  const before = bal(w, w.usdc, w.user);
  w.h.invoke(r, "swap_exact_tokens_for_tokens", {
    amount_in: 100n * E7,
    amount_out_min: skewed,
    path: [w.xlm, w.usdc],
    to: w.user,
    deadline: FAR,
  });
  assert.equal(bal(w, w.usdc, w.user) - before, skewed, "the swap pays the skewed quote");
  // Exact-out under skew: the output is exact, the input is sized for the unskewed output.
  const want = 50n * E7;
  const [rIn, rOut] = reserves(w, "xlm/usdc", w.xlm, w.usdc);
  const needSkewed = getAmountIn((want * 10000n + 9699n) / 9700n, rIn, rOut);
  assert.ok(needSkewed > getAmountIn(want, rIn, rOut));
  const [paidIn] = w.h.invoke<bigint[]>(r, "swap_tokens_for_exact_tokens", {
    amount_out: want,
    amount_in_max: needSkewed,
    path: [w.xlm, w.usdc],
    to: w.user,
    deadline: FAR,
  });
  assert.equal(paidIn, needSkewed);
  assert.equal(bal(w, w.usdc, w.user) - before - skewed, want);
  assert.equal(w.h.invokeError(r, "set_fault", { mode: { tag: "Skew", values: [10_000] } }), 591);
  // Admin only.
  w.h.refuse.add(w.admin);
  assert.throws(() => w.h.invoke(r, "set_fault", { mode: { tag: "None" } }), /Auth/);
  assert.equal(
    w.h.invokeError(r, "router_quote", { amount_a: 0n, reserve_a: 1n, reserve_b: 1n }),
    510,
  );
});

Deno.test("Phoenix multihop: simulate_swap and swap follow compute_swap; errors", async () => {
  const w = await world();
  const m = w.d.fallback_dex_router;
  const pool = w.d.phoenix_pools["xlm/usdc"];
  const op = (offer: string, ask: string, min: bigint | null = null) => ({
    ask_asset: ask,
    ask_asset_min_amount: min,
    offer_asset: offer,
  });
  const info = w.h.invoke<
    { asset_a: { address: string; amount: bigint }; asset_b: { amount: bigint } }
  >(
    pool,
    "query_pool_info",
  );
  const [offerPool, askPool] = info.asset_a.address === w.xlm
    ? [info.asset_a.amount, info.asset_b.amount]
    : [info.asset_b.amount, info.asset_a.amount];
  const amount = 777n * E7;
  const expected = phoenixComputeSwap(offerPool, askPool, amount, 30n);
  const sim = w.h.invoke<
    { ask_amount: bigint; commission_amounts: [string, bigint][]; spread_amount: bigint[] }
  >(
    m,
    "simulate_swap",
    { operations: [op(w.xlm, w.usdc)], amount, pool_type: 0 },
  );
  assert.equal(sim.ask_amount, expected.returnAmount);
  assert.deepEqual(sim.commission_amounts, [["native", expected.commissionAmount]]);
  assert.deepEqual(sim.spread_amount, [expected.spreadAmount]);

  const before = bal(w, w.usdc, w.user);
  const ret = w.h.invoke(m, "swap", {
    recipient: w.user,
    operations: [op(w.xlm, w.usdc, expected.returnAmount)],
    max_spread_bps: null,
    amount,
    pool_type: 0,
    deadline: FAR,
    max_allowed_fee_bps: null,
  });
  assert.equal(ret, null, "multihop swap returns nothing");
  assert.equal(bal(w, w.usdc, w.user) - before, expected.returnAmount);
  assert.equal(
    bal(w, w.usdc, w.d.phoenix_factory),
    expected.commissionAmount,
    "fee paid to the fee recipient (default: the Phoenix factory)",
  );

  const swapErr = (o: Record<string, unknown>) =>
    w.h.invokeError(m, "swap", {
      recipient: w.user,
      operations: [op(w.xlm, w.usdc)],
      max_spread_bps: null,
      amount: 10n * E7,
      pool_type: 0,
      deadline: FAR,
      max_allowed_fee_bps: null,
      ...o,
    });
  assert.equal(swapErr({ operations: [] }), 201);
  assert.equal(swapErr({ operations: [op(w.weth, w.xlm), op(w.usdc, w.xlm)] }), 202);
  assert.equal(swapErr({ operations: [op(w.weth, w.usdc)] }), 103);
  assert.equal(swapErr({ operations: [op(w.xlm, w.usdc, 10n ** 15n)] }), 320);
  assert.equal(swapErr({ deadline: w.h.ledger.timestamp - 1n }), 321);
  assert.equal(swapErr({ max_allowed_fee_bps: 10n }), 323);
  assert.equal(swapErr({ amount: 3_000_000n * E7 }), 300, "price impact above max spread");
  // Multi-hop weth -> xlm -> usdc.
  const two = w.h.invoke<{ ask_amount: bigint }>(m, "simulate_swap", {
    operations: [op(w.weth, w.xlm), op(w.xlm, w.usdc)],
    amount: E7,
    pool_type: 0,
  });
  w.h.invoke(m, "swap", {
    recipient: w.user,
    operations: [op(w.weth, w.xlm), op(w.xlm, w.usdc)],
    max_spread_bps: null,
    amount: E7,
    pool_type: 0,
    deadline: null,
    max_allowed_fee_bps: null,
  });
  assert.equal(bal(w, w.usdc, w.user) - before - expected.returnAmount, two.ask_amount);
});

Deno.test("Phoenix fault switch: multihop 290, pool 390, skew on quote and swap", async () => {
  const w = await world();
  const m = w.d.fallback_dex_router;
  const pool = w.d.phoenix_pools["xlm/usdc"];
  const ops = [{ ask_asset: w.usdc, ask_asset_min_amount: null, offer_asset: w.xlm }];
  const sim = () =>
    w.h.invoke<{ ask_amount: bigint }>(m, "simulate_swap", {
      operations: ops,
      amount: 100n * E7,
      pool_type: 0,
    })
      .ask_amount;
  const normal = sim();
  w.h.invoke(m, "set_fault", { mode: { tag: "Transient", values: [0] } });
  assert.equal(
    w.h.invokeError(m, "simulate_swap", { operations: ops, amount: 100n * E7, pool_type: 0 }),
    290,
  );
  assert.equal(
    w.h.invokeError(pool, "simulate_swap", { offer_asset: w.xlm, offer_amount: E7 }),
    390,
  );
  assert.deepEqual((w.h.invoke(m, "get_fault") as { active: boolean }).active, true);
  w.h.invoke(m, "set_fault", { mode: { tag: "Skew", values: [1000] } });
  const skewed = sim();
  assert.equal(skewed, (normal * 9000n) / 10000n);
  const before = bal(w, w.usdc, w.user);
  w.h.invoke(m, "swap", {
    recipient: w.user,
    operations: ops,
    max_spread_bps: null,
    amount: 100n * E7,
    pool_type: 0,
    deadline: FAR,
    max_allowed_fee_bps: null,
  });
  assert.equal(bal(w, w.usdc, w.user) - before, skewed);
  // Only the admin (or the multihop forwarding it) may set the factory's fault.
  w.h.refuse.add(w.admin);
  assert.throws(() => w.h.invoke(m, "set_fault", { mode: { tag: "None" } }), /Auth/);
  assert.throws(
    () => w.h.invoke(w.d.phoenix_factory, "set_fault", { mode: { tag: "None" } }),
    /Auth/,
  );
});

/** The error a root invocation throws (a plain Error is a trap, not a contract error). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("did not throw");
}

Deno.test("Soroswap LP transfer moves shares, keeps the total, traps on overdraft", async () => {
  const { h, admin, d } = await world();
  const pair = d.soroswap_pairs["xlm/usdc"];
  const bob = h.account();
  const lp = h.invoke<bigint>(pair, "balance", { id: admin });
  const total = h.invoke<bigint>(pair, "total_shares");
  assert.ok(lp > 0n);
  h.invoke(pair, "transfer", { from: admin, to: bob, amount: 123n });
  assert.equal(h.invoke(pair, "balance", { id: admin }), lp - 123n);
  assert.equal(h.invoke(pair, "my_balance", { id: bob }), 123n);
  assert.equal(h.invoke(pair, "total_shares"), total);
  const ev = h.events.filter((e) =>
    e.contract === pair && scValToNative(e.topics[0]) === "transfer"
  ).at(-1)!;
  assert.deepEqual(
    [scValToNative(ev.topics[1]), scValToNative(ev.topics[2]), scValToNative(ev.data)],
    [admin, bob, 123n],
  );
  assert.ok(h.auths.some((a) => a.address === admin && a.contract === pair && a.fn === "transfer"));
  const over = thrown(() => h.invoke(pair, "transfer", { from: bob, to: admin, amount: 124n }));
  assert.ok(!(over instanceof ContractError));
  assert.equal(over.message, "insufficient balance");
  const neg = thrown(() => h.invoke(pair, "transfer", { from: bob, to: admin, amount: -1n }));
  assert.equal(neg.message, "negative amount is not allowed");
  assert.equal(h.invoke(pair, "my_balance", { id: bob }), 123n);
});

Deno.test("Phoenix pool: withdrawing more LP shares than held traps, books unchanged", async () => {
  const { h, admin, d } = await world();
  const pool = d.phoenix_pools["xlm/usdc"];
  const mine = h.invoke<bigint>(pool, "balance", { id: admin });
  const total = h.invoke<bigint>(pool, "query_total_issued_lp");
  assert.ok(mine > 0n && total === mine + 1000n);
  const args = { sender: admin, min_a: 0n, min_b: 0n, deadline: null, auto_unstake: null };
  const over = thrown(() =>
    h.invoke(pool, "withdraw_liquidity", { ...args, share_amount: mine + 1n })
  );
  assert.ok(!(over instanceof ContractError));
  assert.equal(over.message, "Pool: insufficient LP share balance");
  assert.equal(h.invoke(pool, "query_total_issued_lp"), total);
  h.invoke(pool, "withdraw_liquidity", { ...args, share_amount: mine });
  assert.equal(h.invoke(pool, "balance", { id: admin }), 0n);
  assert.equal(h.invoke(pool, "query_total_issued_lp"), 1000n);
});
