/**
 * The error codes of Vigil's two contracts (vault and keeper registry).
 *
 * Both contracts share ONE numbering and both specs list the whole table, because errors cross
 * the contract boundary unchanged: when the vault's `flash` calls the registry's `get_keeper` and
 * that fails with `NotRegistered`, the vault's transaction fails with the registry's code. With a
 * shared table a vault client decodes it as `NotRegistered` too (Nectar's vault reused the
 * registry's codes 4/5/7 for other meanings, so its clients mis-decoded them).
 *
 * The codes start at 100 so they never collide with the Stellar Asset Contract's codes (2–15):
 * a token-transfer failure inside `register`/`deposit`/`flash` (e.g. `#10` balance)
 * surfaces as `Error(Contract, #10)`, which is then NOT one of our typed errors and a
 * `contract.Client` reports it as a host error, as the spec requires.
 *
 * Codes are stable: never renumber, only append.
 *
 * @module
 */

/** Error code by name. */
export const VigilError = {
  // Wiring and access (100–109)
  NotInit: 101,
  AlreadyInitialized: 102,
  Unauthorized: 103,
  NotRegistered: 104,
  AlreadyRegistered: 105,
  InvalidAmount: 106,
  InvalidConfig: 107,
  MathOverflow: 108,
  NothingPending: 109,
  // Registry (120–139)
  ActiveDraw: 120,
  NoActiveDraw: 121,
  SlashTooEarly: 122,
  StakeBelowMinimum: 123,
  InvalidName: 124,
  RegistryFull: 125,
  // Vault (140–159)
  DepositCapExceeded: 140,
  WithdrawCooldown: 141,
  InsufficientShares: 142,
  InsufficientLiquidity: 143,
  DrawLimitExceeded: 144,
  ZeroShares: 145,
  ZeroPayout: 146,
  PoolInsolvent: 147,
  FlashNotRepaid: 148,
  ExecutorNotAllowed: 149,
  // Liquidator executor (160–179)
  LiquidationShortfall: 160,
  InvalidPlan: 161,
  NotAllowed: 162,
  PositionsChanged: 163,
  PriceUnavailable: 164,
  SwapBelowFloor: 165,
  SwapAboveCeiling: 166,
  BelowMinProfit: 167,
} as const;

/**
 * Codes no contract raises any more (issue 12 removed draws, slashing and the draw timer; issue 20
 * removed the registry's keeper cap). They stay in the table so that a number is never reused for
 * another meaning.
 */
export const RETIRED_ERRORS: readonly VigilErrorName[] = [
  "ActiveDraw",
  "NoActiveDraw",
  "SlashTooEarly",
  "RegistryFull",
];

/** Name of an error code. */
export type VigilErrorName = keyof typeof VigilError;

/** Human messages (served as the error enum's docs, so clients show them). */
const MESSAGES: Record<VigilErrorName, string> = {
  NotInit: "contract is not wired: no registry (vault) or vault (registry) address stored",
  AlreadyInitialized: "one-time wiring was already done",
  Unauthorized:
    "caller is not the stored vault/registry/admin (or the admin renounced: no admin function works)",
  NotRegistered: "keeper is not registered",
  AlreadyRegistered: "keeper is already registered",
  InvalidAmount: "amount out of range (negative, zero where positive is required)",
  InvalidConfig: "configuration value out of its allowed bounds",
  MathOverflow: "arithmetic result does not fit in i128",
  NothingPending: "nothing is pending: no proposed admin to accept, or no queued change to cancel",
  ActiveDraw: "retired (issue 12): draws no longer exist",
  NoActiveDraw: "retired (issue 12): draws and slashing no longer exist",
  SlashTooEarly: "retired (issue 12): slashing no longer exists",
  StakeBelowMinimum: "keeper stake is below min_stake (the admin raised it): cannot flash",
  InvalidName: "keeper name must be 1 to 64 bytes",
  RegistryFull: "retired (issue 20): the registry has no keeper cap",
  DepositCapExceeded: "deposit would take total_usdc above deposit_cap",
  WithdrawCooldown: "shares are still within withdraw_cooldown of their deposit",
  InsufficientShares: "withdrawal exceeds the depositor's shares",
  InsufficientLiquidity: "amount exceeds idle capital (total_usdc)",
  DrawLimitExceeded: "flash amount exceeds max_draw_per_keeper (0 stops all flashes)",
  ZeroShares: "deposit too small: it would mint zero shares",
  ZeroPayout: "withdrawal too small: it would pay out zero USDC",
  PoolInsolvent: "pool has shares but no assets: deposits are refused",
  FlashNotRepaid: "the vault's USDC balance is lower after the flash than before it",
  ExecutorNotAllowed:
    "the flash executor is not in the vault's flash policy (admin-listed executors)",
  LiquidationShortfall: "the liquidation produced less USDC than it spent: nothing to repay with",
  InvalidPlan:
    "liquidation plan not allowed: request type, swap kind, path, a lot or bought asset without exactly one swap leg, or a non-USDC repaid asset without exactly one buy leg",
  NotAllowed:
    "the plan's pool, a swap or buy router or a path's intermediate token is not in the vault's flash policy",
  PositionsChanged:
    "the keeper's positions in the pool differ after the liquidation (value kept in the pool)",
  PriceUnavailable: "the pool's oracle has no price for a lot asset or USDC",
  SwapBelowFloor:
    "a swap returned less USDC to the liquidator than its floor (oracle value less max_slippage_bps, or the keeper's min_out), or a buy delivered less than its amount_out",
  SwapAboveCeiling:
    "a buy of a non-USDC bid asset would cost more USDC than its ceiling (the keeper's max_in, or the oracle value of amount_out plus max_slippage_bps)",
  BelowMinProfit:
    "the oracle value of the lot the fill moved is below min_ratio_bps of the bid it paid, at the prices in force when the flash executed",
};

/** The error table in `SpecDef.errors` form (shared by both contracts' specs). */
export const VIGIL_SPEC_ERRORS: Record<string, [number, string]> = Object.fromEntries(
  (Object.keys(VigilError) as VigilErrorName[]).map((k) => [k, [VigilError[k], MESSAGES[k]]]),
);
