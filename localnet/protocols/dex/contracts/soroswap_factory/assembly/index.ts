// Soroswap-ABI factory (interface: contracts/soroswap_factory/spec.ts): the registry of pairs,
// written after soroswap/core `contracts/factory`.
//
// `create_pair` is permissionless, as on the real network: it deploys the pair Wasm whose hash
// `initialize(setter, pair_wasm_hash)` stored, with this factory as deployer and the salt
// sha256(token_0 XDR ‖ token_1 XDR) — so a router finds the pair's address without asking — then
// calls the pair's `initialize(factory, token_0, token_1)`. Same functions, events and
// `FactoryError` codes (201–206) as the real factory.
//
// Storage (`#[contracttype] enum DataKey`, unit variants as `Vec[Symbol]`): instance FeeTo,
// FeeToSetter, FeesEnabled, TotalPairs (u32); persistent PairWasmHash (BytesN<32>),
// `PairAddressesNIndexed(u32)` and `PairAddressesByTokens(Vec[token_0, token_1])` → pair.
import {
  expectAddress, expectTag, extendInstanceTtl, extendTtl, fail, fromBool, fromU32, get, has,
  INSTANCE, invoke, PERSISTENT, publish, put, requireAuth, Schema, symbol, TAG_TRUE, TAG_FALSE,
  tagOf, toU32, vec2, vecOf, VOID, variant0, variant1, FALSE,
} from "../../../../../../contracts/sdk/index";
import * as env from "../../../../../../contracts/sdk/env";
import { deployFromCurrent, sha256OfXdrPair, stringOf } from "../../../../../../contracts/sdk/ext";

// FactoryError
const NotInitialized: u32 = 201;
const CreatePairIdenticalTokens: u32 = 202;
const CreatePairAlreadyExists: u32 = 203;
const InitializeAlreadyInitialized: u32 = 204;
const PairDoesNotExist: u32 = 205;
const IndexDoesNotExist: u32 = 206;

const DAY: u32 = 17280;
const INSTANCE_BUMP: u32 = 30 * DAY;
const INSTANCE_THRESHOLD: u32 = INSTANCE_BUMP - DAY;
const PERSISTENT_BUMP: u32 = 60 * DAY;
const PERSISTENT_THRESHOLD: u32 = PERSISTENT_BUMP - DAY;

function kFeeTo(): u64 { return variant0("FeeTo"); }
function kFeeToSetter(): u64 { return variant0("FeeToSetter"); }
function kPairWasmHash(): u64 { return variant0("PairWasmHash"); }
function kFeesEnabled(): u64 { return variant0("FeesEnabled"); }
function kTotalPairs(): u64 { return variant0("TotalPairs"); }
function kIndexed(n: u32): u64 { return variant1("PairAddressesNIndexed", fromU32(n)); }
function kByTokens(t0: u64, t1: u64): u64 {
  return variant1("PairAddressesByTokens", vec2(t0, t1));
}

let NEW_PAIR: Schema | null = null;
function newPairSchema(): Schema {
  if (NEW_PAIR == null) NEW_PAIR = new Schema("new_pairs_length,pair,token_0,token_1");
  return NEW_PAIR!;
}

function bumpInstance(): void {
  extendInstanceTtl(INSTANCE_THRESHOLD, INSTANCE_BUMP);
}

function requireInit(): void {
  if (!has(kTotalPairs(), INSTANCE)) fail(NotInitialized);
  bumpInstance();
}

function totalPairs(): u32 {
  return has(kTotalPairs(), INSTANCE) ? toU32(get(kTotalPairs(), INSTANCE)) : 0;
}

/** The token pair sorted (token_0 < token_1), or 202 for identical tokens. */
function sorted(a: u64, b: u64): StaticArray<u64> {
  expectAddress(a);
  expectAddress(b);
  const c = env.obj_cmp(a, b);
  if (c == 0) fail(CreatePairIdenticalTokens);
  const out = new StaticArray<u64>(2);
  out[0] = c < 0 ? a : b;
  out[1] = c < 0 ? b : a;
  return out;
}

/** A persistent value, TTL extended, or `err` when absent. */
function persistentOr(key: u64, err: u32): u64 {
  if (!has(key, PERSISTENT)) fail(err);
  extendTtl(key, PERSISTENT, PERSISTENT_THRESHOLD, PERSISTENT_BUMP);
  return get(key, PERSISTENT);
}

function putPersistent(key: u64, v: u64): void {
  put(key, v, PERSISTENT);
  extendTtl(key, PERSISTENT, PERSISTENT_THRESHOLD, PERSISTENT_BUMP);
}

function factoryEvent(name: string, data: u64): void {
  publish(vec2(stringOf("SoroswapFactory"), symbol(name)), data);
}

function structOf(fields: string, vals: StaticArray<u64>): u64 {
  return new Schema(fields).encode(vals);
}

export function fee_to(): u64 {
  requireInit();
  return get(kFeeTo(), INSTANCE);
}

export function fee_to_setter(): u64 {
  requireInit();
  return get(kFeeToSetter(), INSTANCE);
}

export function fees_enabled(): u64 {
  requireInit();
  return has(kFeesEnabled(), INSTANCE) ? get(kFeesEnabled(), INSTANCE) : FALSE;
}

export function all_pairs_length(): u64 {
  requireInit();
  return fromU32(totalPairs());
}

export function get_pair(token_a: u64, token_b: u64): u64 {
  requireInit();
  const t = sorted(token_a, token_b);
  return persistentOr(kByTokens(t[0], t[1]), PairDoesNotExist);
}

export function all_pairs(n: u64): u64 {
  requireInit();
  return persistentOr(kIndexed(toU32(n)), IndexDoesNotExist);
}

export function pair_exists(token_a: u64, token_b: u64): u64 {
  requireInit();
  const t = sorted(token_a, token_b);
  const k = kByTokens(t[0], t[1]);
  if (!has(k, PERSISTENT)) return FALSE;
  extendTtl(k, PERSISTENT, PERSISTENT_THRESHOLD, PERSISTENT_BUMP);
  return fromBool(true);
}

export function initialize(setter: u64, pair_wasm_hash: u64): u64 {
  if (has(kTotalPairs(), INSTANCE)) fail(InitializeAlreadyInitialized);
  expectAddress(setter);
  expectTag(pair_wasm_hash, 72); // Bytes
  put(kFeeToSetter(), setter, INSTANCE);
  put(kFeeTo(), setter, INSTANCE);
  putPersistent(kPairWasmHash(), pair_wasm_hash);
  put(kTotalPairs(), fromU32(0), INSTANCE);
  const v: StaticArray<u64> = [setter];
  factoryEvent("init", structOf("setter", v));
  bumpInstance();
  return VOID;
}

export function set_fee_to(to: u64): u64 {
  requireInit();
  expectAddress(to);
  const setter = get(kFeeToSetter(), INSTANCE);
  requireAuth(setter);
  const old = get(kFeeTo(), INSTANCE);
  put(kFeeTo(), to, INSTANCE);
  const v: StaticArray<u64> = [to, old, setter]; // fields sorted: new, old, setter
  factoryEvent("fee_to", structOf("new,old,setter", v));
  return VOID;
}

export function set_fee_to_setter(new_setter: u64): u64 {
  requireInit();
  expectAddress(new_setter);
  const setter = get(kFeeToSetter(), INSTANCE);
  requireAuth(setter);
  put(kFeeToSetter(), new_setter, INSTANCE);
  const v: StaticArray<u64> = [new_setter, setter]; // new, old
  factoryEvent("setter", structOf("new,old", v));
  return VOID;
}

export function set_fees_enabled(is_enabled: u64): u64 {
  requireInit();
  const t = tagOf(is_enabled);
  if (t != TAG_TRUE && t != TAG_FALSE) unreachable();
  const setter = get(kFeeToSetter(), INSTANCE);
  requireAuth(setter);
  put(kFeesEnabled(), is_enabled, INSTANCE);
  const v: StaticArray<u64> = [is_enabled];
  factoryEvent("fees", structOf("fees_enabled", v));
  return VOID;
}

export function create_pair(token_a: u64, token_b: u64): u64 {
  requireInit();
  const t = sorted(token_a, token_b);
  const key = kByTokens(t[0], t[1]);
  if (has(key, PERSISTENT)) {
    extendTtl(key, PERSISTENT, PERSISTENT_THRESHOLD, PERSISTENT_BUMP);
    fail(CreatePairAlreadyExists);
  }
  const hash = persistentOr(kPairWasmHash(), NotInitialized);
  const pair = deployFromCurrent(hash, sha256OfXdrPair(t[0], t[1]));
  const args: StaticArray<u64> = [env.get_current_contract_address(), t[0], t[1]];
  invoke(pair, "initialize", vecOf(args));
  putPersistent(key, pair);
  const n = totalPairs();
  putPersistent(kIndexed(n), pair);
  put(kTotalPairs(), fromU32(n + 1), INSTANCE);
  const s = newPairSchema();
  const e = s.values();
  e[0] = fromU32(n + 1);
  e[1] = pair;
  e[2] = t[0];
  e[3] = t[1];
  factoryEvent("new_pair", s.encode(e));
  return pair;
}
