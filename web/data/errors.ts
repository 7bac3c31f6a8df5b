/**
 * Turns failures of a write (contract errors, token errors, wallet refusals, network and
 * transaction errors) into plain messages a depositor or keeper operator can act on.
 *
 * Contract errors are matched by the error case name from the contract's own spec, so the
 * text does not depend on numeric codes; an unknown case falls back to its spec doc string.
 *
 * @module
 */
import {
  ContractCallError,
  TxExpiredError,
  TxPendingError,
  TxRejectedError,
} from "@vigil/soroban/errors";

/** Plain messages by contract error case name (vault and registry). */
const BY_NAME: [RegExp, string][] = [
  [/CapExceeded|DepositCap|CapReached/i, "This deposit would go over the vault's deposit cap."],
  [/Cooldown/i, "Your last deposit is still in its withdrawal cooldown. Try again when it ends."],
  [
    /InsufficientLiquidity|InsufficientIdle|NotEnoughLiquidity/i,
    "The vault does not hold that much USDC right now. Try a smaller amount.",
  ],
  [/InsufficientShares|NoShares|NotEnoughShares/i, "You do not have that many shares."],
  [/ZeroShares/i, "This amount is too small to mint a single share."],
  [/ZeroPayout/i, "This withdrawal is too small to pay out any USDC."],
  [/PoolInsolvent/i, "The vault has shares but no assets, so deposits are refused."],
  [/InvalidAmount|ZeroAmount|NegativeAmount/i, "Enter an amount greater than zero."],
  [/AlreadyRegistered/i, "This account is already registered as a keeper."],
  [/NotRegistered/i, "This account is not a registered keeper."],
  // Retired with the two-step model (a flash lends and is repaid in one transaction); kept for
  // an older registry's errors.
  [/NoActiveDraw/i, "This keeper has nothing borrowed from the vault."],
  [
    /ActiveDraw|DrawOutstanding|OutstandingDraw/i,
    "A keeper cannot deregister while it has vault capital borrowed (an older registry's rule).",
  ],
  [
    /StakeBelowMinimum/i,
    "The keeper's stake is below the registry's current minimum (re-register to stake it).",
  ],
  [/InvalidName/i, "Choose a keeper name of 1 to 64 bytes."],
  // Retired by issue 20 (the registry has no cap); kept for an older registry's error.
  [/RegistryFull/i, "The registry is full: it holds the maximum number of keepers."],
  [
    /NothingPending/i,
    "Nothing is pending: there is no proposed admin to accept, and no queued policy or configuration change to cancel.",
  ],
  [
    /SwapBelowFloor/i,
    "A swap inside the liquidation returned less USDC than its floor (the pool oracle's value less the vault's slippage bound); nothing happened.",
  ],
  [
    /SwapAboveCeiling/i,
    "Buying the debt asset inside the liquidation would cost more USDC than its ceiling (the pool oracle's value plus the vault's slippage bound); nothing happened.",
  ],
  [
    /BelowMinProfit/i,
    "At the prices in force when it ran, the liquidation's collateral was worth less than the keeper's minimum profit over its debt (MIN_PROFIT); it reverted and nothing was lent.",
  ],
  [
    /DrawLimit|MaxDraw/i,
    "This flash would borrow more than the vault lends in one flash (its per-flash limit).",
  ],
  [/FlashNotRepaid/i, "The flash loan was not repaid in full; nothing happened."],
  [
    /ExecutorNotAllowed/i,
    "The vault's flash policy does not list this executor (only the admin-listed liquidator may be used); nothing happened.",
  ],
  [
    /^NotAllowed$/i,
    "The vault's flash policy does not list this lending pool, swap router or swap-path token; nothing happened.",
  ],
  [
    /PositionsChanged/i,
    "The liquidation would have left collateral or debt in the keeper's pool position; nothing happened.",
  ],
  [
    /PriceUnavailable/i,
    "The lending pool's oracle has no price for an asset of the liquidation; nothing happened.",
  ],
  [
    /InvalidPlan/i,
    "The liquidation plan is not allowed (request type, swap venue or path); nothing happened.",
  ],
  [
    /LiquidationShortfall/i,
    "The liquidation would have produced less USDC than it cost; nothing happened.",
  ],
  [/Paused/i, "This action is paused by the contract administrator."],
  [
    /Unauthorized/i,
    "This account is not allowed to do that (only the contract's admin may, and none may once the admin renounced).",
  ],
  [/NotInit/i, "The contract is not wired up yet (no registry or vault address stored)."],
  [/MathOverflow/i, "The amount is too large."],
];

/** Stellar Asset Contract (token) error codes (soroban-env-host `ContractError`). */
const TOKEN_CODES: Record<number, string> = {
  8: "The token amount is negative.",
  9: "The token allowance is too low.",
  10: "Your USDC balance is too low for this amount.",
  11: "Your USDC balance is frozen (deauthorized) by the issuer.",
  13: "Your account has no USDC trustline. Add a trustline to the USDC asset first.",
};

/** Matches failures raised by wallets (Freighter, xBull, the kit…) when the user says no. */
const REJECTED = /reject|denied|declin|cancel|user closed|not allowed by the user/i;

/** Context a caller can add: which contract is the token, to name token errors. */
export interface ErrorContext {
  usdc?: string | null;
}

/**
 * The plain message for an error thrown by a write or a read.
 * Never includes raw XDR; the technical detail stays available on the error object.
 */
export function plainError(err: unknown, ctx: ErrorContext = {}): string {
  if (err instanceof ContractCallError) {
    if (err.code !== null && err.origin && err.origin !== err.contractId) {
      // The failure came from a contract called by ours (the USDC token, usually).
      if (!ctx.usdc || err.origin === ctx.usdc) {
        const t = TOKEN_CODES[err.code];
        if (t) return t;
      }
      return `A contract called by this transaction failed (Error(Contract, #${err.code})).`;
    }
    if (err.caseName) {
      for (const [re, msg] of BY_NAME) if (re.test(err.caseName)) return msg;
      return err.message;
    }
    if (err.code !== null) return `The contract refused the call (error #${err.code}).`;
    return classifyText(err.detail) ?? "The transaction would fail: " + firstLine(err.detail);
  }
  if (err instanceof TxPendingError) {
    return `The transaction was sent but not confirmed in time. Check it later (hash ${err.hash}).`;
  }
  if (err instanceof TxExpiredError) {
    return "The transaction was not included before it expired: nothing happened. Try again.";
  }
  if (err instanceof TxRejectedError) {
    return classifyText(err.txCode ?? err.status) ?? err.message;
  }
  const text = errText(err);
  return classifyText(text) ?? firstLine(text);
}

function errText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === "object") {
    const o = err as { message?: unknown; code?: unknown };
    if (typeof o.message === "string") return o.message;
    return JSON.stringify(err);
  }
  return String(err);
}

function firstLine(s: string): string {
  return s.split("\n")[0].slice(0, 240);
}

/** Known transaction / network / wallet conditions by text. */
function classifyText(text: string): string | null {
  if (REJECTED.test(text)) return "You rejected the request in your wallet.";
  if (/tx_?bad_?seq|txBadSeq/i.test(text)) {
    return "Your account's sequence number changed (another transaction went first). Try again.";
  }
  if (/insufficient_?fee|txInsufficientFee/i.test(text)) {
    return "The fee offered was too low. Try again.";
  }
  if (/tx_?insufficient_?balance|txInsufficientBalance/i.test(text)) {
    return "Your account does not have enough XLM to pay the network fee.";
  }
  if (/tx_?too_?late|txTooLate/i.test(text)) {
    return "The transaction expired before it was included. Try again.";
  }
  if (/Account not found|not found: G/i.test(text)) {
    return "This account does not exist on the network yet. Fund it with XLM first.";
  }
  if (/Failed to fetch|NetworkError|ECONNREFUSED|fetch failed|Load failed/i.test(text)) {
    return "The network (RPC) could not be reached. Check your connection and try again.";
  }
  return null;
}
