/**
 * What executing one task did, as a discriminated union ({@link TaskOutcome}) with typed skip
 * and wait reasons. The cycle's host switches on `status`; {@link outcomeFields} renders an
 * outcome into the flat, JSON-safe fields of the keeper's log lines (the shape the log has always
 * had: `reason` as text, amounts as decimal strings, ratios rounded or null).
 *
 * @module
 */

/**
 * Why a position or auction is skipped when its debt is not in USDC and cannot be bought inside
 * the flash (issue 24: a non-USDC bid is bought with the vault's USDC on a DEX venue usable inside
 * the flash; without one, only USDC bids can be filled).
 */
export const DEBT_NOT_BUYABLE =
  "debt not in USDC and no DEX venue usable inside a flash to buy it (a Soroswap-ABI router in the vault's flash policy): only USDC bids can be filled";

/** Why a liquidation whose swaps eat its profit is skipped (issue 24). */
export const UNPROFITABLE_AFTER_SWAPS =
  "unprofitable after swaps: USDC from selling the lot and leftover / (USDC spent on buys + USDC repaid) is below MIN_PROFIT";

/** Why an auction with a non-USDC lot is skipped when no DEX venue may be used inside a flash. */
export const NO_FLASH_VENUE =
  "NO_ROUTE: non-USDC lot and no DEX venue usable inside a flash (a Soroswap-ABI router in the vault's flash policy)";

/** Why an auction with a non-USDC lot is skipped without a DEX client. */
export const NO_DEX = "non-USDC lot and no DEX configured: only USDC lots can be filled";

/** Why a non-USDC lot cannot be converted to USDC inside a flash. */
export type ConversionBlocker = "no_dex" | "no_flash_venue";

/** Why the vault's flash policy refuses this keeper's liquidations. */
export type PolicyRefusal =
  | { kind: "executor_not_listed"; liquidator: string }
  | { kind: "pool_not_listed"; pool: string };

/** Why a task was skipped: nothing was lent, nothing sent (or the flash reverted as a whole). */
export type SkipReason =
  /** The position is the keeper's own. */
  | { kind: "own_position" }
  /** No auction exists and the position has no debt to auction. */
  | { kind: "no_auction_no_debt" }
  /**
   * The debt (or, with `bidAsset`, an existing auction's bid) is not in USDC, and no DEX venue
   * usable inside a flash can buy it (`blocker` says why).
   */
  | { kind: "debt_not_buyable"; bidAsset?: string; blocker?: ConversionBlocker }
  /** A non-USDC lot could not be converted inside the flash. */
  | { kind: "lot_not_convertible"; blocker: ConversionBlocker }
  /** `new_auction` raced and the auction was gone when read back. */
  | { kind: "auction_vanished" }
  /**
   * The pool refused `new_auction` with `InvalidLiquidation`: the position is not liquidatable
   * now — its health recovered (another keeper's fill, a price move) since our last read.
   */
  | { kind: "not_liquidatable" }
  /** Not even 1 % of the auction fits the vault's idle capital / per-flash cap. */
  | { kind: "insufficient_capital"; need: bigint; available: bigint }
  /** No venue answered a quote above the slippage floor (the swap error's name). */
  | { kind: "swap_unplannable"; error: "ErrSlippageExceeded" | "ErrNoRoute" }
  /** The wait for the profitable block ended early (shutdown) or the chain was too slow. */
  | { kind: "target_not_reached"; shutdown: boolean; targetBlock: number; latest: number }
  /**
   * Priced from quotes before sending: the USDC the lot and the bought asset's leftover sell for
   * (`proceeds`) over the USDC the buys and the USDC repayment cost (`cost`) is below MIN_PROFIT.
   */
  | {
    kind: "unprofitable_after_swaps";
    proceeds: bigint;
    cost: bigint;
    ratio: number | null;
    minProfit: number;
  }
  /** The flash's simulated profit was not positive. */
  | { kind: "unprofitable"; simulatedProfit: bigint }
  /**
   * The flash landed and the liquidator refused it (BelowMinProfit, issue 26): an oracle price
   * written earlier in the landing ledger put the lot/bid ratio under MIN_PROFIT. It reverted as
   * a whole: nothing lent, only the fee paid. Not a failure.
   */
  | { kind: "min_profit_reverted"; txHash: string | null }
  /**
   * A swap of the flash got less than its minimum out (Soroswap's router error #507): the pair
   * moved between the keeper's quote and the flash — in the landing ledger ("transaction": fee
   * only) or already at simulation (nothing sent). It reverted as a whole: nothing lent.
   */
  | { kind: "dex_moved"; stage: "simulation" | "transaction"; txHash: string | null }
  /** The simulation asked for an authorization the keeper did not plan: nothing was signed. */
  | { kind: "auth_refused"; refusal: string; invocation: string; path: string }
  /** The keeper lacks a contract it needs to execute. */
  | { kind: "not_configured"; missing: "USDC_CONTRACT" | "LIQUIDATOR_CONTRACT" }
  /** The vault's flash policy refuses the liquidation. */
  | { kind: "flash_policy"; refusal: PolicyRefusal }
  /** DRY_RUN: `action` (a transaction) was simulated and checked, and not sent. */
  | { kind: "dry_run"; action: string }
  /**
   * The pool refused `bad_debt(user)` (`error`: e.g. someone else already moved the debt, or an
   * auction opened): not retried until the position changes.
   */
  | { kind: "bad_debt_refused"; error: string };

/** The text of a flash that landed and reverted with the liquidator's BelowMinProfit. */
export const MIN_PROFIT_REVERTED_TEXT =
  "the oracle prices moved in the landing ledger; the flash reverted, nothing lent; fee only";

/** Why a task waits for a later cycle (nothing done). */
export type WaitReason =
  /** The auction never clears MIN_PROFIT on its curve (or the oracle does not price it). */
  | { kind: "never_profitable"; ratioNow: number | null }
  /**
   * The liquidator's MIN_PROFIT check (BelowMinProfit) refused the flash in simulation at the
   * landing ledger, and this cycle's window ended: nothing sent; a later cycle re-values.
   */
  | { kind: "below_min_profit_at_landing" }
  /** The first profitable block is more than one poll interval away. */
  | {
    kind: "too_early";
    auctionBlock: number;
    targetBlock: number;
    ledgersToGo: number;
    ratioNow: number | null;
    ratioAtTarget: number | null;
  }
  /**
   * Pooled keepers split the work (`lending_pool/split.ts`): this keeper is a backup of rank
   * `rank` for this auction (`step` "fill") or for creating it (`step` "create"), and `primary`
   * goes first; it sends no earlier than ledger `readyAt`, and only if there is still work then.
   */
  | {
    kind: "backup";
    step: "create" | "fill";
    rank: number;
    primary: string;
    readyAt: number;
    /** The auction's start block ("fill"); null when creating. */
    auctionBlock: number | null;
  };

/** How executing one task ended. */
export type TaskOutcome =
  /** A liquidation settled in one flash. */
  | {
    status: "filled";
    user: string;
    percent: number;
    auctionBlock: number;
    fillLedger: number;
    targetBlock: number;
    /** lot value / bid cost at the target block (rounded to 6 places), null when not finite. */
    ratio: number | null;
    swaps: number;
    /**
     * Ledgers the fill landed after the auction's first profitable block, that block valued with
     * its own prices (0: the first profitable block itself).
     */
    ledgersAfterFirstProfitable?: number;
  }
  /** Another keeper won: our simulation or transaction reverted, nothing moved. */
  | { status: "lost_race"; user: string; error: string }
  /** A liquidation attempt failed (for a result an adapter throws with `TaskError`). */
  | { status: "failed"; user?: string; error?: string }
  /** The allocation vault was rebalanced. */
  | { status: "rebalanced"; asset: string; driftBps: number; instructions: number }
  /**
   * `bad_debt(user)` landed: the pool moved the remaining debt of a position without collateral
   * to its backstop (no vault capital involved).
   */
  | { status: "bad_debt"; user: string; ledger: number }
  /** Not profitable yet: a later cycle comes back. */
  | { status: "waiting"; reason: WaitReason }
  /** Not done, on purpose. `user` is named when the log has always named it. */
  | { status: "skipped"; user?: string; reason: SkipReason };

/** The `status` values of {@link TaskOutcome}. */
export type TaskStatus = TaskOutcome["status"];

/** A JSON-safe log field value. */
export type FieldValue = string | number | boolean | null;

/** The operator-facing text of a flash-policy refusal. */
export function policyRefusalText(r: PolicyRefusal): string {
  switch (r.kind) {
    case "executor_not_listed":
      return `LIQUIDATOR_CONTRACT ${r.liquidator} is not an executor in the vault's flash policy`;
    case "pool_not_listed":
      return `LENDING_POOL ${r.pool} is not a pool in the vault's flash policy`;
  }
}

/** The operator-facing text of a conversion blocker. */
export function blockerText(b: ConversionBlocker): string {
  return b === "no_dex" ? NO_DEX : NO_FLASH_VENUE;
}

/** The `reason` text of a skip, as logged. */
export function skipReasonText(r: SkipReason): string {
  switch (r.kind) {
    case "own_position":
      return "own position";
    case "no_auction_no_debt":
      return "no auction and no debt";
    case "debt_not_buyable":
      return DEBT_NOT_BUYABLE;
    case "unprofitable_after_swaps":
      return UNPROFITABLE_AFTER_SWAPS;
    case "lot_not_convertible":
      return blockerText(r.blocker);
    case "auction_vanished":
      return "auction vanished after creation race";
    case "not_liquidatable":
      return "the pool says the position is not liquidatable now (InvalidLiquidation)";
    case "insufficient_capital":
      return "insufficient vault capital";
    case "swap_unplannable":
      return r.error;
    case "target_not_reached":
      return r.shutdown
        ? "shutdown before the profitable block"
        : "profitable block not reached in time";
    case "unprofitable":
      return "simulated flash profit not positive";
    case "min_profit_reverted":
      return MIN_PROFIT_REVERTED_TEXT;
    case "dex_moved":
      return r.stage === "transaction"
        ? "the DEX pair moved in the landing ledger: a swap got less than its minimum; the flash reverted, nothing lent; fee only"
        : "the DEX pair moved since the quote: a swap would get less than its minimum (simulated, nothing sent)";
    case "auth_refused":
      return `refused to sign: ${r.refusal}`;
    case "not_configured":
      return `${r.missing} not set`;
    case "flash_policy":
      return policyRefusalText(r.refusal);
    case "dry_run":
      return `dry-run: would send ${r.action}`;
    case "bad_debt_refused":
      return `the pool refused bad_debt: ${r.error}`;
  }
}

/** A skip reason's extra log fields (after `reason`). */
function skipFields(r: SkipReason): Record<string, FieldValue> {
  switch (r.kind) {
    case "debt_not_buyable":
      return {
        ...(r.bidAsset === undefined ? {} : { bid_asset: r.bidAsset }),
        ...(r.blocker === undefined ? {} : { blocker: blockerText(r.blocker) }),
      };
    case "unprofitable_after_swaps":
      return {
        proceeds: String(r.proceeds),
        cost: String(r.cost),
        ratio: r.ratio,
        min_profit: r.minProfit,
      };
    case "insufficient_capital":
      return { need: String(r.need), available: String(r.available) };
    case "target_not_reached":
      return { target_block: r.targetBlock, latest: r.latest };
    case "unprofitable":
      return { simulated_profit: String(r.simulatedProfit) };
    case "min_profit_reverted":
      return { reverted_tx: r.txHash };
    case "dex_moved":
      return { stage: r.stage, ...(r.txHash ? { reverted_tx: r.txHash } : {}) };
    case "auth_refused":
      return { refused_invocation: r.invocation, refused_path: r.path };
    default:
      return {};
  }
}

/**
 * The outcome's facts as flat log fields, in the order and shape the keeper has always logged
 * them (a `status` field is added by the caller).
 */
export function outcomeFields(o: TaskOutcome): Record<string, FieldValue> {
  switch (o.status) {
    case "filled":
      return {
        user: o.user,
        percent: o.percent,
        auction_block: o.auctionBlock,
        fill_ledger: o.fillLedger,
        target_block: o.targetBlock,
        ratio: o.ratio,
        swaps: o.swaps,
        ...(o.ledgersAfterFirstProfitable === undefined
          ? {}
          : { ledgers_after_first_profitable: o.ledgersAfterFirstProfitable }),
      };
    case "lost_race":
      return { user: o.user, error: o.error };
    case "failed": {
      const f: Record<string, FieldValue> = {};
      if (o.user !== undefined) f.user = o.user;
      if (o.error !== undefined) f.error = o.error;
      return f;
    }
    case "rebalanced":
      return { asset: o.asset, drift_bps: o.driftBps, instructions: o.instructions };
    case "bad_debt":
      return { user: o.user, ledger: o.ledger };
    case "waiting":
      return waitFields(o.reason);
    case "skipped":
      return {
        ...(o.user === undefined ? {} : { user: o.user }),
        reason: skipReasonText(o.reason),
        ...skipFields(o.reason),
      };
  }
}

/** A wait reason's log fields. */
function waitFields(r: WaitReason): Record<string, FieldValue> {
  switch (r.kind) {
    case "never_profitable":
      return { reason: "never clears MIN_PROFIT (or unpriced)", ratio_now: r.ratioNow };
    case "below_min_profit_at_landing":
      return {
        reason:
          "the liquidator's check puts the landing ledger's oracle lot/bid below MIN_PROFIT: not yet",
      };
    case "too_early":
      return {
        auction_block: r.auctionBlock,
        target_block: r.targetBlock,
        ledgers_to_go: r.ledgersToGo,
        ratio_now: r.ratioNow,
        ratio_at_target: r.ratioAtTarget,
      };
    case "backup":
      return {
        reason: "backup keeper: the primary goes first",
        step: r.step,
        rank: r.rank,
        primary: r.primary,
        ready_at: r.readyAt,
        auction_block: r.auctionBlock,
      };
  }
}

/** The user a liquidation outcome is about, when it names one. */
export function outcomeUser(o: TaskOutcome): string | undefined {
  return "user" in o ? o.user : undefined;
}
