// Vigil's vault as a Soroban contract (behaviour: contracts/README.md).
//
// Books: total_usdc (capital owned), total_shares, total_profit, active_liq (always 0 after a
// transaction: USDC leaves only inside `flash`, which must put it back before it ends).
//
// Issue 20: depositors' yield. A flash's profit unlocks linearly (ProfitLock) and shares are
// priced with the unlocked capital only, so a just-in-time deposit earns only the slice that
// unlocks while it waits out its cooldown. Admin changes that could redirect value (the flash
// policy; any config change but the two brakes) are queued behind `policy_delay`, which is always
// longer than `withdraw_cooldown`: every depositor can leave before they apply. Changes that only
// restrict (removing entries, a lower slippage bound, a lower cap) apply at once.
import {
  currentContract, del, expectAddress, extendInstanceTtl, extendTtl, fail, fromBool, fromU64, get,
  has, I128, INSTANCE, invoke, ledgerTimestamp, PERSISTENT, publish, put, requireAuth, Schema,
  symbol, tagOf, toU64, tokenBalance, tokenTransfer, valEq, variant0, variant1, vec1, vec2,
  vecOf, VOID, TAG_VOID, mapGet, vecContains, vecGet, vecLen, TAG_VEC_OBJ, expectTag, toU32,
} from "../../sdk/index";
import * as E from "../../common/assembly/vigil";
import {
  acceptAdmin, add, adminOrVoid, F_EXECUTORS, F_POOLS, F_ROUTERS, F_SLIPPAGE, F_TOKENS,
  initAdmin, MAX_SLIPPAGE_BPS, mulDiv, mulDivCeil, pendingAdminOrVoid, policySchema,
  proposeAdmin, dropAdmin, requireAdmin, sub,
} from "../../common/assembly/vigil";

/** Shares of the first deposit locked forever in the vault's own record. */
const MIN_LIQUIDITY: i64 = 1000;
/** Longest withdraw cooldown the admin may set: 7 days. */
const MAX_COOLDOWN: u64 = 7 * 86400;
/** Longest profit unlock and longest policy delay: 30 days. */
const MAX_UNLOCK: u64 = 30 * 86400;
const MAX_DELAY: u64 = 30 * 86400;
/** The policy delay is always at least this much longer than the withdraw cooldown. */
const DELAY_MARGIN: u64 = 3600;

// Stored books { active_liq, total_profit, total_shares, total_usdc } (the profit lock apart).
let STATE: Schema | null = null;
function stateSchema(): Schema {
  if (STATE == null) STATE = new Schema("active_liq,total_profit,total_shares,total_usdc");
  return STATE!;
}
const S_ACTIVE = 0;
const S_PROFIT = 1;
const S_SHARES = 2;
const S_USDC = 3;

// VaultState view { active_liq, locked_profit, total_profit, total_shares, total_usdc, unlock_end }
let VIEW: Schema | null = null;
function viewSchema(): Schema {
  if (VIEW == null) {
    VIEW = new Schema(
      "active_liq,locked_profit,total_profit,total_shares,total_usdc,unlock_end",
    );
  }
  return VIEW!;
}

// VaultConfig { deposit_cap, max_draw_per_keeper, min_fill_profit, policy_delay,
//               profit_unlock_secs, withdraw_cooldown }
let CONFIG: Schema | null = null;
function configSchema(): Schema {
  if (CONFIG == null) {
    CONFIG = new Schema(
      "deposit_cap,max_draw_per_keeper,min_fill_profit,policy_delay,profit_unlock_secs,withdraw_cooldown",
    );
  }
  return CONFIG!;
}
const C_CAP = 0;
const C_MAX_DRAW = 1;
const C_MIN_FILL = 2;
const C_DELAY = 3;
const C_UNLOCK = 4;
const C_COOLDOWN = 5;

// A queued change: PendingConfig { applies_at, config } / PendingFlashPolicy { applies_at, policy }.
let PCFG: Schema | null = null;
function pendingConfigSchema(): Schema {
  if (PCFG == null) PCFG = new Schema("applies_at,config");
  return PCFG!;
}
let PPOL: Schema | null = null;
function pendingPolicySchema(): Schema {
  if (PPOL == null) PPOL = new Schema("applies_at,policy");
  return PPOL!;
}

// ProfitLock { amount, from, until }: `amount` was locked at `from` and unlocks linearly until
// `until`.
let LOCK: Schema | null = null;
function lockSchema(): Schema {
  if (LOCK == null) LOCK = new Schema("amount,from,until");
  return LOCK!;
}

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

function keyUsdc(): u64 { return variant0("Usdc"); }
function keyRegistry(): u64 { return variant0("Registry"); }
function keyConfig(): u64 { return variant0("Config"); }
function keyState(): u64 { return variant0("State"); }
function keyLoss(): u64 { return variant0("TotalLoss"); }
function keyPolicy(): u64 { return variant0("FlashPolicy"); }
function keyPendingConfig(): u64 { return variant0("PendingConfig"); }
function keyPendingPolicy(): u64 { return variant0("PendingPolicy"); }
function keyLock(): u64 { return variant0("ProfitLock"); }
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
  if (!E.inI64(I128.fromVal(cfg[C_MIN_FILL]), 0)) fail(E.InvalidConfig);
  const cooldown = toU64(cfg[C_COOLDOWN]);
  if (cooldown > MAX_COOLDOWN) fail(E.InvalidConfig);
  if (toU64(cfg[C_UNLOCK]) > MAX_UNLOCK) fail(E.InvalidConfig);
  // Depositors must always be able to leave before a queued change applies.
  const delay = toU64(cfg[C_DELAY]);
  if (delay < cooldown + DELAY_MARGIN || delay > MAX_DELAY) fail(E.InvalidConfig);
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
  if (toU32(p[F_SLIPPAGE]) > MAX_SLIPPAGE_BPS) fail(E.InvalidConfig);
  if (
    !validAddressList(p[F_EXECUTORS]) || !validAddressList(p[F_POOLS]) ||
    !validAddressList(p[F_ROUTERS]) || !validAddressList(p[F_TOKENS])
  ) {
    fail(E.InvalidConfig);
  }
}

// --- queued admin changes. A pending change is "in force" from applies_at on; nothing runs at
// that moment, so readers compute it and the next admin call stores it.

/** The stored pending change's value when it is due (applies_at ≤ now), else VOID. */
function duePending(key: u64, schema: Schema): u64 {
  if (!has(key, INSTANCE)) return VOID;
  const p = schema.decode(get(key, INSTANCE));
  return ledgerTimestamp() >= toU64(p[0]) ? p[1] : VOID;
}

/** The pending change when it is still waiting (applies_at > now), else VOID. */
function waitingPending(key: u64, schema: Schema): u64 {
  if (!has(key, INSTANCE)) return VOID;
  const v = get(key, INSTANCE);
  return ledgerTimestamp() < toU64(schema.decode(v)[0]) ? v : VOID;
}

/** The config in force (raw struct Val). */
function configValInForce(): u64 {
  const due = duePending(keyPendingConfig(), pendingConfigSchema());
  return due != VOID ? due : get(keyConfig(), INSTANCE);
}

function loadConfig(): StaticArray<u64> {
  return configSchema().decode(configValInForce());
}

/** The flash policy in force (raw struct Val). */
function policyInForce(): u64 {
  const due = duePending(keyPendingPolicy(), pendingPolicySchema());
  return due != VOID ? due : get(keyPolicy(), INSTANCE);
}

/** Stores a due pending change as the current value (before the admin queues another one). */
function settle(pendingKey: u64, schema: Schema, currentKey: u64): void {
  const due = duePending(pendingKey, schema);
  if (due != VOID) put(currentKey, due, INSTANCE);
  if (has(pendingKey, INSTANCE) && due != VOID) del(pendingKey, INSTANCE);
}

function queue(pendingKey: u64, schema: Schema, value: u64, eventName: string): void {
  const appliesAt = ledgerTimestamp() + toU64(loadConfig()[C_DELAY]);
  const p = schema.values();
  p[0] = fromU64(appliesAt);
  p[1] = value;
  put(pendingKey, schema.encode(p), INSTANCE);
  event(eventName, VOID, vec2(value, fromU64(appliesAt)));
}

/** Every entry of `a` is in `b`. */
function subset(a: u64, b: u64): bool {
  const n = vecLen(a);
  for (let i: u32 = 0; i < n; i++) if (!vecContains(b, vecGet(a, i))) return false;
  return true;
}

/** The new policy only restricts the current one (fewer entries, a lower slippage bound). */
function onlyRestricts(next: StaticArray<u64>, cur: StaticArray<u64>): bool {
  return toU32(next[F_SLIPPAGE]) <= toU32(cur[F_SLIPPAGE]) &&
    subset(next[F_EXECUTORS], cur[F_EXECUTORS]) && subset(next[F_POOLS], cur[F_POOLS]) &&
    subset(next[F_ROUTERS], cur[F_ROUTERS]) && subset(next[F_TOKENS], cur[F_TOKENS]);
}

/** The new config only lowers the brakes (deposit_cap, max_draw_per_keeper); all else equal. */
function onlyBrakes(next: StaticArray<u64>, cur: StaticArray<u64>): bool {
  return !I128.fromVal(next[C_CAP]).gt(I128.fromVal(cur[C_CAP])) &&
    !I128.fromVal(next[C_MAX_DRAW]).gt(I128.fromVal(cur[C_MAX_DRAW])) &&
    I128.fromVal(next[C_MIN_FILL]).eq(I128.fromVal(cur[C_MIN_FILL])) &&
    toU64(next[C_DELAY]) == toU64(cur[C_DELAY]) && toU64(next[C_UNLOCK]) == toU64(cur[C_UNLOCK]) &&
    toU64(next[C_COOLDOWN]) == toU64(cur[C_COOLDOWN]);
}

// --- profit lock

class Lock {
  amount: I128 = I128.zero();
  from: u64 = 0;
  until: u64 = 0;
}

function loadLock(): Lock {
  const l = new Lock();
  if (!has(keyLock(), INSTANCE)) return l;
  const v = lockSchema().decode(get(keyLock(), INSTANCE));
  l.amount = I128.fromVal(v[0]);
  l.from = toU64(v[1]);
  l.until = toU64(v[2]);
  return l;
}

/** Profit still locked at `now`: ceil(amount · (until − now) / (until − from)), never rising. */
function lockedAt(l: Lock, now: u64): I128 {
  if (now >= l.until || l.amount.isZero()) return I128.zero();
  return mulDivCeil(l.amount, I128.of((l.until - now) as i64), I128.of((l.until - l.from) as i64));
}

/**
 * Locks a flash's profit: what is still locked and the new profit unlock together, linearly until
 * max(the old end, now + `unlockSecs`). No profit can unlock faster than over `unlockSecs` (an
 * amount-weighted end would let a new profit ride an old lock's nearly finished schedule), so a
 * depositor staying c seconds gets at most its share of (locked at entry + profit during its
 * stay) × c / `unlockSecs`. The unlocked total, and so the share price, is the same just before
 * and just after.
 */
function lockProfit(profit: I128, unlockSecs: u64): void {
  const now = ledgerTimestamp();
  const l = loadLock();
  const total = add(lockedAt(l, now), profit);
  if (total.isZero()) return;
  let until = now + unlockSecs;
  if (l.until > until) until = l.until;
  const v = lockSchema().values();
  v[0] = total.toVal();
  v[1] = fromU64(now);
  v[2] = fromU64(until);
  put(keyLock(), lockSchema().encode(v), INSTANCE);
}

/** Capital that prices shares: total_usdc less the profit still locked. */
function unlockedUsdc(s: State): I128 {
  return sub(s.usdc, lockedAt(loadLock(), ledgerTimestamp()));
}

function usdc(): u64 {
  return get(keyUsdc(), INSTANCE);
}

/** USDC the shares are worth now (unlocked capital only), floored (0 when there are none). */
function sharesToAssets(s: State, shares: I128): I128 {
  return s.shares.isZero() ? I128.zero() : mulDiv(shares, unlockedUsdc(s), s.shares);
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
  initAdmin(admin);
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

/**
 * Admin: a policy that only restricts the one in force applies now (and drops a queued one);
 * any other is queued and applies `policy_delay` seconds later (replacing a queued one).
 */
export function set_flash_policy(policy: u64): u64 {
  requireAdmin();
  validatePolicy(policy);
  settle(keyPendingPolicy(), pendingPolicySchema(), keyPolicy());
  const cur = policySchema().decode(get(keyPolicy(), INSTANCE));
  if (onlyRestricts(policySchema().decode(policy), cur)) {
    put(keyPolicy(), policy, INSTANCE);
    if (has(keyPendingPolicy(), INSTANCE)) del(keyPendingPolicy(), INSTANCE);
    event("set_flash_policy", VOID, policy);
  } else {
    queue(keyPendingPolicy(), pendingPolicySchema(), policy, "policy_queued");
  }
  bumpInstance();
  return VOID;
}

export function get_flash_policy(): u64 {
  return policyInForce();
}

export function get_pending_flash_policy(): u64 {
  return waitingPending(keyPendingPolicy(), pendingPolicySchema());
}

export function get_pending_config(): u64 {
  return waitingPending(keyPendingConfig(), pendingConfigSchema());
}

/** Admin: drops every queued change that has not applied yet. */
export function cancel_pending(): u64 {
  requireAdmin();
  settle(keyPendingPolicy(), pendingPolicySchema(), keyPolicy());
  settle(keyPendingConfig(), pendingConfigSchema(), keyConfig());
  const any = has(keyPendingPolicy(), INSTANCE) || has(keyPendingConfig(), INSTANCE);
  if (!any) fail(E.NothingPending);
  if (has(keyPendingPolicy(), INSTANCE)) del(keyPendingPolicy(), INSTANCE);
  if (has(keyPendingConfig(), INSTANCE)) del(keyPendingConfig(), INSTANCE);
  bumpInstance();
  event("pending_cancelled", VOID, VOID);
  return VOID;
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

/** Admin: no admin from now on; what is still queued is dropped, so nothing changes any more. */
export function renounce_admin(): u64 {
  // Authorized once: the admin is dropped below without a second require_auth.
  const admin = requireAdmin();
  settle(keyPendingPolicy(), pendingPolicySchema(), keyPolicy());
  settle(keyPendingConfig(), pendingConfigSchema(), keyConfig());
  const any = has(keyPendingPolicy(), INSTANCE) || has(keyPendingConfig(), INSTANCE);
  if (has(keyPendingPolicy(), INSTANCE)) del(keyPendingPolicy(), INSTANCE);
  if (has(keyPendingConfig(), INSTANCE)) del(keyPendingConfig(), INSTANCE);
  if (any) event("pending_cancelled", VOID, VOID);
  dropAdmin(admin);
  bumpInstance();
  return VOID;
}

export function set_registry(registry: u64): u64 {
  requireAdmin();
  if (has(keyRegistry(), INSTANCE)) fail(E.AlreadyInitialized);
  put(keyRegistry(), expectAddress(registry), INSTANCE);
  bumpInstance();
  event("set_registry", VOID, registry);
  return VOID;
}

/**
 * Admin: a config that only lowers deposit_cap and/or max_draw_per_keeper (the brakes) applies
 * now (and drops a queued config); any other is queued for `policy_delay` seconds.
 */
export function set_config(config: u64): u64 {
  requireAdmin();
  const next = configSchema().decode(config);
  validateConfig(next);
  settle(keyPendingConfig(), pendingConfigSchema(), keyConfig());
  const cur = configSchema().decode(get(keyConfig(), INSTANCE));
  // Shares minted under the cooldown in force until this applies unlock up to that cooldown
  // later: the new delay must let them leave before the next change too.
  if (toU64(next[C_DELAY]) < toU64(cur[C_COOLDOWN]) + DELAY_MARGIN) fail(E.InvalidConfig);
  if (onlyBrakes(next, cur)) {
    put(keyConfig(), config, INSTANCE);
    if (has(keyPendingConfig(), INSTANCE)) del(keyPendingConfig(), INSTANCE);
    event("set_config", VOID, config);
  } else {
    queue(keyPendingConfig(), pendingConfigSchema(), config, "config_queued");
  }
  bumpInstance();
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
    // Priced with unlocked capital: profit still locked is not for sale to a newcomer.
    const unlocked = unlockedUsdc(st);
    if (!unlocked.isPos()) fail(E.PoolInsolvent);
    minted = mulDiv(amt, st.shares, unlocked);
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
  const policy = policyInForce();
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
  if (profit.isPos()) lockProfit(profit, toU64(cfg[C_UNLOCK]));
  bumpInstance();

  // A fill counts on the leaderboard only when it booked at least min_fill_profit.
  const filled = !profit.lt(I128.fromVal(cfg[C_MIN_FILL]));
  const rec: StaticArray<u64> = [self, keeper, fromBool(filled), profit.toVal(), response_time_ms];
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
  const s = loadState();
  const l = loadLock();
  const locked = lockedAt(l, ledgerTimestamp());
  const v = viewSchema().values();
  v[0] = s.active.toVal();
  v[1] = locked.toVal();
  v[2] = s.profit.toVal();
  v[3] = s.shares.toVal();
  v[4] = s.usdc.toVal();
  v[5] = fromU64(locked.isZero() ? 0 : l.until);
  return viewSchema().encode(v);
}

export function get_config(): u64 {
  return configValInForce();
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


/** Cumulative realized losses: always 0 since flash (no loss path); kept for API stability. */
export function get_total_loss(): u64 {
  return has(keyLoss(), INSTANCE) ? get(keyLoss(), INSTANCE) : I128.zero().toVal();
}
