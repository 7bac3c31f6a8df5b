// Vigil's keeper registry as a Soroban contract (behaviour: contracts/README.md).
import {
  currentContract, del, expectAddress, expectTag, extendInstanceTtl, extendTtl, fail, fromBool,
  fromU64, get, has, I128, INSTANCE, ledgerTimestamp, PERSISTENT, publish, put, requireAuth,
  saturatingAddI128, saturatingAddU128, saturatingAddU64, divU128ByU64, Schema,
  symbol, TAG_STRING_OBJ, toBool, toU32, toU64, tokenTransfer, U128, valEq, variant0, variant1,
  vec0, vec1, vec2, vecGet, vecLen, vecOf, VOID,
} from "../../sdk/index";
import * as env from "../../sdk/env";
import * as E from "../../common/assembly/vigil";

/** Most keepers the registry holds (keeps the keeper list one entry of bounded size). */
const MAX_KEEPERS: u32 = 1000;
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

function keyAdmin(): u64 { return variant0("Admin"); }
function keyConfig(): u64 { return variant0("Config"); }
function keyVault(): u64 { return variant0("Vault"); }
function keyList(): u64 { return variant0("KeeperList"); }
function keyKeeper(op: u64): u64 { return variant1("Keeper", op); }

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

function loadList(): u64 {
  const k = keyList();
  return has(k, PERSISTENT) ? get(k, PERSISTENT) : vec0();
}

function storeList(list: u64): void {
  const k = keyList();
  put(k, list, PERSISTENT);
  extendTtl(k, PERSISTENT, E.TTL_THRESHOLD, E.TTL_EXTEND_TO);
}

export function __constructor(admin: u64, config: u64, vault: u64): u64 {
  expectAddress(admin);
  expectAddress(vault);
  const cfg = configSchema().decode(config);
  validateConfig(cfg);
  put(keyAdmin(), admin, INSTANCE);
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
  let list = loadList();
  if (vecLen(list) >= MAX_KEEPERS) fail(E.RegistryFull);
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
  list = env.vec_push_back(list, operator);
  storeList(list);
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
  let list = loadList();
  const idx = env.vec_first_index_of(list, operator);
  if (idx != VOID) {
    // Swap-remove: the last entry moves into the freed slot.
    const n = vecLen(list);
    const last = vecGet(list, n - 1);
    list = env.vec_put(list, idx, last);
    list = env.vec_pop_back(list);
  }
  storeList(list);
  bumpInstance();
  const stake = I128.fromVal(info[K_STAKE]);
  if (stake.isPos()) tokenTransfer(loadConfig()[C_USDC], currentContract(), operator, stake);
  event("deregister", operator, vec1(info[K_STAKE]));
  return info[K_STAKE];
}

export function get_keeper(operator: u64): u64 {
  return mustGetKeeper(expectAddress(operator));
}

export function get_keepers(): u64 {
  return loadList();
}

export function get_config(): u64 {
  return get(keyConfig(), INSTANCE);
}

export function get_vault(): u64 {
  if (!has(keyVault(), INSTANCE)) fail(E.NotInit);
  return get(keyVault(), INSTANCE);
}

export function get_admin(): u64 {
  return get(keyAdmin(), INSTANCE);
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
  if (ok) {
    info[K_FILLS] = fromU64(saturatingAddU64(toU64(info[K_FILLS]), 1));
    info[K_PROFIT] = saturatingAddI128(I128.fromVal(info[K_PROFIT]), p).toVal();
    const total = saturatingAddU128(U128.fromVal(info[K_RESPONSE_TOTAL]), rt);
    info[K_RESPONSE_TOTAL] = total.toVal();
    const count = saturatingAddU64(toU64(info[K_RESPONSE_COUNT]), 1);
    info[K_RESPONSE_COUNT] = fromU64(count);
    info[K_AVG] = fromU64(divU128ByU64(total, count));
  }
  storeKeeper(keeper, infoSchema().encode(info));
  const d: StaticArray<u64> = [fromBool(ok), profit, fromU64(rt), fromU64(execs)];
  event("execution", keeper, vecOf(d));
  return VOID;
}

export function set_config(min_stake: u64): u64 {
  requireAuth(get(keyAdmin(), INSTANCE));
  const cfg = loadConfig();
  cfg[C_MIN_STAKE] = min_stake;
  validateConfig(cfg);
  const v = configSchema().encode(cfg);
  put(keyConfig(), v, INSTANCE);
  bumpInstance();
  event("set_config", VOID, v);
  return VOID;
}
