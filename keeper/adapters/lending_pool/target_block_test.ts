/**
 * The target block, alone, on a flat pool (every token worth 1): the first block of Blend's curve
 * clearing MIN_PROFIT, near enough to wait for or not.
 */
import assert from "node:assert/strict";
import { AuctionData } from "@blend-capital/blend-sdk";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import type { PoolState } from "./pool_state.ts";
import { targetBlock } from "./target_block.ts";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();
const USER = Keypair.random().publicKey();

function flatState(priced = true): PoolState {
  const reserve = {
    toAssetFromBTokenFloat: (b: bigint) => Number(b),
    toAssetFromDTokenFloat: (d: bigint) => Number(d),
  };
  return {
    pool: { reserves: new Map([[USDC, reserve], [XLM, reserve]]) },
    oracle: { getPriceFloat: () => (priced ? 1 : undefined) },
  } as unknown as PoolState;
}

Deno.test("targetBlock: the first block clearing MIN_PROFIT, near enough to wait for", () => {
  const auction = new AuctionData(
    new Map([[USDC, 1_000_000n]]),
    1000,
    new Map([[XLM, 1_000_000n]]),
  );
  const far = targetBlock(flatState(), USER, auction, {
    minProfit: 1.1,
    next: 1001,
    pollIntervalSec: 5,
    secondsPerLedger: 5,
  });
  assert.ok("wait" in far && far.wait.kind === "too_early");
  const { targetBlock: block, ledgersToGo, ratioNow, ratioAtTarget } = far.wait;
  // Blend's curve: the lot is whole at +200, then the bid shrinks; 1.1 is cleared past +200.
  assert.ok(block > 1200 && block < 1400, `target ${block}`);
  assert.equal(ledgersToGo, block - 1001);
  assert.ok(ratioNow !== null && ratioNow < 0.01);
  assert.ok(ratioAtTarget !== null && ratioAtTarget >= 1.1);
  // One poll interval (1 ledger) plus 3 ahead: go.
  for (const next of [block - 4, block]) {
    const go = targetBlock(flatState(), USER, auction, {
      minProfit: 1.1,
      next,
      pollIntervalSec: 5,
      secondsPerLedger: 5,
    });
    assert.ok("target" in go, `next ${next}`);
    assert.equal(go.target.block, block);
    assert.equal(go.next, next);
  }
  const early = targetBlock(flatState(), USER, auction, {
    minProfit: 1.1,
    next: block - 5,
    pollIntervalSec: 5,
    secondsPerLedger: 5,
  });
  assert.ok("wait" in early && early.wait.kind === "too_early" && early.wait.ledgersToGo === 5);
});

Deno.test("targetBlock: an unpriced auction never clears MIN_PROFIT", () => {
  const auction = new AuctionData(new Map([[USDC, 1n]]), 1000, new Map([[XLM, 1n]]));
  const r = targetBlock(flatState(false), USER, auction, {
    minProfit: 1.1,
    next: 1100,
    pollIntervalSec: 5,
    secondsPerLedger: 5,
  });
  assert.deepEqual(r, { wait: { kind: "never_profitable", ratioNow: null } });
});
