/**
 * `bad_debt` hygiene (Blend v2, `pool/src/pool/bad_debt.rs`): a position with liabilities and no
 * collateral left cannot be auctioned (there is no lot), so its debt sits in the pool accruing
 * interest nobody pays. `pool.bad_debt(user)` — permissionless, no authorization beyond the
 * transaction's source — moves it to the pool's backstop, which can then auction it (a bad-debt
 * auction, not done by this keeper). The pool refuses it (`BadRequest` #1200) when the user has
 * collateral or no liabilities, and (`AuctionInProgress` #1212) while the user has a liquidation
 * auction; the backstop's own bad debt is another rule (defaulted below a threshold) and is never
 * called here. A full auction fill already does the same move inside the pool, so this catches
 * what is left over otherwise.
 *
 * Each user is called once per position: an attempt is remembered with the position it was made
 * for, and retried only after the position changes — or, when it failed for a reason that is not
 * the pool's answer (the RPC, fees), after {@link BAD_DEBT_RETRY_MS}: a stored position does not
 * change by itself (interest moves no dToken balance), so waiting for a change could mean never.
 *
 * @module
 */
import type { Positions } from "@blend-capital/blend-sdk";
import { Address, type Keypair } from "@stellar/stellar-sdk";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import { ContractCallError, DryRunError } from "@vigil/soroban/errors";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { invokeContract, type InvokeOptions } from "@vigil/soroban/tx";
import { noCapitalResult, type Result, skipped } from "../adapter.ts";

/** The task payload of a `bad_debt(user)` call. */
export interface BadDebtTask {
  kind: "bad_debt";
  user: string;
  positions: Positions;
}

/** Blend v2's rule: liabilities and no collateral entry (supply-only balances do not count). */
export function isBadDebt(p: Pick<Positions, "collateral" | "liabilities">): boolean {
  return p.collateral.size === 0 && p.liabilities.size > 0;
}

/** A position's balances as text, to tell whether it changed since an attempt. */
export function positionFingerprint(p: Pick<Positions, "collateral" | "liabilities" | "supply">) {
  const side = (m: Map<number, bigint>) =>
    [...m].sort((a, b) => a[0] - b[0]).map(([i, v]) => `${i}:${v}`).join(",");
  return `${side(p.liabilities)}|${side(p.collateral)}|${side(p.supply)}`;
}

/** How long after a failed (not refused) `bad_debt` call the same position is tried again. */
export const BAD_DEBT_RETRY_MS = 30 * 60_000;

/** Remembers which positions `bad_debt` was already tried for. */
export class BadDebtAttempts {
  readonly #tried = new Map<string, { fingerprint: string; retryAt: number }>();

  /**
   * True when `user`'s position is bad debt and was not tried in this exact state (or its retry
   * time has come).
   */
  due(user: string, p: Positions, now = Date.now()): boolean {
    if (!isBadDebt(p)) return false;
    const t = this.#tried.get(user);
    return t === undefined || t.fingerprint !== positionFingerprint(p) || now >= t.retryAt;
  }

  /** Records an attempt for `user`'s position as it is now; `retryAt` (epoch ms) allows another. */
  tried(user: string, p: Positions, retryAt = Infinity): void {
    this.#tried.set(user, { fingerprint: positionFingerprint(p), retryAt });
  }

  /** Forgets users whose position is no longer bad debt (keeps the map small). */
  prune(isCurrentBadDebt: (user: string) => boolean): void {
    for (const u of this.#tried.keys()) if (!isCurrentBadDebt(u)) this.#tried.delete(u);
  }
}

/** What {@link callBadDebt} needs. */
export interface BadDebtDeps {
  poolId: string;
  invoke?: InvokeOptions;
  log: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
}

/**
 * Sends `pool.bad_debt(user)` (the keeper signs the transaction only: `ROOT_ONLY`). Landed: the
 * `bad_debt` outcome with the transaction hash. Refused by the pool: a `bad_debt_refused` skip.
 * DRY_RUN: a `dry_run` skip. Any other failure throws (the cycle logs it).
 */
export async function callBadDebt(
  chain: ChainRpc,
  keypair: Keypair,
  user: string,
  deps: BadDebtDeps,
): Promise<Result> {
  try {
    const r = await invokeContract(
      chain,
      keypair,
      deps.poolId,
      "bad_debt",
      [new Address(user).toScVal()],
      { ...deps.invoke, auth: ROOT_ONLY },
    );
    deps.log("info", `bad_debt called for ${user}: its debt moved to the backstop`, {
      user,
      tx_hash: r.hash,
      ledger: r.ledger,
    });
    return { ...noCapitalResult({ status: "bad_debt", user, ledger: r.ledger }), txHash: r.hash };
  } catch (err) {
    if (err instanceof DryRunError) {
      return skipped({ kind: "dry_run", action: err.action.call }, user);
    }
    if (err instanceof ContractCallError && err.contractCode !== undefined) {
      const error = `${err.caseName ?? `Error(Contract, #${err.contractCode})`} (${err.stage})`;
      deps.log(
        "warn",
        `bad_debt for ${user} refused by the pool: ${error}; not retried until the position changes`,
        {
          user,
          error,
          tx_hash: err.txHash,
        },
      );
      return skipped({ kind: "bad_debt_refused", error }, user);
    }
    throw err;
  }
}
