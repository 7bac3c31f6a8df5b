/**
 * SwapToUSDC rules with fake venues (no chain): venue order, slippage floor stops the search,
 * transient errors fall back, all failing is ErrNoRoute, ambiguous outcomes never fall back,
 * proceeds are the measured balance delta, amount_out_min bounds.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import {
  ContractCallError,
  ErrNoRoute,
  ErrSlippageExceeded,
  TxPendingError,
  TxRejectedError,
} from "@vigil/soroban/errors";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { slippageFloor, SwapClient, type Venue } from "./swap_client.ts";

const USDC = "CUSDC";
const XLM = "CXLM";
const chain = {} as ChainRpc;
const kp = Keypair.random();

/** A fake venue: quote() returns `quote` or throws `quoteError`; swap() credits `out` USDC. */
function venue(
  name: string,
  wallet: { usdc: bigint },
  o: { quote?: bigint; quoteError?: unknown; swapError?: unknown; out?: bigint } = {},
) {
  const calls: string[] = [];
  const v: Venue & { calls: string[]; lastMinOut?: bigint } = {
    name,
    contractId: name,
    calls,
    quote(_c, tokenIn, tokenOut, amountIn) {
      calls.push(`quote ${tokenIn}->${tokenOut} ${amountIn}`);
      if (o.quoteError) return Promise.reject(o.quoteError);
      return Promise.resolve(o.quote ?? 0n);
    },
    swap(_c, _k, _tin, _tout, amountIn, minOut) {
      calls.push(`swap ${amountIn} min ${minOut}`);
      v.lastMinOut = minOut;
      if (o.swapError) return Promise.reject(o.swapError);
      wallet.usdc += o.out ?? o.quote ?? 0n;
      return Promise.resolve({ hash: `${name}-tx`, ledger: 1, confirmMs: 1 });
    },
  };
  return v;
}

function client(primary?: Venue, fallback?: Venue, wallet = { usdc: 0n }, bps = 100) {
  return new SwapClient({
    usdc: USDC,
    slippageBps: bps,
    primary,
    fallback,
    balanceOf: () => Promise.resolve(wallet.usdc),
  });
}

const transient = new ContractCallError(
  "CROUTER",
  "swap_exact_tokens_for_tokens",
  { type: "Contract", code: 599 },
  "HostError: Error(Contract, #599)",
  "simulation",
);

Deno.test("slippageFloor rounds down: ref * (10000 - bps) / 10000", () => {
  assert.equal(slippageFloor(1_000_000n, 100), 990_000n);
  assert.equal(slippageFloor(999n, 100), 989n); // 989.01 floors
  assert.equal(slippageFloor(5n, 0), 5n);
  assert.equal(slippageFloor(5n, 10_000), 0n);
});

Deno.test("primary first; proceeds are the measured USDC delta; minOut = max(floor, quote - bps)", async () => {
  const wallet = { usdc: 500n };
  const p = venue("primary", wallet, { quote: 1_010_000n, out: 1_009_000n });
  const f = venue("fallback", wallet, { quote: 2_000_000n });
  const out = await client(p, f, wallet).swapToUSDC(chain, kp, XLM, 10_000_000n, 1_000_000n);
  assert.equal(out.proceeds, 1_009_000n); // measured, not the quote
  assert.equal(out.venue, "primary");
  assert.equal(out.floor, 990_000n);
  assert.equal(out.minOut, 999_900n); // quote*(1-1%) = 999_900 > floor 990_000
  assert.deepEqual(f.calls, []);
  assert.equal(wallet.usdc, 500n + 1_009_000n);
});

Deno.test("quote below the slippage floor: ErrSlippageExceeded, fallback never tried, nothing swapped", async () => {
  const wallet = { usdc: 0n };
  const p = venue("primary", wallet, { quote: 989_999n });
  const f = venue("fallback", wallet, { quote: 1_000_000n });
  await assert.rejects(
    client(p, f, wallet).swapToUSDC(chain, kp, XLM, 10_000_000n, 1_000_000n),
    (e) => e instanceof ErrSlippageExceeded && e.quote === 989_999n && e.floor === 990_000n,
  );
  assert.deepEqual(p.calls, [`quote ${XLM}->${USDC} 10000000`]);
  assert.deepEqual(f.calls, []);
  assert.equal(wallet.usdc, 0n);
});

Deno.test("a quote exactly at the floor passes", async () => {
  const wallet = { usdc: 0n };
  const p = venue("primary", wallet, { quote: 990_000n });
  const out = await client(p, undefined, wallet).swapToUSDC(chain, kp, XLM, 1n, 1_000_000n);
  assert.equal(out.proceeds, 990_000n);
  assert.equal(p.lastMinOut, 990_000n); // floor dominates quote - 1 %
});

Deno.test("transient primary error (quote or swap) falls back to the fallback venue", async () => {
  for (const failure of [{ quoteError: transient }, { quote: 1_000_000n, swapError: transient }]) {
    const wallet = { usdc: 0n };
    const p = venue("primary", wallet, failure);
    const f = venue("fallback", wallet, { quote: 995_000n });
    const out = await client(p, f, wallet).swapToUSDC(chain, kp, XLM, 7n, 1_000_000n);
    assert.equal(out.venue, "fallback");
    assert.equal(out.proceeds, 995_000n);
    assert.equal(out.failures.length, 1);
    assert.match(out.failures[0].error, /#599/);
  }
});

Deno.test("a refused transaction (nothing included) is transient too", async () => {
  const wallet = { usdc: 0n };
  const p = venue("primary", wallet, {
    quote: 1_000_000n,
    swapError: new TxRejectedError("ERROR", "txInsufficientFee", "ab"),
  });
  const f = venue("fallback", wallet, { quote: 1_000_000n });
  const out = await client(p, f, wallet).swapToUSDC(chain, kp, XLM, 7n, 1_000_000n);
  assert.equal(out.venue, "fallback");
});

Deno.test("every venue failing is ErrNoRoute listing each failure", async () => {
  const wallet = { usdc: 0n };
  const p = venue("primary", wallet, { quoteError: transient });
  const f = venue("fallback", wallet, { quoteError: new Error("boom") });
  await assert.rejects(
    client(p, f, wallet).swapToUSDC(chain, kp, XLM, 7n, 1_000_000n),
    (e) => e instanceof ErrNoRoute && e.failures.length === 2 && /boom/.test(e.message),
  );
  await assert.rejects(
    client(undefined, undefined, wallet).swapToUSDC(chain, kp, XLM, 7n, 1n),
    ErrNoRoute,
  );
});

Deno.test("fallback quote below the floor is still ErrSlippageExceeded", async () => {
  const wallet = { usdc: 0n };
  const p = venue("primary", wallet, { quoteError: transient });
  const f = venue("fallback", wallet, { quote: 1n });
  await assert.rejects(
    client(p, f, wallet).swapToUSDC(chain, kp, XLM, 7n, 1_000_000n),
    ErrSlippageExceeded,
  );
});

Deno.test("an ambiguous swap (still pending) is not retried on another venue", async () => {
  const wallet = { usdc: 0n };
  const p = venue("primary", wallet, {
    quote: 1_000_000n,
    swapError: new TxPendingError("ff", 30_000),
  });
  const f = venue("fallback", wallet, { quote: 1_000_000n });
  await assert.rejects(
    client(p, f, wallet).swapToUSDC(chain, kp, XLM, 7n, 1_000_000n),
    TxPendingError,
  );
  assert.deepEqual(f.calls, []);
});

Deno.test("a confirmed swap that did not raise the USDC balance is an error", async () => {
  const wallet = { usdc: 100n };
  const p = venue("primary", wallet, { quote: 1_000_000n, out: 0n });
  await assert.rejects(
    client(p, undefined, wallet).swapToUSDC(chain, kp, XLM, 7n, 1_000_000n),
    /did not increase/,
  );
});

Deno.test("invalid inputs are refused before any venue call", async () => {
  const wallet = { usdc: 0n };
  const p = venue("primary", wallet, { quote: 1n });
  await assert.rejects(
    client(p, undefined, wallet).swapToUSDC(chain, kp, USDC, 7n, 1n),
    /already USDC/,
  );
  await assert.rejects(client(p, undefined, wallet).swapToUSDC(chain, kp, XLM, 0n, 1n), RangeError);
  assert.deepEqual(p.calls, []);
  assert.throws(() => client(p, undefined, wallet, 10_001), RangeError);
});

Deno.test("planLeg (inside a flash): only Soroswap-ABI venues whose router the flash policy lists are asked", async () => {
  const wallet = { usdc: 0n };
  const soroswap = (name: string, o: Parameters<typeof venue>[2]) =>
    Object.assign(venue(name, wallet, o), { kind: "soroswap" as const });
  // A router whose spec is not the Soroswap ABI (detectVenue leaves its kind unset).
  const other = venue("other-router", wallet, { quote: 2_000_000n });

  // A listed Soroswap primary: planned there, kind 0, minOut = max(floor, quote − bps).
  const p = soroswap("primary-router", { quote: 1_010_000n });
  const leg = await client(p, other).planLeg(
    chain,
    XLM,
    10_000_000n,
    1_000_000n,
    { routers: new Set(["primary-router"]) },
  );
  assert.equal(leg.router, "primary-router");
  assert.equal(leg.kind, 0);
  assert.deepEqual(leg.path, [XLM, USDC]);
  assert.equal(leg.minOut, slippageFloor(1_010_000n, 100));
  assert.deepEqual(p.calls, [`quote ${XLM}->${USDC} 10000000`]);

  // The primary's quote fails and the only other venue is not a Soroswap-ABI router: ErrNoRoute,
  // that venue never asked (the liquidator swaps on Soroswap-ABI routers only), and the reason
  // says why.
  const down = soroswap("primary-router", { quoteError: transient });
  const err = await client(down, other).planLeg(
    chain,
    XLM,
    10_000_000n,
    1_000_000n,
    { routers: new Set(["primary-router", "other-router"]) },
  ).then(() => null, (e) => e);
  assert.ok(err instanceof ErrNoRoute);
  assert.deepEqual(err.failures.map((f) => f.venue), ["primary-router", "other-router"]);
  assert.match(err.failures[1].error, /not usable inside a flash/);
  assert.deepEqual(other.calls, []);

  // A Soroswap router the policy does not list is never asked either; the listed fallback is.
  const unlisted = soroswap("primary-router", { quote: 5_000_000n });
  const listed = soroswap("fallback-router", { quote: 1_000_000n });
  const c = client(unlisted, listed);
  const leg2 = await c.planLeg(chain, XLM, 10_000_000n, 1_000_000n, {
    routers: new Set(["fallback-router"]),
  });
  assert.equal(leg2.router, "fallback-router");
  assert.deepEqual(unlisted.calls, []);
  assert.deepEqual(c.flashVenues(new Set(["fallback-router"])).map((v) => v.name), [
    "fallback-router",
  ]);
  assert.deepEqual(c.flashVenues(new Set()), []);
});

Deno.test("planLeg: the flash policy's max_slippage_bps tightens SLIPPAGE_BPS (never loosens it)", async () => {
  const wallet = { usdc: 0n };
  const p = Object.assign(venue("primary-router", wallet, { quote: 980_000n }), {
    kind: "soroswap" as const,
  });
  // SLIPPAGE_BPS 400: floor 960,000 — the 980,000 quote passes on the keeper's own setting...
  const loose = await client(p, undefined, wallet, 400).planLeg(chain, XLM, 10n, 1_000_000n);
  assert.equal(loose.floor, 960_000n);
  // ...but the policy's 100 bps (the liquidator's floor 990,000) refuses it before any flash.
  const err = await client(p, undefined, wallet, 400)
    .planLeg(chain, XLM, 10n, 1_000_000n, { maxSlippageBps: 100 })
    .then(() => null, (e) => e);
  assert.ok(err instanceof ErrSlippageExceeded);
  // A looser policy never loosens the keeper's own floor.
  const tight = await client(p, undefined, wallet, 100)
    .planLeg(chain, XLM, 10n, 970_000n, { maxSlippageBps: 3000 });
  assert.equal(tight.floor, slippageFloor(970_000n, 100));
  assert.equal(tight.minOut, slippageFloor(980_000n, 100));
});

/** A fake Soroswap-ABI venue answering exact-output quotes by path (`quoteIn`). */
function buyVenue(name: string, costs: Record<string, bigint | Error>) {
  const asked: string[] = [];
  const v: Venue & { asked: string[] } = {
    name,
    contractId: name,
    kind: "soroswap",
    asked,
    quote: () => Promise.reject(new Error("not used")),
    quoteIn(_c, path, amountOut) {
      asked.push(`${path.join(">")} ${amountOut}`);
      const c = costs[path.join(">")];
      if (c === undefined) return Promise.reject(new Error("no pair"));
      return c instanceof Error ? Promise.reject(c) : Promise.resolve(c);
    },
    swap: () => Promise.reject(new Error("not used")),
  };
  return v;
}

Deno.test("planBuy: the cheapest exact-output path of the first answering venue; max_in from SLIPPAGE_BPS under the oracle ceiling", async () => {
  const WETH = "CWETH";
  const primary = buyVenue("primary", { "CUSDC>CXLM": 1_020n, "CUSDC>CWETH>CXLM": 1_010n });
  const fallback = buyVenue("fallback", { "CUSDC>CXLM": 900n });
  const c = client(primary, fallback, undefined, 100);
  // Oracle value of the output 1,000: the ceiling is +1 % (SLIPPAGE_BPS, tighter than 300).
  const b = await c.planBuy(chain, XLM, 5_000n, 1_000n, {
    tokens: [WETH, XLM],
    maxSlippageBps: 300,
  });
  assert.deepEqual(primary.asked, ["CUSDC>CXLM 5000", "CUSDC>CWETH>CXLM 5000"]);
  assert.deepEqual(fallback.asked, [], "the fallback is asked only when the primary cannot quote");
  assert.equal(b.venue, "primary");
  assert.deepEqual(b.path, [USDC, WETH, XLM]);
  assert.equal(b.quote, 1_010n);
  assert.equal(b.ceiling, 1_010n);
  assert.equal(b.aboveCeiling, false);
  // quote + 1 % = 1,020.1 → capped at the ceiling.
  assert.equal(b.maxIn, 1_010n);
  // Above the ceiling: returned flagged (the caller prices the liquidation first).
  const dear = await client(buyVenue("p", { "CUSDC>CXLM": 1_200n })).planBuy(
    chain,
    XLM,
    5n,
    1_000n,
  );
  assert.equal(dear.aboveCeiling, true);
  // A router the policy does not list is not asked; every venue failing is ErrNoRoute.
  const unlisted = buyVenue("u", { "CUSDC>CXLM": 1n });
  await assert.rejects(
    client(unlisted, buyVenue("f", { "CUSDC>CXLM": new Error("boom") })).planBuy(
      chain,
      XLM,
      5n,
      1_000n,
      { routers: new Set(["f"]) },
    ),
    ErrNoRoute,
  );
  assert.deepEqual(unlisted.asked, []);
  // Within the bounds: max_in is the quote plus SLIPPAGE_BPS.
  const cheap = await client(buyVenue("p", { "CUSDC>CXLM": 900n })).planBuy(chain, XLM, 5n, 1_000n);
  assert.equal(cheap.maxIn, 909n);
});
