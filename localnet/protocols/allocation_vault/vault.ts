/**
 * DeFindex vault stand-in (`paltalabs/defindex` `apps/contracts/vault`): the external allocation
 * vault (ALLOCATION_VAULT) whose own funds the keeper rebalances. It never touches Vigil's vault.
 *
 * Same functions, argument order, return shapes, roles, events (`("DeFindexVault", <symbol>)`)
 * and `ContractError` codes as the real vault for what a keeper and a depositor use:
 * `__constructor(assets, roles, vault_fee, defindex_protocol_receiver, defindex_protocol_rate,
 * soroswap_router, name_symbol, upgradable)`, `deposit`, `withdraw`, `fetch_total_managed_funds`,
 * `get_assets`, `get_asset_amounts_per_shares`, `get_fees`, `report`, role getters/setters
 * (`set_rebalance_manager` needs the Manager), `rebalance(caller, instructions)` with
 * `Unwind`/`Invest`/`SwapExactIn`/`SwapExactOut` (caller must be the RebalanceManager or the
 * Manager: 130 Unauthorized; empty list 125; amount <= 0 110; unwind above invested 128; paused
 * strategy 144/140), `rescue`, `pause_strategy`, `unpause_strategy`, `lock_fees`,
 * `release_fees`, `distribute_fees`, and the vault share token (`balance`, `transfer`,
 * `total_supply`, `decimals`, `name`, `symbol`).
 *
 * Stand-in limits: one asset per vault (the constructor traps otherwise), so `SwapExactIn/Out`
 * always fail with 116 UnsupportedAsset (both tokens must be vault assets); deposits with
 * `invest = true` follow the current strategy proportions (funds stay idle while nothing is
 * invested); strategies are pulled with `approve` + the strategy's `transfer_from` instead of
 * `authorize_as_current_contract` (see `strategy.ts`).
 *
 * Target weights are not an on-chain concept in DeFindex (a keeper derives drift from
 * `fetch_total_managed_funds`, by default against equal weights — `drift.ts`). As a documented
 * stand-in extension, `set_target_weights(caller, Map<strategy, bps>)` (Manager) and
 * `get_target_weights()` publish targets that a keeper may read when the vault has them.
 *
 * @module
 */
import {
  addr,
  type ContractModule,
  defineSpec,
  type Env,
  fail,
  str,
  sym,
  T,
  u32,
  variant,
} from "../../../contracts/sdk.ts";
import {
  big,
  getAddr,
  getTyped,
  getU32,
  setAddr,
  setTyped,
  setU32,
  tokenBalance,
  tokenTransfer,
  type UnionValue,
} from "../dex/common.ts";
import { SHARE_TOKEN_FUNCTIONS, shareLedger, transferShares } from "../dex/shares.ts";

/** The vault's `ContractError` codes. */
export const VAULT_ERRORS = {
  NotInitialized: 100,
  InvalidRatio: 101,
  StrategyDoesNotSupportAsset: 102,
  NoAssetAllocation: 103,
  RolesIncomplete: 104,
  MetadataIncomplete: 105,
  MaximumFeeExceeded: 106,
  DuplicatedStrategy: 108,
  AmountNotAllowed: 110,
  InsufficientBalance: 111,
  WrongAmountsLength: 112,
  InsufficientManagedFunds: 114,
  UnsupportedAsset: 116,
  InsufficientAmount: 117,
  NoOptimalAmounts: 118,
  ArithmeticError: 120,
  AmountOverTotalSupply: 124,
  NoInstructions: 125,
  NotUpgradable: 126,
  UnwindMoreThanAvailable: 128,
  InsufficientFeesToRelease: 129,
  Unauthorized: 130,
  RoleNotFound: 131,
  StrategyNotFound: 140,
  StrategyWithdrawError: 142,
  StrategyPaused: 144,
  InsufficientOutputAmount: 160,
} as const;
const E = VAULT_ERRORS;

const MINIMUM_LIQUIDITY = 1000n;
const MAX_BPS = 10_000n;

const ERRORS: Record<string, [number, string]> = {
  NotInitialized: [100, ""],
  InvalidRatio: [101, ""],
  StrategyDoesNotSupportAsset: [102, ""],
  NoAssetAllocation: [103, ""],
  RolesIncomplete: [104, ""],
  MetadataIncomplete: [105, ""],
  MaximumFeeExceeded: [106, ""],
  DuplicatedAsset: [107, ""],
  DuplicatedStrategy: [108, ""],
  AmountNotAllowed: [110, ""],
  InsufficientBalance: [111, ""],
  WrongAmountsLength: [112, ""],
  WrongLockedFees: [113, ""],
  InsufficientManagedFunds: [114, ""],
  MissingInstructionData: [115, ""],
  UnsupportedAsset: [116, ""],
  InsufficientAmount: [117, ""],
  NoOptimalAmounts: [118, ""],
  WrongInvestmentLength: [119, ""],
  ArithmeticError: [120, ""],
  Overflow: [121, ""],
  WrongAssetAddress: [122, ""],
  WrongStrategiesLength: [123, ""],
  AmountOverTotalSupply: [124, ""],
  NoInstructions: [125, ""],
  NotUpgradable: [126, ""],
  Underflow: [127, ""],
  UnwindMoreThanAvailable: [128, ""],
  InsufficientFeesToRelease: [129, ""],
  Unauthorized: [130, ""],
  RoleNotFound: [131, ""],
  ManagerNotInQueue: [132, ""],
  SetManagerBeforeTime: [133, ""],
  QueueEmpty: [134, ""],
  StrategyNotFound: [140, ""],
  StrategyPausedOrNotFound: [141, ""],
  StrategyWithdrawError: [142, ""],
  StrategyInvestError: [143, ""],
  StrategyPaused: [144, ""],
  AssetNotFound: [150, ""],
  NoAssetsProvided: [151, ""],
  InsufficientOutputAmount: [160, ""],
  ExcessiveInputAmount: [161, ""],
  InvalidFeeBps: [162, ""],
  LibrarySortIdenticalTokens: [190, ""],
  SoroswapRouterError: [200, ""],
  SwapExactInError: [201, ""],
  SwapExactOutError: [202, ""],
};

const spec = defineSpec({
  errorEnumName: "ContractError",
  errors: ERRORS,
  unions: {
    Instruction: [
      ["Unwind", T.address, T.i128],
      ["Invest", T.address, T.i128],
      ["SwapExactIn", T.address, T.address, T.i128, T.i128, T.u64],
      ["SwapExactOut", T.address, T.address, T.i128, T.i128, T.u64],
    ],
  },
  structs: {
    Strategy: [["address", T.address], ["name", T.string], ["paused", T.bool]],
    AssetStrategySet: [["address", T.address], ["strategies", T.vec(T.udt("Strategy"))]],
    StrategyAllocation: [["amount", T.i128], ["paused", T.bool], ["strategy_address", T.address]],
    CurrentAssetInvestmentAllocation: [
      ["asset", T.address],
      ["idle_amount", T.i128],
      ["invested_amount", T.i128],
      ["strategy_allocations", T.vec(T.udt("StrategyAllocation"))],
      ["total_amount", T.i128],
    ],
    AssetInvestmentAllocation: [
      ["asset", T.address],
      ["strategy_allocations", T.vec(T.option(T.udt("StrategyAllocation")))],
    ],
    Report: [["gains_or_losses", T.i128], ["locked_fee", T.i128], ["prev_balance", T.i128]],
    TokenMetadata: [["decimal", T.u32], ["name", T.string], ["symbol", T.string]],
    VaultDepositEvent: [
      ["amounts", T.vec(T.i128)],
      ["depositor", T.address],
      ["df_tokens_minted", T.i128],
      ["total_managed_funds_before", T.vec(T.udt("CurrentAssetInvestmentAllocation"))],
      ["total_supply_before", T.i128],
    ],
    VaultWithdrawEvent: [
      ["amounts_withdrawn", T.vec(T.i128)],
      ["df_tokens_burned", T.i128],
      ["total_managed_funds_before", T.vec(T.udt("CurrentAssetInvestmentAllocation"))],
      ["total_supply_before", T.i128],
      ["withdrawer", T.address],
    ],
    EmergencyWithdrawEvent: [
      ["amount_withdrawn", T.i128],
      ["caller", T.address],
      ["strategy_address", T.address],
    ],
    StrategyPausedEvent: [["caller", T.address], ["strategy_address", T.address]],
    StrategyUnpausedEvent: [["caller", T.address], ["strategy_address", T.address]],
    FeeReceiverChangedEvent: [["caller", T.address], ["new_fee_receiver", T.address]],
    ManagerChangedEvent: [["new_manager", T.address]],
    EmergencyManagerChangedEvent: [["new_emergency_manager", T.address]],
    RebalanceManagerChangedEvent: [["new_rebalance_manager", T.address]],
    FeesDistributedEvent: [["distributed_fees", T.vec(T.tuple(T.address, T.i128))]],
    UnwindEvent: [
      ["call_params", T.vec(T.tuple(T.address, T.i128, T.address))],
      ["rebalance_method", T.symbol],
      ["report", T.udt("Report")],
    ],
    InvestEvent: [
      ["asset_investments", T.vec(T.udt("AssetInvestmentAllocation"))],
      ["rebalance_method", T.symbol],
      ["report", T.udt("Report")],
    ],
  },
  functions: [
    {
      name: "__constructor",
      inputs: [
        ["assets", T.vec(T.udt("AssetStrategySet"))],
        ["roles", T.map(T.u32, T.address)],
        ["vault_fee", T.u32],
        ["defindex_protocol_receiver", T.address],
        ["defindex_protocol_rate", T.u32],
        ["soroswap_router", T.address],
        ["name_symbol", T.map(T.string, T.string)],
        ["upgradable", T.bool],
      ],
    },
    {
      name: "deposit",
      inputs: [
        ["amounts_desired", T.vec(T.i128)],
        ["amounts_min", T.vec(T.i128)],
        ["from", T.address],
        ["invest", T.bool],
      ],
      output: T.tuple(
        T.vec(T.i128),
        T.i128,
        T.option(T.vec(T.option(T.udt("AssetInvestmentAllocation")))),
      ),
    },
    {
      name: "withdraw",
      inputs: [["withdraw_shares", T.i128], ["min_amounts_out", T.vec(T.i128)], [
        "from",
        T.address,
      ]],
      output: T.vec(T.i128),
    },
    { name: "rescue", inputs: [["strategy_address", T.address], ["caller", T.address]] },
    { name: "pause_strategy", inputs: [["strategy_address", T.address], ["caller", T.address]] },
    { name: "unpause_strategy", inputs: [["strategy_address", T.address], ["caller", T.address]] },
    { name: "get_assets", output: T.vec(T.udt("AssetStrategySet")) },
    {
      name: "fetch_total_managed_funds",
      output: T.vec(T.udt("CurrentAssetInvestmentAllocation")),
    },
    {
      name: "get_asset_amounts_per_shares",
      inputs: [["vault_shares", T.i128]],
      output: T.vec(T.i128),
    },
    { name: "get_fees", output: T.tuple(T.u32, T.u32) },
    { name: "report", output: T.vec(T.udt("Report")) },
    {
      name: "set_fee_receiver",
      inputs: [["caller", T.address], ["new_fee_receiver", T.address]],
    },
    { name: "get_fee_receiver", output: T.address },
    { name: "set_manager", inputs: [["new_manager", T.address]] },
    { name: "get_manager", output: T.address },
    { name: "set_emergency_manager", inputs: [["emergency_manager", T.address]] },
    { name: "get_emergency_manager", output: T.address },
    { name: "set_rebalance_manager", inputs: [["new_rebalance_manager", T.address]] },
    { name: "get_rebalance_manager", output: T.address },
    {
      name: "rebalance",
      inputs: [["caller", T.address], ["instructions", T.vec(T.udt("Instruction"))]],
    },
    {
      name: "lock_fees",
      inputs: [["new_fee_bps", T.option(T.u32)]],
      output: T.vec(T.udt("Report")),
    },
    {
      name: "release_fees",
      inputs: [["strategy", T.address], ["amount", T.i128]],
      output: T.udt("Report"),
    },
    {
      name: "distribute_fees",
      inputs: [["caller", T.address]],
      output: T.vec(T.tuple(T.address, T.i128)),
    },
    {
      name: "set_target_weights",
      doc: "Stand-in extension (Manager): target bps per strategy, read by keepers for drift.",
      inputs: [["caller", T.address], ["weights", T.map(T.address, T.u32)]],
    },
    {
      name: "get_target_weights",
      doc: "Stand-in extension: target bps per strategy (empty when unset).",
      output: T.map(T.address, T.u32),
    },
    // Vault share token (SEP-41 subset).
    { name: "total_supply", output: T.i128 },
    ...SHARE_TOKEN_FUNCTIONS,
  ],
});

// ---------------------------------------------------------------------------------------------
// Storage
// ---------------------------------------------------------------------------------------------

/** Role ids of the constructor's `roles` map (and their `RolesDataKey` variants). */
export const ROLES = {
  EmergencyManager: 0,
  VaultFeeReceiver: 1,
  Manager: 2,
  RebalanceManager: 3,
} as const;
type Role = keyof typeof ROLES;

const K = {
  role: (r: Role) => variant(r),
  totalAssets: variant("TotalAssets"),
  asset: (i: number) => variant("AssetStrategySet", u32(i)),
  protocolReceiver: variant("DeFindexProtocolFeeReceiver"),
  protocolRate: variant("DeFindexProtocolFeeRate"),
  vaultFee: variant("VaultFee"),
  router: variant("SoroswapRouter"),
  upgradable: variant("IsUpgradable"),
  report: (s: string) => variant("Report", addr(s)),
  balance: (a: string) => variant("Balance", addr(a)),
  totalSupply: variant("TotalSupply"),
  metadata: sym("METADATA"),
  targets: variant("StandInTargets"),
};

interface Strategy {
  address: string;
  name: string;
  paused: boolean;
}
interface AssetStrategySet {
  address: string;
  strategies: Strategy[];
}
interface Report {
  gains_or_losses: bigint;
  locked_fee: bigint;
  prev_balance: bigint;
}
interface StrategyAllocation {
  amount: bigint;
  paused: boolean;
  strategy_address: string;
}
interface CurrentAlloc {
  asset: string;
  idle_amount: bigint;
  invested_amount: bigint;
  strategy_allocations: StrategyAllocation[];
  total_amount: bigint;
}

function role(env: Env, r: Role): string | undefined {
  return getAddr(env.storage.instance, K.role(r));
}

/** `check_role`: the role's address, or 131. */
function checkRole(env: Env, r: Role): string {
  return role(env, r) ?? fail(E.RoleNotFound);
}

/** `require_role`: the role holder must authorize. */
function requireRole(env: Env, r: Role): void {
  env.requireAuth(checkRole(env, r));
}

/** `require_any_role`: `caller` must hold one of the roles (else 130) and authorize. */
function requireAnyRole(env: Env, roles: Role[], caller: string): void {
  for (const r of roles) {
    if (role(env, r) === caller) {
      env.requireAuth(caller);
      return;
    }
  }
  fail(E.Unauthorized);
}

function assets(env: Env): AssetStrategySet[] {
  const n = getU32(env.storage.instance, K.totalAssets);
  const out: AssetStrategySet[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      getTyped<AssetStrategySet>(env, env.storage.instance, K.asset(i), T.udt("AssetStrategySet"))!,
    );
  }
  return out;
}

function setAsset(env: Env, i: number, a: AssetStrategySet): void {
  setTyped(env, env.storage.instance, K.asset(i), a, T.udt("AssetStrategySet"));
}

function getReport(env: Env, s: string): Report {
  return getTyped<Report>(env, env.storage.persistent, K.report(s), T.udt("Report")) ??
    { gains_or_losses: 0n, locked_fee: 0n, prev_balance: 0n };
}

function setReport(env: Env, s: string, r: Report): void {
  setTyped(env, env.storage.persistent, K.report(s), r, T.udt("Report"));
}

/** `Report::report`: books the change since the previous balance as gain or loss. */
function reportBalance(r: Report, current: bigint): void {
  const prev = r.prev_balance === 0n ? current : r.prev_balance;
  r.gains_or_losses = big(r.gains_or_losses) + (current - prev);
  r.prev_balance = current;
}

/** `Report::lock_fee`. */
function lockFee(r: Report, feeBps: number): void {
  r.locked_fee = big(r.locked_fee) + (big(r.gains_or_losses) * BigInt(feeBps)) / MAX_BPS;
  r.gains_or_losses = 0n;
}

function vaultFee(env: Env): number {
  return getU32(env.storage.instance, K.vaultFee);
}

/** Finds the asset holding a strategy (140 if none). */
function strategyAsset(env: Env, s: string): [number, AssetStrategySet] {
  const all = assets(env);
  for (let i = 0; i < all.length; i++) {
    if (all[i].strategies.some((x) => x.address === s)) return [i, all[i]];
  }
  return fail(E.StrategyNotFound);
}

/**
 * A strategy's invested funds net of locked fees. With `lock`, the report is updated and new
 * gains get their fee locked (`fetch_strategy_invested_funds(.., true)`).
 */
function strategyFunds(env: Env, s: string, lock: boolean): bigint {
  const bal = big(env.call(s, "balance", [env.currentContract]));
  const r = getReport(env, s);
  if (lock) {
    reportBalance(r, bal);
    if (big(r.gains_or_losses) > 0n) lockFee(r, vaultFee(env));
    setReport(env, s, r);
  }
  return bal - big(r.locked_fee);
}

function totalManagedFunds(env: Env, lock: boolean): CurrentAlloc[] {
  return assets(env).map((a) => {
    const idle = tokenBalance(env, a.address, env.currentContract);
    const allocs = a.strategies.map((s) => ({
      amount: strategyFunds(env, s.address, lock),
      paused: s.paused,
      strategy_address: s.address,
    }));
    const invested = allocs.reduce((t, x) => t + x.amount, 0n);
    return {
      asset: a.address,
      idle_amount: idle,
      invested_amount: invested,
      strategy_allocations: allocs,
      total_amount: idle + invested,
    };
  });
}

/** The vault share token's books (balances persistent, total supply in the instance). */
const dfTokens = shareLedger({
  balanceKey: K.balance,
  totalKey: K.totalSupply,
  totalTier: "instance",
  insufficient: () => fail(E.InsufficientBalance),
});

/** Moves idle `amount` of `asset` into `strategy` (approve + strategy.deposit); returns the report. */
function investIn(env: Env, asset: string, strategy: string, amount: bigint): Report {
  const me = env.currentContract;
  env.call(asset, "approve", [me, strategy, amount, env.ledger.sequence + 100]);
  const funds = big(env.call(strategy, "deposit", [amount, me]));
  const r = getReport(env, strategy);
  r.prev_balance = big(r.prev_balance) + amount;
  reportBalance(r, funds);
  setReport(env, strategy, r);
  return r;
}

/** Withdraws `amount` from `strategy` to `to` (142 when the strategy refuses). */
function unwindFrom(env: Env, strategy: string, amount: bigint, to: string): Report {
  const r = getReport(env, strategy);
  r.prev_balance = big(r.prev_balance) - amount;
  const res = env.tryCall(strategy, "withdraw", [amount, env.currentContract, to]);
  if (!res.ok) fail(E.StrategyWithdrawError);
  reportBalance(r, big(res.value));
  setReport(env, strategy, r);
  return r;
}

/** Pays out a strategy's locked fee to the fee receivers; returns the amount distributed. */
function distributeStrategyFees(env: Env, strategy: string, asset: string): bigint {
  const r = getReport(env, strategy);
  const locked = big(r.locked_fee);
  if (locked <= 0n) return 0n;
  const rate = BigInt(getU32(env.storage.instance, K.protocolRate));
  const protocolShare = (locked * rate) / MAX_BPS;
  const vaultShare = locked - protocolShare;
  unwindFrom(env, strategy, locked, env.currentContract);
  const after = getReport(env, strategy);
  after.locked_fee = 0n;
  setReport(env, strategy, after);
  if (protocolShare > 0n) {
    tokenTransfer(
      env,
      asset,
      env.currentContract,
      getAddr(env.storage.instance, K.protocolReceiver)!,
      protocolShare,
    );
  }
  if (vaultShare > 0n) {
    tokenTransfer(env, asset, env.currentContract, checkRole(env, "VaultFeeReceiver"), vaultShare);
  }
  return locked;
}

function setPaused(env: Env, strategy: string, paused: boolean): void {
  const [i, a] = strategyAsset(env, strategy);
  setAsset(env, i, {
    ...a,
    strategies: a.strategies.map((s) => s.address === strategy ? { ...s, paused } : s),
  });
}

const TOPIC = str("DeFindexVault");

function emit(env: Env, name: string, value: unknown, type: string): void {
  env.emit([TOPIC, sym(name)], env.toScVal(value, T.udt(type)));
}

function mapGet<V>(m: unknown, key: unknown): V | undefined {
  if (m instanceof Map) return m.get(key) as V | undefined;
  if (Array.isArray(m)) return (m.find(([k]) => k === key)?.[1]) as V | undefined;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

/** The DeFindex vault stand-in. */
export const allocationVault: ContractModule = {
  name: "allocation_vault",
  spec,
  functions: {
    __constructor(
      env,
      a: {
        assets: AssetStrategySet[];
        roles: unknown;
        vault_fee: number;
        defindex_protocol_receiver: string;
        defindex_protocol_rate: number;
        soroswap_router: string;
        name_symbol: unknown;
        upgradable: boolean;
      },
    ) {
      for (const r of Object.keys(ROLES) as Role[]) {
        const holder = mapGet<string>(a.roles, ROLES[r]) ?? fail(E.RolesIncomplete);
        setAddr(env.storage.instance, K.role(r), holder);
      }
      const name = mapGet<string>(a.name_symbol, "name") ?? fail(E.MetadataIncomplete);
      const symbol = mapGet<string>(a.name_symbol, "symbol") ?? fail(E.MetadataIncomplete);
      setU32(env.storage.instance, K.vaultFee, a.vault_fee);
      setAddr(env.storage.instance, K.protocolReceiver, a.defindex_protocol_receiver);
      if (a.defindex_protocol_rate > 9000) fail(E.MaximumFeeExceeded);
      setU32(env.storage.instance, K.protocolRate, a.defindex_protocol_rate);
      setTyped(env, env.storage.instance, K.upgradable, a.upgradable, T.bool);
      setAddr(env.storage.instance, K.router, a.soroswap_router);
      if (a.assets.length === 0) fail(E.NoAssetAllocation);
      if (a.assets.length !== 1) throw new Error("allocation vault stand-in: exactly one asset");
      setU32(env.storage.instance, K.totalAssets, a.assets.length);
      a.assets.forEach((asset, i) => {
        const seen = new Set<string>();
        for (const s of asset.strategies) {
          if (seen.has(s.address)) fail(E.DuplicatedStrategy);
          seen.add(s.address);
          if (env.call<string>(s.address, "asset") !== asset.address) {
            fail(E.StrategyDoesNotSupportAsset);
          }
        }
        setAsset(env, i, asset);
      });
      setTyped(env, env.storage.instance, K.metadata, {
        decimal: 7,
        name: `DeFindex-Vault-${name}`,
        symbol,
      }, T.udt("TokenMetadata"));
    },

    deposit(
      env,
      a: { amounts_desired: bigint[]; amounts_min: bigint[]; from: string; invest: boolean },
    ) {
      env.requireAuth(a.from);
      const funds = totalManagedFunds(env, true);
      if (a.amounts_desired.length !== funds.length || a.amounts_min.length !== funds.length) {
        fail(E.WrongAmountsLength);
      }
      const amount = big(a.amounts_desired[0]);
      if (amount <= 0n) fail(E.AmountNotAllowed);
      const supplyBefore = dfTokens.total(env);
      const shares = supplyBefore === 0n ? amount : (supplyBefore * amount) / funds[0].total_amount;
      if (amount < big(a.amounts_min[0])) fail(E.NoOptimalAmounts);
      tokenTransfer(env, funds[0].asset, a.from, env.currentContract, amount);
      if (shares <= 0n) fail(E.InsufficientAmount);
      if (supplyBefore === 0n) {
        if (shares < MINIMUM_LIQUIDITY) fail(E.InsufficientAmount);
        dfTokens.mint(env, env.currentContract, MINIMUM_LIQUIDITY);
        dfTokens.mint(env, a.from, shares - MINIMUM_LIQUIDITY);
      } else {
        dfTokens.mint(env, a.from, shares);
      }
      emit(env, "deposit", {
        amounts: [amount],
        depositor: a.from,
        df_tokens_minted: shares,
        total_managed_funds_before: funds,
        total_supply_before: supplyBefore,
      }, "VaultDepositEvent");

      if (!a.invest) return [[amount], shares, null];
      // Invest along the current proportions; nothing is invested while the vault is all idle.
      const asset = funds[0];
      if (asset.invested_amount <= 0n) return [[amount], shares, [null]];
      const allocations = asset.strategy_allocations.map((s) => {
        if (s.paused || s.amount <= 0n) return null;
        const part = (amount * s.amount) / asset.invested_amount;
        if (part <= 0n) return null;
        investIn(env, asset.asset, s.strategy_address, part);
        return { amount: part, paused: false, strategy_address: s.strategy_address };
      });
      return [[amount], shares, [{ asset: asset.asset, strategy_allocations: allocations }]];
    },

    withdraw(env, a: { withdraw_shares: bigint; min_amounts_out: bigint[]; from: string }) {
      env.requireAuth(a.from);
      const sharesIn = big(a.withdraw_shares);
      if (sharesIn <= 0n) fail(E.AmountNotAllowed);
      const funds = totalManagedFunds(env, true);
      if (a.min_amounts_out.length !== funds.length) fail(E.WrongAmountsLength);
      for (const m of a.min_amounts_out) if (big(m) < 0n) fail(E.AmountNotAllowed);
      const supply = dfTokens.total(env);
      if (sharesIn > supply) fail(E.AmountOverTotalSupply);
      dfTokens.burn(env, a.from, sharesIn);
      const out: bigint[] = [];
      funds.forEach((asset, i) => {
        const requested = (asset.total_amount * sharesIn) / supply;
        if (requested < big(a.min_amounts_out[i])) fail(E.InsufficientOutputAmount);
        if (asset.idle_amount >= requested) {
          tokenTransfer(env, asset.asset, env.currentContract, a.from, requested);
          out.push(requested);
          return;
        }
        if (asset.idle_amount > 0n) {
          tokenTransfer(env, asset.asset, env.currentContract, a.from, asset.idle_amount);
        }
        let paid = asset.idle_amount;
        const remaining = requested - asset.idle_amount;
        const n = asset.strategy_allocations.length;
        asset.strategy_allocations.forEach((s, j) => {
          const part = j === n - 1
            ? requested - paid
            : asset.invested_amount > 0n
            ? (remaining * s.amount) / asset.invested_amount
            : 0n;
          if (part > 0n) {
            unwindFrom(env, s.strategy_address, part, a.from);
            paid += part;
          }
        });
        out.push(paid);
      });
      emit(env, "withdraw", {
        amounts_withdrawn: out,
        df_tokens_burned: sharesIn,
        total_managed_funds_before: funds,
        total_supply_before: supply,
        withdrawer: a.from,
      }, "VaultWithdrawEvent");
      return out;
    },

    rescue(env, a: { strategy_address: string; caller: string }) {
      requireAnyRole(env, ["EmergencyManager", "Manager"], a.caller);
      const [, asset] = strategyAsset(env, a.strategy_address);
      const s = asset.strategies.find((x) => x.address === a.strategy_address && !x.paused) ??
        fail(E.StrategyNotFound);
      strategyFunds(env, s.address, true);
      distributeStrategyFees(env, s.address, asset.address);
      const bal = big(env.call(s.address, "balance", [env.currentContract]));
      if (bal > 0n) {
        unwindFrom(env, s.address, bal, env.currentContract);
        setReport(env, s.address, { gains_or_losses: 0n, locked_fee: 0n, prev_balance: 0n });
      }
      setPaused(env, s.address, true);
      emit(env, "rescue", {
        amount_withdrawn: bal,
        caller: a.caller,
        strategy_address: s.address,
      }, "EmergencyWithdrawEvent");
    },

    pause_strategy(env, a: { strategy_address: string; caller: string }) {
      requireAnyRole(env, ["EmergencyManager", "Manager"], a.caller);
      setPaused(env, a.strategy_address, true);
      emit(
        env,
        "paused",
        { caller: a.caller, strategy_address: a.strategy_address },
        "StrategyPausedEvent",
      );
    },

    unpause_strategy(env, a: { strategy_address: string; caller: string }) {
      requireAnyRole(env, ["EmergencyManager", "Manager"], a.caller);
      setPaused(env, a.strategy_address, false);
      emit(
        env,
        "unpaused",
        { caller: a.caller, strategy_address: a.strategy_address },
        "StrategyUnpausedEvent",
      );
    },

    get_assets: (env) => assets(env),
    fetch_total_managed_funds: (env) => totalManagedFunds(env, false),

    get_asset_amounts_per_shares(env, { vault_shares }: { vault_shares: bigint }) {
      const funds = totalManagedFunds(env, true);
      const supply = dfTokens.total(env);
      return funds.map((f) => supply === 0n ? 0n : (f.total_amount * big(vault_shares)) / supply);
    },

    get_fees: (env) => [vaultFee(env), getU32(env.storage.instance, K.protocolRate)],

    report(env) {
      const reports: Report[] = [];
      for (const a of assets(env)) {
        for (const s of a.strategies) {
          const r = getReport(env, s.address);
          reportBalance(r, big(env.call(s.address, "balance", [env.currentContract])));
          setReport(env, s.address, r);
          reports.push(r);
        }
      }
      return reports;
    },

    set_fee_receiver(env, a: { caller: string; new_fee_receiver: string }) {
      requireAnyRole(env, ["Manager", "VaultFeeReceiver"], a.caller);
      setAddr(env.storage.instance, K.role("VaultFeeReceiver"), a.new_fee_receiver);
      emit(
        env,
        "nreceiver",
        { caller: a.caller, new_fee_receiver: a.new_fee_receiver },
        "FeeReceiverChangedEvent",
      );
    },
    get_fee_receiver: (env) => checkRole(env, "VaultFeeReceiver"),

    set_manager(env, { new_manager }: { new_manager: string }) {
      requireRole(env, "Manager");
      setAddr(env.storage.instance, K.role("Manager"), new_manager);
      emit(env, "nmanager", { new_manager }, "ManagerChangedEvent");
    },
    get_manager: (env) => checkRole(env, "Manager"),

    set_emergency_manager(env, { emergency_manager }: { emergency_manager: string }) {
      requireRole(env, "Manager");
      setAddr(env.storage.instance, K.role("EmergencyManager"), emergency_manager);
      emit(
        env,
        "nemanager",
        { new_emergency_manager: emergency_manager },
        "EmergencyManagerChangedEvent",
      );
    },
    get_emergency_manager: (env) => checkRole(env, "EmergencyManager"),

    set_rebalance_manager(env, { new_rebalance_manager }: { new_rebalance_manager: string }) {
      requireRole(env, "Manager");
      setAddr(env.storage.instance, K.role("RebalanceManager"), new_rebalance_manager);
      emit(env, "rbmanager", { new_rebalance_manager }, "RebalanceManagerChangedEvent");
    },
    get_rebalance_manager: (env) => checkRole(env, "RebalanceManager"),

    rebalance(env, a: { caller: string; instructions: UnionValue[] }) {
      requireAnyRole(env, ["RebalanceManager", "Manager"], a.caller);
      if (a.instructions.length === 0) fail(E.NoInstructions);
      for (const ins of a.instructions) {
        const v = ins.values ?? [];
        switch (ins.tag) {
          case "Unwind": {
            const strategy = v[0] as string;
            const amount = big(v[1]);
            const [, asset] = strategyAsset(env, strategy);
            const invested = strategyFunds(env, strategy, true);
            if (amount <= 0n) fail(E.AmountNotAllowed);
            if (amount > invested) fail(E.UnwindMoreThanAvailable);
            distributeStrategyFees(env, strategy, asset.address);
            const report = unwindFrom(env, strategy, amount, env.currentContract);
            report.prev_balance = invested - amount;
            setReport(env, strategy, report);
            emit(env, "rebalance", {
              call_params: [[strategy, amount, env.currentContract]],
              rebalance_method: "unwind",
              report,
            }, "UnwindEvent");
            break;
          }
          case "Invest": {
            const strategy = v[0] as string;
            const amount = big(v[1]);
            const [, asset] = strategyAsset(env, strategy);
            const s = asset.strategies.find((x) => x.address === strategy)!;
            if (s.paused) fail(E.StrategyPaused);
            if (amount <= 0n) fail(E.AmountNotAllowed);
            const report = investIn(env, asset.address, strategy, amount);
            distributeStrategyFees(env, strategy, asset.address);
            emit(env, "rebalance", {
              asset_investments: [{
                asset: asset.address,
                strategy_allocations: [{ amount, paused: false, strategy_address: strategy }],
              }],
              rebalance_method: "invest",
              report,
            }, "InvestEvent");
            break;
          }
          case "SwapExactIn":
          case "SwapExactOut": {
            // Both tokens must be vault assets; a one-asset vault has no pair to swap.
            const [tokenIn, tokenOut] = [v[0] as string, v[1] as string];
            const list = assets(env).map((x) => x.address);
            if (!list.includes(tokenIn) || !list.includes(tokenOut) || tokenIn === tokenOut) {
              fail(E.UnsupportedAsset);
            }
            throw new Error("allocation vault stand-in: swaps need a multi-asset vault");
          }
          default:
            throw new Error(`unknown instruction ${ins.tag}`);
        }
      }
    },

    lock_fees(env, { new_fee_bps }: { new_fee_bps: number | null }) {
      requireRole(env, "Manager");
      if (new_fee_bps !== null && new_fee_bps !== undefined) {
        setU32(env.storage.instance, K.vaultFee, new_fee_bps);
      }
      const fee = vaultFee(env);
      const reports: Report[] = [];
      for (const a of assets(env)) {
        for (const s of a.strategies) {
          const r = getReport(env, s.address);
          if (big(r.gains_or_losses) > 0n) {
            lockFee(r, fee);
            setReport(env, s.address, r);
          }
          reports.push(r);
        }
      }
      return reports;
    },

    release_fees(env, a: { strategy: string; amount: bigint }) {
      const amount = big(a.amount);
      if (amount <= 0n) fail(E.AmountNotAllowed);
      requireRole(env, "Manager");
      const r = getReport(env, a.strategy);
      if (big(r.locked_fee) < amount) fail(E.InsufficientManagedFunds);
      r.locked_fee = big(r.locked_fee) - amount;
      r.gains_or_losses = big(r.gains_or_losses) + amount;
      setReport(env, a.strategy, r);
      return r;
    },

    distribute_fees(env, { caller }: { caller: string }) {
      requireAnyRole(env, ["Manager", "VaultFeeReceiver"], caller);
      const out: [string, bigint][] = [];
      for (const a of assets(env)) {
        let total = 0n;
        for (const s of a.strategies) total += distributeStrategyFees(env, s.address, a.address);
        if (total > 0n) out.push([a.address, total]);
      }
      emit(env, "dfees", { distributed_fees: out }, "FeesDistributedEvent");
      return out;
    },

    set_target_weights(env, a: { caller: string; weights: unknown }) {
      requireAnyRole(env, ["Manager"], a.caller);
      const entries: [string, number][] = a.weights instanceof Map
        ? [...a.weights.entries()]
        : (a.weights as [string, number][]);
      const known = new Set(assets(env).flatMap((x) => x.strategies.map((s) => s.address)));
      let sum = 0;
      for (const [strategy, bps] of entries) {
        if (!known.has(strategy)) fail(E.StrategyNotFound);
        sum += Number(bps);
      }
      if (sum > 10_000) fail(E.InvalidRatio);
      setTyped(env, env.storage.instance, K.targets, entries, T.map(T.address, T.u32));
    },
    get_target_weights: (env) =>
      getTyped(env, env.storage.instance, K.targets, T.map(T.address, T.u32)) ?? [],

    total_supply: (env) => dfTokens.total(env),
    balance: (env, { id }: { id: string }) => dfTokens.balance(env, id),
    // Booked as burn + mint (the total is rewritten unchanged), as this stand-in always has.
    transfer: (env, a: { from: string; to: string; amount: bigint }) =>
      transferShares(env, a, (from, to, amount) => {
        dfTokens.burn(env, from, amount);
        dfTokens.mint(env, to, amount);
      }),
    decimals: () => 7,
    name: (env) => metadata(env).name,
    symbol: (env) => metadata(env).symbol,
  },
};

function metadata(env: Env): { name: string; symbol: string } {
  return getTyped(env, env.storage.instance, K.metadata, T.udt("TokenMetadata"))!;
}
