// Storage, auth, events, ledger, cross-contract calls and a token client.
import * as env from "./env";
import { I128 } from "./int";
import { expectAddress, fromU32, symbol, toU32, TRUE, vecOf } from "./val";

// --- storage (StorageType is passed raw: 0 temporary, 1 persistent, 2 instance)
export const TEMPORARY: u64 = 0;
export const PERSISTENT: u64 = 1;
export const INSTANCE: u64 = 2;

export function has(key: u64, durability: u64): bool {
  return env.has_contract_data(key, durability) == TRUE;
}

/** The stored value (traps when absent: check {@link has} first). */
export function get(key: u64, durability: u64): u64 {
  return env.get_contract_data(key, durability);
}

export function put(key: u64, value: u64, durability: u64): void {
  env.put_contract_data(key, value, durability);
}

export function del(key: u64, durability: u64): void {
  env.del_contract_data(key, durability);
}

/** Extends the entry's TTL to `extendTo` ledgers when it is below `threshold`. */
export function extendTtl(key: u64, durability: u64, threshold: u32, extendTo: u32): void {
  env.extend_contract_data_ttl(key, durability, fromU32(threshold), fromU32(extendTo));
}

/** Extends the TTL of this contract's instance and code. */
export function extendInstanceTtl(threshold: u32, extendTo: u32): void {
  env.extend_current_contract_instance_and_code_ttl(fromU32(threshold), fromU32(extendTo));
}

// --- context

/** This contract's Address. */
export function currentContract(): u64 {
  return env.get_current_contract_address();
}

/** The ledger's close time (seconds). */
export function ledgerTimestamp(): u64 {
  const v = env.get_ledger_timestamp();
  const t = v & 0xff;
  if (t == 6) return v >> 8;
  return env.obj_to_u64(v);
}

/** Requires `address` to have authorized this invocation with all its arguments. */
export function requireAuth(address: u64): void {
  env.require_auth(expectAddress(address));
}

/** Publishes a contract event. */
export function publish(topics: u64, data: u64): void {
  env.contract_event(topics, data);
}

/** The current ledger's sequence number. */
export function ledgerSequence(): u32 {
  return toU32(env.get_ledger_sequence());
}

/**
 * `authorize_as_current_contract`: this contract authorizes the given calls (a Vec of
 * `InvokerContractAuthEntry`) made deeper than its direct ones, for the rest of this frame.
 */
export function authorizeAsCurrentContract(entries: u64): void {
  env.authorize_as_curr_contract(entries);
}

/** Calls `fn` on `contract`; a failure of the callee fails this invocation too. */
export function invoke(contract: u64, fn: string, args: u64): u64 {
  return env.call(expectAddress(contract), symbol(fn), args);
}

// --- token client (SEP-41: the Stellar Asset Contract)

export function tokenBalance(token: u64, id: u64): I128 {
  const v: StaticArray<u64> = [id];
  return I128.fromVal(invoke(token, "balance", vecOf(v)));
}

export function tokenTransfer(token: u64, from: u64, to: u64, amount: I128): void {
  const v: StaticArray<u64> = [from, to, amount.toVal()];
  invoke(token, "transfer", vecOf(v));
}

/** SEP-41 `approve(from, spender, amount, expiration_ledger)`. */
export function tokenApprove(token: u64, from: u64, spender: u64, amount: I128, expirationLedger: u64): void {
  const v: StaticArray<u64> = [from, spender, amount.toVal(), expirationLedger];
  invoke(token, "approve", vecOf(v));
}

/** SEP-41 `transfer_from(spender, from, to, amount)`. */
export function tokenTransferFrom(token: u64, spender: u64, from: u64, to: u64, amount: I128): void {
  const v: StaticArray<u64> = [spender, from, to, amount.toVal()];
  invoke(token, "transfer_from", vecOf(v));
}
