/**
 * The vault's Soroban interface (functions, structs, errors).
 *
 * Struct fields are listed in byte order of their names, which is how `#[contracttype]`
 * structs appear on the wire (ScMap keys sorted).
 *
 * @module
 */
import { defineSpec, T } from "../sdk.ts";
import { VIGIL_SPEC_ERRORS } from "../registry/errors.ts";

/** `VaultState`: the vault's books. */
export interface VaultState {
  /**
   * Capital out with keepers between transactions: always 0, because a flash lends and gets
   * repaid inside one invocation. Kept so the struct and API shapes stay.
   */
  active_liq: bigint;
  /** Cumulative realized profit: the vault balance increase of every flash. */
  total_profit: bigint;
  /** LP shares outstanding (including the locked minimum-liquidity shares). */
  total_shares: bigint;
  /** Capital owned by the vault, idle plus deployed. */
  total_usdc: bigint;
}

/** `VaultConfig`: bounded configuration. */
export interface VaultConfig {
  /** Upper bound of total_usdc after a deposit. */
  deposit_cap: bigint;
  /** Largest amount one flash may lend (0 = circuit breaker: no flash at all). */
  max_draw_per_keeper: bigint;
  /** Seconds newly minted shares stay locked. */
  withdraw_cooldown: bigint;
}

/** `Depositor`: one depositor's record. */
export interface Depositor {
  /** Cumulative USDC deposited. */
  deposited: bigint;
  first_deposit_at: bigint;
  last_deposit_at: bigint;
  /** Shares still inside their cooldown (withdrawable once ledger time ≥ unlock_at). */
  locked_shares: bigint;
  shares: bigint;
  /** When locked_shares unlock. */
  unlock_at: bigint;
  /** Cumulative USDC withdrawn. */
  withdrawn: bigint;
}

/** `DepositorBalance`: what `balance` returns. */
export interface DepositorBalance {
  shares: bigint;
  /** floor(shares * total_usdc / total_shares): what the shares are worth now. */
  usdc_value: bigint;
}

/**
 * `FlashPolicy`: what a flash may touch, set by the admin. The vault lends only to `executors`
 * and forwards the policy to the executor, which enforces `pools`, `routers` and the oracle-based
 * `max_slippage_bps` floor (contracts/README.md, "the profit belongs to depositors").
 */
export interface FlashPolicy {
  /** Executor contracts `flash` may call (Vigil's liquidator). */
  executors: string[];
  /** Largest shortfall of a swap's output below the pool oracle's value, in basis points. */
  max_slippage_bps: number;
  /** Lending pools a liquidation may use. */
  pools: string[];
  /** Swap routers (Soroswap ABI) a liquidation may use. */
  routers: string[];
}

/** Most entries of each FlashPolicy list. */
export const MAX_POLICY_ENTRIES = 16;

/** Shares minted on the first deposit that nobody can ever withdraw (0.0001 USDC at price 1). */
export const MIN_LIQUIDITY = 1_000n;

const A = T.address;

/** The vault spec. */
export const VAULT_SPEC = defineSpec({
  functions: [
    {
      name: "__constructor",
      doc:
        "Stores admin, USDC token, config and flash policy; the registry may be given now or once later (set_registry).",
      inputs: [
        ["admin", A],
        ["usdc", A],
        ["config", T.udt("VaultConfig")],
        ["registry", T.option(A)],
        ["policy", T.udt("FlashPolicy")],
      ],
    },
    {
      name: "set_registry",
      doc: "Admin only, once: stores the registry address when the constructor did not.",
      inputs: [["registry", A]],
    },
    {
      name: "set_config",
      doc: "Admin only: replaces the config within fixed bounds. Never moves funds.",
      inputs: [["config", T.udt("VaultConfig")]],
    },
    {
      name: "set_flash_policy",
      doc:
        "Admin only: replaces the flash policy (executors, pools, routers: at most 16 each; max_slippage_bps <= 10000). Never moves funds.",
      inputs: [["policy", T.udt("FlashPolicy")]],
    },
    {
      name: "get_flash_policy",
      doc: "The flash policy: allowed executors, pools, routers and the oracle slippage bound.",
      output: T.udt("FlashPolicy"),
    },
    {
      name: "deposit",
      doc:
        "Depositor auth. Moves amount USDC in, mints floor(amount*total_shares/total_usdc) shares; returns the shares minted.",
      inputs: [["depositor", A], ["amount", T.i128]],
      output: T.i128,
    },
    {
      name: "withdraw",
      doc:
        "Depositor auth. Burns shares (out of cooldown) for floor(shares*total_usdc/total_shares) USDC, limited to idle capital; returns the USDC paid.",
      inputs: [["depositor", A], ["shares", T.i128]],
      output: T.i128,
    },
    {
      name: "flash",
      doc:
        "Keeper auth; registered keeper with stake >= min_stake; executor in the flash policy (else ExecutorNotAllowed). Lends amount of idle USDC to the keeper account, calls executor.exec(keeper, vault, usdc, amount, data, policy), then requires the vault's USDC balance to be at least what it was (else FlashNotRepaid, everything reverts). The increase is depositors' profit. Returns the profit.",
      inputs: [
        ["keeper", A],
        ["executor", A],
        ["amount", T.i128],
        ["data", T.val],
        ["response_time_ms", T.u64],
      ],
      output: T.i128,
    },
    { name: "get_state", doc: "The vault's books.", output: T.udt("VaultState") },
    { name: "get_config", doc: "The vault configuration.", output: T.udt("VaultConfig") },
    {
      name: "get_depositor",
      doc: "The depositor's record (all zero for an address that holds no shares).",
      inputs: [["depositor", A]],
      output: T.udt("Depositor"),
    },
    {
      name: "balance",
      doc: "The depositor's shares and their current USDC value.",
      inputs: [["depositor", A]],
      output: T.udt("DepositorBalance"),
    },
    { name: "get_registry", doc: "The registry address, if wired.", output: T.option(A) },
    { name: "get_usdc", doc: "The USDC token contract.", output: A },
    {
      name: "get_admin",
      doc: "The admin address (bounded set_config, one-time set_registry).",
      output: A,
    },
    {
      name: "get_total_loss",
      doc:
        "Cumulative realized losses: always 0 since flash (no loss path remains); kept for API stability.",
      output: T.i128,
    },
  ],
  structs: {
    VaultState: [
      ["active_liq", T.i128],
      ["total_profit", T.i128],
      ["total_shares", T.i128],
      ["total_usdc", T.i128],
    ],
    VaultConfig: [
      ["deposit_cap", T.i128],
      ["max_draw_per_keeper", T.i128],
      ["withdraw_cooldown", T.u64],
    ],
    Depositor: [
      ["deposited", T.i128],
      ["first_deposit_at", T.u64],
      ["last_deposit_at", T.u64],
      ["locked_shares", T.i128],
      ["shares", T.i128],
      ["unlock_at", T.u64],
      ["withdrawn", T.i128],
    ],
    DepositorBalance: [
      ["shares", T.i128],
      ["usdc_value", T.i128],
    ],
    FlashPolicy: [
      ["executors", T.vec(A)],
      ["max_slippage_bps", T.u32],
      ["pools", T.vec(A)],
      ["routers", T.vec(A)],
    ],
  },
  errors: VIGIL_SPEC_ERRORS,
});
