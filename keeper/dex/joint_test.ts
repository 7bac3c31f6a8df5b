/** Soroswap's exact-output maths (`soroswapAmountIn`), alone: the inverse of `get_amount_out`. */
import assert from "node:assert/strict";
import { soroswapAmountIn, soroswapAmountOut } from "./joint.ts";

Deno.test("soroswapAmountIn: the least input whose output covers the amount; undefined past the reserve", () => {
  for (const [out, rIn, rOut] of [[1_000n, 2_000_000n, 20_000_000n], [7n, 10n ** 12n, 10n ** 9n]]) {
    const need = soroswapAmountIn(out, rIn, rOut)!;
    assert.ok(soroswapAmountOut(need, rIn, rOut) >= out, "enough");
    // The router adds one unit above the exact ceiling: the input less two falls short.
    assert.ok(soroswapAmountOut(need - 2n, rIn, rOut) < out, "not much more than enough");
  }
  assert.equal(soroswapAmountIn(10n, 5n, 10n), undefined);
  assert.equal(soroswapAmountIn(0n, 5n, 10n), undefined);
});
