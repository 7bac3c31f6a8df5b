/**
 * The allocation vault's Soroban interface: DeFindex's vault (`paltalabs/defindex`
 * `apps/contracts/vault`) for what a keeper and a depositor use — functions, argument order,
 * return shapes, structs, the `Instruction` union and the `ContractError` codes — plus the
 * target-weight extension. Source: `localnet/protocols/allocation_vault/contracts/allocation_vault/assembly/index.ts`.
 *
 * Struct fields are listed in byte order of their names (how `#[contracttype]` structs appear on
 * the wire). Every output is `Result<_, ContractError>`, as DeFindex declares them.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** DeFindex's `ContractError` (name → [code, message]). */
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

/** DeFindex's `ContractError` codes. */
export const VAULT_ERRORS = Object.fromEntries(
  Object.entries(ERRORS).map(([k, [code]]) => [k, code]),
) as Record<keyof typeof ERRORS, number>;

/** Role ids of the constructor's `roles` map (DeFindex's `RolesDataKey` order). */
export const ROLES = {
  EmergencyManager: 0,
  VaultFeeReceiver: 1,
  Manager: 2,
  RebalanceManager: 3,
} as const;

/** The vault's spec. */
export const ALLOCATION_VAULT_SPEC: xdr.ScSpecEntry[] = defineSpec({
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
      doc: "Extension to DeFindex (Manager): target bps per strategy, read by keepers for drift.",
      inputs: [["caller", T.address], ["weights", T.map(T.address, T.u32)]],
    },
    {
      name: "get_target_weights",
      doc: "Extension to DeFindex: target bps per strategy (empty when unset).",
      output: T.map(T.address, T.u32),
    },
    // Vault share token (SEP-41 subset).
    { name: "total_supply", output: T.i128 },
    { name: "balance", inputs: [["id", T.address]], output: T.i128 },
    {
      name: "transfer",
      doc: "from authorizes; moves vault shares (111 when short; a negative amount traps).",
      inputs: [["from", T.address], ["to", T.address], ["amount", T.i128]],
    },
    { name: "decimals", output: T.u32 },
    { name: "name", output: T.string },
    { name: "symbol", output: T.string },
  ],
});
