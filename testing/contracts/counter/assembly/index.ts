// Test fixture: per-user counters with auth, a typed error, an event, a token call, a trap
// (interface and storage keys: ../spec.ts).
import {
  currentContract, expectAddress, fail, fromU32, get as getData, has, I128, INSTANCE, PERSISTENT, publish,
  put, requireAuth, symbol, tokenTransfer, toU32, valEq, variant1, vec2, VOID,
} from "../../../../contracts/sdk/index";

const TooBig: u32 = 1;
const NoAdmin: u32 = 2;

function countKey(user: u64): u64 {
  return variant1("Count", user);
}

function readCount(user: u64): u32 {
  const k = countKey(user);
  return has(k, PERSISTENT) ? toU32(getData(k, PERSISTENT)) : 0;
}

export function __constructor(admin_: u64): u64 {
  put(symbol("Admin"), expectAddress(admin_), INSTANCE);
  return VOID;
}

export function increment(user: u64, by: u64): u64 {
  requireAuth(user);
  const n = toU32(by);
  if (n > 100) fail(TooBig);
  const next = fromU32(readCount(user) + n);
  put(countKey(user), next, PERSISTENT);
  publish(vec2(symbol("incr"), user), next);
  return next;
}

export function get(user: u64): u64 {
  return fromU32(readCount(expectAddress(user)));
}

export function admin(): u64 {
  if (!has(symbol("Admin"), INSTANCE)) fail(NoAdmin);
  return getData(symbol("Admin"), INSTANCE);
}

export function transfer_via(token: u64, from: u64, to: u64, amount: u64): u64 {
  // Another address authorizes this call and the transfer beneath it (a sub-invocation); the
  // contract's own funds need nothing (the invoker rule covers the token's check).
  if (!valEq(from, currentContract())) requireAuth(from);
  tokenTransfer(token, from, to, I128.fromVal(amount));
  return VOID;
}

export function boom(): u64 {
  unreachable();
  return VOID;
}
