// Test fixture for the host's in-process tests (interface: ../spec.ts). `tier`: 0 instance,
// 1 persistent, anything else temporary.
import {
  currentContract, del as delData, extendInstanceTtl, extendTtl, fail, fromBool, fromU32, get,
  has, I128, INSTANCE, invoke, ledgerSequence, PERSISTENT, publish, put as putData, requireAuth,
  symbol, TAG_ERROR, tagOf, TEMPORARY, tokenTransfer, toU32, vec0, vec1, vec2, vecOf, VOID,
} from "../../../../contracts/sdk/index";
import * as env from "../../../../contracts/sdk/env";

@external("d", "0") declare function try_call(contract: u64, func: u64, args: u64): u64;

function durability(tier: u64): u64 {
  const t = toU32(tier);
  return t == 0 ? INSTANCE : t == 1 ? PERSISTENT : TEMPORARY;
}

export function put(tier: u64, key: u64, val: u64): u64 {
  putData(key, fromU32(toU32(val)), durability(tier));
  return VOID;
}

export function read(tier: u64, key: u64): u64 {
  const d = durability(tier);
  return has(key, d) ? get(key, d) : VOID;
}

export function del(tier: u64, key: u64): u64 {
  delData(key, durability(tier));
  return VOID;
}

function extend(tier: u64, key: u64, threshold: u32, extendTo: u32): void {
  const d = durability(tier);
  if (d == INSTANCE) extendInstanceTtl(threshold, extendTo);
  else extendTtl(key, d, threshold, extendTo);
}

export function bump(tier: u64, key: u64): u64 {
  extend(tier, key, 100, 1000);
  return VOID;
}

export function bump_to(tier: u64, key: u64, threshold: u64, extend_to: u64): u64 {
  extend(tier, key, toU32(threshold), toU32(extend_to));
  return VOID;
}

export function put_then_fail(key: u64, code: u64): u64 {
  putData(key, fromU32(1), PERSISTENT);
  extendInstanceTtl(5_000, 5_000);
  publish(vec1(symbol("doomed")), code);
  fail(toU32(code));
  return VOID;
}

export function try_other(other: u64, key: u64): u64 {
  putData(symbol("mine"), fromU32(1), PERSISTENT);
  const r = try_call(other, symbol("put_then_fail"), vec2(key, fromU32(7)));
  if (tagOf(r) != TAG_ERROR) return fromBool(true);
  putData(symbol("err"), fromU32((r >> 32) as u32), PERSISTENT);
  return fromBool(false);
}

export function call_other(other: u64, key: u64): u64 {
  putData(symbol("mine"), fromU32(1), PERSISTENT);
  invoke(other, "put_then_fail", vec2(key, fromU32(8)));
  return VOID;
}

export function reenter(other: u64): u64 {
  invoke(other, "callback", vec1(currentContract()));
  return VOID;
}

export function callback(back: u64): u64 {
  invoke(back, "whoami", vec0());
  return VOID;
}

export function echo(r: u64): u64 {
  return r;
}

export function whoami(): u64 {
  return vec2(currentContract(), fromU32(ledgerSequence()));
}

export function ask_other(other: u64): u64 {
  return invoke(other, "whoami", vec0());
}

export function auth_self_via(other: u64): u64 {
  // other.need_auth(self): authorized by the invoker rule.
  invoke(other, "need_auth", vec1(currentContract()));
  return VOID;
}

export function need_auth(who: u64): u64 {
  requireAuth(who);
  return VOID;
}

export function need_auth_deep(middle: u64, last: u64): u64 {
  // self -> middle.relay(last, self) -> last.need_auth(self): not a direct call, so it needs auth.
  invoke(middle, "relay", vec2(last, currentContract()));
  return VOID;
}

export function relay(other: u64, who: u64): u64 {
  invoke(other, "need_auth", vec1(who));
  return VOID;
}

export function pay(token: u64, to: u64, amount: u64): u64 {
  // The token's require_auth(self) is covered by the invoker rule.
  tokenTransfer(token, currentContract(), to, I128.fromVal(amount));
  return VOID;
}

export function pay_twice_try(token: u64, to: u64, amount: u64): u64 {
  tokenTransfer(token, currentContract(), to, I128.fromVal(amount));
  const args: StaticArray<u64> = [currentContract(), to, amount];
  const r = try_call(token, symbol("transfer"), vecOf(args));
  return fromBool(tagOf(r) != TAG_ERROR);
}
