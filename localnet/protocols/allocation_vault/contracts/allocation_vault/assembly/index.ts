// The external allocation vault (ALLOCATION_VAULT) the keeper rebalances: DeFindex's vault
// (`paltalabs/defindex` `apps/contracts/vault`) for what a keeper and a depositor use, with its
// functions, argument order, return shapes, roles, events `(String("DeFindexVault"), Symbol)`
// and `ContractError` codes (interface: contracts/allocation_vault/spec.ts).
//
// Differences from DeFindex (kept from the TypeScript stand-in this replaces): one asset per
// vault (the constructor traps otherwise), so `SwapExactIn/Out` always fail with 116
// UnsupportedAsset; a deposit with `invest = true` follows the current strategy proportions
// (funds stay idle while nothing is invested); `set_target_weights`/`get_target_weights` publish
// target weights a keeper may read; no upgrade or manager queue.
//
// Shares round toward the vault: a deposit mints floor(amount × supply / total) shares, a
// withdrawal pays floor(total × shares / supply). The first deposit locks MINIMUM_LIQUIDITY
// shares in the vault itself.
//
// Storage (as the stand-in): instance `Vec[Symbol(<role>)]` → Address for EmergencyManager,
// VaultFeeReceiver, Manager, RebalanceManager; `TotalAssets` (u32); `AssetStrategySet(u32)` →
// AssetStrategySet; `DeFindexProtocolFeeReceiver`, `DeFindexProtocolFeeRate` (u32), `VaultFee`
// (u32), `SoroswapRouter`, `IsUpgradable` (bool), `TotalSupply` (i128), `StandInTargets` →
// Map<Address, u32>, Symbol(METADATA) → TokenMetadata; persistent `Report(Address)` → Report,
// `Balance(Address)` → i128 (vault shares).
import {
  addI128, asciiBytes, authorizeAsCurrentContract, currentContract, expectAddress, expectTag,
  extendInstanceTtl, extendTtl, fail, fromBool, fromU32, get, has, I128, INSTANCE, invoke,
  mapGet, mulDivFloor, PERSISTENT, publish, put, requireAuth, Schema, subI128, symbol as sym, tagOf,
  TAG_ERROR, TAG_MAP_OBJ, TAG_STRING_OBJ, TAG_U32, TAG_VEC_OBJ, toBool, tokenBalance,
  tokenTransfer, toU32, valEq, variant0, variant1, vec1, vec2, vecContains, vecGet, vecLen,
  vecOf, VOID,
} from "../../../../../../contracts/sdk/index";
import * as env from "../../../../../../contracts/sdk/env";

// Host functions the SDK does not declare (env.json), declared here rather than in the SDK: an
// SDK change would change the source hash, hence the bytes, of every other contract.
@external("d", "0") declare function try_call(contract: u64, func: u64, args: u64): u64;
@external("m", "_") declare function map_new(): u64;
@external("m", "0") declare function map_put(m: u64, k: u64, v: u64): u64;
@external("m", "4") declare function map_has(m: u64, k: u64): u64;
@external("m", "7") declare function map_keys(m: u64): u64;
@external("b", "g") declare function string_copy_to_linear_memory(s: u64, s_pos: u64, lm_pos: u64, len: u64): u64;
@external("b", "i") declare function string_new_from_linear_memory(lm_pos: u64, len: u64): u64;

// ContractError codes.
const NoAssetAllocation: u32 = 103;
const RolesIncomplete: u32 = 104;
const MetadataIncomplete: u32 = 105;
const MaximumFeeExceeded: u32 = 106;
const DuplicatedStrategy: u32 = 108;
const StrategyDoesNotSupportAsset: u32 = 102;
const InvalidRatio: u32 = 101;
const AmountNotAllowed: u32 = 110;
const InsufficientBalance: u32 = 111;
const WrongAmountsLength: u32 = 112;
const InsufficientManagedFunds: u32 = 114;
const UnsupportedAsset: u32 = 116;
const InsufficientAmount: u32 = 117;
const NoOptimalAmounts: u32 = 118;
const ArithmeticError: u32 = 120;
const Overflow: u32 = 121;
const AmountOverTotalSupply: u32 = 124;
const NoInstructions: u32 = 125;
const Underflow: u32 = 127;
const UnwindMoreThanAvailable: u32 = 128;
const Unauthorized: u32 = 130;
const RoleNotFound: u32 = 131;
const StrategyNotFound: u32 = 140;
const StrategyWithdrawError: u32 = 142;
const StrategyPaused: u32 = 144;
const InsufficientOutputAmount: u32 = 160;

/** Shares the first deposit locks in the vault (DeFindex's MINIMUM_LIQUIDITY). */
const MINIMUM_LIQUIDITY: i64 = 1000;
const MAX_BPS: i64 = 10000;
/** Largest fee rate (bps) the vault takes, as DeFindex caps the protocol rate. */
const MAX_FEE_BPS: u32 = 9000;
/** TTL policy (ledgers): an entry below ~30 days is extended to ~31 days. */
const TTL_THRESHOLD: u32 = 17280 * 30;
const TTL_EXTEND_TO: u32 = 17280 * 31;

// Roles (the constructor's `roles` map keys).
const ROLE_EMERGENCY: u32 = 0;
const ROLE_FEE_RECEIVER: u32 = 1;
const ROLE_MANAGER: u32 = 2;
const ROLE_REBALANCE: u32 = 3;

// --- struct layouts (fields in byte order)

let STRATEGY: Schema | null = null;
function strategySchema(): Schema {
  if (STRATEGY == null) STRATEGY = new Schema("address,name,paused");
  return STRATEGY!;
}
const S_ADDRESS = 0;
const S_NAME = 1;
const S_PAUSED = 2;

let ASSET_SET: Schema | null = null;
function assetSetSchema(): Schema {
  if (ASSET_SET == null) ASSET_SET = new Schema("address,strategies");
  return ASSET_SET!;
}

let REPORT: Schema | null = null;
function reportSchema(): Schema {
  if (REPORT == null) REPORT = new Schema("gains_or_losses,locked_fee,prev_balance");
  return REPORT!;
}

let ALLOC: Schema | null = null;
function allocSchema(): Schema {
  if (ALLOC == null) ALLOC = new Schema("amount,paused,strategy_address");
  return ALLOC!;
}

let CURRENT: Schema | null = null;
function currentSchema(): Schema {
  if (CURRENT == null) {
    CURRENT = new Schema(
      "asset,idle_amount,invested_amount,strategy_allocations,total_amount",
    );
  }
  return CURRENT!;
}

let INVESTMENT: Schema | null = null;
function investmentSchema(): Schema {
  if (INVESTMENT == null) INVESTMENT = new Schema("asset,strategy_allocations");
  return INVESTMENT!;
}

let METADATA: Schema | null = null;
function metadataSchema(): Schema {
  if (METADATA == null) METADATA = new Schema("decimal,name,symbol");
  return METADATA!;
}

// --- keys

function roleName(r: u32): string {
  if (r == ROLE_EMERGENCY) return "EmergencyManager";
  if (r == ROLE_FEE_RECEIVER) return "VaultFeeReceiver";
  if (r == ROLE_MANAGER) return "Manager";
  return "RebalanceManager";
}
function keyRole(r: u32): u64 { return variant0(roleName(r)); }
function keyTotalAssets(): u64 { return variant0("TotalAssets"); }
function keyAsset(i: u32): u64 { return variant1("AssetStrategySet", fromU32(i)); }
function keyProtocolReceiver(): u64 { return variant0("DeFindexProtocolFeeReceiver"); }
function keyProtocolRate(): u64 { return variant0("DeFindexProtocolFeeRate"); }
function keyVaultFee(): u64 { return variant0("VaultFee"); }
function keyRouter(): u64 { return variant0("SoroswapRouter"); }
function keyUpgradable(): u64 { return variant0("IsUpgradable"); }
function keyTotalSupply(): u64 { return variant0("TotalSupply"); }
function keyTargets(): u64 { return variant0("StandInTargets"); }
function keyMetadata(): u64 { return sym("METADATA"); }
function keyReport(s: u64): u64 { return variant1("Report", s); }
function keyBalance(a: u64): u64 { return variant1("Balance", a); }

// --- small helpers

/** The String Val of an ASCII literal. */
function str(s: string): u64 {
  return string_new_from_linear_memory(fromU32(asciiBytes(s) as u32), fromU32(s.length as u32));
}

/** `prefix` followed by the String `s`. */
function prefixed(prefix: string, s: u64): u64 {
  expectTag(s, TAG_STRING_OBJ);
  const n = toU32(env.string_len(s));
  const total = (prefix.length as u32) + n;
  const p = heap.alloc(total > 0 ? total : 1);
  for (let i = 0; i < prefix.length; i++) store<u8>(p + i, prefix.charCodeAt(i) as u8);
  string_copy_to_linear_memory(s, fromU32(0), fromU32((p as u32) + (prefix.length as u32)), fromU32(n));
  return string_new_from_linear_memory(fromU32(p as u32), fromU32(total));
}

function i128(v: u64): I128 {
  return I128.fromVal(v);
}

function plus(a: I128, b: I128): I128 {
  return addI128(a, b, Overflow);
}

function minus(a: I128, b: I128): I128 {
  return subI128(a, b, Underflow);
}

/** floor(a × b / c) (ArithmeticError when negative, c ≤ 0 or past i128). */
function mulDiv(a: I128, b: I128, c: I128): I128 {
  return mulDivFloor(a, b, c, ArithmeticError);
}

function u32Of(v: u64): u32 {
  return toU32(v);
}

function getU32(k: u64): u32 {
  return has(k, INSTANCE) ? toU32(get(k, INSTANCE)) : 0;
}

function bump(): void {
  extendInstanceTtl(TTL_THRESHOLD, TTL_EXTEND_TO);
}

function putPersistent(k: u64, v: u64): void {
  put(k, v, PERSISTENT);
  extendTtl(k, PERSISTENT, TTL_THRESHOLD, TTL_EXTEND_TO);
}

function emit(name: string, data: u64): void {
  publish(vec2(str("DeFindexVault"), sym(name)), data);
}

function vec3(a: u64, b: u64, c: u64): u64 {
  const v: StaticArray<u64> = [a, b, c];
  return vecOf(v);
}

// --- roles

function hasRole(r: u32): bool {
  return has(keyRole(r), INSTANCE);
}

/** `check_role`: the holder, or RoleNotFound. */
function checkRole(r: u32): u64 {
  if (!hasRole(r)) fail(RoleNotFound);
  return get(keyRole(r), INSTANCE);
}

/** `require_role`: the holder must authorize. */
function requireRole(r: u32): void {
  requireAuth(checkRole(r));
}

/** `require_any_role`: `caller` holds one of the roles (else Unauthorized) and authorizes. */
function requireAnyRole(a: u32, b: u32, caller: u64): void {
  expectAddress(caller);
  if ((hasRole(a) && valEq(get(keyRole(a), INSTANCE), caller)) ||
    (hasRole(b) && valEq(get(keyRole(b), INSTANCE), caller))) {
    requireAuth(caller);
    return;
  }
  fail(Unauthorized);
}

// --- assets and strategies

function assetCount(): u32 {
  return getU32(keyTotalAssets());
}

/** The stored AssetStrategySet i as [address, strategies Vec]. */
function loadAsset(i: u32): StaticArray<u64> {
  return assetSetSchema().decode(get(keyAsset(i), INSTANCE));
}

function storeAsset(i: u32, a: StaticArray<u64>): void {
  put(keyAsset(i), assetSetSchema().encode(a), INSTANCE);
}

function allAssets(): u64 {
  let out = env.vec_new();
  const n = assetCount();
  for (let i: u32 = 0; i < n; i++) out = env.vec_push_back(out, get(keyAsset(i), INSTANCE));
  return out;
}

/** Index of the asset holding `strategy` and the strategy's index in it; StrategyNotFound. */
function findStrategy(strategy: u64): StaticArray<u32> {
  const n = assetCount();
  for (let i: u32 = 0; i < n; i++) {
    const list = loadAsset(i)[1];
    const m = vecLen(list);
    for (let j: u32 = 0; j < m; j++) {
      if (valEq(strategySchema().decode(vecGet(list, j))[S_ADDRESS], strategy)) {
        const r = new StaticArray<u32>(2);
        r[0] = i;
        r[1] = j;
        return r;
      }
    }
  }
  fail(StrategyNotFound);
  return new StaticArray<u32>(2);
}

function strategyPaused(strategy: u64): bool {
  const at = findStrategy(strategy);
  return toBool(strategySchema().decode(vecGet(loadAsset(at[0])[1], at[1]))[S_PAUSED]);
}

function setPaused(strategy: u64, paused: bool): void {
  const at = findStrategy(strategy);
  const a = loadAsset(at[0]);
  const s = strategySchema().decode(vecGet(a[1], at[1]));
  s[S_PAUSED] = fromBool(paused);
  a[1] = env.vec_put(a[1], fromU32(at[1]), strategySchema().encode(s));
  storeAsset(at[0], a);
}

// --- reports

class Report {
  constructor(public gains: I128, public locked: I128, public prev: I128) {}

  toVal(): u64 {
    const v = reportSchema().values();
    v[0] = this.gains.toVal();
    v[1] = this.locked.toVal();
    v[2] = this.prev.toVal();
    return reportSchema().encode(v);
  }
}

function getReport(s: u64): Report {
  const k = keyReport(s);
  if (!has(k, PERSISTENT)) return new Report(I128.zero(), I128.zero(), I128.zero());
  const v = reportSchema().decode(get(k, PERSISTENT));
  return new Report(i128(v[0]), i128(v[1]), i128(v[2]));
}

function setReport(s: u64, r: Report): void {
  putPersistent(keyReport(s), r.toVal());
}

/** `Report::report`: books the change since the previous balance as gain or loss. */
function reportBalance(r: Report, current: I128): void {
  const prev = r.prev.isZero() ? current : r.prev;
  r.gains = plus(r.gains, minus(current, prev));
  r.prev = current;
}

/** `Report::lock_fee`: the fee share of the gains becomes locked (floor); gains reset. */
function lockFee(r: Report, feeBps: u32): void {
  r.locked = plus(r.locked, mulDiv(r.gains, I128.of(feeBps as i64), I128.of(MAX_BPS)));
  r.gains = I128.zero();
}

function vaultFee(): u32 {
  return getU32(keyVaultFee());
}

function strategyBalance(strategy: u64): I128 {
  return i128(invoke(strategy, "balance", vec1(currentContract())));
}

/**
 * A strategy's invested funds net of locked fees. With `lock`, the report is updated and new
 * gains get their fee locked (`fetch_strategy_invested_funds(.., true)`).
 */
function strategyFunds(strategy: u64, lock: bool): I128 {
  const bal = strategyBalance(strategy);
  const r = getReport(strategy);
  if (lock) {
    reportBalance(r, bal);
    if (r.gains.isPos()) lockFee(r, vaultFee());
    setReport(strategy, r);
  }
  return minus(bal, r.locked);
}

// --- managed funds

/** One asset's `CurrentAssetInvestmentAllocation`, kept decoded. */
class Funds {
  asset: u64 = 0;
  idle: I128 = I128.zero();
  invested: I128 = I128.zero();
  /** Strategy addresses, paused flags and amounts, in the asset's order. */
  strategies: u64[] = [];
  paused: bool[] = [];
  amounts: I128[] = [];

  total(): I128 {
    return plus(this.idle, this.invested);
  }

  toVal(): u64 {
    let allocs = env.vec_new();
    for (let j = 0; j < this.strategies.length; j++) {
      allocs = env.vec_push_back(allocs, allocation(this.amounts[j], this.paused[j], this.strategies[j]));
    }
    const v = currentSchema().values();
    v[0] = this.asset;
    v[1] = this.idle.toVal();
    v[2] = this.invested.toVal();
    v[3] = allocs;
    v[4] = this.total().toVal();
    return currentSchema().encode(v);
  }
}

function allocation(amount: I128, paused: bool, strategy: u64): u64 {
  const v = allocSchema().values();
  v[0] = amount.toVal();
  v[1] = fromBool(paused);
  v[2] = strategy;
  return allocSchema().encode(v);
}

function totalManagedFunds(lock: bool): Funds[] {
  const out: Funds[] = [];
  const n = assetCount();
  const self = currentContract();
  for (let i: u32 = 0; i < n; i++) {
    const a = loadAsset(i);
    const f = new Funds();
    f.asset = a[0];
    f.idle = tokenBalance(a[0], self);
    const m = vecLen(a[1]);
    for (let j: u32 = 0; j < m; j++) {
      const s = strategySchema().decode(vecGet(a[1], j));
      const amount = strategyFunds(s[S_ADDRESS], lock);
      f.strategies.push(s[S_ADDRESS]);
      f.paused.push(toBool(s[S_PAUSED]));
      f.amounts.push(amount);
      f.invested = plus(f.invested, amount);
    }
    out.push(f);
  }
  return out;
}

function fundsVal(funds: Funds[]): u64 {
  let v = env.vec_new();
  for (let i = 0; i < funds.length; i++) v = env.vec_push_back(v, funds[i].toVal());
  return v;
}

// --- vault shares (balances persistent, total supply in the instance)

function totalSupply(): I128 {
  return has(keyTotalSupply(), INSTANCE) ? i128(get(keyTotalSupply(), INSTANCE)) : I128.zero();
}

function sharesOf(a: u64): I128 {
  const k = keyBalance(a);
  return has(k, PERSISTENT) ? i128(get(k, PERSISTENT)) : I128.zero();
}

function mintShares(to: u64, amount: I128): void {
  putPersistent(keyBalance(to), plus(sharesOf(to), amount).toVal());
  put(keyTotalSupply(), plus(totalSupply(), amount).toVal(), INSTANCE);
}

function debitShares(from: u64, amount: I128): void {
  const have = sharesOf(from);
  if (have.lt(amount)) fail(InsufficientBalance);
  putPersistent(keyBalance(from), minus(have, amount).toVal());
}

function burnShares(from: u64, amount: I128): void {
  debitShares(from, amount);
  put(keyTotalSupply(), minus(totalSupply(), amount).toVal(), INSTANCE);
}

// --- moving funds

/**
 * Moves idle `amount` of `asset` into `strategy`: the strategy pulls it with
 * `asset.transfer(vault, strategy, amount)`, which this contract authorizes for that one call.
 */
function investIn(asset: u64, strategy: u64, amount: I128): Report {
  const self = currentContract();
  authorizeAsCurrentContract(vec1(contractAuth(asset, "transfer", vec3(self, strategy, amount.toVal()))));
  const funds = i128(invoke(strategy, "deposit", vec2(amount.toVal(), self)));
  const r = getReport(strategy);
  r.prev = plus(r.prev, amount);
  reportBalance(r, funds);
  setReport(strategy, r);
  return r;
}

// InvokerContractAuthEntry::Contract(SubContractInvocation { context: ContractContext
// { args, contract, fn_name }, sub_invocations }).
let CONTEXT: Schema | null = null;
function contextSchema(): Schema {
  if (CONTEXT == null) CONTEXT = new Schema("args,contract,fn_name");
  return CONTEXT!;
}
let SUBINV: Schema | null = null;
function subInvocationSchema(): Schema {
  if (SUBINV == null) SUBINV = new Schema("context,sub_invocations");
  return SUBINV!;
}

function contractAuth(contract: u64, fn: string, args: u64): u64 {
  const ctx = contextSchema().values();
  ctx[0] = args;
  ctx[1] = contract;
  ctx[2] = sym(fn);
  const sub = subInvocationSchema().values();
  sub[0] = contextSchema().encode(ctx);
  sub[1] = env.vec_new();
  return vec2(sym("Contract"), subInvocationSchema().encode(sub));
}

/** Withdraws `amount` from `strategy` to `to` (StrategyWithdrawError when it refuses). */
function unwindFrom(strategy: u64, amount: I128, to: u64): Report {
  const r = getReport(strategy);
  r.prev = minus(r.prev, amount);
  const res = try_call(strategy, sym("withdraw"), vec3(amount.toVal(), currentContract(), to));
  if (tagOf(res) == TAG_ERROR) fail(StrategyWithdrawError);
  reportBalance(r, i128(res));
  setReport(strategy, r);
  return r;
}

/** Pays a strategy's locked fee to the protocol and vault fee receivers; returns the amount. */
function distributeStrategyFees(strategy: u64, asset: u64): I128 {
  const r = getReport(strategy);
  const locked = r.locked;
  if (!locked.isPos()) return I128.zero();
  const rate = I128.of(getU32(keyProtocolRate()) as i64);
  const protocolShare = mulDiv(locked, rate, I128.of(MAX_BPS));
  const vaultShare = minus(locked, protocolShare);
  const self = currentContract();
  unwindFrom(strategy, locked, self);
  const after = getReport(strategy);
  after.locked = I128.zero();
  setReport(strategy, after);
  if (protocolShare.isPos()) {
    tokenTransfer(asset, self, get(keyProtocolReceiver(), INSTANCE), protocolShare);
  }
  if (vaultShare.isPos()) tokenTransfer(asset, self, checkRole(ROLE_FEE_RECEIVER), vaultShare);
  return locked;
}

// --- constructor

export function __constructor(
  assets: u64,
  roles: u64,
  vault_fee: u64,
  defindex_protocol_receiver: u64,
  defindex_protocol_rate: u64,
  soroswap_router: u64,
  name_symbol: u64,
  upgradable: u64,
): u64 {
  expectTag(roles, TAG_MAP_OBJ);
  for (let r: u32 = 0; r < 4; r++) {
    const k = fromU32(r);
    if (map_has(roles, k) != 1) fail(RolesIncomplete);
    put(keyRole(r), expectAddress(mapGet(roles, k)), INSTANCE);
  }
  expectTag(name_symbol, TAG_MAP_OBJ);
  const nameKey = str("name");
  const symbolKey = str("symbol");
  if (map_has(name_symbol, nameKey) != 1 || map_has(name_symbol, symbolKey) != 1) {
    fail(MetadataIncomplete);
  }
  const fee = u32Of(vault_fee);
  const rate = u32Of(defindex_protocol_rate);
  if (fee > MAX_FEE_BPS || rate > MAX_FEE_BPS) fail(MaximumFeeExceeded);
  put(keyVaultFee(), vault_fee, INSTANCE);
  put(keyProtocolReceiver(), expectAddress(defindex_protocol_receiver), INSTANCE);
  put(keyProtocolRate(), defindex_protocol_rate, INSTANCE);
  put(keyUpgradable(), fromBool(toBool(upgradable)), INSTANCE);
  put(keyRouter(), expectAddress(soroswap_router), INSTANCE);

  const n = vecLen(assets);
  if (n == 0) fail(NoAssetAllocation);
  if (n != 1) unreachable(); // one asset per vault (see the header)
  put(keyTotalAssets(), fromU32(n), INSTANCE);
  for (let i: u32 = 0; i < n; i++) {
    const a = assetSetSchema().decode(vecGet(assets, i));
    const asset = expectAddress(a[0]);
    const list = a[1];
    const m = vecLen(list);
    // Re-encoded field by field, so only well-formed strategies are stored.
    let clean = env.vec_new();
    let seen = env.vec_new();
    for (let j: u32 = 0; j < m; j++) {
      const s = strategySchema().decode(vecGet(list, j));
      const addr = expectAddress(s[S_ADDRESS]);
      expectTag(s[S_NAME], TAG_STRING_OBJ);
      s[S_PAUSED] = fromBool(toBool(s[S_PAUSED]));
      if (vecContains(seen, addr)) fail(DuplicatedStrategy);
      seen = env.vec_push_back(seen, addr);
      if (!valEq(invoke(addr, "asset", env.vec_new()), asset)) fail(StrategyDoesNotSupportAsset);
      clean = env.vec_push_back(clean, strategySchema().encode(s));
    }
    a[1] = clean;
    storeAsset(i, a);
  }
  const meta = metadataSchema().values();
  meta[0] = fromU32(7);
  meta[1] = prefixed("DeFindex-Vault-", mapGet(name_symbol, nameKey));
  meta[2] = expectTag(mapGet(name_symbol, symbolKey), TAG_STRING_OBJ);
  put(keyMetadata(), metadataSchema().encode(meta), INSTANCE);
  bump();
  return VOID;
}

// --- deposit and withdraw

function depositResult(amount: I128, shares: I128, invested: u64): u64 {
  return vec3(vec1(amount.toVal()), shares.toVal(), invested);
}

export function deposit(amounts_desired: u64, amounts_min: u64, from: u64, invest: u64): u64 {
  requireAuth(from);
  const investNow = toBool(invest);
  const funds = totalManagedFunds(true);
  if (vecLen(amounts_desired) != (funds.length as u32) || vecLen(amounts_min) != (funds.length as u32)) {
    fail(WrongAmountsLength);
  }
  const f = funds[0];
  const amount = i128(vecGet(amounts_desired, 0));
  if (!amount.isPos()) fail(AmountNotAllowed);
  const supplyBefore = totalSupply();
  // floor: the depositor gets no more than its share of the managed funds.
  const shares = supplyBefore.isZero() ? amount : mulDiv(supplyBefore, amount, f.total());
  if (amount.lt(i128(vecGet(amounts_min, 0)))) fail(NoOptimalAmounts);
  const self = currentContract();
  tokenTransfer(f.asset, from, self, amount);
  if (!shares.isPos()) fail(InsufficientAmount);
  if (supplyBefore.isZero()) {
    if (shares.lt(I128.of(MINIMUM_LIQUIDITY))) fail(InsufficientAmount);
    mintShares(self, I128.of(MINIMUM_LIQUIDITY));
    mintShares(from, minus(shares, I128.of(MINIMUM_LIQUIDITY)));
  } else {
    mintShares(from, shares);
  }
  bump();
  const ev = new Schema(
    "amounts,depositor,df_tokens_minted,total_managed_funds_before,total_supply_before",
  );
  const e = ev.values();
  e[0] = vec1(amount.toVal());
  e[1] = from;
  e[2] = shares.toVal();
  e[3] = fundsVal(funds);
  e[4] = supplyBefore.toVal();
  emit("deposit", ev.encode(e));

  if (!investNow) return depositResult(amount, shares, VOID);
  // Invest along the current proportions; nothing is invested while the vault is all idle.
  if (!f.invested.isPos()) return depositResult(amount, shares, vec1(VOID));
  let allocs = env.vec_new();
  for (let j = 0; j < f.strategies.length; j++) {
    let entry = VOID;
    if (!f.paused[j] && f.amounts[j].isPos()) {
      const part = mulDiv(amount, f.amounts[j], f.invested);
      if (part.isPos()) {
        investIn(f.asset, f.strategies[j], part);
        entry = allocation(part, false, f.strategies[j]);
      }
    }
    allocs = env.vec_push_back(allocs, entry);
  }
  const inv = investmentSchema().values();
  inv[0] = f.asset;
  inv[1] = allocs;
  return depositResult(amount, shares, vec1(investmentSchema().encode(inv)));
}

export function withdraw(withdraw_shares: u64, min_amounts_out: u64, from: u64): u64 {
  requireAuth(from);
  const sharesIn = i128(withdraw_shares);
  if (!sharesIn.isPos()) fail(AmountNotAllowed);
  const funds = totalManagedFunds(true);
  const k = vecLen(min_amounts_out);
  if (k != (funds.length as u32)) fail(WrongAmountsLength);
  for (let i: u32 = 0; i < k; i++) if (i128(vecGet(min_amounts_out, i)).isNeg()) fail(AmountNotAllowed);
  const supply = totalSupply();
  if (sharesIn.gt(supply)) fail(AmountOverTotalSupply);
  burnShares(from, sharesIn);
  const self = currentContract();
  let out = env.vec_new();
  for (let i = 0; i < funds.length; i++) {
    const f = funds[i];
    // floor: the withdrawer gets no more than its share.
    const requested = mulDiv(f.total(), sharesIn, supply);
    if (requested.lt(i128(vecGet(min_amounts_out, i as u32)))) fail(InsufficientOutputAmount);
    if (!f.idle.lt(requested)) {
      tokenTransfer(f.asset, self, from, requested);
      out = env.vec_push_back(out, requested.toVal());
      continue;
    }
    if (f.idle.isPos()) tokenTransfer(f.asset, self, from, f.idle);
    let paid = f.idle;
    const remaining = minus(requested, f.idle);
    const n = f.strategies.length;
    for (let j = 0; j < n; j++) {
      // Pro rata over the strategies; the last one covers the rounding.
      const part = j == n - 1
        ? minus(requested, paid)
        : f.invested.isPos()
        ? mulDiv(remaining, f.amounts[j], f.invested)
        : I128.zero();
      if (part.isPos()) {
        unwindFrom(f.strategies[j], part, from);
        paid = plus(paid, part);
      }
    }
    out = env.vec_push_back(out, paid.toVal());
  }
  bump();
  const ev = new Schema(
    "amounts_withdrawn,df_tokens_burned,total_managed_funds_before,total_supply_before,withdrawer",
  );
  const e = ev.values();
  e[0] = out;
  e[1] = sharesIn.toVal();
  e[2] = fundsVal(funds);
  e[3] = supply.toVal();
  e[4] = from;
  emit("withdraw", ev.encode(e));
  return out;
}

// --- emergency and strategy status

export function rescue(strategy_address: u64, caller: u64): u64 {
  requireAnyRole(ROLE_EMERGENCY, ROLE_MANAGER, caller);
  const at = findStrategy(strategy_address);
  if (strategyPaused(strategy_address)) fail(StrategyNotFound);
  const asset = loadAsset(at[0])[0];
  strategyFunds(strategy_address, true);
  distributeStrategyFees(strategy_address, asset);
  const bal = strategyBalance(strategy_address);
  if (bal.isPos()) {
    unwindFrom(strategy_address, bal, currentContract());
    setReport(strategy_address, new Report(I128.zero(), I128.zero(), I128.zero()));
  }
  setPaused(strategy_address, true);
  bump();
  const ev = new Schema("amount_withdrawn,caller,strategy_address");
  const e = ev.values();
  e[0] = bal.toVal();
  e[1] = caller;
  e[2] = strategy_address;
  emit("rescue", ev.encode(e));
  return VOID;
}

function pauseEvent(name: string, strategy: u64, caller: u64): void {
  const ev = new Schema("caller,strategy_address");
  const e = ev.values();
  e[0] = caller;
  e[1] = strategy;
  emit(name, ev.encode(e));
}

export function pause_strategy(strategy_address: u64, caller: u64): u64 {
  requireAnyRole(ROLE_EMERGENCY, ROLE_MANAGER, caller);
  setPaused(strategy_address, true);
  bump();
  pauseEvent("paused", strategy_address, caller);
  return VOID;
}

export function unpause_strategy(strategy_address: u64, caller: u64): u64 {
  requireAnyRole(ROLE_EMERGENCY, ROLE_MANAGER, caller);
  setPaused(strategy_address, false);
  bump();
  pauseEvent("unpaused", strategy_address, caller);
  return VOID;
}

// --- reads

export function get_assets(): u64 {
  return allAssets();
}

export function fetch_total_managed_funds(): u64 {
  return fundsVal(totalManagedFunds(false));
}

export function get_asset_amounts_per_shares(vault_shares: u64): u64 {
  const shares = i128(vault_shares);
  const funds = totalManagedFunds(true);
  const supply = totalSupply();
  let out = env.vec_new();
  for (let i = 0; i < funds.length; i++) {
    const v = supply.isZero() ? I128.zero() : mulDiv(funds[i].total(), shares, supply);
    out = env.vec_push_back(out, v.toVal());
  }
  return out;
}

export function get_fees(): u64 {
  return vec2(fromU32(vaultFee()), fromU32(getU32(keyProtocolRate())));
}

export function report(): u64 {
  let out = env.vec_new();
  const n = assetCount();
  for (let i: u32 = 0; i < n; i++) {
    const list = loadAsset(i)[1];
    const m = vecLen(list);
    for (let j: u32 = 0; j < m; j++) {
      const s = strategySchema().decode(vecGet(list, j))[S_ADDRESS];
      const r = getReport(s);
      reportBalance(r, strategyBalance(s));
      setReport(s, r);
      out = env.vec_push_back(out, r.toVal());
    }
  }
  return out;
}

// --- roles

export function set_fee_receiver(caller: u64, new_fee_receiver: u64): u64 {
  requireAnyRole(ROLE_MANAGER, ROLE_FEE_RECEIVER, caller);
  put(keyRole(ROLE_FEE_RECEIVER), expectAddress(new_fee_receiver), INSTANCE);
  bump();
  const ev = new Schema("caller,new_fee_receiver");
  const e = ev.values();
  e[0] = caller;
  e[1] = new_fee_receiver;
  emit("nreceiver", ev.encode(e));
  return VOID;
}

export function get_fee_receiver(): u64 {
  return checkRole(ROLE_FEE_RECEIVER);
}

function setRole(r: u32, holder: u64, event: string, field: string): void {
  requireRole(ROLE_MANAGER);
  put(keyRole(r), expectAddress(holder), INSTANCE);
  bump();
  const ev = new Schema(field);
  const e = ev.values();
  e[0] = holder;
  emit(event, ev.encode(e));
}

export function set_manager(new_manager: u64): u64 {
  setRole(ROLE_MANAGER, new_manager, "nmanager", "new_manager");
  return VOID;
}

export function get_manager(): u64 {
  return checkRole(ROLE_MANAGER);
}

export function set_emergency_manager(emergency_manager: u64): u64 {
  setRole(ROLE_EMERGENCY, emergency_manager, "nemanager", "new_emergency_manager");
  return VOID;
}

export function get_emergency_manager(): u64 {
  return checkRole(ROLE_EMERGENCY);
}

export function set_rebalance_manager(new_rebalance_manager: u64): u64 {
  setRole(ROLE_REBALANCE, new_rebalance_manager, "rbmanager", "new_rebalance_manager");
  return VOID;
}

export function get_rebalance_manager(): u64 {
  return checkRole(ROLE_REBALANCE);
}

// --- rebalance

function unwind(strategy: u64, amount: I128): void {
  const at = findStrategy(strategy);
  const asset = loadAsset(at[0])[0];
  const invested = strategyFunds(strategy, true);
  if (!amount.isPos()) fail(AmountNotAllowed);
  if (amount.gt(invested)) fail(UnwindMoreThanAvailable);
  distributeStrategyFees(strategy, asset);
  const self = currentContract();
  const r = unwindFrom(strategy, amount, self);
  r.prev = minus(invested, amount);
  setReport(strategy, r);
  const ev = new Schema("call_params,rebalance_method,report");
  const e = ev.values();
  e[0] = vec1(vec3(strategy, amount.toVal(), self));
  e[1] = sym("unwind");
  e[2] = r.toVal();
  emit("rebalance", ev.encode(e));
}

function investInstruction(strategy: u64, amount: I128): void {
  const at = findStrategy(strategy);
  const asset = loadAsset(at[0])[0];
  if (strategyPaused(strategy)) fail(StrategyPaused);
  if (!amount.isPos()) fail(AmountNotAllowed);
  const r = investIn(asset, strategy, amount);
  distributeStrategyFees(strategy, asset);
  const inv = investmentSchema().values();
  inv[0] = asset;
  inv[1] = vec1(allocation(amount, false, strategy));
  const ev = new Schema("asset_investments,rebalance_method,report");
  const e = ev.values();
  e[0] = vec1(investmentSchema().encode(inv));
  e[1] = sym("invest");
  e[2] = r.toVal();
  emit("rebalance", ev.encode(e));
}

export function rebalance(caller: u64, instructions: u64): u64 {
  requireAnyRole(ROLE_REBALANCE, ROLE_MANAGER, caller);
  const n = vecLen(instructions);
  if (n == 0) fail(NoInstructions);
  for (let i: u32 = 0; i < n; i++) {
    const ins = expectTag(vecGet(instructions, i), TAG_VEC_OBJ);
    const tag = vecGet(ins, 0);
    const len = vecLen(ins);
    if (tag == sym("Unwind") && len == 3) {
      unwind(expectAddress(vecGet(ins, 1)), i128(vecGet(ins, 2)));
    } else if (tag == sym("Invest") && len == 3) {
      investInstruction(expectAddress(vecGet(ins, 1)), i128(vecGet(ins, 2)));
    } else if ((valEq(tag, sym("SwapExactIn")) || valEq(tag, sym("SwapExactOut"))) && len == 6) {
      // Both tokens must be vault assets; a one-asset vault has no pair to swap.
      const tokenIn = expectAddress(vecGet(ins, 1));
      const tokenOut = expectAddress(vecGet(ins, 2));
      const list = assetAddresses();
      if (!vecContains(list, tokenIn) || !vecContains(list, tokenOut) || valEq(tokenIn, tokenOut)) {
        fail(UnsupportedAsset);
      }
      unreachable();
    } else {
      unreachable();
    }
  }
  bump();
  return VOID;
}

function assetAddresses(): u64 {
  let out = env.vec_new();
  const n = assetCount();
  for (let i: u32 = 0; i < n; i++) out = env.vec_push_back(out, loadAsset(i)[0]);
  return out;
}

// --- fees

export function lock_fees(new_fee_bps: u64): u64 {
  requireRole(ROLE_MANAGER);
  if (new_fee_bps != VOID) {
    if (u32Of(new_fee_bps) > MAX_FEE_BPS) fail(MaximumFeeExceeded);
    put(keyVaultFee(), new_fee_bps, INSTANCE);
  }
  const fee = vaultFee();
  let out = env.vec_new();
  const n = assetCount();
  for (let i: u32 = 0; i < n; i++) {
    const list = loadAsset(i)[1];
    const m = vecLen(list);
    for (let j: u32 = 0; j < m; j++) {
      const s = strategySchema().decode(vecGet(list, j))[S_ADDRESS];
      const r = getReport(s);
      if (r.gains.isPos()) {
        lockFee(r, fee);
        setReport(s, r);
      }
      out = env.vec_push_back(out, r.toVal());
    }
  }
  bump();
  return out;
}

export function release_fees(strategy: u64, amount: u64): u64 {
  const amt = i128(amount);
  if (!amt.isPos()) fail(AmountNotAllowed);
  requireRole(ROLE_MANAGER);
  findStrategy(strategy);
  const r = getReport(strategy);
  if (r.locked.lt(amt)) fail(InsufficientManagedFunds);
  r.locked = minus(r.locked, amt);
  r.gains = plus(r.gains, amt);
  setReport(strategy, r);
  bump();
  return r.toVal();
}

export function distribute_fees(caller: u64): u64 {
  requireAnyRole(ROLE_MANAGER, ROLE_FEE_RECEIVER, caller);
  let out = env.vec_new();
  const n = assetCount();
  for (let i: u32 = 0; i < n; i++) {
    const a = loadAsset(i);
    const m = vecLen(a[1]);
    let total = I128.zero();
    for (let j: u32 = 0; j < m; j++) {
      const s = strategySchema().decode(vecGet(a[1], j))[S_ADDRESS];
      total = plus(total, distributeStrategyFees(s, a[0]));
    }
    if (total.isPos()) out = env.vec_push_back(out, vec2(a[0], total.toVal()));
  }
  bump();
  const ev = new Schema("distributed_fees");
  const e = ev.values();
  e[0] = out;
  emit("dfees", ev.encode(e));
  return out;
}

// --- target weights (extension)

export function set_target_weights(caller: u64, weights: u64): u64 {
  requireAnyRole(ROLE_MANAGER, ROLE_MANAGER, caller);
  expectTag(weights, TAG_MAP_OBJ);
  const keys = map_keys(weights);
  const n = vecLen(keys);
  let sum: u64 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const s = expectAddress(vecGet(keys, i));
    findStrategy(s);
    const w = mapGet(weights, s);
    if (tagOf(w) != TAG_U32) unreachable();
    sum += toU32(w) as u64;
  }
  if (sum > (MAX_BPS as u64)) fail(InvalidRatio);
  put(keyTargets(), weights, INSTANCE);
  bump();
  return VOID;
}

export function get_target_weights(): u64 {
  return has(keyTargets(), INSTANCE) ? get(keyTargets(), INSTANCE) : map_new();
}

// --- vault share token (SEP-41 subset)

export function total_supply(): u64 {
  return totalSupply().toVal();
}

export function balance(id: u64): u64 {
  return sharesOf(expectAddress(id)).toVal();
}

export function transfer(from: u64, to: u64, amount: u64): u64 {
  const amt = i128(amount);
  requireAuth(from);
  expectAddress(to);
  if (amt.isNeg()) unreachable();
  debitShares(from, amt);
  putPersistent(keyBalance(to), plus(sharesOf(to), amt).toVal());
  bump();
  publish(vec3(sym("transfer"), from, to), amt.toVal());
  return VOID;
}

export function decimals(): u64 {
  return fromU32(7);
}

function metadataField(i: i32): u64 {
  return metadataSchema().decode(get(keyMetadata(), INSTANCE))[i];
}

export function name(): u64 {
  return metadataField(1);
}

export function symbol(): u64 {
  return metadataField(2);
}
