/**
 * Typed outcomes render into the log fields the keeper has always written: each case below is
 * the literal `details` object the adapters produced before outcomes were typed, compared as
 * JSON text (key order included).
 */
import assert from "node:assert/strict";
import {
  DEBT_NOT_BUYABLE,
  NO_DEX,
  NO_FLASH_VENUE,
  outcomeFields,
  outcomeUser,
  policyRefusalText,
  type SkipReason,
  skipReasonText,
  type TaskOutcome,
  UNPROFITABLE_AFTER_SWAPS,
} from "./outcome.ts";

const U = "GUSER";
const same = (o: TaskOutcome, old: Record<string, unknown>) =>
  assert.equal(JSON.stringify(outcomeFields(o)), JSON.stringify(old));

Deno.test("filled, lost_race and rebalanced render their facts in the logged order", () => {
  same({
    status: "filled",
    user: U,
    percent: 50,
    auctionBlock: 10,
    fillLedger: 230,
    targetBlock: 229,
    ratio: 1.12,
    swaps: 1,
  }, {
    user: U,
    percent: 50,
    auction_block: 10,
    fill_ledger: 230,
    target_block: 229,
    ratio: 1.12,
    swaps: 1,
  });
  same({ status: "lost_race", user: U, error: "Error(Contract, #1211)" }, {
    user: U,
    error: "Error(Contract, #1211)",
  });
  same({ status: "rebalanced", asset: "CA", driftBps: 1500, instructions: 2 }, {
    asset: "CA",
    drift_bps: 1500,
    instructions: 2,
  });
  same({ status: "bad_debt", user: U, ledger: 77 }, { user: U, ledger: 77 });
  same({ status: "failed" }, {});
  same({ status: "failed", user: U, error: "boom" }, { user: U, error: "boom" });
});

Deno.test("waiting: a reason text when never profitable, the curve's figures when too early", () => {
  same({ status: "waiting", reason: { kind: "never_profitable", ratioNow: null } }, {
    reason: "never clears MIN_PROFIT (or unpriced)",
    ratio_now: null,
  });
  same({
    status: "waiting",
    reason: {
      kind: "too_early",
      auctionBlock: 10,
      targetBlock: 229,
      ledgersToGo: 100,
      ratioNow: 0.5,
      ratioAtTarget: 1.1,
    },
  }, {
    auction_block: 10,
    target_block: 229,
    ledgers_to_go: 100,
    ratio_now: 0.5,
    ratio_at_target: 1.1,
  });
});

Deno.test("waiting as a backup keeper (issue 26): its rank, the primary and its turn", () => {
  same({
    status: "waiting",
    reason: {
      kind: "backup",
      step: "fill",
      rank: 1,
      primary: "GPRIMARY",
      readyAt: 231,
      auctionBlock: 10,
    },
  }, {
    reason: "backup keeper: the primary goes first",
    step: "fill",
    rank: 1,
    primary: "GPRIMARY",
    ready_at: 231,
    auction_block: 10,
  });
});

Deno.test("every skip reason renders as the text and fields logged before", () => {
  const cases: [SkipReason, string | undefined, Record<string, unknown>][] = [
    [{ kind: "own_position" }, undefined, { reason: "own position" }],
    [{ kind: "no_auction_no_debt" }, undefined, { reason: "no auction and no debt" }],
    [{ kind: "debt_not_buyable" }, undefined, { reason: DEBT_NOT_BUYABLE }],
    [{ kind: "debt_not_buyable", bidAsset: "CX" }, undefined, {
      reason: DEBT_NOT_BUYABLE,
      bid_asset: "CX",
    }],
    [{ kind: "debt_not_buyable", bidAsset: "CX", blocker: "no_dex" }, undefined, {
      reason: DEBT_NOT_BUYABLE,
      bid_asset: "CX",
      blocker: NO_DEX,
    }],
    [
      {
        kind: "unprofitable_after_swaps",
        proceeds: 98n,
        cost: 100n,
        ratio: 0.98,
        minProfit: 1.02,
      },
      "GU",
      {
        user: "GU",
        reason: UNPROFITABLE_AFTER_SWAPS,
        proceeds: "98",
        cost: "100",
        ratio: 0.98,
        min_profit: 1.02,
      },
    ],
    [{ kind: "lot_not_convertible", blocker: "no_dex" }, undefined, { reason: NO_DEX }],
    [
      { kind: "lot_not_convertible", blocker: "no_flash_venue" },
      undefined,
      { reason: NO_FLASH_VENUE },
    ],
    [{ kind: "auction_vanished" }, undefined, { reason: "auction vanished after creation race" }],
    [
      { kind: "not_liquidatable" },
      undefined,
      { reason: "the pool says the position is not liquidatable now (InvalidLiquidation)" },
    ],
    [
      { kind: "insufficient_capital", need: 1_001_001n, available: 5n },
      undefined,
      { reason: "insufficient vault capital", need: "1001001", available: "5" },
    ],
    [
      { kind: "swap_unplannable", error: "ErrSlippageExceeded" },
      U,
      { user: U, reason: "ErrSlippageExceeded" },
    ],
    [
      { kind: "min_profit_reverted", txHash: "ab" },
      U,
      {
        user: U,
        reason:
          "the oracle prices moved in the landing ledger; the flash reverted, nothing lent; fee only",
        reverted_tx: "ab",
      },
    ],
    [
      { kind: "target_not_reached", shutdown: false, targetBlock: 229, latest: 200 },
      U,
      { user: U, reason: "profitable block not reached in time", target_block: 229, latest: 200 },
    ],
    [
      { kind: "unprofitable", simulatedProfit: -4n },
      U,
      { user: U, reason: "simulated flash profit not positive", simulated_profit: "-4" },
    ],
    [
      {
        kind: "auth_refused",
        refusal: "unexpected call",
        invocation: "C.transfer()",
        path: "a › b",
      },
      U,
      {
        user: U,
        reason: "refused to sign: unexpected call",
        refused_invocation: "C.transfer()",
        refused_path: "a › b",
      },
    ],
    [
      { kind: "not_configured", missing: "LIQUIDATOR_CONTRACT" },
      undefined,
      { reason: "LIQUIDATOR_CONTRACT not set" },
    ],
    [
      { kind: "flash_policy", refusal: { kind: "pool_not_listed", pool: "CPOOL" } },
      U,
      { user: U, reason: "LENDING_POOL CPOOL is not a pool in the vault's flash policy" },
    ],
    [
      { kind: "dry_run", action: "flash on CVAULT" },
      U,
      { user: U, reason: "dry-run: would send flash on CVAULT" },
    ],
    [
      { kind: "bad_debt_refused", error: "Error(Contract, #1200)" },
      U,
      { user: U, reason: "the pool refused bad_debt: Error(Contract, #1200)" },
    ],
  ];
  for (const [reason, user, old] of cases) {
    const o: TaskOutcome = user === undefined
      ? { status: "skipped", reason }
      : { status: "skipped", user, reason };
    same(o, old);
    assert.equal(skipReasonText(reason), old.reason);
  }
});

Deno.test("policy refusals name the contract the vault's flash policy does not list", () => {
  assert.equal(
    policyRefusalText({ kind: "executor_not_listed", liquidator: "CLIQ" }),
    "LIQUIDATOR_CONTRACT CLIQ is not an executor in the vault's flash policy",
  );
});

Deno.test("outcomeUser: the user of the outcomes that name one", () => {
  assert.equal(outcomeUser({ status: "lost_race", user: U, error: "e" }), U);
  assert.equal(outcomeUser({ status: "skipped", reason: { kind: "own_position" } }), undefined);
  assert.equal(
    outcomeUser({ status: "rebalanced", asset: "CA", driftBps: 1, instructions: 1 }),
    undefined,
  );
});
