/**
 * The local market's DEX venues — the Soroswap-ABI Wasm contracts (`localnet/protocols/dex/contracts/soroswap_*`) as
 * `deployDexes` deploys them, twice (primary and fallback) — on the local node: over JSON-RPC
 * with `contract.Client` and real signatures, and through the in-process Localnet API.
 * Swaps both directions, multi-hop, quotes equal to results (a property test against a bigint
 * reference of Soroswap's formulas), add/remove liquidity, errors (503, 507, 508, missing pair,
 * K check), events, permissionless `create_pair` (duplicate refused), `to.require_auth()`, and
 * the stand-in fault switch.
 */
import assert from "node:assert/strict";
import { Asset, Keypair, scValToNative, xdr } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { type Client, ok, send, simError, TX } from "@vigil/testing/protocols/helpers/client";
import { seedTrustline, setupDevChain } from "../../dev_setup.ts";
import { deployDexes, type DexDeployment } from "./deploy.ts";
import { getAmountIn, getAmountOut, quote as quoteRef, slippageFloor, sortTokens } from "./math.ts";

const E7 = 10_000_000n;

interface Fixture {
  node: TestNode;
  admin: Keypair;
  alice: Keypair;
  bob: Keypair;
  usdc: string;
  xlm: string;
  weth: string;
  d: DexDeployment;
  client(id: string, signer: Keypair): Promise<Client>;
}

async function fixture(): Promise<Fixture> {
  const node = await startTestNode();
  try {
    const base = await setupDevChain(node, { accounts: ["alice", "bob"] });
    const admin = await node.newAccount(50_000_000n);
    const alice = Keypair.fromSecret(base.accounts.alice.secret);
    const bob = Keypair.fromSecret(base.accounts.bob.secret);
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
    return { node, admin, alice, bob, usdc, xlm, weth, d, client };
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

async function reserves(
  f: Fixture,
  pair: string,
  a: string,
  b: string,
): Promise<[bigint, bigint]> {
  const [r0, r1] = await f.node.view<[bigint, bigint]>(pair, "get_reserves");
  return sortTokens(a, b)[0] === a ? [r0, r1] : [r1, r0];
}

function deadline(f: Fixture, ahead = 600n): bigint {
  return f.node.latestLedger().closeTime + ahead;
}

/** Contract events of `id` with topics [String topic0, Symbol topic1]. */
async function events(f: Fixture, id: string, topic0: string, topic1: string) {
  const r = await f.node.server.getEvents({
    startLedger: 2,
    filters: [{
      type: "contract",
      contractIds: [id],
      topics: [[
        xdr.ScVal.scvString(topic0).toXDR("base64"),
        xdr.ScVal.scvSymbol(topic1).toXDR("base64"),
      ]],
    }],
  });
  return r.events.map((e) => scValToNative(e.value));
}

/** The contract error code in a thrown in-process error (undefined for a host trap). */
function codeOf(e: unknown): number | undefined {
  const m = /Error\(Contract, #(\d+)\)/.exec(String((e as Error).message ?? e));
  return m ? Number(m[1]) : undefined;
}

async function rejectsWith(p: Promise<unknown>, code: number | "trap"): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (code === "trap") {
      assert.equal(codeOf(e), undefined, `expected a host error, got ${String(e)}`);
    } else assert.equal(codeOf(e), code, String(e));
    return;
  }
  assert.fail(`expected ${code}`);
}

Deno.test("soroswap wasm over RPC: quote = formula, swaps both directions pay exactly the quote, events", async () => {
  await withFixture(async (f) => {
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const pair = f.d.soroswap_pairs["xlm/usdc"];
    for (
      const [tin, tout, amountIn] of [[f.xlm, f.usdc, 1_000n * E7 + 7n], [
        f.usdc,
        f.xlm,
        55n * E7 + 3n,
      ]] as const
    ) {
      const [rIn, rOut] = await reserves(f, pair, tin, tout);
      const fee = (amountIn * 3n + 999n) / 1000n;
      const formula = ((amountIn - fee) * rOut) / (rIn + amountIn - fee);
      assert.equal(getAmountOut(amountIn, rIn, rOut), formula);
      const q = await router.router_get_amounts_out({ amount_in: amountIn, path: [tin, tout] });
      assert.equal(q.isReadCall, true);
      assert.deepEqual(ok(q), [amountIn, formula]);
      const outBefore = await balance(f, tout, f.alice.publicKey());
      const tx = await router.swap_exact_tokens_for_tokens({
        amount_in: amountIn,
        amount_out_min: formula,
        path: [tin, tout],
        to: f.alice.publicKey(),
        deadline: deadline(f),
      }, TX);
      assert.deepEqual(tx.needsNonInvokerSigningBy(), []);
      assert.deepEqual(ok(await send(tx)), [amountIn, formula]);
      // (XLM pays the transaction fee too: its balance is checked through the reserves only.)
      if (tout !== f.xlm) {
        assert.equal(await balance(f, tout, f.alice.publicKey()) - outBefore, formula);
      }
      assert.deepEqual(await reserves(f, pair, tin, tout), [rIn + amountIn, rOut - formula]);
    }
    // Router event: ("SoroswapRouter", "swap") {amounts, path, to}; pair: swap + sync.
    const swaps = await events(f, f.d.primary_dex_router, "SoroswapRouter", "swap");
    assert.equal(swaps.length, 2);
    assert.deepEqual(swaps[0].path, [f.xlm, f.usdc]);
    assert.equal(swaps[0].to, f.alice.publicKey());
    const pairSwaps = await events(f, pair, "SoroswapPair", "swap");
    assert.equal(pairSwaps.length, 2);
    const [t0] = sortTokens(f.xlm, f.usdc);
    const first = pairSwaps[0];
    const xlmIn = 1_000n * E7 + 7n;
    assert.equal(t0 === f.xlm ? first.amount_0_in : first.amount_1_in, xlmIn);
    assert.equal(first.to, f.alice.publicKey());
    const syncs = await events(f, pair, "SoroswapPair", "sync");
    const [r0, r1] = await f.node.view<[bigint, bigint]>(pair, "get_reserves");
    assert.deepEqual(syncs.at(-1), { new_reserve_0: r0, new_reserve_1: r1 });
  });
});

Deno.test("soroswap wasm over RPC: deadline (503), min out (507), max in (508), missing pair, pair K check", async () => {
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
    const need = ok<bigint[]>(
      await router.router_get_amounts_in({ amount_out: 5n * E7, path: [f.xlm, f.usdc] }),
    )[0];
    assert.equal(
      simError(
        await router.swap_tokens_for_exact_tokens({
          amount_out: 5n * E7,
          amount_in_max: need - 1n,
          path: [f.xlm, f.usdc],
          to: f.alice.publicKey(),
          deadline: deadline(f),
        }, TX),
      ),
      508,
    );
    assert.equal(
      simError(await router.router_get_amounts_out({ amount_in: 1n, path: [f.xlm] })),
      514,
    );
    assert.equal(
      simError(await router.swap_exact_tokens_for_tokens({ ...args, amount_in: -1n }, TX)),
      502,
    );
    // No weth/usdc pair: like the real router, the computed pair address holds no contract, so
    // the call fails as a host error (no typed code), and remove_liquidity says 509.
    await rejectsWith(
      f.node.view(f.d.primary_dex_router, "router_get_amounts_out", [1n * E7, [f.weth, f.usdc]]),
      "trap",
    );
    await rejectsWith(
      f.node.invoke(f.d.primary_dex_router, "remove_liquidity", [
        f.weth,
        f.usdc,
        1n,
        0n,
        0n,
        f.alice.publicKey(),
        deadline(f),
      ]),
      509,
    );
    // The pair's own checks: no input (112), too little input for the output (114 K).
    const pair = f.d.soroswap_pairs["xlm/usdc"];
    const [t0] = sortTokens(f.xlm, f.usdc);
    const outArgs = (out: bigint) => t0 === f.usdc ? [out, 0n] : [0n, out];
    await rejectsWith(
      f.node.invoke(pair, "swap", [...outArgs(1n * E7), f.alice.publicKey()]),
      112,
    );
    await f.node.invoke(f.xlm, "transfer", [f.alice.publicKey(), pair, 1n * E7], {
      source: f.alice.publicKey(),
    });
    const [rx, ru] = await reserves(f, pair, f.xlm, f.usdc);
    const fair = getAmountOut(1n * E7, rx, ru);
    await rejectsWith(
      f.node.invoke(pair, "swap", [...outArgs(fair + 1n), f.alice.publicKey()]),
      114,
    );
    await f.node.invoke(pair, "swap", [...outArgs(fair), f.alice.publicKey()]);
    await rejectsWith(f.node.invoke(pair, "swap", [0n, 0n, f.alice.publicKey()]), 108);
    await rejectsWith(f.node.invoke(pair, "swap", [...outArgs(1n), f.usdc]), 111);
    // A deadline that passes between simulation and inclusion fails on chain.
    const tight = await router.swap_exact_tokens_for_tokens({
      ...args,
      deadline: f.node.latestLedger().closeTime + 10n,
    }, TX);
    await f.node.advanceTime(30);
    const late = await tight.signAndSend({ force: true });
    assert.equal(late.getTransactionResponse?.status, "FAILED");
  });
});

Deno.test("soroswap wasm over RPC: multi-hop weth -> xlm -> usdc and exact-out", async () => {
  await withFixture(async (f) => {
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const [a0, a1] = await reserves(f, f.d.soroswap_pairs["weth/xlm"], f.weth, f.xlm);
    const [b0, b1] = await reserves(f, f.d.soroswap_pairs["xlm/usdc"], f.xlm, f.usdc);
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
    assert.ok(xlmBefore - (await balance(f, f.xlm, f.alice.publicKey())) < 1n * E7);

    // Exact out over two hops: usdc -> xlm -> weth.
    const want = 1n * E7;
    const [c0, c1] = await reserves(f, f.d.soroswap_pairs["weth/xlm"], f.xlm, f.weth);
    const [u0, u1] = await reserves(f, f.d.soroswap_pairs["xlm/usdc"], f.usdc, f.xlm);
    const midNeed = getAmountIn(want, c0, c1);
    const need = getAmountIn(midNeed, u0, u1);
    assert.deepEqual(
      ok(await router.router_get_amounts_in({ amount_out: want, path: [f.usdc, f.xlm, f.weth] })),
      [need, midNeed, want],
    );
    const before = await balance(f, f.weth, f.alice.publicKey());
    await send(
      await router.swap_tokens_for_exact_tokens({
        amount_out: want,
        amount_in_max: need,
        path: [f.usdc, f.xlm, f.weth],
        to: f.alice.publicKey(),
        deadline: deadline(f),
      }, TX),
    );
    assert.equal(await balance(f, f.weth, f.alice.publicKey()) - before, want);
  });
});

Deno.test("soroswap wasm: add/remove liquidity (optimal amounts, LP shares, events) and to.require_auth", async () => {
  await withFixture(async (f) => {
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const pair = f.d.soroswap_pairs["xlm/usdc"];
    const [rx, ru] = await reserves(f, pair, f.xlm, f.usdc);
    const supply = await f.node.view<bigint>(pair, "total_supply");
    const xDesired = 1_000n * E7;
    const uOptimal = quoteRef(xDesired, rx, ru);
    const add = ok<[bigint, bigint, bigint]>(
      await send(
        await router.add_liquidity({
          token_a: f.xlm,
          token_b: f.usdc,
          amount_a_desired: xDesired,
          amount_b_desired: uOptimal + 50n * E7,
          amount_a_min: 0n,
          amount_b_min: 0n,
          to: f.alice.publicKey(),
          deadline: deadline(f),
        }, TX),
      ),
    );
    const s0 = (xDesired * supply) / rx;
    const s1 = (uOptimal * supply) / ru;
    assert.deepEqual(add, [xDesired, uOptimal, s0 < s1 ? s0 : s1]);
    assert.equal(await f.node.view(pair, "balance", [f.alice.publicKey()]), add[2]);
    const addEv = await events(f, f.d.primary_dex_router, "SoroswapRouter", "add");
    assert.deepEqual(addEv.at(-1), {
      amount_a: add[0],
      amount_b: add[1],
      liquidity: add[2],
      pair,
      to: f.alice.publicKey(),
      token_a: f.xlm,
      token_b: f.usdc,
    });
    assert.equal((await events(f, pair, "SoroswapPair", "deposit")).length, 2);
    // 506: the optimal B is below amount_b_min.
    assert.equal(
      simError(
        await router.add_liquidity({
          token_a: f.xlm,
          token_b: f.usdc,
          amount_a_desired: xDesired,
          amount_b_desired: uOptimal * 2n,
          amount_a_min: 0n,
          amount_b_min: uOptimal * 2n,
          to: f.alice.publicKey(),
          deadline: deadline(f),
        }, TX),
      ),
      506,
    );

    // Remove: pro-rata amounts back, LP burnt, minimums enforced (505).
    const [rx2, ru2] = await reserves(f, pair, f.xlm, f.usdc);
    const supply2 = await f.node.view<bigint>(pair, "total_supply");
    const wantX = (rx2 * add[2]) / supply2;
    const wantU = (ru2 * add[2]) / supply2;
    const removeArgs = {
      token_a: f.xlm,
      token_b: f.usdc,
      liquidity: add[2],
      amount_a_min: 0n,
      amount_b_min: 0n,
      to: f.alice.publicKey(),
      deadline: deadline(f),
    };
    assert.equal(
      simError(await router.remove_liquidity({ ...removeArgs, amount_a_min: wantX + 1n }, TX)),
      505,
    );
    const rem = ok<[bigint, bigint]>(await send(await router.remove_liquidity(removeArgs, TX)));
    assert.deepEqual(rem, [wantX, wantU]);
    assert.equal(await f.node.view(pair, "balance", [f.alice.publicKey()]), 0n);
    assert.equal((await events(f, f.d.primary_dex_router, "SoroswapRouter", "remove")).length, 1);

    // to.require_auth(): a swap paying to (and pulling from) someone else needs their signature.
    const bob = f.bob;
    const tx = await router.swap_exact_tokens_for_tokens({
      amount_in: 1n * E7,
      amount_out_min: 0n,
      path: [f.xlm, f.usdc],
      to: bob.publicKey(),
      deadline: deadline(f),
    }, TX);
    assert.deepEqual(tx.needsNonInvokerSigningBy(), [bob.publicKey()]);
    await assert.rejects(() => tx.signAndSend());
  });
});

Deno.test("soroswap wasm: create_pair is permissionless and deterministic; duplicates and identical tokens refused", async () => {
  await withFixture(async (f) => {
    const mallory = await f.node.newAccount();
    const factory = await f.client(f.d.soroswap_factory, mallory);
    const router = await f.client(f.d.primary_dex_router, mallory);
    const predicted = ok<string>(
      await router.router_pair_for({ token_a: f.usdc, token_b: f.weth }),
    );
    const created = ok<string>(
      await send(await factory.create_pair({ token_a: f.usdc, token_b: f.weth }, TX)),
    );
    assert.equal(created, predicted, "the router computes the address the factory deploys to");
    assert.equal(ok(await factory.get_pair({ token_a: f.weth, token_b: f.usdc })), created);
    assert.equal(ok(await factory.all_pairs_length()), 3);
    assert.equal(ok(await factory.all_pairs({ n: 2 })), created);
    const [t0, t1] = sortTokens(f.usdc, f.weth);
    assert.equal(await f.node.view(created, "token_0"), t0);
    assert.equal(await f.node.view(created, "token_1"), t1);
    assert.equal(await f.node.view(created, "factory"), f.d.soroswap_factory);
    assert.match(await f.node.view<string>(created, "symbol"), /-SOROSWAP-LP$/);
    const ev = await events(f, f.d.soroswap_factory, "SoroswapFactory", "new_pair");
    assert.deepEqual(ev.at(-1), { new_pairs_length: 3, pair: created, token_0: t0, token_1: t1 });
    assert.equal(
      simError(await factory.create_pair({ token_a: f.weth, token_b: f.usdc }, TX)),
      203,
    );
    assert.equal(
      simError(await factory.create_pair({ token_a: f.usdc, token_b: f.usdc }, TX)),
      202,
    );
    assert.equal(simError(await factory.get_pair({ token_a: f.usdc, token_b: f.usdc })), 202);
    assert.equal(simError(await factory.all_pairs({ n: 9 })), 206);
    // Only the setter may change fees; a second initialize is refused.
    const set = await factory.set_fees_enabled({ is_enabled: true }, TX);
    assert.deepEqual(set.needsNonInvokerSigningBy(), [f.admin.publicKey()]);
    assert.equal(
      simError(
        await factory.initialize({
          setter: mallory.publicKey(),
          pair_wasm_hash: new Uint8Array(32),
        }, TX),
      ),
      204,
    );
    // The fresh pair works: the first deposit through the router.
    const alice = await f.client(f.d.primary_dex_router, f.alice);
    const [, , lp] = ok<[bigint, bigint, bigint]>(
      await send(
        await alice.add_liquidity({
          token_a: f.usdc,
          token_b: f.weth,
          amount_a_desired: 3_000n * E7,
          amount_b_desired: 1n * E7,
          amount_a_min: 0n,
          amount_b_min: 0n,
          to: f.alice.publicKey(),
          deadline: deadline(f),
        }, TX),
      ),
    );
    const root = (n: bigint) => {
      let x = BigInt(Math.floor(Math.sqrt(Number(n))));
      while (x * x > n) x--;
      while ((x + 1n) * (x + 1n) <= n) x++;
      return x;
    };
    assert.equal(lp, root(3_000n * E7 * E7) - 1000n, "sqrt(a·b) − MINIMUM_LIQUIDITY");
  });
});

Deno.test("soroswap wasm: property — library quotes equal the bigint reference; swaps pay the quote", async () => {
  await withFixture(async (f) => {
    const r = f.d.primary_dex_router;
    let seed = 0x9e3779b9;
    const rnd = (max: bigint) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const hi = BigInt(seed);
      seed = (seed * 1103515245 + 12345) >>> 0;
      return ((hi << 32n) | BigInt(seed)) % max;
    };
    const mag = () => 10n ** rnd(16n);
    for (let i = 0; i < 60; i++) {
      const rIn = rnd(mag() * 1000n) + 1n;
      const rOut = rnd(mag() * 1000n) + 2n;
      const amount = rnd(mag() * 100n) + 1n;
      assert.equal(
        await f.node.view(r, "router_get_amount_out", [amount, rIn, rOut]),
        getAmountOut(amount, rIn, rOut),
        `amount_out(${amount}, ${rIn}, ${rOut})`,
      );
      assert.equal(
        await f.node.view(r, "router_quote", [amount, rIn, rOut]),
        quoteRef(amount, rIn, rOut),
      );
      const out = amount % rOut === 0n ? 1n : amount % rOut;
      assert.equal(
        await f.node.view(r, "router_get_amount_in", [out, rIn, rOut]),
        getAmountIn(out, rIn, rOut),
        `amount_in(${out}, ${rIn}, ${rOut})`,
      );
    }
    await rejectsWith(f.node.view(r, "router_get_amount_out", [0n, 1n, 1n]), 512);
    await rejectsWith(f.node.view(r, "router_get_amount_out", [1n, 0n, 1n]), 511);
    await rejectsWith(f.node.view(r, "router_get_amount_in", [0n, 1n, 1n]), 513);
    await rejectsWith(f.node.view(r, "router_quote", [0n, 1n, 1n]), 510);
    // Swaps: the amounts the router quotes are what it pays, in both directions.
    for (let i = 0; i < 8; i++) {
      const [tin, tout] = i % 2 === 0 ? [f.xlm, f.usdc] : [f.usdc, f.xlm];
      const amount = rnd(500n * E7) + 1000n;
      const q = await f.node.view<bigint[]>(r, "router_get_amounts_out", [amount, [tin, tout]]);
      const before = await balance(f, tout, f.alice.publicKey());
      const paid = await f.node.invoke<bigint[]>(r, "swap_exact_tokens_for_tokens", [
        amount,
        q[1],
        [tin, tout],
        f.alice.publicKey(),
        deadline(f),
      ], { source: f.alice.publicKey() });
      assert.deepEqual(paid, q);
      assert.equal(await balance(f, tout, f.alice.publicKey()) - before, q[1]);
    }
  });
});

Deno.test("fallback venue: a second Soroswap-ABI deployment with its own factory, pairs and router", async () => {
  await withFixture(async (f) => {
    assert.notEqual(f.d.fallback_dex_router, f.d.primary_dex_router);
    assert.notEqual(f.d.fallback_factory, f.d.soroswap_factory);
    assert.equal(await f.node.view(f.d.fallback_dex_router, "get_factory"), f.d.fallback_factory);
    for (const key of ["xlm/usdc", "weth/xlm"]) {
      assert.notEqual(f.d.fallback_pairs[key], f.d.soroswap_pairs[key]);
      assert.deepEqual(
        await f.node.view(f.d.fallback_pairs[key], "get_reserves"),
        await f.node.view(f.d.soroswap_pairs[key], "get_reserves"),
        "same depths on both venues",
      );
    }
    const path = [f.xlm, f.usdc];
    assert.deepEqual(
      await f.node.view(f.d.fallback_dex_router, "router_get_amounts_out", [100n * E7, path]),
      await f.node.view(f.d.primary_dex_router, "router_get_amounts_out", [100n * E7, path]),
    );
    // LP of the seeds is the admin's, minimum liquidity locked in the pair.
    const pair = f.d.fallback_pairs["xlm/usdc"];
    const total = await f.node.view<bigint>(pair, "total_supply");
    assert.equal(await f.node.view(pair, "balance", [f.admin.publicKey()]), total - 1000n);
    assert.equal(await f.node.view(pair, "balance", [pair]), 1000n);
  });
});

Deno.test("fault switch over RPC: transient fails quotes/swaps, then clears; skew < floor; setter only", async () => {
  await withFixture(async (f) => {
    const adminRouter = await f.client(f.d.primary_dex_router, f.admin);
    const router = await f.client(f.d.primary_dex_router, f.alice);
    const quote = async () =>
      await router.router_get_amounts_out({ amount_in: 100n * E7, path: [f.xlm, f.usdc] });
    const normal = ok<bigint[]>(await quote())[1];
    const bad = await router.set_fault({ mode: { tag: "Skew", values: [500] } }, TX);
    assert.deepEqual(bad.needsNonInvokerSigningBy(), [f.admin.publicKey()]);
    await assert.rejects(() => bad.signAndSend());

    await send(await adminRouter.set_fault({ mode: { tag: "Transient", values: [2] } }, TX));
    assert.equal(simError(await quote()), 590);
    await f.node.closeLedgers(3);
    assert.equal(ok<bigint[]>(await quote())[1], normal, "transient fault expired");
    await send(await adminRouter.set_fault({ mode: { tag: "Transient", values: [0] } }, TX));
    await f.node.closeLedgers(5);
    assert.equal(simError(await quote()), 590, "Transient(0) lasts until cleared");

    await send(await adminRouter.set_fault({ mode: { tag: "Skew", values: [300] } }, TX));
    const fault = ok<{ active: boolean; mode: { tag: string } }>(await router.get_fault());
    assert.equal(fault.active, true);
    assert.equal(fault.mode.tag, "Skew");
    const skewed = ok<bigint[]>(await quote())[1];
    assert.equal(skewed, (normal * 9700n) / 10000n);
    const floor = slippageFloor(normal, 100);
    assert.ok(skewed < floor);
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
    assert.equal(
      simError(await adminRouter.set_fault({ mode: { tag: "Skew", values: [10_000] } }, TX)),
      591,
    );
    await send(await adminRouter.set_fault({ mode: { tag: "None" } }, TX));
    assert.equal(ok<bigint[]>(await quote())[1], normal);
    // The fallback venue's switch is its own.
    const fb = await f.client(f.d.fallback_dex_router, f.alice);
    assert.equal(ok<{ active: boolean }>(await fb.get_fault()).active, false);
  });
});
