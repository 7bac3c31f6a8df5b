// Vigil's vault as a Soroban contract (behaviour: contracts/README.md).
//
// Books: total_usdc (capital owned), total_shares, total_profit, active_liq (always 0 after a
// transaction: USDC leaves only inside `flash`, which must put it back before it ends).
import {
  currentContract, expectAddress, extendInstanceTtl, extendTtl, fail, fromU64, get, has, I128,
  INSTANCE, invoke, ledgerTimestamp, PERSISTENT, publish, put, requireAuth, Schema, symbol,
  tagOf, toU64, tokenBalance, tokenTransfer, TRUE, valEq, variant0, variant1, vec1, vec2, vecOf,
  VOID, TAG_VOID, mapGet, vecContains, vecGet, vecLen, TAG_VEC_OBJ, expectTag, toU32,
} from "../../sdk/index";
import * as E from "../../common/assembly/vigil";
import { add, F_EXECUTORS, mulDiv, policySchema, sub } from "../../common/assembly/vigil";

/** Shares of the first deposit locked forever in the vault's own record. */
const MIN_LIQUIDITY: i64 = 1000;
/** Longest withdraw cooldown the admin may set: 7 days. */
const MAX_COOLDOWN: u64 = 7 * 86400;

// VaultState { active_liq, total_profit, total_shares, total_usdc }
let STATE: Schema | null = null;
function stateSchema(): Schema {
  if (STATE == null) STATE = new Schema("active_liq,total_profit,total_shares,total_usdc");
  return STATE!;
}
const S_ACTIVE = 0;
const S_PROFIT = 1;
const S_SHARES = 2;
const S_USDC = 3;

// VaultConfig { deposit_cap, max_draw_per_keeper, withdraw_cooldown }
let CONFIG: Schema | null = null;
function configSchema(): Schema {
  if (CONFIG == null) CONFIG = new Schema("deposit_cap,max_draw_per_keeper,withdraw_cooldown");
  return CONFIG!;
}
const C_CAP = 0;
const C_MAX_DRAW = 1;
const C_COOLDOWN = 2;

// Depositor record.
let DEP: Schema | null = null;
function depSchema(): Schema {
  if (DEP == null) {
    DEP = new Schema(
      "deposited,first_deposit_at,last_deposit_at,locked_shares,shares,unlock_at,withdrawn",
    );
  }
  return DEP!;
}
const D_DEPOSITED = 0;
const D_FIRST = 1;
const D_LAST = 2;
const D_LOCKED = 3;
const D_SHARES = 4;
const D_UNLOCK = 5;
const D_WITHDRAWN = 6;

/** Most entries of each policy list (keeps the instance entry and the checks small). */
const MAX_POLICY_ENTRIES: u32 = 16;

let BAL: Schema | null = null;
function balanceSchema(): Schema {
  if (BAL == null) BAL = new Schema("shares,usdc_value");
  return BAL!;
}

// KeeperInfo.stake and RegistryConfig.min_stake, read from the registry's structs.
let REGCFG: Schema | null = null;
function registryConfigSchema(): Schema {
  if (REGCFG == null) REGCFG = new Schema("min_stake,usdc_token");
  return REGCFG!;
}

function keyAdmin(): u64 { return variant0("Admin"); }
function keyUsdc(): u64 { return variant0("Usdc"); }
function keyRegistry(): u64 { return variant0("Registry"); }
function keyConfig(): u64 { return variant0("Config"); }
function keyState(): u64 { return variant0("State"); }
function keyLoss(): u64 { return variant0("TotalLoss"); }
function keyPolicy(): u64 { return variant0("FlashPolicy"); }
function keyDepositor(a: u64): u64 { return variant1("Depositor", a); }

function bumpInstance(): void {
  extendInstanceTtl(E.TTL_THRESHOLD, E.TTL_EXTEND_TO);
}

function event(name: string, subject: u64, data: u64): void {
  publish(subject == VOID ? vec1(symbol(name)) : vec2(symbol(name), subject), data);
}

/** Books in memory: (active_liq, total_profit, total_shares, total_usdc). */
class State {
  active: I128 = I128.zero();
  profit: I128 = I128.zero();
  shares: I128 = I128.zero();
  usdc: I128 = I128.zero();
}

function loadState(): State {
  const s = new State();
  if (!has(keyState(), INSTANCE)) return s;
  const v = stateSchema().decode(get(keyState(), INSTANCE));
  s.active = I128.fromVal(v[S_ACTIVE]);
  s.profit = I128.fromVal(v[S_PROFIT]);
  s.shares = I128.fromVal(v[S_SHARES]);
  s.usdc = I128.fromVal(v[S_USDC]);
  return s;
}

function stateVal(s: State): u64 {
  const v = stateSchema().values();
  v[S_ACTIVE] = s.active.toVal();
  v[S_PROFIT] = s.profit.toVal();
  v[S_SHARES] = s.shares.toVal();
  v[S_USDC] = s.usdc.toVal();
  return stateSchema().encode(v);
}

function storeState(s: State): void {
  put(keyState(), stateVal(s), INSTANCE);
}

class Depositor {
  deposited: I128 = I128.zero();
  first: u64 = 0;
  last: u64 = 0;
  locked: I128 = I128.zero();
  shares: I128 = I128.zero();
  unlock: u64 = 0;
  withdrawn: I128 = I128.zero();
}

function loadDepositor(a: u64): Depositor {
  const d = new Depositor();
  const k = keyDepositor(a);
  if (!has(k, PERSISTENT)) return d;
  const v = depSchema().decode(get(k, PERSISTENT));
  d.deposited = I128.fromVal(v[D_DEPOSITED]);
  d.first = toU64(v[D_FIRST]);
  d.last = toU64(v[D_LAST]);
  d.locked = I128.fromVal(v[D_LOCKED]);
  d.shares = I128.fromVal(v[D_SHARES]);
  d.unlock = toU64(v[D_UNLOCK]);
  d.withdrawn = I128.fromVal(v[D_WITHDRAWN]);
  return d;
}

function depositorVal(d: Depositor): u64 {
  const v = depSchema().values();
  v[D_DEPOSITED] = d.deposited.toVal();
  v[D_FIRST] = fromU64(d.first);
  v[D_LAST] = fromU64(d.last);
  v[D_LOCKED] = d.locked.toVal();
  v[D_SHARES] = d.shares.toVal();
  v[D_UNLOCK] = fromU64(d.unlock);
  v[D_WITHDRAWN] = d.withdrawn.toVal();
  return depSchema().encode(v);
}

/** Stores a depositor's record (kept after a full withdrawal: it is the cost basis). */
function storeDepositor(a: u64, d: Depositor): void {
  const k = keyDepositor(a);
  put(k, depositorVal(d), PERSISTENT);
  extendTtl(k, PERSISTENT, E.TTL_THRESHOLD, E.TTL_EXTEND_TO);
}

function validateConfig(cfg: StaticArray<u64>): void {
  if (!E.inI64(I128.fromVal(cfg[C_CAP]), 1)) fail(E.InvalidConfig);
  if (!E.inI64(I128.fromVal(cfg[C_MAX_DRAW]), 0)) fail(E.InvalidConfig);
  if (toU64(cfg[C_COOLDOWN]) > MAX_COOLDOWN) fail(E.InvalidConfig);
}

/** A list of at most MAX_POLICY_ENTRIES addresses. */
function validAddressList(v: u64): bool {
  expectTag(v, TAG_VEC_OBJ);
  const n = vecLen(v);
  if (n > MAX_POLICY_ENTRIES) return false;
  for (let i: u32 = 0; i < n; i++) expectAddress(vecGet(v, i));
  return true;
}

function validatePolicy(policy: u64): void {
  const p = policySchema().decode(policy);
  if (toU32(p[1]) > 10000) fail(E.InvalidConfig);
  if (!validAddressList(p[0]) || !validAddressList(p[2]) || !validAddressList(p[3])) {
    fail(E.InvalidConfig);
  }
}

function loadConfig(): StaticArray<u64> {
  return configSchema().decode(get(keyConfig(), INSTANCE));
}

function usdc(): u64 {
  return get(keyUsdc(), INSTANCE);
}

/** USDC the shares are worth now, floored (0 when there are no shares). */
function sharesToAssets(s: State, shares: I128): I128 {
  return s.shares.isZero() ? I128.zero() : mulDiv(shares, s.usdc, s.shares);
}

export function __constructor(
  admin: u64,
  usdc_token: u64,
  config: u64,
  registry: u64,
  policy: u64,
): u64 {
  expectAddress(admin);
  expectAddress(usdc_token);
  validateConfig(configSchema().decode(config));
  validatePolicy(policy);
  put(keyAdmin(), admin, INSTANCE);
  put(keyUsdc(), usdc_token, INSTANCE);
  put(keyConfig(), config, INSTANCE);
  put(keyPolicy(), policy, INSTANCE);
  storeState(new State());
  const wired = tagOf(registry) != TAG_VOID;
  if (wired) put(keyRegistry(), expectAddress(registry), INSTANCE);
  bumpInstance();
  const d: StaticArray<u64> = [admin, usdc_token, config];
  event("init", VOID, vecOf(d));
  if (wired) event("set_registry", VOID, registry);
  event("set_flash_policy", VOID, policy);
  return VOID;
}

export function set_flash_policy(policy: u64): u64 {
  requireAuth(get(keyAdmin(), INSTANCE));
  validatePolicy(policy);
  put(keyPolicy(), policy, INSTANCE);
  bumpInstance();
  event("set_flash_policy", VOID, policy);
  return VOID;
}

export function get_flash_policy(): u64 {
  return get(keyPolicy(), INSTANCE);
}

export function set_registry(registry: u64): u64 {
  requireAuth(get(keyAdmin(), INSTANCE));
  if (has(keyRegistry(), INSTANCE)) fail(E.AlreadyInitialized);
  put(keyRegistry(), expectAddress(registry), INSTANCE);
  bumpInstance();
  event("set_registry", VOID, registry);
  return VOID;
}

export function set_config(config: u64): u64 {
  requireAuth(get(keyAdmin(), INSTANCE));
  validateConfig(configSchema().decode(config));
  put(keyConfig(), config, INSTANCE);
  bumpInstance();
  event("set_config", VOID, config);
  return VOID;
}

export function deposit(depositor: u64, amount: u64): u64 {
  const amt = I128.fromVal(amount);
  if (!amt.isPos()) fail(E.InvalidAmount);
  const self = currentContract();
  // The vault's own record holds the locked minimum-liquidity shares.
  if (valEq(expectAddress(depositor), self)) fail(E.Unauthorized);
  requireAuth(depositor);
  const cfg = loadConfig();
  const st = loadState();
  // deposit_cap bounds total_usdc after the deposit (profit may lift it above; that only
  // blocks deposits).
  if (add(st.usdc, amt).gt(I128.fromVal(cfg[C_CAP]))) fail(E.DepositCapExceeded);

  let minted: I128;
  let locked = I128.zero();
  if (st.shares.isZero()) {
    // First deposit: 1:1, MIN_LIQUIDITY of it locked forever in the vault's own record.
    locked = I128.of(MIN_LIQUIDITY);
    minted = sub(amt, locked);
    if (!minted.isPos()) fail(E.ZeroShares);
  } else {
    if (st.usdc.isZero()) fail(E.PoolInsolvent);
    minted = mulDiv(amt, st.shares, st.usdc);
    if (minted.isZero()) fail(E.ZeroShares);
  }

  const now = ledgerTimestamp();
  const rec = loadDepositor(depositor);
  if (rec.deposited.isZero()) rec.first = now;
  // New shares lock until now + cooldown; shares whose lock already expired stay free.
  rec.locked = now < rec.unlock ? add(rec.locked, minted) : minted;
  rec.unlock = now + toU64(cfg[C_COOLDOWN]);
  rec.shares = add(rec.shares, minted);
  rec.deposited = add(rec.deposited, amt);
  rec.last = now;
  storeDepositor(depositor, rec);
  if (locked.isPos()) {
    const own = loadDepositor(self);
    own.shares = add(own.shares, locked);
    if (own.first == 0) own.first = now;
    own.last = now;
    storeDepositor(self, own);
  }
  st.shares = add(add(st.shares, minted), locked);
  st.usdc = add(st.usdc, amt);
  storeState(st);
  bumpInstance();

  tokenTransfer(usdc(), depositor, self, amt);
  event("deposit", depositor, vec2(amount, minted.toVal()));
  return minted.toVal();
}

export function withdraw(depositor: u64, shares: u64): u64 {
  const sh = I128.fromVal(shares);
  if (!sh.isPos()) fail(E.InvalidAmount);
  const self = currentContract();
  if (valEq(expectAddress(depositor), self)) fail(E.Unauthorized);
  requireAuth(depositor);
  const rec = loadDepositor(depositor);
  if (sh.gt(rec.shares)) fail(E.InsufficientShares);
  const now = ledgerTimestamp();
  const stillLocked = now < rec.unlock ? rec.locked : I128.zero();
  if (sh.gt(sub(rec.shares, stillLocked))) fail(E.WithdrawCooldown);

  const st = loadState();
  const amount = sharesToAssets(st, sh);
  if (amount.isZero()) fail(E.ZeroPayout);
  // Only idle capital can leave: a typed error instead of a token-transfer failure.
  if (amount.gt(sub(st.usdc, st.active))) fail(E.InsufficientLiquidity);

  rec.shares = sub(rec.shares, sh);
  rec.locked = stillLocked;
  rec.withdrawn = add(rec.withdrawn, amount);
  storeDepositor(depositor, rec);
  st.shares = sub(st.shares, sh);
  st.usdc = sub(st.usdc, amount);
  storeState(st);
  bumpInstance();

  tokenTransfer(usdc(), self, depositor, amount);
  event("withdraw", depositor, vec2(shares, amount.toVal()));
  return amount.toVal();
}

/**
 * Lends `amount` to a registered keeper for the length of ONE invocation: the USDC goes to the
 * keeper's account, `executor.exec(keeper, vault, usdc, amount, data)` runs, and the vault's
 * USDC balance must end at least where it started (FlashNotRepaid otherwise, reverting all).
 */
export function flash(
  keeper: u64,
  executor: u64,
  amount: u64,
  data: u64,
  response_time_ms: u64,
): u64 {
  if (!has(keyRegistry(), INSTANCE)) fail(E.NotInit);
  const registry = get(keyRegistry(), INSTANCE);
  const amt = I128.fromVal(amount);
  if (!amt.isPos()) fail(E.InvalidAmount);
  requireAuth(keeper);
  expectAddress(executor);
  toU64(response_time_ms);
  // Only admin-listed executors: any other contract could repay exactly `amount` and keep the
  // liquidation's profit (a free flash loan of depositors' capital).
  const policy = get(keyPolicy(), INSTANCE);
  if (!vecContains(policySchema().decode(policy)[F_EXECUTORS], executor)) {
    fail(E.ExecutorNotAllowed);
  }

  // NotRegistered from the registry reverts the whole flash.
  const info = invoke(registry, "get_keeper", vec1(keeper));
  const stake = registryStake(info);
  const minStake = I128.fromVal(
    registryConfigSchema().decode(invoke(registry, "get_config", vecOf(new StaticArray<u64>(0))))[0],
  );
  if (stake.lt(minStake)) fail(E.StakeBelowMinimum);

  const st = loadState();
  if (amt.gt(sub(st.usdc, st.active))) fail(E.InsufficientLiquidity);
  const cfg = loadConfig();
  if (amt.gt(I128.fromVal(cfg[C_MAX_DRAW]))) fail(E.DrawLimitExceeded);

  const token = usdc();
  const self = currentContract();
  const before = tokenBalance(token, self);
  tokenTransfer(token, self, keeper, amt);
  const args: StaticArray<u64> = [keeper, self, token, amount, data, policy];
  invoke(executor, "exec", vecOf(args));
  const after = tokenBalance(token, self);
  if (after.lt(before)) fail(E.FlashNotRepaid);

  const profit = sub(after, before);
  st.usdc = add(st.usdc, profit);
  st.profit = add(st.profit, profit);
  storeState(st);
  bumpInstance();

  const rec: StaticArray<u64> = [self, keeper, TRUE, profit.toVal(), response_time_ms];
  invoke(registry, "record_execution", vecOf(rec));
  const d: StaticArray<u64> = [amount, add(amt, profit).toVal(), profit.toVal(), executor];
  event("flash", keeper, vecOf(d));
  return profit.toVal();
}

/** KeeperInfo.stake out of the registry's record (a map keyed by field Symbols). */
function registryStake(info: u64): I128 {
  return I128.fromVal(mapGet(info, symbol("stake")));
}

export function get_state(): u64 {
  return stateVal(loadState());
}

export function get_config(): u64 {
  return get(keyConfig(), INSTANCE);
}

export function get_depositor(depositor: u64): u64 {
  return depositorVal(loadDepositor(expectAddress(depositor)));
}

export function balance(depositor: u64): u64 {
  const rec = loadDepositor(expectAddress(depositor));
  const v = balanceSchema().values();
  v[0] = rec.shares.toVal();
  v[1] = sharesToAssets(loadState(), rec.shares).toVal();
  return balanceSchema().encode(v);
}

export function get_registry(): u64 {
  return has(keyRegistry(), INSTANCE) ? get(keyRegistry(), INSTANCE) : VOID;
}

export function get_usdc(): u64 {
  return usdc();
}

export function get_admin(): u64 {
  return get(keyAdmin(), INSTANCE);
}

/** Cumulative realized losses: always 0 since flash (no loss path); kept for API stability. */
export function get_total_loss(): u64 {
  return has(keyLoss(), INSTANCE) ? get(keyLoss(), INSTANCE) : I128.zero().toVal();
}
