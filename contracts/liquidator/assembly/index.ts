// Vigil's liquidation executor: stateless, no storage. The vault calls `exec` inside `flash`
// after sending `amount` USDC to the keeper's account; everything here moves the KEEPER's
// funds under the keeper's own authorization, then sends principal plus proceeds back to the
// vault. Called directly with hostile arguments it can only spend the caller's own money.
import {
  currentContract, expectAddress, expectTag, fail, fromU64, I128, invoke, ledgerTimestamp,
  requireAuth, Schema, TAG_U32, tokenApprove, tokenBalance, tokenTransferFrom, toU32, vec0, vecGet,
  vecLen, vecOf, VOID,
} from "../../sdk/index";
import * as env from "../../sdk/env";
import * as E from "../../common/assembly/vigil";
import { add, sub } from "../../common/assembly/vigil";

const KIND_SOROSWAP: u32 = 0;
const KIND_PHOENIX: u32 = 1;

// LiquidationPlan { allowance_until, pool, requests, swaps }
let PLAN: Schema | null = null;
function planSchema(): Schema {
  if (PLAN == null) PLAN = new Schema("allowance_until,pool,requests,swaps");
  return PLAN!;
}
const P_UNTIL = 0;
const P_POOL = 1;
const P_REQUESTS = 2;
const P_SWAPS = 3;

/** The repayment allowance: a fixed amount, so the keeper's recorded authorization matches. */
const ALLOWANCE: i64 = i64.MAX_VALUE;

// SwapLeg { amount_in, kind, min_out, path, router }
let LEG: Schema | null = null;
function legSchema(): Schema {
  if (LEG == null) LEG = new Schema("amount_in,kind,min_out,path,router");
  return LEG!;
}

// Phoenix multihop `Swap { ask_asset, ask_asset_min_amount: Option<i128>, offer_asset }`
let HOP: Schema | null = null;
function hopSchema(): Schema {
  if (HOP == null) HOP = new Schema("ask_asset,ask_asset_min_amount,offer_asset");
  return HOP!;
}

/** A leg the liquidator can run: known kind, a path of ≥ 2 tokens, no negative amounts. */
function validLeg(leg: StaticArray<u64>): bool {
  const kind = toU32(leg[1]);
  return (kind == KIND_SOROSWAP || kind == KIND_PHOENIX) && vecLen(leg[3]) >= 2 &&
    !I128.fromVal(leg[0]).isNeg() && !I128.fromVal(leg[2]).isNeg();
}

function swap(keeper: u64, leg: StaticArray<u64>): void {
  if (I128.fromVal(leg[0]).isZero()) return;
  const path = leg[3];
  const router = expectAddress(leg[4]);
  if (toU32(leg[1]) == KIND_SOROSWAP) {
    // swap_exact_tokens_for_tokens(amount_in, amount_out_min, path, to, deadline); the swap runs
    // in this invocation and Soroswap requires deadline > ledger time.
    const deadline = fromU64(ledgerTimestamp() + 1);
    const a: StaticArray<u64> = [leg[0], leg[2], path, keeper, deadline];
    invoke(router, "swap_exact_tokens_for_tokens", vecOf(a));
    return;
  }
  // Phoenix multihop swap(recipient, operations, max_spread_bps, amount, pool_type, deadline,
  // max_allowed_fee_bps), one Swap per consecutive pair of the path.
  const n = vecLen(path);
  let ops = vec0();
  for (let i: u32 = 0; i + 1 < n; i++) {
    const hop = hopSchema().values();
    hop[0] = vecGet(path, i + 1);
    // The slippage floor applies to what the last hop delivers.
    hop[1] = i + 2 == n ? leg[2] : VOID;
    hop[2] = vecGet(path, i);
    ops = env.vec_push_back(ops, hopSchema().encode(hop));
  }
  const XYK: u64 = 4; // PoolType::Xyk as U32Val(0)
  const a: StaticArray<u64> = [keeper, ops, VOID, leg[0], XYK, VOID, VOID];
  invoke(router, "swap", vecOf(a));
}

export function exec(keeper: u64, vault: u64, usdc: u64, amount: u64, data: u64): u64 {
  requireAuth(keeper);
  expectAddress(vault);
  const principal = I128.fromVal(amount);
  const plan = planSchema().decode(data);
  const swaps = plan[P_SWAPS];
  const until = expectTag(plan[P_UNTIL], TAG_U32);
  const n = vecLen(swaps);
  // Checked before anything moves.
  if (principal.isNeg()) fail(E.InvalidPlan);
  for (let i: u32 = 0; i < n; i++) {
    if (!validLeg(legSchema().decode(vecGet(swaps, i)))) fail(E.InvalidPlan);
  }
  const b0 = tokenBalance(usdc, keeper);
  const requests = plan[P_REQUESTS];
  if (vecLen(requests) > 0) {
    const a: StaticArray<u64> = [keeper, keeper, keeper, requests];
    invoke(expectAddress(plan[P_POOL]), "submit", vecOf(a));
  }
  for (let i: u32 = 0; i < n; i++) swap(keeper, legSchema().decode(vecGet(swaps, i)));
  const b1 = tokenBalance(usdc, keeper);
  // Principal plus everything the liquidation produced (negative: it spent more than it got).
  const repay = add(principal, sub(b1, b0));
  if (repay.isNeg()) fail(E.LiquidationShortfall);
  if (repay.isPos()) {
    // transfer_from under an allowance set and cleared here: the approvals have fixed arguments
    // (the keeper's recorded authorization matches whatever ledger the flash lands in), and the
    // variable transfer_from needs only this contract's own authorization (the direct invoker).
    const self = currentContract();
    tokenApprove(usdc, keeper, self, I128.of(ALLOWANCE), until);
    tokenTransferFrom(usdc, self, keeper, vault, repay);
    tokenApprove(usdc, keeper, self, I128.zero(), until);
  }
  return repay.toVal();
}
