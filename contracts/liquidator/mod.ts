/**
 * Vigil's liquidator: the stateless flash executor the keeper names in `vault.flash`.
 *
 * The vault has already sent `amount` USDC to the keeper account. `exec` then, all under the
 * keeper's own authorization (the keeper signs the whole invocation tree as the transaction
 * source): fills a Blend auction in one `submit` (fill + repay + withdraw collateral, from/spender/
 * to = keeper), swaps the seized lot to USDC with the output sent to the keeper, and moves the
 * principal plus every unit of USDC the liquidation produced from the keeper to the vault. The
 * vault then checks its own balance. The contract has no storage, never holds funds and needs no
 * `authorize_as_current_contract`: called directly, it can only move the caller's own money.
 *
 * Why the repayment is a `transfer_from` under an allowance (a fix to the issue-12 design): the
 * keeper signs the invocation tree recorded by simulation, and Soroban requires every
 * `require_auth` to match a recorded call with the same arguments. The repayment amount depends
 * on the ledger the flash lands in (Blend interest, the repay refund, lot growth), so a plain
 * `transfer(keeper → vault, amount)` fails with `Error(Auth, InvalidAction)` whenever the flash
 * lands in another ledger than simulated. `approve(keeper, liquidator, I64_MAX, allowance_until)`
 * and `approve(…, 0, …)` have fixed arguments; the variable `transfer_from` needs only the
 * liquidator's own authorization (it is the direct invoker). The allowance is cleared before
 * `exec` returns.
 * See `contracts/README.md`, "Liquidator".
 *
 * @module
 */
import { type ContractModule, type Env, fail } from "../sdk.ts";
import { VigilError as E } from "../registry/errors.ts";
import { type LiquidationPlan, LIQUIDATOR_SPEC, SwapKind, type SwapLeg } from "./spec.ts";

export {
  type BlendRequest,
  type LiquidationPlan,
  LIQUIDATOR_SPEC,
  SwapKind,
  type SwapLeg,
} from "./spec.ts";

function validLeg(l: SwapLeg): boolean {
  return (l.kind === SwapKind.Soroswap || l.kind === SwapKind.Phoenix) && l.path.length >= 2 &&
    l.amount_in >= 0n && l.min_out >= 0n;
}

function swap(env: Env, keeper: string, l: SwapLeg): void {
  if (l.amount_in === 0n) return;
  if (l.kind === SwapKind.Soroswap) {
    // The swap runs in this invocation; Soroswap requires deadline > ledger time.
    env.call(l.router, "swap_exact_tokens_for_tokens", [
      l.amount_in,
      l.min_out,
      l.path,
      keeper,
      env.ledger.timestamp + 1n,
    ]);
    return;
  }
  const ops = l.path.slice(1).map((ask, i) => ({
    ask_asset: ask,
    // The floor applies to the final output; intermediate hops are bounded by it.
    ask_asset_min_amount: i === l.path.length - 2 ? l.min_out : null,
    offer_asset: l.path[i],
  }));
  env.call(l.router, "swap", [keeper, ops, null, l.amount_in, 0, null, null]);
}

/** The repayment allowance: fixed (so the keeper's recorded authorization matches). */
const ALLOWANCE = (1n << 63n) - 1n;

function exec(
  env: Env,
  a: { keeper: string; vault: string; usdc: string; amount: bigint; data: LiquidationPlan },
): bigint {
  env.requireAuth(a.keeper);
  const plan = a.data;
  if (a.amount < 0n || !plan.swaps.every(validLeg)) fail(E.InvalidPlan);
  const b0 = env.call<bigint>(a.usdc, "balance", { id: a.keeper });
  if (plan.requests.length > 0) {
    env.call(plan.pool, "submit", [a.keeper, a.keeper, a.keeper, plan.requests]);
  }
  for (const leg of plan.swaps) swap(env, a.keeper, leg);
  const b1 = env.call<bigint>(a.usdc, "balance", { id: a.keeper });
  // Principal plus what the liquidation produced (negative: it spent more than it got).
  const repay = a.amount + (b1 - b0);
  if (repay < 0n) fail(E.LiquidationShortfall);
  if (repay > 0n) {
    const self = env.currentContract;
    const until = plan.allowance_until;
    env.call(a.usdc, "approve", {
      from: a.keeper,
      spender: self,
      amount: ALLOWANCE,
      expiration_ledger: until,
    });
    env.call(a.usdc, "transfer_from", {
      spender: self,
      from: a.keeper,
      to: a.vault,
      amount: repay,
    });
    env.call(a.usdc, "approve", {
      from: a.keeper,
      spender: self,
      amount: 0n,
      expiration_ledger: until,
    });
  }
  return repay;
}

/** The liquidator contract module (no constructor, no storage). */
export const liquidatorContract: ContractModule = {
  name: "liquidator",
  spec: LIQUIDATOR_SPEC,
  functions: { exec },
};
