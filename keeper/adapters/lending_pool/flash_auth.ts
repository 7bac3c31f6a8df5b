/**
 * What a liquidation flash may have the keeper authorize beneath Vigil's liquidator's `exec`,
 * derived from the plan the keeper built (never from the simulation).
 *
 * `contracts/liquidator/assembly/index.ts` makes exactly these keeper-authorized calls:
 * - `pool.submit(keeper, keeper, keeper, requests)` — the planned pool, the planned requests;
 *   beneath it the pool pulls the bid from the keeper: `asset.transfer(keeper, pool, x)` per
 *   planned repay asset, x at most the planned amount (Blend pulls the whole repay amount and
 *   refunds the excess). With a `min_ratio_bps` (issue 26) the requests go in two submits, in
 *   plan order: the fill and the repayments (with the pulls beneath), then the withdrawals;
 * - for each lot or bought asset it swaps, for USDC once per buy leg (issue 24: the buy's USDC is
 *   pulled from the keeper before `submit`) and for USDC at the end, an allowance set and cleared
 *   inside the invocation: `asset.approve(keeper, liquidator, i64::MAX, allowance_until)` then
 *   `asset.approve(keeper, liquidator, 0, allowance_until)` (the pulls themselves are
 *   `transfer_from` calls the liquidator authorizes as the direct invoker; its swaps, and its
 *   transfer of a bought asset to the keeper, it authorizes itself).
 *
 * Everything else — a transfer to anyone else, an allowance to another spender, an unplanned
 * asset, another pool, a nested call the pool makes on the keeper's behalf — is refused.
 *
 * @module
 */
import { scValToNative, type xdr } from "@stellar/stellar-sdk";
import {
  argsOf,
  type AuthCall,
  type AuthShape,
  call,
  I64_MAX,
  is,
  sacApprove,
  sacTransfer,
} from "@vigil/soroban/auth_guard";
import { sv } from "@vigil/soroban/scval";

/** The facts of a planned liquidation the shape is derived from. */
export interface PlannedLiquidation {
  keeper: string;
  liquidator: string;
  pool: string;
  usdc: string;
  /** The plan's Blend requests, as sent. */
  requests: readonly xdr.ScVal[];
  /** The most the pool may pull from the keeper, per bid (repay) asset. */
  repay: ReadonlyMap<string, bigint>;
  /** The assets of the auction's lot (withdrawn to the keeper, then taken by the liquidator). */
  lotAssets: readonly string[];
  /** The plan's `allowance_until`. */
  allowanceUntil: number;
  /** The bid assets its buy legs buy, one per leg (issue 24; none for a USDC bid). */
  bought?: readonly string[];
  /** The plan's `min_ratio_bps` (issue 26; non-zero: two submits). */
  minRatioBps?: number;
}

/** Blend's `RequestType.WithdrawCollateral`. */
const WITHDRAW_COLLATERAL = 3;

/** A request ScVal's `request_type` (Blend's `Request { address, amount, request_type }`). */
function requestType(r: xdr.ScVal): number | undefined {
  const v = scValToNative(r) as { request_type?: unknown } | undefined;
  return typeof v?.request_type === "number" ? v.request_type : undefined;
}

/** The {@link AuthShape} beneath `liquidator.exec` for a planned liquidation (module doc). */
export function liquidationAuth(p: PlannedLiquidation): AuthShape {
  const keeper = is.address(p.keeper, "the keeper");
  const pool = is.address(p.pool, "the planned pool");
  const liquidator = is.address(p.liquidator, "the liquidator");
  const until = is.value(sv.u32(p.allowanceUntil));
  const pulls = [...p.repay].map(([asset, max]) => sacTransfer(asset, p.keeper, pool, max));
  const submitOf = (requests: readonly xdr.ScVal[], subs: AuthCall[]) =>
    call(
      p.pool,
      "submit",
      argsOf(
        ["from", keeper],
        ["spender", keeper],
        ["to", keeper],
        ["requests", is.value(sv.vec([...requests]))],
      ),
      { subs },
    );
  const submits: AuthCall[] = [];
  if ((p.minRatioBps ?? 0) > 0) {
    const withdraws = p.requests.filter((r) => requestType(r) === WITHDRAW_COLLATERAL);
    const others = p.requests.filter((r) => requestType(r) !== WITHDRAW_COLLATERAL);
    if (others.length > 0) submits.push(submitOf(others, pulls));
    if (withdraws.length > 0) submits.push(submitOf(withdraws, []));
  } else {
    submits.push(submitOf(p.requests, pulls));
  }
  const bought = p.bought ?? [];
  const approvals: AuthCall[] = [];
  for (const asset of new Set([...p.lotAssets, ...bought, p.usdc])) {
    // USDC: once per buy leg (its input) and once for the repayment.
    const times = asset === p.usdc ? 1 + bought.length : 1;
    for (const amount of [I64_MAX, 0n]) {
      approvals.push(sacApprove(asset, p.keeper, liquidator, [amount], until, times));
    }
  }
  return { subs: [...submits, ...approvals] };
}
