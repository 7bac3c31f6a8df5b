// Vigil's keeper registry as a Soroban contract (behaviour: contracts/README.md).
import {
  currentContract, del, expectAddress, expectTag, extendInstanceTtl, extendTtl, fail, fromBool,
  fromU32, fromU64, get, has, I128, INSTANCE, ledgerTimestamp, PERSISTENT, publish, put,
  requireAuth, saturatingAddI128, saturatingAddU128, saturatingAddU64, divU128ByU64, Schema,
  symbol, TAG_STRING_OBJ, toBool, toU32, toU64, tokenTransfer, U128, valEq, variant0, variant1,
  vec1, vec2, vecOf, VOID,
} from "../../sdk/index";
import * as env from "../../sdk/env";
import * as E from "../../common/assembly/vigil";
import {
  acceptAdmin, adminOrVoid, initAdmin, pendingAdminOrVoid, proposeAdmin, renounceAdmin,
  requireAdmin,
} from "../../common/assembly/vigil";

/** Most addresses one `get_keepers` page returns (the list itself has no bound). */
const MAX_PAGE: u32 = 100;
/** Longest keeper name in UTF-8 bytes. */
const MAX_NAME_BYTES: u32 = 64;
/** Response times are clamped to one hour before they enter the average. */
const MAX_RESPONSE_MS: u64 = 3_600_000;

// RegistryConfig { min_stake: i128, usdc_token: Address }
let CONFIG: Schema | null = null;
function configSchema(): Schema {
  if (CONFIG == null) CONFIG = new Schema("min_stake,usdc_token");
  return CONFIG!;
}
const C_MIN_STAKE = 0;
const C_USDC = 1;

// KeeperInfo, fields in byte order.
let INFO: Schema | null = null;
function infoSchema(): Schema {
  if (INFO == null) {
    INFO = new Schema(
      "avg_response_time_ms,name,operator,registered_at,response_count,stake,successful_fills,total_executions,total_profit,total_response_time_ms",
    );
  }
  return INFO!;
}
const K_AVG = 0;
const K_NAME = 1;
const K_OPERATOR = 2;
const K_REGISTERED_AT = 3;
const K_RESPONSE_COUNT = 4;
const K_STAKE = 5;
const K_FILLS = 6;
const K_EXECUTIONS = 7;
const K_PROFIT = 8;
const K_RESPONSE_TOTAL = 9;

function keyConfig(): u64 { return variant0("Config"); }
function keyVault(): u64 { return variant0("Vault"); }
function keyCount(): u64 { return variant0("KeeperCount"); }
function keyKeeper(op: u64): u64 { return variant1("Keeper", op); }
/** The keeper at list index i (0 ≤ i < KeeperCount). */
function keyAt(i: u32): u64 { return variant1("KeeperAt", fromU32(i)); }
/** An operator's list index. */
function keyPos(op: u64): u64 { return variant1("KeeperPos", op); }

function bumpInstance(): void {
  extendInstanceTtl(E.TTL_THRESHOLD, E.TTL_EXTEND_TO);
}

function event(name: string, subject: u64, data: u64): void {
  publish(subject == VOID ? vec1(symbol(name)) : vec2(symbol(name), subject), data);
}

function validateConfig(cfg: StaticArray<u64>): void {
  if (!E.inI64(I128.fromVal(cfg[C_MIN_STAKE]), 1)) fail(E.InvalidConfig);
  expectAddress(cfg[C_USDC]);
}

function loadConfig(): StaticArray<u64> {
  return configSchema().decode(get(keyConfig(), INSTANCE));
}

function mustGetKeeper(op: u64): u64 {
  const k = keyKeeper(op);
  if (!has(k, PERSISTENT)) fail(E.NotRegistered);
  return get(k, PERSISTENT);
}

function storeKeeper(op: u64, info: u64): void {
  const k = keyKeeper(op);
  put(k, info, PERSISTENT);
  extendTtl(k, PERSISTENT, E.TTL_THRESHOLD, E.TTL_EXTEND_TO);
}

// The keeper list: one persistent entry per keeper (KeeperAt(i) → operator, KeeperPos(operator)
// → i) and a count in instance storage. No entry grows with the number of keepers, so there is no
// cap that strangers' throwaway registrations could fill (each one pays its own stake and rent).

function keeperCount(): u32 {
  return has(keyCount(), INSTANCE) ? toU32(get(keyCount(), INSTANCE)) : 0;
}

function putPersistent(k: u64, v: u64): void {
  put(k, v, PERSISTENT);
  extendTtl(k, PERSISTENT, E.TTL_THRESHOLD, E.TTL_EXTEND_TO);
}

function listAppend(op: u64): void {
  const n = keeperCount();
  putPersistent(keyAt(n), op);
  putPersistent(keyPos(op), fromU32(n));
  put(keyCount(), fromU32(n + 1), INSTANCE);
}

/** Swap-remove: the last keeper moves into the freed index. */
function listRemove(op: u64): void {
  const pk = keyPos(op);
  if (!has(pk, PERSISTENT)) return;
  const i = toU32(get(pk, PERSISTENT));
  const last = keeperCount() - 1;
  if (i != last) {
    const moved = get(keyAt(last), PERSISTENT);
    putPersistent(keyAt(i), moved);
    putPersistent(keyPos(moved), fromU32(i));
  }
  del(keyAt(last), PERSISTENT);
  del(pk, PERSISTENT);
  put(keyCount(), fromU32(last), INSTANCE);
}

export function __constructor(admin: u64, config: u64, vault: u64): u64 {
  expectAddress(admin);
  expectAddress(vault);
  const cfg = configSchema().decode(config);
  validateConfig(cfg);
  initAdmin(admin);
  put(keyConfig(), config, INSTANCE);
  put(keyVault(), vault, INSTANCE);
  bumpInstance();
  const d: StaticArray<u64> = [admin, vault, config];
  event("init", VOID, vecOf(d));
  return VOID;
}

export function register(operator: u64, name: u64): u64 {
  requireAuth(operator);
  if (has(keyKeeper(operator), PERSISTENT)) fail(E.AlreadyRegistered);
  const len = toU32(env.string_len(expectTag(name, TAG_STRING_OBJ)));
  if (len < 1 || len > MAX_NAME_BYTES) fail(E.InvalidName);
  const cfg = loadConfig();
  const now = fromU64(ledgerTimestamp());
  const zero64 = fromU64(0);
  const info = infoSchema().values();
  info[K_AVG] = zero64;
  info[K_NAME] = name;
  info[K_OPERATOR] = operator;
  info[K_REGISTERED_AT] = now;
  info[K_RESPONSE_COUNT] = zero64;
  info[K_STAKE] = cfg[C_MIN_STAKE];
  info[K_FILLS] = zero64;
  info[K_EXECUTIONS] = zero64;
  info[K_PROFIT] = I128.zero().toVal();
  info[K_RESPONSE_TOTAL] = U128.of(0).toVal();
  const infoVal = infoSchema().encode(info);
  storeKeeper(operator, infoVal);
  listAppend(operator);
  bumpInstance();
  // Exactly min_stake; a balance below it fails inside the token and reverts everything.
  tokenTransfer(cfg[C_USDC], operator, currentContract(), I128.fromVal(cfg[C_MIN_STAKE]));
  const d: StaticArray<u64> = [name, cfg[C_MIN_STAKE], now];
  event("register", operator, vecOf(d));
  return infoVal;
}

export function deregister(operator: u64): u64 {
  requireAuth(operator);
  const info = infoSchema().decode(mustGetKeeper(operator));
  del(keyKeeper(operator), PERSISTENT);
  listRemove(operator);
  bumpInstance();
  const stake = I128.fromVal(info[K_STAKE]);
  if (stake.isPos()) tokenTransfer(loadConfig()[C_USDC], currentContract(), operator, stake);
  event("deregister", operator, vec1(info[K_STAKE]));
  return info[K_STAKE];
}

export function get_keeper(operator: u64): u64 {
  return mustGetKeeper(expectAddress(operator));
}

/** Operators at list indices [start, start + min(limit, MAX_PAGE)), in list order. */
export function get_keepers(start: u64, limit: u64): u64 {
  const n = keeperCount();
  const from = toU32(start);
  let count = toU32(limit);
  if (count > MAX_PAGE) count = MAX_PAGE;
  let out = env.vec_new();
  for (let i = from; i < n && i - from < count; i++) {
    out = env.vec_push_back(out, get(keyAt(i), PERSISTENT));
  }
  return out;
}

export function get_keeper_count(): u64 {
  return fromU32(keeperCount());
}

export function get_config(): u64 {
  return get(keyConfig(), INSTANCE);
}

export function get_vault(): u64 {
  if (!has(keyVault(), INSTANCE)) fail(E.NotInit);
  return get(keyVault(), INSTANCE);
}

export function get_admin(): u64 {
  return adminOrVoid();
}

export function get_pending_admin(): u64 {
  return pendingAdminOrVoid();
}

export function propose_admin(new_admin: u64): u64 {
  proposeAdmin(new_admin);
  bumpInstance();
  return VOID;
}

export function accept_admin(): u64 {
  acceptAdmin();
  bumpInstance();
  return VOID;
}

export function renounce_admin(): u64 {
  renounceAdmin();
  bumpInstance();
  return VOID;
}

export function record_execution(
  caller: u64,
  keeper: u64,
  success: u64,
  profit: u64,
  response_time_ms: u64,
): u64 {
  // The caller must be the stored vault AND have authorized the call (the invoker rule).
  if (!has(keyVault(), INSTANCE)) fail(E.NotInit);
  if (!valEq(expectAddress(caller), get(keyVault(), INSTANCE))) fail(E.Unauthorized);
  requireAuth(caller);
  const info = infoSchema().decode(mustGetKeeper(keeper));
  const ok = toBool(success);
  const p = I128.fromVal(profit);
  if (p.isNeg()) fail(E.InvalidAmount);
  let rt = toU64(response_time_ms);
  if (rt > MAX_RESPONSE_MS) rt = MAX_RESPONSE_MS;
  // Statistics saturate instead of failing: a counter must never block a settlement.
  const execs = saturatingAddU64(toU64(info[K_EXECUTIONS]), 1);
  info[K_EXECUTIONS] = fromU64(execs);
  // Profit paid to depositors always counts; a fill (and its response time) only when the vault
  // says it booked at least its min_fill_profit, so dust flashes cannot inflate the leaderboard.
  info[K_PROFIT] = saturatingAddI128(I128.fromVal(info[K_PROFIT]), p).toVal();
  if (ok) {
    info[K_FILLS] = fromU64(saturatingAddU64(toU64(info[K_FILLS]), 1));
    const total = saturatingAddU128(U128.fromVal(info[K_RESPONSE_TOTAL]), rt);
    info[K_RESPONSE_TOTAL] = total.toVal();
    const count = saturatingAddU64(toU64(info[K_RESPONSE_COUNT]), 1);
    info[K_RESPONSE_COUNT] = fromU64(count);
    info[K_AVG] = fromU64(divU128ByU64(total, count));
  }
  storeKeeper(keeper, infoSchema().encode(info));
  // Every settled flash passes here: it keeps the registry's instance and code alive.
  bumpInstance();
  const d: StaticArray<u64> = [fromBool(ok), profit, fromU64(rt), fromU64(execs)];
  event("execution", keeper, vecOf(d));
  return VOID;
}

export function set_config(min_stake: u64): u64 {
  requireAdmin();
  const cfg = loadConfig();
  cfg[C_MIN_STAKE] = min_stake;
  validateConfig(cfg);
  const v = configSchema().encode(cfg);
  put(keyConfig(), v, INSTANCE);
  bumpInstance();
  event("set_config", VOID, v);
  return VOID;
}
