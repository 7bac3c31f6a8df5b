/**
 * The target block, alone, on a flat pool (every token worth 1): the first block of Blend's curve
 * clearing MIN_PROFIT, near enough to wait for or not.
 */
import assert from "node:assert/strict";
import { AuctionData } from "@blend-capital/blend-sdk";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import type { PoolState } from "./pool_state.ts";
import { valueAt } from "./auction.ts";
import {
  firstProfitableSeen,
  retryAfterMs,
  revalue,
  targetBlock,
  tooEarly,
  waitWindowLedgers,
} from "./target_block.ts";

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

/** A flat pool whose lot asset (XLM) is worth `xlm` USDC. */
function pricedState(xlm: number): PoolState {
  const reserve = {
    toAssetFromBTokenFloat: (b: bigint) => Number(b),
    toAssetFromDTokenFloat: (d: bigint) => Number(d),
  };
  return {
    pool: { reserves: new Map([[USDC, reserve], [XLM, reserve]]) },
    oracle: { getPriceFloat: (a: string) => (a === XLM ? xlm : 1) },
  } as unknown as PoolState;
}

// Bid 1 USDC-unit per lot unit; the lot grows 1/200 per block up to +200, then the bid shrinks.
const AUCTION = new AuctionData(new Map([[USDC, 1_000_000n]]), 1000, new Map([[XLM, 1_000_000n]]));
const MIN = 1.02;

Deno.test("revalue: prices moving up between ledgers move the target earlier, down later", () => {
  const at = (xlm: number, landing: number, latestTarget = 1300) =>
    revalue(pricedState(xlm), USER, AUCTION, { minProfit: MIN, landing, latestTarget });
  // At XLM 1.10 the first profitable block is +186 (186/200 · 1.1 = 1.023).
  const planned = at(1.1, 1180);
  assert.ok("target" in planned && planned.target.block === 1186, JSON.stringify(planned));
  // XLM up to 1.20: +180 already clears (1.08): send into the landing ledger, 6 blocks early.
  const up = at(1.2, 1180);
  assert.ok("send" in up && up.send.block === 1180 && up.send.ratio >= MIN);
  // XLM up a little (1.13): earlier than planned but not yet: the target moves to +181.
  const upALittle = at(1.13, 1175);
  assert.ok("target" in upALittle && upALittle.target.block === 1181);
  // XLM down to 1.00: only past +200, when the bid shrinks (+204): later than planned.
  const down = at(1.0, 1185);
  assert.ok("target" in down && down.target.block === 1204);
  // …unless that is past what this cycle may wait for: a later cycle decides.
  const tooLate = at(1.0, 1185, 1190);
  assert.ok("wait" in tooLate && tooLate.wait.kind === "too_early");
  assert.equal(tooLate.wait.targetBlock, 1204);
});

Deno.test("revalue: a landing ledger below MIN_PROFIT is never sent", () => {
  for (const xlm of [0.9, 0.98, 1.0, 1.02, 1.05, 1.1, 1.2, 1.5]) {
    for (let landing = 1000; landing <= 1400; landing += 3) {
      const r = revalue(pricedState(xlm), USER, AUCTION, {
        minProfit: MIN,
        landing,
        latestTarget: 1500,
      });
      const ratio = valueAt(pricedState(xlm), USER, AUCTION, landing).ratio;
      if ("send" in r) {
        assert.ok(ratio >= MIN, `sent at ${landing} with ratio ${ratio} (XLM ${xlm})`);
        assert.equal(r.send.block, landing);
      } else {
        assert.ok(!(ratio >= MIN), `held back at ${landing} with ratio ${ratio} (XLM ${xlm})`);
        if ("target" in r) assert.ok(r.target.block > landing && r.target.ratio >= MIN);
      }
    }
  }
});

Deno.test("firstProfitableSeen: each block valued with the prices of its own reading", () => {
  // Unprofitable at the first reading's prices (XLM 1.00 → +204); XLM 1.20 from landing +181 on:
  // +181 is the first profitable block (181/200 · 1.2 = 1.086).
  const rising = [
    { landing: 1180, state: pricedState(1.0) },
    { landing: 1181, state: pricedState(1.2) },
  ];
  assert.equal(firstProfitableSeen(rising, USER, AUCTION, MIN), 1181);
  // The keeper arrived late: blocks before its first reading count at that reading's prices.
  assert.equal(
    firstProfitableSeen([{ landing: 1185, state: pricedState(1.2) }], USER, AUCTION, MIN),
    1170,
  );
  // Profitable at the first reading's prices in between readings (+186 at XLM 1.10) but the
  // next reading is there first: blocks up to the next reading use the first one's prices.
  const between = [
    { landing: 1184, state: pricedState(1.1) },
    { landing: 1190, state: pricedState(0.9) },
  ];
  assert.equal(firstProfitableSeen(between, USER, AUCTION, MIN), 1186);
  // Falling prices: nothing profitable seen up to the last reading.
  const falling = [
    { landing: 1184, state: pricedState(1.05) },
    { landing: 1185, state: pricedState(1.0) },
  ];
  assert.equal(firstProfitableSeen(falling, USER, AUCTION, MIN), undefined);
});

Deno.test("retryAfterMs: too_early once the block enters the wait window; one ledger after a refusal at landing; none otherwise", () => {
  const w = waitWindowLedgers(3, 1);
  assert.equal(w, 6);
  assert.equal(waitWindowLedgers(3, 5), 4, "5 s ledgers: one ledger per poll, plus 3");
  const early = (ledgersToGo: number) =>
    tooEarly(1, { block: 1 + ledgersToGo, ratio: 1.03 }, 1, 0.5);
  assert.equal(retryAfterMs(early(10), w, 1), 4_000);
  assert.equal(retryAfterMs(early(7), w, 1), 1_000);
  assert.equal(retryAfterMs(early(3), w, 5), 5_000, "at least one ledger");
  assert.equal(retryAfterMs({ kind: "below_min_profit_at_landing" }, w, 5), 5_000);
  assert.equal(retryAfterMs({ kind: "never_profitable", ratioNow: 0.5 }, w, 1), undefined);
});
