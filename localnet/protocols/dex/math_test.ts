/**
 * Soroswap's quote maths in TypeScript (localnet/protocols/dex/math.ts) against the protocol's formulas.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import {
  applySkew,
  compareAddresses,
  getAmountIn,
  getAmountOut,
  getAmountsIn,
  getAmountsOut,
  isqrt,
  slippageFloor,
  SoroswapLibraryError,
  sortTokens,
  unskew,
} from "./math.ts";

/** The pair's invariant check for a swap in of `amountIn` (token 0) and out of `out` (token 1). */
function kHolds(r0: bigint, r1: bigint, amountIn: bigint, out: bigint): boolean {
  const b0 = r0 + amountIn;
  const b1 = r1 - out;
  const fee = (amountIn * 3n + 999n) / 1000n;
  return (b0 - fee) * b1 >= r0 * r1;
}

const reserve = fc.bigInt({ min: 10_000n, max: 10n ** 18n });
const amount = fc.bigInt({ min: 1n, max: 10n ** 16n });

Deno.test("getAmountOut: fee ceil(3/1000) from the input, output floored (worked example)", () => {
  // in 1_000_000: fee = 3000, in_net = 997000; out = floor(997000 * 2e12 / (1e12 + 997000)).
  const out = getAmountOut(1_000_000n, 1_000_000_000_000n, 2_000_000_000_000n);
  assert.equal(out, (997_000n * 2_000_000_000_000n) / (1_000_000_000_000n + 997_000n));
  // 1001 units: ceil(3003/1000) = 4 (UniswapV2's *997 would charge 3.003 -> differs).
  assert.equal(getAmountOut(1001n, 10n ** 9n, 10n ** 9n), (997n * 10n ** 9n) / (10n ** 9n + 997n));
});

Deno.test("getAmountOut is exactly the largest output the pair's K check accepts", () => {
  fc.assert(
    fc.property(reserve, reserve, amount, (r0, r1, amountIn) => {
      const out = getAmountOut(amountIn, r0, r1);
      assert.ok(out < r1);
      assert.ok(kHolds(r0, r1, amountIn, out), "quoted output must pass K");
      assert.ok(!kHolds(r0, r1, amountIn, out + 1n), "one more unit must fail K");
    }),
    { numRuns: 300 },
  );
});

Deno.test("getAmountIn buys at least the asked output, and one unit less may not", () => {
  fc.assert(
    fc.property(reserve, reserve, fc.bigInt({ min: 1n, max: 10n ** 12n }), (r0, r1, want) => {
      fc.pre(want < r1 / 2n);
      const needed = getAmountIn(want, r0, r1);
      assert.ok(getAmountOut(needed, r0, r1) >= want);
      assert.ok(kHolds(r0, r1, needed, want));
    }),
    { numRuns: 300 },
  );
});

Deno.test("library errors carry the router's codes", () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof SoroswapLibraryError);
      return e.code;
    }
    throw new Error("did not throw");
  };
  assert.equal(code(() => getAmountOut(0n, 10n, 10n)), 512);
  assert.equal(code(() => getAmountOut(5n, 0n, 10n)), 511);
  assert.equal(code(() => getAmountIn(0n, 10n, 10n)), 513);
  assert.equal(code(() => getAmountIn(10n, 10n, 10n)), 511);
  const a = Keypair.random().publicKey();
  assert.equal(code(() => sortTokens(a, a)), 515);
  assert.equal(code(() => getAmountsOut(5n, [])), 514);
});

Deno.test("chained quotes and skew", () => {
  const hops: [bigint, bigint][] = [[10n ** 12n, 3n * 10n ** 12n], [5n * 10n ** 12n, 10n ** 12n]];
  const amounts = getAmountsOut(10n ** 9n, hops);
  assert.equal(amounts[1], getAmountOut(10n ** 9n, ...hops[0]));
  assert.equal(amounts[2], getAmountOut(amounts[1], ...hops[1]));
  const skewed = getAmountsOut(10n ** 9n, hops, 500);
  assert.equal(skewed[1], (amounts[1] * 9500n) / 10000n);
  const back = getAmountsIn(amounts[2], hops);
  assert.ok(back[0] <= 10n ** 9n + 2n && back[0] >= 10n ** 9n - 2n);
  assert.ok(applySkew(unskew(123_456_789n, 777), 777) >= 123_456_789n);
  assert.equal(slippageFloor(1_000_000n, 100), 990_000n);
  assert.throws(() => slippageFloor(1n, 10_001));
});

Deno.test("address ordering follows ScAddress (type, then raw bytes), not strkey text", () => {
  const c1 = StrKey.encodeContract(new Uint8Array(32).fill(1) as never);
  const c2 = StrKey.encodeContract(new Uint8Array(32).fill(200) as never);
  const g = StrKey.encodeEd25519PublicKey(new Uint8Array(32).fill(255) as never);
  assert.ok(compareAddresses(c1, c2) < 0);
  assert.ok(compareAddresses(g, c1) < 0, "accounts sort before contracts");
  assert.deepEqual(sortTokens(c2, c1), [c1, c2]);
  assert.equal(isqrt(10n ** 36n), 10n ** 18n);
  assert.equal(isqrt(10n ** 36n - 1n), 10n ** 18n - 1n);
});
