/**
 * The error codes of Vigil's two contracts (vault and keeper registry).
 *
 * Both contracts share ONE numbering and both specs list the whole table, because errors cross
 * the contract boundary unchanged: when the vault's `draw` calls the registry's `get_keeper` and
 * that fails with `NotRegistered`, the vault's transaction fails with the registry's code. With a
 * shared table a vault client decodes it as `NotRegistered` too (Nectar's vault reused the
 * registry's codes 4/5/7 for other meanings, so its clients mis-decoded them).
 *
 * The codes start at 100 so they never collide with the Stellar Asset Contract's codes (2–15):
 * a token-transfer failure inside `register`/`deposit`/`return_proceeds` (e.g. `#10` balance)
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
} as const;

/** Name of an error code. */
export type VigilErrorName = keyof typeof VigilError;

/** Human messages (served as the error enum's docs, so clients show them). */
const MESSAGES: Record<VigilErrorName, string> = {
  NotInit: "contract is not wired: no registry (vault) or vault (registry) address stored",
  AlreadyInitialized: "one-time wiring was already done",
  Unauthorized: "caller is not the stored vault/registry/admin",
  NotRegistered: "keeper is not registered",
  AlreadyRegistered: "keeper is already registered",
  InvalidAmount: "amount out of range (negative, zero where positive is required)",
  InvalidConfig: "configuration value out of its allowed bounds",
  MathOverflow: "arithmetic result does not fit in i128",
  ActiveDraw: "keeper has an outstanding draw",
  NoActiveDraw: "keeper has no outstanding draw",
  SlashTooEarly: "slash_timeout has not passed since the oldest outstanding draw",
  StakeBelowMinimum: "keeper stake is below min_stake (slashed): cannot take new draws",
  InvalidName: "keeper name must be 1 to 64 bytes",
  RegistryFull: "the registry holds the maximum number of keepers",
  DepositCapExceeded: "deposit would take total_usdc above deposit_cap",
  WithdrawCooldown: "shares are still within withdraw_cooldown of their deposit",
  InsufficientShares: "withdrawal exceeds the depositor's shares",
  InsufficientLiquidity: "amount exceeds idle capital (total_usdc - active_liq)",
  DrawLimitExceeded: "keeper's outstanding draws would exceed max_draw_per_keeper",
  ZeroShares: "deposit too small: it would mint zero shares",
  ZeroPayout: "withdrawal too small: it would pay out zero USDC",
  PoolInsolvent: "pool has shares but no assets: deposits are refused",
};

/** The error table in `SpecDef.errors` form (shared by both contracts' specs). */
export const VIGIL_SPEC_ERRORS: Record<string, [number, string]> = Object.fromEntries(
  (Object.keys(VigilError) as VigilErrorName[]).map((k) => [k, [VigilError[k], MESSAGES[k]]]),
);
