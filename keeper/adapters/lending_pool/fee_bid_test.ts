import assert from "node:assert/strict";
import { feeForProfit } from "./fee_bid.ts";

Deno.test("feeForProfit: 5 % of the profit in XLM stroops at the oracle's prices", () => {
  // 2 USDC profit, USDC $1, XLM $0.10: 20 XLM of profit, 5 % = 1 XLM = 10,000,000 stroops.
  assert.equal(feeForProfit(2_0000000n, { usdc: 1_0000000n, xlm: 1_000_000n }), 10_000_000);
  // 0.01 USDC at XLM $0.40: 0.025 XLM, 5 % = 12,500 stroops (rounded down).
  assert.equal(feeForProfit(100_000n, { usdc: 1_0000000n, xlm: 4_000_000n }), 12_500);
  // No profit or no price: no opinion (the fee-stats bid stands).
  assert.equal(feeForProfit(0n, { usdc: 1n, xlm: 1n }), undefined);
  assert.equal(feeForProfit(-5n, { usdc: 1n, xlm: 1n }), undefined);
  assert.equal(feeForProfit(10n, { usdc: 1n }), undefined);
  assert.equal(feeForProfit(10n, { xlm: 1n, usdc: 0n }), undefined);
});
