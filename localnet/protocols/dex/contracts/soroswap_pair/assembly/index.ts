// Soroswap-ABI pair (interface: contracts/soroswap_pair/spec.ts): a constant-product pool with
// Soroswap's 0.3 % fee that is also its own SEP-41 LP token, written after soroswap/core
// `contracts/pair` (the ABI of the Wasm deployed on mainnet in 2024-03).
//
// Same functions, argument order, return shapes, events, storage layout and `SoroswapPairError`
// codes (101–118) as the real pair. Where the real pair panics (`unwrap` on overflow, a token
// balance too small, a negative amount) this one traps too, so callers see a host error either way.
//
// Storage: instance u32 keys 0 Token0, 1 Token1, 2 Reserve0, 3 Reserve1, 4 Factory, 5 KLast;
// instance `Vec[Symbol(TotalSupply)]` → i128 and `Symbol(METADATA)` → {decimal, name, symbol};
// persistent `Vec[Symbol(Balance), Address]` → i128; temporary
// `Vec[Symbol(Allowance), {from, spender}]` → {amount, expiration_ledger}.
import {
  currentContract, expectAddress, extendInstanceTtl, extendTtl, fail, fromU32, get, has, I128,
  INSTANCE, invoke, ledgerSequence, PERSISTENT, publish, put, requireAuth, Schema, symbol as sym,
  TEMPORARY, tokenBalance, tokenTransfer, toU32, valEq, vec1, vec2, vecOf, VOID, variant0,
  variant1,
} from "../../../../../../contracts/sdk/index";
import * as env from "../../../../../../contracts/sdk/env";
import {
  addT, ceilDivT, divT, minI128, mulT, sqrtT, stringCopy, stringFromMemory, stringLen, stringOf,
  subT,
} from "../../../../../../contracts/sdk/ext";

// SoroswapPairError
const InitializeAlreadyInitialized: u32 = 101;
const NotInitialized: u32 = 102;
const InitializeTokenOrderInvalid: u32 = 103;
const DepositInsufficientAmountToken0: u32 = 104;
const DepositInsufficientAmountToken1: u32 = 105;
const DepositInsufficientFirstLiquidity: u32 = 106;
const DepositInsufficientLiquidityMinted: u32 = 107;
const SwapInsufficientOutputAmount: u32 = 108;
const SwapNegativesOutNotSupported: u32 = 109;
const SwapInsufficientLiquidity: u32 = 110;
const SwapInvalidTo: u32 = 111;
const SwapInsufficientInputAmount: u32 = 112;
const SwapNegativesInNotSupported: u32 = 113;
const SwapKConstantNotMet: u32 = 114;
const WithdrawLiquidityNotInitialized: u32 = 115;
const WithdrawInsufficientSentShares: u32 = 116;
const WithdrawInsufficientLiquidityBurned: u32 = 117;

/** LP shares locked forever in the pair at the first deposit. */
const MINIMUM_LIQUIDITY: i64 = 1000;

const DAY: u32 = 17280;
const INSTANCE_BUMP: u32 = 30 * DAY;
const INSTANCE_THRESHOLD: u32 = INSTANCE_BUMP - DAY;
const BALANCE_BUMP: u32 = 120 * DAY;
const BALANCE_THRESHOLD: u32 = BALANCE_BUMP - DAY;

function kToken0(): u64 { return fromU32(0); }
function kToken1(): u64 { return fromU32(1); }
function kReserve0(): u64 { return fromU32(2); }
function kReserve1(): u64 { return fromU32(3); }
function kFactory(): u64 { return fromU32(4); }
function kKLast(): u64 { return fromU32(5); }
function kTotalSupply(): u64 { return variant0("TotalSupply"); }
function kMetadata(): u64 { return sym("METADATA"); }
function kBalance(a: u64): u64 { return variant1("Balance", a); }

let ALLOW_KEY: Schema | null = null;
function allowKeySchema(): Schema {
  if (ALLOW_KEY == null) ALLOW_KEY = new Schema("from,spender");
  return ALLOW_KEY!;
}
let ALLOW_VAL: Schema | null = null;
function allowValSchema(): Schema {
  if (ALLOW_VAL == null) ALLOW_VAL = new Schema("amount,expiration_ledger");
  return ALLOW_VAL!;
}
let META: Schema | null = null;
function metaSchema(): Schema {
  if (META == null) META = new Schema("decimal,name,symbol");
  return META!;
}
let LIQ_EVENT: Schema | null = null;
function liqEventSchema(): Schema {
  if (LIQ_EVENT == null) {
    LIQ_EVENT = new Schema("amount_0,amount_1,liquidity,new_reserve_0,new_reserve_1,to");
  }
  return LIQ_EVENT!;
}
let SWAP_EVENT: Schema | null = null;
function swapEventSchema(): Schema {
  if (SWAP_EVENT == null) {
    SWAP_EVENT = new Schema("amount_0_in,amount_0_out,amount_1_in,amount_1_out,to");
  }
  return SWAP_EVENT!;
}
let SYNC_EVENT: Schema | null = null;
function syncEventSchema(): Schema {
  if (SYNC_EVENT == null) SYNC_EVENT = new Schema("new_reserve_0,new_reserve_1");
  return SYNC_EVENT!;
}
let SKIM_EVENT: Schema | null = null;
function skimEventSchema(): Schema {
  if (SKIM_EVENT == null) SKIM_EVENT = new Schema("skimmed_0,skimmed_1");
  return SKIM_EVENT!;
}

function bumpInstance(): void {
  extendInstanceTtl(INSTANCE_THRESHOLD, INSTANCE_BUMP);
}

function getI128(key: u64): I128 {
  return has(key, INSTANCE) ? I128.fromVal(get(key, INSTANCE)) : I128.zero();
}

function putI128(key: u64, v: I128): void {
  put(key, v.toVal(), INSTANCE);
}

function token0(): u64 { return get(kToken0(), INSTANCE); }
function token1(): u64 { return get(kToken1(), INSTANCE); }

function requireInit(): void {
  if (!has(kToken0(), INSTANCE)) fail(NotInitialized);
}

/** `("SoroswapPair", name)` with `data`. */
function pairEvent(name: string, data: u64): void {
  publish(vec2(stringOf("SoroswapPair"), sym(name)), data);
}

// --- LP token books

function readBalance(a: u64): I128 {
  const k = kBalance(a);
  if (!has(k, PERSISTENT)) return I128.zero();
  extendTtl(k, PERSISTENT, BALANCE_THRESHOLD, BALANCE_BUMP);
  return I128.fromVal(get(k, PERSISTENT));
}

function writeBalance(a: u64, v: I128): void {
  const k = kBalance(a);
  put(k, v.toVal(), PERSISTENT);
  extendTtl(k, PERSISTENT, BALANCE_THRESHOLD, BALANCE_BUMP);
}

function receiveBalance(a: u64, amount: I128): void {
  writeBalance(a, addT(readBalance(a), amount));
}

function spendBalance(a: u64, amount: I128): void {
  const b = readBalance(a);
  if (b.lt(amount)) unreachable(); // "insufficient balance"
  writeBalance(a, subT(b, amount));
}

function totalSupply(): I128 {
  return getI128(kTotalSupply());
}

function nonNegative(amount: I128): void {
  if (amount.isNeg()) unreachable(); // "negative amount is not allowed"
}

function internalMint(to: u64, amount: I128): void {
  nonNegative(amount);
  bumpInstance();
  receiveBalance(to, amount);
  putI128(kTotalSupply(), addT(totalSupply(), amount));
  const t: StaticArray<u64> = [sym("mint"), currentContract(), to];
  publish(vecOf(t), amount.toVal());
}

function decreaseSupply(amount: I128): void {
  const ts = totalSupply();
  if (ts.lt(amount)) unreachable(); // "insufficient total supply"
  putI128(kTotalSupply(), subT(ts, amount));
}

function internalBurn(from: u64, amount: I128): void {
  nonNegative(amount);
  bumpInstance();
  spendBalance(from, amount);
  decreaseSupply(amount);
  publish(vec2(sym("burn"), from), amount.toVal());
}

function allowanceKey(from: u64, spender: u64): u64 {
  const s = allowKeySchema();
  const v = s.values();
  v[0] = from;
  v[1] = spender;
  return variant1("Allowance", s.encode(v));
}

/** [amount, expiration_ledger] of an allowance (amount 0 once expired). */
function readAllowance(from: u64, spender: u64): StaticArray<u64> {
  const k = allowanceKey(from, spender);
  const out = allowValSchema().values();
  if (!has(k, TEMPORARY)) {
    out[0] = I128.zero().toVal();
    out[1] = fromU32(0);
    return out;
  }
  const a = allowValSchema().decode(get(k, TEMPORARY));
  if (toU32(a[1]) < ledgerSequence()) {
    out[0] = I128.zero().toVal();
    out[1] = a[1];
    return out;
  }
  return a;
}

function writeAllowance(from: u64, spender: u64, amount: I128, expiration: u32): void {
  const seq = ledgerSequence();
  if (amount.isPos() && expiration < seq) unreachable();
  const k = allowanceKey(from, spender);
  const v = allowValSchema().values();
  v[0] = amount.toVal();
  v[1] = fromU32(expiration);
  put(k, allowValSchema().encode(v), TEMPORARY);
  if (amount.isPos()) {
    const liveFor = expiration - seq;
    extendTtl(k, TEMPORARY, liveFor, liveFor);
  }
}

function spendAllowance(from: u64, spender: u64, amount: I128): void {
  const a = readAllowance(from, spender);
  const have = I128.fromVal(a[0]);
  if (have.lt(amount)) unreachable(); // "insufficient allowance"
  if (amount.isPos()) writeAllowance(from, spender, subT(have, amount), toU32(a[1]));
}

function transferEvent(from: u64, to: u64, amount: I128): void {
  const t: StaticArray<u64> = [sym("transfer"), from, to];
  publish(vecOf(t), amount.toVal());
}

// --- pool helpers

function balance0(): I128 { return tokenBalance(token0(), currentContract()); }
function balance1(): I128 { return tokenBalance(token1(), currentContract()); }

function update(b0: I128, b1: I128): void {
  if (b0.isNeg() || b1.isNeg()) unreachable();
  putI128(kReserve0(), b0);
  putI128(kReserve1(), b1);
  const e = syncEventSchema().values();
  e[0] = b0.toVal();
  e[1] = b1.toVal();
  pairEvent("sync", syncEventSchema().encode(e));
}

/** Mints the protocol fee share when the factory enables fees (Uniswap v2's `_mintFee`). */
function mintFee(r0: I128, r1: I128): bool {
  const factory = get(kFactory(), INSTANCE);
  const feeOn = invoke(factory, "fees_enabled", env.vec_new()) == 1;
  const klast = getI128(kKLast());
  if (feeOn) {
    const feeTo = invoke(factory, "fee_to", env.vec_new());
    if (!klast.isZero()) {
      const rootK = sqrtT(mulT(r0, r1));
      const rootKLast = sqrtT(klast);
      if (rootK.gt(rootKLast)) {
        const numerator = mulT(totalSupply(), subT(rootK, rootKLast));
        const denominator = addT(mulT(rootK, I128.of(5)), rootKLast);
        const shares = divT(numerator, denominator);
        if (shares.isPos()) internalMint(feeTo, shares);
      }
    }
  } else if (!klast.isZero()) {
    putI128(kKLast(), I128.zero());
  }
  return feeOn;
}

function liquidityEvent(
  name: string, to: u64, a0: I128, a1: I128, liquidity: I128, r0: I128, r1: I128,
): void {
  const s = liqEventSchema();
  const e = s.values();
  e[0] = a0.toVal();
  e[1] = a1.toVal();
  e[2] = liquidity.toVal();
  e[3] = r0.toVal();
  e[4] = r1.toVal();
  e[5] = to;
  pairEvent(name, s.encode(e));
}

/** "<first 6 bytes of a>-<first 6 bytes of b><end>" as a String. */
function lpText(s0: u64, s1: u64, end: string): u64 {
  const n0 = min(stringLen(s0), 6);
  const n1 = min(stringLen(s1), 6);
  const total = n0 + 1 + n1 + (end.length as u32);
  const p = heap.alloc(total);
  stringCopy(s0, p, n0);
  store<u8>(p + n0, 45); // '-'
  stringCopy(s1, p + n0 + 1, n1);
  for (let i = 0; i < end.length; i++) store<u8>(p + n0 + 1 + n1 + i, end.charCodeAt(i) as u8);
  return stringFromMemory(p, total);
}

// --- pair ABI

export function initialize(factory: u64, token_0: u64, token_1: u64): u64 {
  if (has(kToken0(), INSTANCE)) fail(InitializeAlreadyInitialized);
  expectAddress(factory);
  expectAddress(token_0);
  expectAddress(token_1);
  if (env.obj_cmp(token_0, token_1) >= 0) fail(InitializeTokenOrderInvalid);
  put(kFactory(), factory, INSTANCE);
  const sym0 = invoke(token_0, "symbol", env.vec_new());
  const sym1 = invoke(token_1, "symbol", env.vec_new());
  const m = metaSchema().values();
  m[0] = fromU32(7);
  m[1] = lpText(sym0, sym1, " Soroswap LP Token");
  m[2] = lpText(sym0, sym1, "-SOROSWAP-LP");
  put(kMetadata(), metaSchema().encode(m), INSTANCE);
  put(kToken0(), token_0, INSTANCE);
  put(kToken1(), token_1, INSTANCE);
  putI128(kReserve0(), I128.zero());
  putI128(kReserve1(), I128.zero());
  bumpInstance();
  return VOID;
}

export function token_0(): u64 {
  bumpInstance();
  return token0();
}

export function token_1(): u64 {
  bumpInstance();
  return token1();
}

export function factory(): u64 {
  bumpInstance();
  return get(kFactory(), INSTANCE);
}

export function deposit(to: u64): u64 {
  bumpInstance();
  requireInit();
  expectAddress(to);
  const r0 = getI128(kReserve0());
  const r1 = getI128(kReserve1());
  const b0 = balance0();
  const b1 = balance1();
  const a0 = subT(b0, r0);
  const a1 = subT(b1, r1);
  if (!a0.isPos()) fail(DepositInsufficientAmountToken0);
  if (!a1.isPos()) fail(DepositInsufficientAmountToken1);
  const feeOn = mintFee(r0, r1);
  const total = totalSupply();
  let liquidity: I128;
  if (total.isZero()) {
    internalMint(currentContract(), I128.of(MINIMUM_LIQUIDITY));
    const first = sqrtT(mulT(a0, a1));
    if (!first.gt(I128.of(MINIMUM_LIQUIDITY))) fail(DepositInsufficientFirstLiquidity);
    liquidity = subT(first, I128.of(MINIMUM_LIQUIDITY));
  } else {
    const s0 = divT(mulT(a0, total), r0);
    const s1 = divT(mulT(a1, total), r1);
    liquidity = minI128(s0, s1);
  }
  if (!liquidity.isPos()) fail(DepositInsufficientLiquidityMinted);
  internalMint(to, liquidity);
  update(b0, b1);
  if (feeOn) putI128(kKLast(), mulT(b0, b1));
  liquidityEvent("deposit", to, a0, a1, liquidity, b0, b1);
  return liquidity.toVal();
}

export function swap(amount_0_out: u64, amount_1_out: u64, to: u64): u64 {
  bumpInstance();
  requireInit();
  const out0 = I128.fromVal(amount_0_out);
  const out1 = I128.fromVal(amount_1_out);
  expectAddress(to);
  const r0 = getI128(kReserve0());
  const r1 = getI128(kReserve1());
  if (out0.isZero() && out1.isZero()) fail(SwapInsufficientOutputAmount);
  if (out0.isNeg() || out1.isNeg()) fail(SwapNegativesOutNotSupported);
  if (!out0.lt(r0) || !out1.lt(r1)) fail(SwapInsufficientLiquidity);
  const t0 = token0();
  const t1 = token1();
  if (valEq(to, t0) || valEq(to, t1)) fail(SwapInvalidTo);
  if (out0.isPos()) tokenTransfer(t0, currentContract(), to, out0);
  if (out1.isPos()) tokenTransfer(t1, currentContract(), to, out1);
  const b0 = balance0();
  const b1 = balance1();
  const left0 = subT(r0, out0);
  const left1 = subT(r1, out1);
  const in0 = b0.gt(left0) ? subT(b0, left0) : I128.zero();
  const in1 = b1.gt(left1) ? subT(b1, left1) : I128.zero();
  if (in0.isZero() && in1.isZero()) fail(SwapInsufficientInputAmount);
  if (in0.isNeg() || in1.isNeg()) fail(SwapNegativesInNotSupported);
  const fee0 = ceilDivT(mulT(in0, I128.of(3)), I128.of(1000));
  const fee1 = ceilDivT(mulT(in1, I128.of(3)), I128.of(1000));
  const adj0 = subT(b0, fee0);
  const adj1 = subT(b1, fee1);
  if (mulT(adj0, adj1).lt(mulT(r0, r1))) fail(SwapKConstantNotMet);
  update(b0, b1);
  const s = swapEventSchema();
  const e = s.values();
  e[0] = in0.toVal();
  e[1] = out0.toVal();
  e[2] = in1.toVal();
  e[3] = out1.toVal();
  e[4] = to;
  pairEvent("swap", s.encode(e));
  return VOID;
}

export function withdraw(to: u64): u64 {
  bumpInstance();
  requireInit();
  expectAddress(to);
  const me = currentContract();
  const sent = readBalance(me);
  if (sent.isZero()) fail(WithdrawLiquidityNotInitialized);
  const r0 = getI128(kReserve0());
  const r1 = getI128(kReserve1());
  let b0 = balance0();
  let b1 = balance1();
  const userShares = subT(sent, I128.of(MINIMUM_LIQUIDITY));
  if (!userShares.isPos()) fail(WithdrawInsufficientSentShares);
  const feeOn = mintFee(r0, r1);
  const total = totalSupply();
  const a0 = divT(mulT(b0, userShares), total);
  const a1 = divT(mulT(b1, userShares), total);
  if (!a0.isPos() || !a1.isPos()) fail(WithdrawInsufficientLiquidityBurned);
  internalBurn(me, userShares);
  tokenTransfer(token0(), me, to, a0);
  tokenTransfer(token1(), me, to, a1);
  b0 = balance0();
  b1 = balance1();
  update(b0, b1);
  if (feeOn) putI128(kKLast(), mulT(b0, b1));
  liquidityEvent("withdraw", to, a0, a1, userShares, b0, b1);
  return vec2(a0.toVal(), a1.toVal());
}

export function skim(to: u64): u64 {
  bumpInstance();
  expectAddress(to);
  const b0 = balance0();
  const b1 = balance1();
  const s0 = subT(b0, getI128(kReserve0()));
  const s1 = subT(b1, getI128(kReserve1()));
  tokenTransfer(token0(), currentContract(), to, s0);
  tokenTransfer(token1(), currentContract(), to, s1);
  const s = skimEventSchema();
  const e = s.values();
  e[0] = s0.toVal();
  e[1] = s1.toVal();
  pairEvent("skim", s.encode(e));
  return VOID;
}

export function sync(): u64 {
  bumpInstance();
  update(balance0(), balance1());
  return VOID;
}

export function get_reserves(): u64 {
  bumpInstance();
  return vec2(get(kReserve0(), INSTANCE), get(kReserve1(), INSTANCE));
}

export function k_last(): u64 {
  bumpInstance();
  return getI128(kKLast()).toVal();
}

// --- SEP-41 LP token

export function total_supply(): u64 {
  return totalSupply().toVal();
}

export function allowance(from: u64, spender: u64): u64 {
  bumpInstance();
  return readAllowance(expectAddress(from), expectAddress(spender))[0];
}

export function approve(from: u64, spender: u64, amount: u64, expiration_ledger: u64): u64 {
  requireAuth(from);
  expectAddress(spender);
  const a = I128.fromVal(amount);
  nonNegative(a);
  bumpInstance();
  const exp = toU32(expiration_ledger);
  writeAllowance(from, spender, a, exp);
  const t: StaticArray<u64> = [sym("approve"), from, spender];
  publish(vecOf(t), vec2(a.toVal(), fromU32(exp)));
  return VOID;
}

export function balance(id: u64): u64 {
  bumpInstance();
  return readBalance(expectAddress(id)).toVal();
}

export function transfer(from: u64, to: u64, amount: u64): u64 {
  requireAuth(from);
  expectAddress(to);
  const a = I128.fromVal(amount);
  nonNegative(a);
  bumpInstance();
  spendBalance(from, a);
  receiveBalance(to, a);
  transferEvent(from, to, a);
  return VOID;
}

export function transfer_from(spender: u64, from: u64, to: u64, amount: u64): u64 {
  requireAuth(spender);
  expectAddress(from);
  expectAddress(to);
  const a = I128.fromVal(amount);
  nonNegative(a);
  bumpInstance();
  spendAllowance(from, spender, a);
  spendBalance(from, a);
  receiveBalance(to, a);
  transferEvent(from, to, a);
  return VOID;
}

export function burn(from: u64, amount: u64): u64 {
  requireAuth(from);
  internalBurn(from, I128.fromVal(amount));
  return VOID;
}

export function burn_from(spender: u64, from: u64, amount: u64): u64 {
  requireAuth(spender);
  expectAddress(from);
  const a = I128.fromVal(amount);
  nonNegative(a);
  bumpInstance();
  spendAllowance(from, spender, a);
  spendBalance(from, a);
  decreaseSupply(a);
  publish(vec2(sym("burn"), from), a.toVal());
  return VOID;
}

export function decimals(): u64 {
  return metaSchema().decode(get(kMetadata(), INSTANCE))[0];
}

export function name(): u64 {
  return metaSchema().decode(get(kMetadata(), INSTANCE))[1];
}

export function symbol(): u64 {
  return metaSchema().decode(get(kMetadata(), INSTANCE))[2];
}
