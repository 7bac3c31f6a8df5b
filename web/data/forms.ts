/**
 * What the vault forms know before the click: whether a deposit or withdrawal can succeed, and
 * if not, why (the wallet's balance, the deposit cap, the cooldown with its chain time left,
 * nothing to withdraw); and what "Max" fills, with the reason when that is 0. Pure functions, so
 * the islands' buttons and the unit tests agree.
 *
 * @module
 */
import { formatAmount, formatDuration, formatUsdcExact } from "./format.ts";

/** Why a form cannot be sent (shown next to the disabled button), or null when it can. */
export type Block = string | null;

/** A chain-time duration in words, with its real time when the chain clock runs fast or slow. */
export function chainDuration(secs: number, rate: number | null): string {
  const chain = `${formatDuration(secs)} of chain time`;
  if (rate === null || (rate <= 1.5 && rate >= 1 / 1.5)) return chain;
  return `${chain} (about ${formatDuration(Math.max(1, Math.ceil(secs / rate)))} real)`;
}

/** Inputs of {@link depositBlock} and {@link depositMax}. */
export interface DepositInput {
  /** The amount typed, in units (null: empty or not a number). */
  amount: bigint | null;
  /** The wallet's USDC, null when unknown. */
  balance: bigint | null;
  /** Room under the deposit cap, null when unknown. */
  capLeft: bigint | null;
}

/** Why a deposit cannot be sent, or null. */
export function depositBlock(i: DepositInput): Block {
  if (i.balance === 0n) return "Your wallet holds no USDC to deposit.";
  if (i.capLeft === 0n) return "The vault is at its deposit cap: it takes no deposit now.";
  if (i.amount === null || i.amount <= 0n) return "Enter an amount of USDC.";
  if (i.balance !== null && i.amount > i.balance) {
    return `More than your wallet's ${formatUsdcExact(i.balance)}.`;
  }
  if (i.capLeft !== null && i.amount > i.capLeft) {
    return `Over the deposit cap: at most ${formatUsdcExact(i.capLeft)} fits.`;
  }
  return null;
}

/** What "Max" fills on the deposit form, and the words that explain it. */
export function depositMax(i: DepositInput): { value: bigint; note: string } | null {
  if (i.balance === null) return null;
  if (i.balance === 0n) return { value: 0n, note: "Max is 0: your wallet holds no USDC." };
  if (i.capLeft !== null && i.capLeft < i.balance) {
    return i.capLeft === 0n ? { value: 0n, note: "Max is 0: the vault is at its deposit cap." } : {
      value: i.capLeft,
      note: `Max filled the room under the deposit cap, ${
        formatUsdcExact(i.capLeft)
      } (your wallet holds ${formatUsdcExact(i.balance)}).`,
    };
  }
  return { value: i.balance, note: `Max filled your wallet's ${formatUsdcExact(i.balance)}.` };
}

/** Inputs of {@link withdrawBlock} and {@link withdrawMax}. */
export interface WithdrawInput {
  /** Shares typed, in units (null: empty or not a number). */
  amount: bigint | null;
  /** Shares held, null when unknown. */
  shares: bigint | null;
  /** Shares withdrawable now, null when unknown. */
  free: bigint | null;
  /** Chain seconds until the cooldown ends (≤ 0: ended), null when unknown. */
  unlockIn: number | null;
  /** The chain clock's rate against real time, null when unknown. */
  rate: number | null;
}

const shares7 = (v: bigint) => formatAmount(v, { decimals: 7 });

/** Why a withdrawal cannot be sent, or null. */
export function withdrawBlock(i: WithdrawInput): Block {
  if (i.shares === 0n) return "You hold no shares to withdraw.";
  if (i.free === 0n) {
    return i.unlockIn !== null && i.unlockIn > 0
      ? `Your shares are in their withdraw cooldown: ${
        chainDuration(i.unlockIn, i.rate)
      } left. Withdraw stays off until then.`
      : "No share can be withdrawn now.";
  }
  if (i.amount === null || i.amount <= 0n) return "Enter a number of shares.";
  if (i.free !== null && i.amount > i.free) {
    return `More than the ${shares7(i.free)} shares you can withdraw now${
      i.unlockIn !== null && i.unlockIn > 0
        ? ` (the rest unlock in ${chainDuration(i.unlockIn, i.rate)})`
        : ""
    }.`;
  }
  return null;
}

/** What "Max" fills on the withdraw form, and the words that explain it. */
export function withdrawMax(i: WithdrawInput): { value: bigint; note: string } | null {
  if (i.free === null) return null;
  if (i.shares === 0n) return { value: 0n, note: "Max is 0: you hold no shares." };
  if (i.free === 0n) {
    return {
      value: 0n,
      note: i.unlockIn !== null && i.unlockIn > 0
        ? `Max is 0: your shares unlock in ${chainDuration(i.unlockIn, i.rate)}.`
        : "Max is 0: no share can be withdrawn now.",
    };
  }
  const locked = i.shares !== null && i.shares > i.free;
  return {
    value: i.free,
    note: `Max filled every share you can withdraw now, ${shares7(i.free)}${
      locked ? " (the rest are still in their cooldown)" : ""
    }.`,
  };
}
