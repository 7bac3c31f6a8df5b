// Soroswap-ABI router (interface: contracts/soroswap_router/spec.ts), written after soroswap/core
// `contracts/router` and `contracts/library`.
//
// Same functions, argument order, return shapes, auth (`to.require_auth()`; the input moves from
// `to` straight into the first pair), events (`("SoroswapRouter", init|add|remove|swap)`) and
// `CombinedRouterError` codes (501–515). Like the real router, a pair's address is computed, not
// looked up: the address the factory's deployer gets for salt sha256(token_0 XDR ‖ token_1 XDR)
// (`get_contract_id`). A path through a pair that does not exist therefore fails as on the real
// network: calling a contract that is not there is a host error, not a typed one.
//
// Stand-in extension (absent from the real router; documented in localnet/protocols/dex/README.md):
// a test fault switch, `set_fault(FaultMode)` (auth: the factory's fee_to_setter) and `get_fault`.
// `Transient(n)` fails swaps and path quotes with 590 for n ledgers (0: until cleared);
// `Skew(bps)` pays (and quotes) each hop's output × (10000 − bps) / 10000.
//
// Storage: instance `Vec[Symbol(Factory)]` → factory; `Vec[Symbol(StandInFault)]` →
// Vec[kind u32, param u32, set_ledger u32].
import {
  currentContract, expectAddress, expectTag, extendInstanceTtl, fail, fromBool, fromU32, get,
  has, I128, INSTANCE, invoke, ledgerSequence, ledgerTimestamp, publish, put, requireAuth,
  Schema, symbol, TAG_VEC_OBJ, tokenTransfer, toU32, toU64, valEq, vec2, vecGet, vecLen, vecOf,
  VOID, variant0, vec1,
} from "../../../../../../contracts/sdk/index";
import * as env from "../../../../../../contracts/sdk/env";
import {
  addT, ceilDivT, contractIdOf, divT, mulT, sha256OfXdrPair, stringOf, subT, vecPushFront,
} from "../../../../../../contracts/sdk/ext";

// CombinedRouterError
const RouterNotInitialized: u32 = 501;
const RouterNegativeNotAllowed: u32 = 502;
const RouterDeadlineExpired: u32 = 503;
const RouterInitializeAlreadyInitialized: u32 = 504;
const RouterInsufficientAAmount: u32 = 505;
const RouterInsufficientBAmount: u32 = 506;
const RouterInsufficientOutputAmount: u32 = 507;
const RouterExcessiveInputAmount: u32 = 508;
const RouterPairDoesNotExist: u32 = 509;
const LibraryInsufficientAmount: u32 = 510;
const LibraryInsufficientLiquidity: u32 = 511;
const LibraryInsufficientInputAmount: u32 = 512;
const LibraryInsufficientOutputAmount: u32 = 513;
const LibraryInvalidPath: u32 = 514;
const LibrarySortIdenticalTokens: u32 = 515;
// Stand-in fault switch
const TransientVenueError: u32 = 590;
const InvalidFaultMode: u32 = 591;

const DAY: u32 = 17280;
const INSTANCE_BUMP: u32 = 30 * DAY;
const INSTANCE_THRESHOLD: u32 = INSTANCE_BUMP - DAY;

function kFactory(): u64 { return variant0("Factory"); }
function kFault(): u64 { return variant0("StandInFault"); }

let LIQ_EVENT: Schema | null = null;
function liqEventSchema(): Schema {
  if (LIQ_EVENT == null) {
    LIQ_EVENT = new Schema("amount_a,amount_b,liquidity,pair,to,token_a,token_b");
  }
  return LIQ_EVENT!;
}
let SWAP_EVENT: Schema | null = null;
function swapEventSchema(): Schema {
  if (SWAP_EVENT == null) SWAP_EVENT = new Schema("amounts,path,to");
  return SWAP_EVENT!;
}
let FAULT_STATE: Schema | null = null;
function faultStateSchema(): Schema {
  if (FAULT_STATE == null) FAULT_STATE = new Schema("active,mode,set_ledger");
  return FAULT_STATE!;
}

function bumpInstance(): void {
  extendInstanceTtl(INSTANCE_THRESHOLD, INSTANCE_BUMP);
}

function checkInitialized(): void {
  if (!has(kFactory(), INSTANCE)) fail(RouterNotInitialized);
}

function factoryAddr(): u64 {
  return get(kFactory(), INSTANCE);
}

function nonNegative(v: I128): void {
  if (v.isNeg()) fail(RouterNegativeNotAllowed);
}

function ensureDeadline(deadline: u64): void {
  if (ledgerTimestamp() >= toU64(deadline)) fail(RouterDeadlineExpired);
}

function routerEvent(name: string, data: u64): void {
  publish(vec2(stringOf("SoroswapRouter"), symbol(name)), data);
}

// --- library

/** [token_0, token_1], or 515 for identical tokens. */
function sortTokens(a: u64, b: u64): StaticArray<u64> {
  expectAddress(a);
  expectAddress(b);
  const c = env.obj_cmp(a, b);
  if (c == 0) fail(LibrarySortIdenticalTokens);
  const out = new StaticArray<u64>(2);
  out[0] = c < 0 ? a : b;
  out[1] = c < 0 ? b : a;
  return out;
}

/** The pair's deterministic address: the factory's deployment with the pair salt. */
function pairFor(factory: u64, a: u64, b: u64): u64 {
  const t = sortTokens(a, b);
  return contractIdOf(factory, sha256OfXdrPair(t[0], t[1]));
}

/** Reserves of the a/b pair in (a, b) order. */
function getReserves(factory: u64, a: u64, b: u64): StaticArray<I128> {
  const t = sortTokens(a, b);
  const pair = pairFor(factory, t[0], t[1]);
  const r = invoke(pair, "get_reserves", env.vec_new());
  const r0 = I128.fromVal(vecGet(r, 0));
  const r1 = I128.fromVal(vecGet(r, 1));
  const out = new StaticArray<I128>(2);
  const aFirst = valEq(a, t[0]);
  out[0] = aFirst ? r0 : r1;
  out[1] = aFirst ? r1 : r0;
  return out;
}

function quoteLib(amountA: I128, reserveA: I128, reserveB: I128): I128 {
  if (!amountA.isPos()) fail(LibraryInsufficientAmount);
  if (!reserveA.isPos() || !reserveB.isPos()) fail(LibraryInsufficientLiquidity);
  return divT(mulT(amountA, reserveB), reserveA);
}

function amountOutLib(amountIn: I128, reserveIn: I128, reserveOut: I128): I128 {
  if (!amountIn.isPos()) fail(LibraryInsufficientInputAmount);
  if (!reserveIn.isPos() || !reserveOut.isPos()) fail(LibraryInsufficientLiquidity);
  const fee = ceilDivT(mulT(amountIn, I128.of(3)), I128.of(1000));
  const lessFee = subT(amountIn, fee);
  return divT(mulT(lessFee, reserveOut), addT(reserveIn, lessFee));
}

function amountInLib(amountOut: I128, reserveIn: I128, reserveOut: I128): I128 {
  if (!amountOut.isPos()) fail(LibraryInsufficientOutputAmount);
  if (!reserveIn.isPos() || !reserveOut.isPos()) fail(LibraryInsufficientLiquidity);
  const numerator = mulT(mulT(reserveIn, amountOut), I128.of(1000));
  const denominator = mulT(subT(reserveOut, amountOut), I128.of(997));
  return addT(ceilDivT(numerator, denominator), I128.of(1));
}

// --- stand-in fault switch

/** The skew in bps (0: none); fails with 590 while a transient fault is active. */
function faultGate(): u32 {
  if (!has(kFault(), INSTANCE)) return 0;
  const f = get(kFault(), INSTANCE);
  const kind = toU32(vecGet(f, 0));
  const param = toU32(vecGet(f, 1));
  if (kind == 1) {
    const set = toU32(vecGet(f, 2));
    if (param == 0 || ledgerSequence() <= set + param) fail(TransientVenueError);
    return 0;
  }
  return kind == 2 ? param : 0;
}

function applySkew(v: I128, bps: u32): I128 {
  if (bps == 0) return v;
  return divT(mulT(v, I128.of((10000 - bps) as i64)), I128.of(10000));
}

/** The output before a skew: ceil(v × 10000 / (10000 − bps)). */
function unskew(v: I128, bps: u32): I128 {
  if (bps == 0) return v;
  return ceilDivT(mulT(v, I128.of(10000)), I128.of((10000 - bps) as i64));
}

function amountsOut(factory: u64, amountIn: I128, path: u64, skew: u32): u64 {
  expectTag(path, TAG_VEC_OBJ);
  const n = vecLen(path);
  if (n < 2) fail(LibraryInvalidPath);
  let amounts = vec1(amountIn.toVal());
  let cur = amountIn;
  for (let i: u32 = 0; i < n - 1; i++) {
    const r = getReserves(factory, vecGet(path, i), vecGet(path, i + 1));
    cur = applySkew(amountOutLib(cur, r[0], r[1]), skew);
    amounts = env.vec_push_back(amounts, cur.toVal());
  }
  return amounts;
}

function amountsIn(factory: u64, amountOut: I128, path: u64, skew: u32): u64 {
  expectTag(path, TAG_VEC_OBJ);
  const n = vecLen(path);
  if (n < 2) fail(LibraryInvalidPath);
  let amounts = vec1(amountOut.toVal());
  let cur = amountOut;
  for (let i: u32 = n - 1; i > 0; i--) {
    const r = getReserves(factory, vecGet(path, i - 1), vecGet(path, i));
    cur = amountInLib(unskew(cur, skew), r[0], r[1]);
    amounts = vecPushFront(amounts, cur.toVal());
  }
  return amounts;
}

/** Runs the hops; the input is already in the first pair. */
function runHops(factory: u64, amounts: u64, path: u64, to: u64): void {
  const n = vecLen(path);
  for (let i: u32 = 0; i < n - 1; i++) {
    const input = vecGet(path, i);
    const output = vecGet(path, i + 1);
    const t = sortTokens(input, output);
    const out = vecGet(amounts, i + 1);
    const zero = I128.zero().toVal();
    const inputIs0 = valEq(input, t[0]);
    const next = i < n - 2 ? pairFor(factory, output, vecGet(path, i + 2)) : to;
    const args: StaticArray<u64> = [inputIs0 ? zero : out, inputIs0 ? out : zero, next];
    invoke(pairFor(factory, input, output), "swap", vecOf(args));
  }
}

/** Pulls `amounts[0]` from `to` into the first pair, runs the hops and emits `swap`. */
function executeSwap(factory: u64, amounts: u64, path: u64, to: u64): u64 {
  const pair = pairFor(factory, vecGet(path, 0), vecGet(path, 1));
  tokenTransfer(vecGet(path, 0), to, pair, I128.fromVal(vecGet(amounts, 0)));
  runHops(factory, amounts, path, to);
  const s = swapEventSchema();
  const e = s.values();
  e[0] = amounts;
  e[1] = path;
  e[2] = to;
  routerEvent("swap", s.encode(e));
  return amounts;
}

function liquidityEvent(
  name: string, a: I128, b: I128, liquidity: I128, pair: u64, to: u64, ta: u64, tb: u64,
): void {
  const s = liqEventSchema();
  const e = s.values();
  e[0] = a.toVal();
  e[1] = b.toVal();
  e[2] = liquidity.toVal();
  e[3] = pair;
  e[4] = to;
  e[5] = ta;
  e[6] = tb;
  routerEvent(name, s.encode(e));
}

// --- router ABI

export function initialize(factory: u64): u64 {
  if (has(kFactory(), INSTANCE)) fail(RouterInitializeAlreadyInitialized);
  expectAddress(factory);
  put(kFactory(), factory, INSTANCE);
  const v: StaticArray<u64> = [factory];
  routerEvent("init", new Schema("factory").encode(v));
  bumpInstance();
  return VOID;
}

export function add_liquidity(
  token_a: u64, token_b: u64, amount_a_desired: u64, amount_b_desired: u64, amount_a_min: u64,
  amount_b_min: u64, to: u64, deadline: u64,
): u64 {
  checkInitialized();
  const aDesired = I128.fromVal(amount_a_desired);
  const bDesired = I128.fromVal(amount_b_desired);
  const aMin = I128.fromVal(amount_a_min);
  const bMin = I128.fromVal(amount_b_min);
  nonNegative(aDesired);
  nonNegative(bDesired);
  nonNegative(aMin);
  nonNegative(bMin);
  bumpInstance();
  requireAuth(to);
  ensureDeadline(deadline);
  const factory = factoryAddr();
  const ab = vec2(token_a, token_b);
  if (invoke(factory, "pair_exists", ab) != fromBool(true)) invoke(factory, "create_pair", ab);
  const r = getReserves(factory, token_a, token_b);
  let amountA = aDesired;
  let amountB = bDesired;
  if (!(r[0].isZero() && r[1].isZero())) {
    const bOptimal = quoteLib(aDesired, r[0], r[1]);
    if (!bOptimal.gt(bDesired)) {
      if (bOptimal.lt(bMin)) fail(RouterInsufficientBAmount);
      amountB = bOptimal;
    } else {
      const aOptimal = quoteLib(bDesired, r[1], r[0]);
      if (aOptimal.gt(aDesired)) unreachable(); // assert!(amount_a_optimal <= amount_a_desired)
      if (aOptimal.lt(aMin)) fail(RouterInsufficientAAmount);
      amountA = aOptimal;
    }
  }
  const pair = pairFor(factory, token_a, token_b);
  tokenTransfer(token_a, to, pair, amountA);
  tokenTransfer(token_b, to, pair, amountB);
  const liquidity = I128.fromVal(invoke(pair, "deposit", vec1(to)));
  liquidityEvent("add", amountA, amountB, liquidity, pair, to, token_a, token_b);
  const out: StaticArray<u64> = [amountA.toVal(), amountB.toVal(), liquidity.toVal()];
  return vecOf(out);
}

export function remove_liquidity(
  token_a: u64, token_b: u64, liquidity: u64, amount_a_min: u64, amount_b_min: u64, to: u64,
  deadline: u64,
): u64 {
  checkInitialized();
  const liq = I128.fromVal(liquidity);
  const aMin = I128.fromVal(amount_a_min);
  const bMin = I128.fromVal(amount_b_min);
  nonNegative(liq);
  nonNegative(aMin);
  nonNegative(bMin);
  bumpInstance();
  requireAuth(to);
  ensureDeadline(deadline);
  const factory = factoryAddr();
  if (invoke(factory, "pair_exists", vec2(token_a, token_b)) != fromBool(true)) {
    fail(RouterPairDoesNotExist);
  }
  const pair = pairFor(factory, token_a, token_b);
  const targs: StaticArray<u64> = [to, pair, liq.toVal()];
  invoke(pair, "transfer", vecOf(targs));
  const w = invoke(pair, "withdraw", vec1(to));
  const t = sortTokens(token_a, token_b);
  const aFirst = valEq(token_a, t[0]);
  const amountA = I128.fromVal(vecGet(w, aFirst ? 0 : 1));
  const amountB = I128.fromVal(vecGet(w, aFirst ? 1 : 0));
  if (amountA.lt(aMin)) fail(RouterInsufficientAAmount);
  if (amountB.lt(bMin)) fail(RouterInsufficientBAmount);
  liquidityEvent("remove", amountA, amountB, liq, pair, to, token_a, token_b);
  return vec2(amountA.toVal(), amountB.toVal());
}

export function swap_exact_tokens_for_tokens(
  amount_in: u64, amount_out_min: u64, path: u64, to: u64, deadline: u64,
): u64 {
  checkInitialized();
  const amountIn = I128.fromVal(amount_in);
  const minOut = I128.fromVal(amount_out_min);
  nonNegative(amountIn);
  nonNegative(minOut);
  bumpInstance();
  requireAuth(to);
  ensureDeadline(deadline);
  const skew = faultGate();
  const factory = factoryAddr();
  const amounts = amountsOut(factory, amountIn, path, skew);
  if (I128.fromVal(vecGet(amounts, vecLen(amounts) - 1)).lt(minOut)) {
    fail(RouterInsufficientOutputAmount);
  }
  return executeSwap(factory, amounts, path, to);
}

export function swap_tokens_for_exact_tokens(
  amount_out: u64, amount_in_max: u64, path: u64, to: u64, deadline: u64,
): u64 {
  checkInitialized();
  const amountOut = I128.fromVal(amount_out);
  const maxIn = I128.fromVal(amount_in_max);
  nonNegative(amountOut);
  nonNegative(maxIn);
  bumpInstance();
  requireAuth(to);
  ensureDeadline(deadline);
  const skew = faultGate();
  const factory = factoryAddr();
  const amounts = amountsIn(factory, amountOut, path, skew);
  if (I128.fromVal(vecGet(amounts, 0)).gt(maxIn)) fail(RouterExcessiveInputAmount);
  return executeSwap(factory, amounts, path, to);
}

export function get_factory(): u64 {
  checkInitialized();
  bumpInstance();
  return factoryAddr();
}

export function router_pair_for(token_a: u64, token_b: u64): u64 {
  bumpInstance();
  return pairFor(factoryAddr(), token_a, token_b);
}

export function router_quote(amount_a: u64, reserve_a: u64, reserve_b: u64): u64 {
  return quoteLib(I128.fromVal(amount_a), I128.fromVal(reserve_a), I128.fromVal(reserve_b))
    .toVal();
}

export function router_get_amount_out(amount_in: u64, reserve_in: u64, reserve_out: u64): u64 {
  return amountOutLib(I128.fromVal(amount_in), I128.fromVal(reserve_in), I128.fromVal(reserve_out))
    .toVal();
}

export function router_get_amount_in(amount_out: u64, reserve_in: u64, reserve_out: u64): u64 {
  return amountInLib(I128.fromVal(amount_out), I128.fromVal(reserve_in), I128.fromVal(reserve_out))
    .toVal();
}

export function router_get_amounts_out(amount_in: u64, path: u64): u64 {
  checkInitialized();
  bumpInstance();
  const skew = faultGate();
  return amountsOut(factoryAddr(), I128.fromVal(amount_in), path, skew);
}

export function router_get_amounts_in(amount_out: u64, path: u64): u64 {
  checkInitialized();
  bumpInstance();
  const skew = faultGate();
  return amountsIn(factoryAddr(), I128.fromVal(amount_out), path, skew);
}

// --- stand-in fault switch

export function set_fault(mode: u64): u64 {
  checkInitialized();
  requireAuth(invoke(factoryAddr(), "fee_to_setter", env.vec_new()));
  expectTag(mode, TAG_VEC_OBJ);
  const tag = vecGet(mode, 0);
  let kind: u32 = 0;
  let param: u32 = 0;
  if (tag == symbol("None")) {
    if (vecLen(mode) != 1) fail(InvalidFaultMode);
  } else {
    if (vecLen(mode) != 2) fail(InvalidFaultMode);
    param = toU32(vecGet(mode, 1));
    if (tag == symbol("Transient")) kind = 1;
    else if (tag == symbol("Skew")) {
      kind = 2;
      if (param >= 10000) fail(InvalidFaultMode);
    } else fail(InvalidFaultMode);
  }
  const rec: StaticArray<u64> = [fromU32(kind), fromU32(param), fromU32(ledgerSequence())];
  put(kFault(), vecOf(rec), INSTANCE);
  return VOID;
}

export function get_fault(): u64 {
  const s = faultStateSchema();
  const e = s.values();
  let kind: u32 = 0;
  let param: u32 = 0;
  let set: u32 = 0;
  if (has(kFault(), INSTANCE)) {
    const f = get(kFault(), INSTANCE);
    kind = toU32(vecGet(f, 0));
    param = toU32(vecGet(f, 1));
    set = toU32(vecGet(f, 2));
  }
  let active = false;
  if (kind == 1) active = param == 0 || ledgerSequence() <= set + param;
  else if (kind == 2) active = true;
  e[0] = fromBool(active);
  e[1] = kind == 0
    ? vec1(symbol("None"))
    : vec2(symbol(kind == 1 ? "Transient" : "Skew"), fromU32(param));
  e[2] = fromU32(set);
  return s.encode(e);
}
