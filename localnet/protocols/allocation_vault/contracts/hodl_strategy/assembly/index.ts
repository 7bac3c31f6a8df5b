// A DeFindex strategy that holds its asset (interface: contracts/hodl_strategy/spec.ts), the
// strategy the allocation vault invests in on the local node.
//
// Holders own shares of everything the strategy holds, so a plain token transfer to the strategy
// is yield (scenarios and tests use this to move allocations). `balance(from)` =
// floor(shares × held / total shares); a withdrawal burns ceil(amount × total shares / held)
// shares. Both round toward the strategy's remaining holders.
//
// As DeFindex strategies do, `deposit` pulls with the asset's `transfer(from, strategy, amount)`:
// `from` authorizes it (a vault calling deposit does so with `authorize_as_current_contract`).
//
// Storage: instance `Vec[Symbol(Asset)]` → Address, `Vec[Symbol(TotalShares)]` → i128;
// persistent `Vec[Symbol(Shares), Address]` → i128.
import {
  asciiBytes, currentContract, fromU32, expectAddress, extendInstanceTtl, extendTtl, fail, get, has, I128, INSTANCE,
  mulDivFloor, PERSISTENT, publish, put, requireAuth, Schema, subI128, addI128, symbol,
  tokenBalance, tokenTransfer, variant0, variant1, vec2, VOID,
} from "../../../../../../contracts/sdk/index";

// `string_new_from_linear_memory` (env.json b.i), declared here rather than in the SDK: an SDK
// change would change the source hash, hence the bytes, of every other contract.
@external("b", "i") declare function string_new_from_linear_memory(lm_pos: u64, len: u64): u64;

// StrategyError codes.
const NotInitialized: u32 = 401;
const NegativeNotAllowed: u32 = 410;
const InvalidArgument: u32 = 411;
const InsufficientBalance: u32 = 412;
const ArithmeticError: u32 = 414;

/** TTL policy (ledgers): an entry below ~30 days is extended to ~31 days. */
const TTL_THRESHOLD: u32 = 17280 * 30;
const TTL_EXTEND_TO: u32 = 17280 * 31;

// DepositEvent / WithdrawEvent { amount, from }; HarvestEvent { amount, from, price_per_share }.
let MOVE: Schema | null = null;
function moveSchema(): Schema {
  if (MOVE == null) MOVE = new Schema("amount,from");
  return MOVE!;
}
let HARVEST: Schema | null = null;
function harvestSchema(): Schema {
  if (HARVEST == null) HARVEST = new Schema("amount,from,price_per_share");
  return HARVEST!;
}

function keyAsset(): u64 { return variant0("Asset"); }
function keyTotal(): u64 { return variant0("TotalShares"); }
function keyShares(a: u64): u64 { return variant1("Shares", a); }

/** The String Val of an ASCII literal. */
function str(s: string): u64 {
  return string_new_from_linear_memory(fromU32(asciiBytes(s) as u32), fromU32(s.length as u32));
}

function loadAsset(): u64 {
  if (!has(keyAsset(), INSTANCE)) fail(NotInitialized);
  return get(keyAsset(), INSTANCE);
}

function totalShares(): I128 {
  return has(keyTotal(), INSTANCE) ? I128.fromVal(get(keyTotal(), INSTANCE)) : I128.zero();
}

function sharesOf(a: u64): I128 {
  const k = keyShares(a);
  return has(k, PERSISTENT) ? I128.fromVal(get(k, PERSISTENT)) : I128.zero();
}

function setShares(a: u64, v: I128): void {
  const k = keyShares(a);
  put(k, v.toVal(), PERSISTENT);
  extendTtl(k, PERSISTENT, TTL_THRESHOLD, TTL_EXTEND_TO);
}

function setTotal(v: I128): void {
  put(keyTotal(), v.toVal(), INSTANCE);
}

function held(): I128 {
  return tokenBalance(loadAsset(), currentContract());
}

function balanceOf(a: u64): I128 {
  const total = totalShares();
  if (!total.isPos()) return I128.zero();
  return mulDivFloor(sharesOf(a), held(), total, ArithmeticError);
}

function bump(): void {
  extendInstanceTtl(TTL_THRESHOLD, TTL_EXTEND_TO);
}

function event(name: string, data: u64): void {
  publish(vec2(str("HodlStrategy"), symbol(name)), data);
}

function moveEvent(name: string, amount: I128, from: u64): void {
  const v = moveSchema().values();
  v[0] = amount.toVal();
  v[1] = from;
  event(name, moveSchema().encode(v));
}

/** A positive i128 argument, else NegativeNotAllowed. */
function positive(v: u64): I128 {
  const x = I128.fromVal(v);
  if (!x.isPos()) fail(NegativeNotAllowed);
  return x;
}

export function __constructor(asset: u64, init_args: u64): u64 {
  put(keyAsset(), expectAddress(asset), INSTANCE);
  setTotal(I128.zero());
  bump();
  return VOID;
}

export function asset(): u64 {
  return loadAsset();
}

export function deposit(amount: u64, from: u64): u64 {
  const amt = positive(amount);
  requireAuth(from);
  const self = currentContract();
  const token = loadAsset();
  const total = totalShares();
  const before = tokenBalance(token, self);
  // Shares at the pre-deposit price (floor: the rounding stays with the holders); a deposit
  // too small to buy one share is refused rather than given away.
  const minted = total.isZero() || !before.isPos()
    ? amt
    : mulDivFloor(amt, total, before, ArithmeticError);
  if (!minted.isPos()) fail(InvalidArgument);
  tokenTransfer(token, from, self, amt);
  setShares(from, addI128(sharesOf(from), minted, ArithmeticError));
  setTotal(addI128(total, minted, ArithmeticError));
  bump();
  moveEvent("deposit", amt, from);
  return balanceOf(from).toVal();
}

export function withdraw(amount: u64, from: u64, to: u64): u64 {
  const amt = positive(amount);
  requireAuth(from);
  expectAddress(to);
  const self = currentContract();
  const token = loadAsset();
  const total = totalShares();
  const pool = tokenBalance(token, self);
  if (!total.isPos() || !pool.isPos()) fail(InsufficientBalance);
  // ceil(amount × total / pool): the withdrawer pays the rounding.
  const q = mulDivFloor(amt, total, pool, ArithmeticError);
  const exact = mulDivFloor(q, pool, I128.of(1), ArithmeticError)
    .eq(mulDivFloor(amt, total, I128.of(1), ArithmeticError));
  const burn = exact ? q : addI128(q, I128.of(1), ArithmeticError);
  const have = sharesOf(from);
  if (have.lt(burn)) fail(InsufficientBalance);
  setShares(from, subI128(have, burn, ArithmeticError));
  setTotal(subI128(total, burn, ArithmeticError));
  tokenTransfer(token, self, to, amt);
  bump();
  moveEvent("withdraw", amt, from);
  return balanceOf(from).toVal();
}

export function balance(from: u64): u64 {
  return balanceOf(expectAddress(from)).toVal();
}

export function harvest(from: u64, data: u64): u64 {
  expectAddress(from);
  const v = harvestSchema().values();
  v[0] = I128.zero().toVal();
  v[1] = from;
  v[2] = I128.zero().toVal();
  event("harvest", harvestSchema().encode(v));
  return VOID;
}
