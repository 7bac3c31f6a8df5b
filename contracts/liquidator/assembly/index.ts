// Vigil's liquidation executor: no storage, holds no funds between transactions. The vault calls
// `exec` inside `flash` after sending `amount` USDC to the keeper's account and passes its flash
// policy along. Everything the liquidation produces goes back to the vault: the keeper ends with
// the same USDC, the same lot-asset balances and the same pool positions it had before.
//
// Why the checks: the keeper chooses the plan. Without them it could keep part of the lot (swap
// less than it received, leave collateral in its position, borrow against it, swap into another
// asset, use its own pool or router) and still repay exactly `amount`; depositors would lend for
// free. Run-time amounts move under this contract's own authority (transfer_from after a
// fixed-argument approval, `authorize_as_current_contract` for the router's pull), so the
// keeper's recorded authorization still matches whatever ledger the flash lands in.
//
// Issue 20: a swap path may pass only through tokens the policy lists (or be a direct pair), so a
// keeper cannot route the lot through pairs of a token it issued and keep the difference in its
// pair shares; and the USDC each swap returns is measured here, not trusted to the router.
//
// Issue 24: debt in an asset other than USDC. A Repay of a non-USDC asset needs exactly one buy
// leg (USDC → listed hops → that asset, on a listed router), run before `submit`: the liquidator
// asks the router what the exact output costs, refuses a cost above the keeper's `max_in` or the
// oracle's value of the output plus `max_slippage_bps` (SwapAboveCeiling), pulls exactly that USDC
// from the keeper, buys under its own authority and hands the keeper what arrived. Blend refunds a
// Repay above the debt to the keeper, so a bought asset is treated like a lot asset: it needs
// exactly one sell leg, and everything the keeper gained of it since before the buy is sold back.
//
// Issue 26: the keeper's MIN_PROFIT rule checked where it can be guaranteed, inside the fill. With
// `min_ratio_bps` > 0 the liquidator submits in two steps (the fill and the repayments, then the
// withdrawals), measures what each moved in the keeper's wallet per asset (paid: the bid after
// Blend's refund of an over-repay; received: the lot), values both at the pool oracle's
// `lastprice` in force when the transaction executes, and refuses (BelowMinProfit) when
// lot × 10,000 < bid × min_ratio_bps. Prices written earlier in the same ledger are the ones
// read; nothing the keeper computed before sending is trusted.
import {
  authorizeAsCurrentContract, currentContract, expectAddress, expectTag, extendInstanceTtl, fail,
  fromU64, I128, invoke, ledgerTimestamp, mapGet, requireAuth, Schema, symbol, TAG_U32, TAG_VOID,
  tagOf, tokenApprove, tokenBalance, tokenTransfer, tokenTransferFrom, toU32, valEq, vec1, vec2,
  vecContains, vecGet, vecLen, vecOf,
} from "../../sdk/index";
import * as env from "../../sdk/env";
import * as E from "../../common/assembly/vigil";
import {
  add, F_POOLS, F_ROUTERS, F_SLIPPAGE, F_TOKENS, MAX_SLIPPAGE_BPS, mulDiv, mulDivCeil,
  policySchema, sub,
} from "../../common/assembly/vigil";

const KIND_SOROSWAP: u32 = 0;

/**
 * contracts/registry/errors.ts's `SwapAboveCeiling`: kept here rather than in common/assembly so
 * that the world and fixture Wasm (whose source hash covers common/assembly) stay byte-identical.
 */
const SwapAboveCeiling: u32 = 166;
/** contracts/registry/errors.ts's `BelowMinProfit` (kept here for the same reason). */
const BelowMinProfit: u32 = 167;

/** Blend request types a liquidation may use. */
const REQ_WITHDRAW_COLLATERAL: u32 = 3;
const REQ_REPAY: u32 = 5;
const REQ_FILL_USER_LIQUIDATION: u32 = 6;

// LiquidationPlan { allowance_until, buys, min_ratio_bps, pool, requests, swaps }
let PLAN: Schema | null = null;
function planSchema(): Schema {
  if (PLAN == null) PLAN = new Schema("allowance_until,buys,min_ratio_bps,pool,requests,swaps");
  return PLAN!;
}
const P_UNTIL = 0;
const P_BUYS = 1;
const P_MIN_RATIO = 2;
const P_POOL = 3;
const P_REQUESTS = 4;
const P_SWAPS = 5;

// BuyLeg { amount_out, max_in, path, router }
let BUY: Schema | null = null;
function buySchema(): Schema {
  if (BUY == null) BUY = new Schema("amount_out,max_in,path,router");
  return BUY!;
}
const B_AMOUNT_OUT = 0;
const B_MAX_IN = 1;
const B_PATH = 2;
const B_ROUTER = 3;


// Blend Request { address, amount, request_type }
let REQ: Schema | null = null;
function requestSchema(): Schema {
  if (REQ == null) REQ = new Schema("address,amount,request_type");
  return REQ!;
}

// SwapLeg { amount_in, kind, min_out, path, router }
let LEG: Schema | null = null;
function legSchema(): Schema {
  if (LEG == null) LEG = new Schema("amount_in,kind,min_out,path,router");
  return LEG!;
}
const L_AMOUNT_IN = 0;
const L_KIND = 1;
const L_MIN_OUT = 2;
const L_PATH = 3;
const L_ROUTER = 4;

// soroban-sdk InvokerContractAuthEntry::Contract(SubContractInvocation { context, sub_invocations })
let SUB: Schema | null = null;
function subInvocationSchema(): Schema {
  if (SUB == null) SUB = new Schema("context,sub_invocations");
  return SUB!;
}
// ContractContext { args, contract, fn_name }
let CTX: Schema | null = null;
function contextSchema(): Schema {
  if (CTX == null) CTX = new Schema("args,contract,fn_name");
  return CTX!;
}

/** The repayment allowance: a fixed amount, so the keeper's recorded authorization matches. */
const ALLOWANCE: i64 = i64.MAX_VALUE;
const BPS: i64 = 10000;

/** One checked swap leg. */
class Leg {
  asset: u64 = 0;
  path: u64 = 0;
  router: u64 = 0;
  amountIn: I128 = I128.zero();
  minOut: I128 = I128.zero();
  before: I128 = I128.zero();
}

/** One checked buy leg (USDC → a non-USDC repaid asset). */
class Buy {
  asset: u64 = 0;
  path: u64 = 0;
  router: u64 = 0;
  amountOut: I128 = I128.zero();
  maxIn: I128 = I128.zero();
}

/** The checked plan: its buy legs (run first) and its sell legs. */
class Checked {
  buys: Buy[] = [];
  legs: Leg[] = [];
}

/**
 * A path's intermediate tokens: listed in the policy only (NotAllowed), and no token twice in the
 * whole path (InvalidPlan).
 */
function checkHops(path: u64, policy: StaticArray<u64>): void {
  const n = vecLen(path);
  const seen = new Array<u64>();
  for (let j: u32 = 0; j < n; j++) {
    const t = expectAddress(vecGet(path, j));
    if (contains(seen, t)) fail(E.InvalidPlan);
    if (j > 0 && j < n - 1 && !vecContains(policy[F_TOKENS], t)) fail(E.NotAllowed);
    seen.push(t);
  }
}

/**
 * The buy legs: exactly one per non-USDC repaid asset, none for anything else; each path USDC →
 * listed hops → that asset on a listed router (InvalidPlan / NotAllowed).
 */
function checkBuys(plan: StaticArray<u64>, policy: StaticArray<u64>, usdc: u64, repaid: Array<u64>): Buy[] {
  const raw = plan[P_BUYS];
  const nb = vecLen(raw);
  if (nb != (repaid.length as u32)) fail(E.InvalidPlan);
  const buys = new Array<Buy>();
  for (let i: u32 = 0; i < nb; i++) {
    const b = buySchema().decode(vecGet(raw, i));
    const path = b[B_PATH];
    const n = vecLen(path);
    if (n < 2) fail(E.InvalidPlan);
    if (!valEq(expectAddress(vecGet(path, 0)), usdc)) fail(E.InvalidPlan);
    const asset = expectAddress(vecGet(path, n - 1));
    if (!contains(repaid, asset)) fail(E.InvalidPlan);
    for (let j = 0; j < buys.length; j++) if (valEq(buys[j].asset, asset)) fail(E.InvalidPlan);
    checkHops(path, policy);
    const router = expectAddress(b[B_ROUTER]);
    if (!vecContains(policy[F_ROUTERS], router)) fail(E.NotAllowed);
    const buy = new Buy();
    buy.asset = asset;
    buy.path = path;
    buy.router = router;
    buy.amountOut = I128.fromVal(b[B_AMOUNT_OUT]);
    buy.maxIn = I128.fromVal(b[B_MAX_IN]);
    if (!buy.amountOut.isPos() || buy.maxIn.isNeg()) fail(E.InvalidPlan);
    buys.push(buy);
  }
  return buys;
}

/**
 * Checks the plan against the policy and the rules (see the module comment) before anything
 * moves; returns the buy legs, one per non-USDC repaid asset, and the sell legs, one per non-USDC
 * asset the plan withdraws or buys.
 */
function checkPlan(plan: StaticArray<u64>, policy: StaticArray<u64>, usdc: u64): Checked {
  if (!vecContains(policy[F_POOLS], expectAddress(plan[P_POOL]))) fail(E.NotAllowed);
  const requests = plan[P_REQUESTS];
  const nr = vecLen(requests);
  // Non-USDC assets the keeper may end up holding: withdrawn or bought (each needs exactly one
  // sell leg), and non-USDC assets repaid (each needs exactly one buy leg).
  const withdrawn = new Array<u64>();
  const repaid = new Array<u64>();
  for (let i: u32 = 0; i < nr; i++) {
    const r = requestSchema().decode(vecGet(requests, i));
    const asset = expectAddress(r[0]);
    if (I128.fromVal(r[1]).isNeg()) fail(E.InvalidPlan);
    const kind = toU32(r[2]);
    if (kind == REQ_REPAY) {
      if (!valEq(asset, usdc) && !contains(repaid, asset)) repaid.push(asset);
    } else if (kind == REQ_WITHDRAW_COLLATERAL) {
      if (!valEq(asset, usdc) && !contains(withdrawn, asset)) withdrawn.push(asset);
    } else if (kind != REQ_FILL_USER_LIQUIDATION) {
      fail(E.InvalidPlan);
    }
  }
  const checked = new Checked();
  checked.buys = checkBuys(plan, policy, usdc, repaid);
  // Blend refunds a Repay above the debt to the keeper: what was bought is sold back like a lot.
  for (let i = 0; i < repaid.length; i++) {
    if (!contains(withdrawn, repaid[i])) withdrawn.push(repaid[i]);
  }
  const swaps = plan[P_SWAPS];
  const ns = vecLen(swaps);
  if (ns != (withdrawn.length as u32)) fail(E.InvalidPlan);
  const legs = new Array<Leg>();
  for (let i: u32 = 0; i < ns; i++) {
    const l = legSchema().decode(vecGet(swaps, i));
    if (toU32(l[L_KIND]) != KIND_SOROSWAP) fail(E.InvalidPlan);
    const path = l[L_PATH];
    const n = vecLen(path);
    if (n < 2) fail(E.InvalidPlan);
    const first = expectAddress(vecGet(path, 0));
    if (!valEq(expectAddress(vecGet(path, n - 1)), usdc) || valEq(first, usdc)) {
      fail(E.InvalidPlan);
    }
    if (!contains(withdrawn, first)) fail(E.InvalidPlan);
    // Hops: listed tokens only, none twice (a direct pair needs none).
    checkHops(path, policy);
    for (let j = 0; j < legs.length; j++) if (valEq(legs[j].asset, first)) fail(E.InvalidPlan);
    const router = expectAddress(l[L_ROUTER]);
    if (!vecContains(policy[F_ROUTERS], router)) fail(E.NotAllowed);
    const leg = new Leg();
    leg.asset = first;
    leg.path = path;
    leg.router = router;
    leg.amountIn = I128.fromVal(l[L_AMOUNT_IN]);
    leg.minOut = I128.fromVal(l[L_MIN_OUT]);
    if (leg.amountIn.isNeg() || leg.minOut.isNeg()) fail(E.InvalidPlan);
    legs.push(leg);
  }
  checked.legs = legs;
  return checked;
}

function contains(list: Array<u64>, x: u64): bool {
  for (let i = 0; i < list.length; i++) if (valEq(list[i], x)) return true;
  return false;
}

/** The pool's oracle (`get_config().oracle`). */
function poolOracle(pool: u64): u64 {
  const cfg = invoke(pool, "get_config", env.vec_new());
  return expectAddress(mapGet(cfg, symbol("oracle")));
}

// Prices already read in this invocation: nothing writes the oracle between two reads inside one
// `exec`, so an asset valued by both the ratio check and its sell leg costs one `lastprice`.
// (Created on first use: the builder allows no start-time allocation.)
let PRICED: Array<u64> | null = null;
let PRICES: Array<I128> | null = null;

/** `lastprice(Asset::Stellar(token)).price` from the pool's oracle (PriceUnavailable on None). */
function oraclePrice(oracle: u64, token: u64): I128 {
  if (PRICED == null) {
    PRICED = new Array<u64>();
    PRICES = new Array<I128>();
  }
  const known = PRICED!;
  for (let i = 0; i < known.length; i++) if (valEq(known[i], token)) return PRICES![i];
  const asset = vec2(symbol("Stellar"), token);
  const r = invoke(oracle, "lastprice", vec1(asset));
  if (tagOf(r) == TAG_VOID) fail(E.PriceUnavailable);
  const price = I128.fromVal(mapGet(r, symbol("price")));
  if (!price.isPos()) fail(E.PriceUnavailable);
  known.push(token);
  PRICES!.push(price);
  return price;
}

/** The distinct assets the requests repay or withdraw (what `submit` moves in the wallet). */
function requestAssets(requests: u64): Array<u64> {
  const assets = new Array<u64>();
  const n = vecLen(requests);
  for (let i: u32 = 0; i < n; i++) {
    const r = requestSchema().decode(vecGet(requests, i));
    if (toU32(r[2]) == REQ_FILL_USER_LIQUIDATION) continue;
    const asset = expectAddress(r[0]);
    if (!contains(assets, asset)) assets.push(asset);
  }
  return assets;
}

/** The requests of one kind (`withdrawals`: WithdrawCollateral; else the others), in order. */
function requestsOf(requests: u64, withdrawals: bool): u64 {
  let out = env.vec_new();
  const n = vecLen(requests);
  for (let i: u32 = 0; i < n; i++) {
    const r = vecGet(requests, i);
    const w = toU32(requestSchema().decode(r)[2]) == REQ_WITHDRAW_COLLATERAL;
    if (w == withdrawals) out = env.vec_push_back(out, r);
  }
  return out;
}

/** `pool.submit(keeper, keeper, keeper, requests)`, skipped when there are none. */
function submit(pool: u64, keeper: u64, requests: u64): void {
  if (vecLen(requests) == 0) return;
  const a: StaticArray<u64> = [keeper, keeper, keeper, requests];
  invoke(pool, "submit", vecOf(a));
}

/** The keeper's balance of each asset. */
function balances(keeper: u64, assets: Array<u64>): Array<I128> {
  const out = new Array<I128>();
  for (let i = 0; i < assets.length; i++) out.push(tokenBalance(assets[i], keeper));
  return out;
}

/** Oracle-valued lot (what the keeper gained) and bid (what it paid) of the measured phases. */
class Moved {
  lot: I128 = I128.zero();
  bid: I128 = I128.zero();
}

/**
 * Adds one phase's balance changes (`before` → `after`, per asset) to `moved`, valued at the
 * oracle price: a gain is lot, a loss is bid. Exact integers (a product past i128 refuses with
 * MathOverflow).
 */
function addMoved(
  moved: Moved,
  oracle: u64,
  assets: Array<u64>,
  before: Array<I128>,
  after: Array<I128>,
): void {
  const one = I128.of(1);
  for (let i = 0; i < assets.length; i++) {
    const delta = sub(after[i], before[i]);
    if (delta.isZero()) continue;
    const price = oraclePrice(oracle, assets[i]);
    if (delta.isPos()) moved.lot = add(moved.lot, mulDiv(delta, price, one));
    else moved.bid = add(moved.bid, mulDiv(sub(I128.zero(), delta), price, one));
  }
}

/**
 * The MIN_PROFIT rule on what the fill moved: lot × 10,000 ≥ bid × `minRatioBps`, else
 * BelowMinProfit. Nothing is rounded (oracle decimals cancel in the ratio; token decimals are
 * taken as equal, as the swap floors take them).
 */
function checkMinRatio(moved: Moved, minRatioBps: u32): void {
  const one = I128.of(1);
  if (mulDiv(moved.lot, I128.of(BPS), one).lt(mulDiv(moved.bid, I128.of(minRatioBps as i64), one))) {
    fail(BelowMinProfit);
  }
}

/**
 * The least USDC the swap of `got` may return: the larger of the keeper's floor scaled to `got`
 * and the pool oracle's value of `got` less `max_slippage_bps`.
 */
function minOutFor(leg: Leg, got: I128, oracle: u64, usdcPrice: I128, slippageBps: u32): I128 {
  const value = mulDiv(got, oraclePrice(oracle, leg.asset), usdcPrice);
  const floor = mulDiv(value, I128.of(BPS - (slippageBps as i64)), I128.of(BPS));
  const keeperFloor = leg.amountIn.isZero()
    ? leg.minOut
    : mulDivCeil(leg.minOut, got, leg.amountIn);
  return keeperFloor.gt(floor) ? keeperFloor : floor;
}

/** An `InvokerContractAuthEntry::Contract` for `contract.fn(args)` with no sub-invocations. */
function contractAuth(contract: u64, fn: string, args: u64): u64 {
  const ctx = contextSchema().values();
  ctx[0] = args;
  ctx[1] = contract;
  ctx[2] = symbol(fn);
  const sub = subInvocationSchema().values();
  sub[0] = contextSchema().encode(ctx);
  sub[1] = env.vec_new();
  return vec2(symbol("Contract"), subInvocationSchema().encode(sub));
}

/**
 * Swaps `got` of `leg.asset`, held by this contract, to USDC for this contract, and checks what
 * arrived: at least `minOut` (SwapBelowFloor), whatever the router says it did.
 */
function swap(self: u64, usdc: u64, leg: Leg, got: I128, minOut: I128): void {
  const usdcBefore = tokenBalance(usdc, self);
  const first = leg.asset;
  const second = vecGet(leg.path, 1);
  const pair = invoke(leg.router, "router_pair_for", vec2(first, second));
  // The router pulls the input with `first.transfer(self, pair, got)`: a call it makes, not
  // this contract, so this contract authorizes exactly that one.
  const t: StaticArray<u64> = [self, pair, got.toVal()];
  authorizeAsCurrentContract(vec1(contractAuth(first, "transfer", vecOf(t))));
  // swap_exact_tokens_for_tokens(amount_in, amount_out_min, path, to, deadline); Soroswap
  // requires deadline > ledger time.
  const deadline = fromU64(ledgerTimestamp() + 1);
  const a: StaticArray<u64> = [got.toVal(), minOut.toVal(), leg.path, self, deadline];
  invoke(leg.router, "swap_exact_tokens_for_tokens", vecOf(a));
  if (sub(tokenBalance(usdc, self), usdcBefore).lt(minOut)) fail(E.SwapBelowFloor);
}

/**
 * The most USDC buying `buy.amountOut` may cost: the smaller of the keeper's `max_in` and the pool
 * oracle's value of the output plus `max_slippage_bps` (rounded up, so an exact-price buy passes).
 */
function ceilingFor(buy: Buy, oracle: u64, usdcPrice: I128, slippageBps: u32): I128 {
  const value = mulDivCeil(buy.amountOut, oraclePrice(oracle, buy.asset), usdcPrice);
  const ceiling = mulDivCeil(value, I128.of(BPS + (slippageBps as i64)), I128.of(BPS));
  return buy.maxIn.lt(ceiling) ? buy.maxIn : ceiling;
}

/**
 * Buys exactly `buy.amountOut` of `buy.asset` with the keeper's USDC and hands it to the keeper:
 * the cost is the router's own quote, refused above `ceiling` (SwapAboveCeiling); only that much
 * is pulled and only that much may the router take; what arrived is measured (at least
 * `amountOut`, else SwapBelowFloor) and so is the USDC spent (at most `ceiling`).
 */
function buyFor(self: u64, keeper: u64, usdc: u64, buy: Buy, ceiling: I128, until: u64): void {
  const amounts = invoke(buy.router, "router_get_amounts_in", vec2(buy.amountOut.toVal(), buy.path));
  const cost = I128.fromVal(vecGet(amounts, 0));
  if (cost.gt(ceiling)) fail(SwapAboveCeiling);
  if (cost.isNeg()) fail(E.InvalidPlan);
  const usdcBefore = tokenBalance(usdc, self);
  const assetBefore = tokenBalance(buy.asset, self);
  pullFromKeeper(usdc, keeper, self, cost, until);
  const pair = invoke(buy.router, "router_pair_for", vec2(usdc, vecGet(buy.path, 1)));
  // The router pulls the input with `usdc.transfer(self, pair, cost)`: authorized here, exactly.
  const t: StaticArray<u64> = [self, pair, cost.toVal()];
  authorizeAsCurrentContract(vec1(contractAuth(usdc, "transfer", vecOf(t))));
  // swap_tokens_for_exact_tokens(amount_out, amount_in_max, path, to, deadline)
  const deadline = fromU64(ledgerTimestamp() + 1);
  const a: StaticArray<u64> = [buy.amountOut.toVal(), cost.toVal(), buy.path, self, deadline];
  invoke(buy.router, "swap_tokens_for_exact_tokens", vecOf(a));
  const bought = sub(tokenBalance(buy.asset, self), assetBefore);
  if (bought.lt(buy.amountOut)) fail(E.SwapBelowFloor);
  const spent = sub(add(usdcBefore, cost), tokenBalance(usdc, self));
  if (spent.gt(ceiling)) fail(SwapAboveCeiling);
  tokenTransfer(buy.asset, self, keeper, bought);
}

/** Moves `amount` of `token` from `keeper` to `to` under an allowance set and cleared here. */
function pullFromKeeper(token: u64, keeper: u64, to: u64, amount: I128, until: u64): void {
  const self = currentContract();
  tokenApprove(token, keeper, self, I128.of(ALLOWANCE), until);
  tokenTransferFrom(token, self, keeper, to, amount);
  tokenApprove(token, keeper, self, I128.zero(), until);
}

export function exec(
  keeper: u64,
  vault: u64,
  usdc: u64,
  amount: u64,
  data: u64,
  policy: u64,
): u64 {
  requireAuth(keeper);
  // Every flash passes here: it keeps this contract's instance and code alive.
  extendInstanceTtl(E.TTL_THRESHOLD, E.TTL_EXTEND_TO);
  expectAddress(vault);
  expectAddress(usdc);
  const principal = I128.fromVal(amount);
  if (principal.isNeg()) fail(E.InvalidPlan);
  const plan = planSchema().decode(data);
  const pol = policySchema().decode(policy);
  const until = expectTag(plan[P_UNTIL], TAG_U32);
  const minRatioBps = toU32(plan[P_MIN_RATIO]);
  const slippageBps = toU32(pol[F_SLIPPAGE]);
  if (slippageBps > MAX_SLIPPAGE_BPS) fail(E.InvalidPlan);
  const checked = checkPlan(plan, pol, usdc);
  const legs = checked.legs;
  const buys = checked.buys;
  const pool = plan[P_POOL];
  const self = currentContract();

  const positionsBefore = invoke(pool, "get_positions", vec1(keeper));
  const usdcBefore = tokenBalance(usdc, keeper);
  // Measured before any buy: a bought asset's leftover counts as a gain to sell.
  for (let i = 0; i < legs.length; i++) legs[i].before = tokenBalance(legs[i].asset, keeper);
  const ownUsdcBefore = tokenBalance(usdc, self);

  // The oracle and USDC's price are read once, when a buy or a sell first needs them.
  let oracle: u64 = 0;
  let usdcPrice: I128 | null = null;
  if (buys.length > 0) {
    oracle = poolOracle(pool);
    usdcPrice = oraclePrice(oracle, usdc);
    for (let i = 0; i < buys.length; i++) {
      const ceiling = ceilingFor(buys[i], oracle, usdcPrice!, slippageBps);
      buyFor(self, keeper, usdc, buys[i], ceiling, until);
    }
  }

  const requests = plan[P_REQUESTS];
  if (minRatioBps == 0) {
    submit(pool, keeper, requests);
  } else {
    // Two submits, so that what was paid and what was received are measured apart (gross) even
    // for an asset both in the bid and the lot: first the fill and the repayments (the keeper
    // then holds the lot as collateral and no debt), then the withdrawals. Measured after the
    // buys: a bought asset counts only as far as Repay takes it, after Blend's refund.
    const assets = requestAssets(requests);
    const before = balances(keeper, assets);
    submit(pool, keeper, requestsOf(requests, false));
    const paid = balances(keeper, assets);
    submit(pool, keeper, requestsOf(requests, true));
    const received = balances(keeper, assets);
    if (oracle == 0) oracle = poolOracle(pool);
    const moved = new Moved();
    addMoved(moved, oracle, assets, before, paid);
    addMoved(moved, oracle, assets, paid, received);
    checkMinRatio(moved, minRatioBps);
  }
  // Collateral left in the keeper's position (or a borrow) would be value the vault never sees.
  if (!valEq(invoke(pool, "get_positions", vec1(keeper)), positionsBefore)) {
    fail(E.PositionsChanged);
  }

  for (let i = 0; i < legs.length; i++) {
    const leg = legs[i];
    const got = sub(tokenBalance(leg.asset, keeper), leg.before);
    if (!got.isPos()) continue;
    pullFromKeeper(leg.asset, keeper, self, got, until);
    if (usdcPrice == null) {
      if (oracle == 0) oracle = poolOracle(pool);
      usdcPrice = oraclePrice(oracle, usdc);
    }
    swap(self, usdc, leg, got, minOutFor(leg, got, oracle, usdcPrice!, slippageBps));
  }

  // Principal plus the keeper's USDC gain (negative: the fill cost more than it lent).
  const fromKeeper = add(principal, sub(tokenBalance(usdc, keeper), usdcBefore));
  if (fromKeeper.isNeg()) fail(E.LiquidationShortfall);
  if (fromKeeper.isPos()) pullFromKeeper(usdc, keeper, vault, fromKeeper, until);
  const proceeds = sub(tokenBalance(usdc, self), ownUsdcBefore);
  if (proceeds.isPos()) tokenTransfer(usdc, self, vault, proceeds);
  return add(fromKeeper, proceeds.isPos() ? proceeds : I128.zero()).toVal();
}
