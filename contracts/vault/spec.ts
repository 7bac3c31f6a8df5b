/**
 * The vault's Soroban interface (functions, structs, errors).
 *
 * Struct fields are listed in byte order of their names, which is how `#[contracttype]`
 * structs appear on the wire (ScMap keys sorted).
 *
 * @module
 */
import { defineSpec, type SpecDef, T } from "@vigil/soroban/spec_dsl";
import { VIGIL_SPEC_ERRORS } from "../registry/errors.ts";

/** Most entries of each FlashPolicy list. */
export const MAX_POLICY_ENTRIES = 16;

/** Largest `max_slippage_bps` a flash policy may set (10 %). */
export const MAX_SLIPPAGE_BPS = 1_000;

/** Shares minted on the first deposit that nobody can ever withdraw (0.0001 USDC at price 1). */
export const MIN_LIQUIDITY = 1_000n;

const A = T.address;

/**
 * The vault's interface as written (types and docs): `VAULT_SPEC` is what the Wasm embeds, and
 * `tools/gen_clients.ts` generates `contracts/clients/vault.ts` from this.
 */
export const VAULT_SPEC_DEF: SpecDef = {
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
      doc:
        "Admin only: a config that only lowers deposit_cap and/or max_draw_per_keeper applies now (dropping a queued config); any other change is queued and applies policy_delay seconds later. Bounds checked now. Never moves funds.",
      inputs: [["config", T.udt("VaultConfig")]],
    },
    {
      name: "set_flash_policy",
      doc:
        "Admin only: a policy that only removes entries and/or lowers max_slippage_bps applies now (dropping a queued policy); any other is queued and applies policy_delay seconds later. At most 16 entries per list; max_slippage_bps <= 1000. Never moves funds.",
      inputs: [["policy", T.udt("FlashPolicy")]],
    },
    {
      name: "get_flash_policy",
      doc:
        "The flash policy in force: allowed executors, pools, routers, hop tokens and the oracle slippage bound.",
      output: T.udt("FlashPolicy"),
    },
    {
      name: "get_pending_flash_policy",
      doc: "The queued flash policy and when it applies; None when nothing is waiting.",
      output: T.option(T.udt("PendingFlashPolicy")),
    },
    {
      name: "get_pending_config",
      doc: "The queued config and when it applies; None when nothing is waiting.",
      output: T.option(T.udt("PendingConfig")),
    },
    {
      name: "cancel_pending",
      doc:
        "Admin only: drops the queued flash policy and config that have not applied yet (NothingPending if none).",
    },
    {
      name: "propose_admin",
      doc: "Admin only: proposes new_admin; it becomes the admin when it calls accept_admin.",
      inputs: [["new_admin", A]],
    },
    {
      name: "accept_admin",
      doc: "The proposed admin's auth: it becomes the admin (NothingPending without a proposal).",
    },
    {
      name: "renounce_admin",
      doc:
        "Admin only: removes the admin for good and drops every queued change; every admin function is Unauthorized after it.",
    },
    {
      name: "get_pending_admin",
      doc: "The proposed next admin, if any.",
      output: T.option(A),
    },
    {
      name: "deposit",
      doc:
        "Depositor auth. Moves amount USDC in, mints floor(amount*total_shares/(total_usdc-locked_profit)) shares; returns the shares minted.",
      inputs: [["depositor", A], ["amount", T.i128]],
      output: T.i128,
    },
    {
      name: "withdraw",
      doc:
        "Depositor auth. Burns shares (out of cooldown) for floor(shares*(total_usdc-locked_profit)/total_shares) USDC; returns the USDC paid.",
      inputs: [["depositor", A], ["shares", T.i128]],
      output: T.i128,
    },
    {
      name: "flash",
      doc:
        "Keeper auth; registered keeper with stake >= min_stake; executor in the flash policy (else ExecutorNotAllowed). Lends amount of idle USDC to the keeper account, calls executor.exec(keeper, vault, usdc, amount, data, policy), then requires the vault's USDC balance to be at least what it was (else FlashNotRepaid, everything reverts). The increase is depositors' profit: it unlocks into the share price over profit_unlock_secs, and counts as the keeper's successful fill only if >= min_fill_profit. Returns the profit.",
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
      doc:
        "The admin address (queued set_config/set_flash_policy, one-time set_registry); None after renounce_admin.",
      output: T.option(A),
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
      [
        "active_liq",
        T.i128,
        "Capital out with keepers between transactions: always 0, because a flash lends and gets repaid inside one invocation. Kept so the struct and API shapes stay.",
      ],
      [
        "locked_profit",
        T.i128,
        "Flash profit not yet in the share price: it unlocks linearly until `unlock_end`. Shares are priced with `total_usdc - locked_profit`.",
      ],
      [
        "total_profit",
        T.i128,
        "Cumulative realized profit: the vault balance increase of every flash.",
      ],
      [
        "total_shares",
        T.i128,
        "LP shares outstanding (including the locked minimum-liquidity shares).",
      ],
      [
        "total_usdc",
        T.i128,
        "Capital owned by the vault (its USDC balance), locked profit included.",
      ],
      [
        "unlock_end",
        T.u64,
        "Ledger time at which `locked_profit` reaches 0 (0 when nothing is locked).",
      ],
    ],
    VaultConfig: [
      ["deposit_cap", T.i128, "Upper bound of total_usdc after a deposit."],
      [
        "max_draw_per_keeper",
        T.i128,
        "Largest amount one flash may lend (0 = circuit breaker: no flash at all).",
      ],
      [
        "min_fill_profit",
        T.i128,
        "Least profit for a flash to count as a keeper's successful fill (in [0, i64::MAX]).",
      ],
      [
        "policy_delay",
        T.u64,
        "Seconds a queued flash policy or config change waits before it applies: at least `withdraw_cooldown` + 3600, at most 30 days.",
      ],
      [
        "profit_unlock_secs",
        T.u64,
        "Seconds over which a flash's profit enters the share price (at most 30 days).",
      ],
      ["withdraw_cooldown", T.u64, "Seconds newly minted shares stay locked."],
    ],
    PendingConfig: [
      ["applies_at", T.u64, "Ledger time (s) from which it is in force."],
      ["config", T.udt("VaultConfig")],
    ],
    PendingFlashPolicy: [
      ["applies_at", T.u64, "Ledger time (s) from which it is in force."],
      ["policy", T.udt("FlashPolicy")],
    ],
    Depositor: [
      ["deposited", T.i128, "Cumulative USDC deposited."],
      ["first_deposit_at", T.u64],
      ["last_deposit_at", T.u64],
      [
        "locked_shares",
        T.i128,
        "Shares still inside their cooldown (withdrawable once ledger time ≥ unlock_at).",
      ],
      ["shares", T.i128],
      ["unlock_at", T.u64, "When locked_shares unlock."],
      ["withdrawn", T.i128, "Cumulative USDC withdrawn."],
    ],
    DepositorBalance: [
      ["shares", T.i128],
      [
        "usdc_value",
        T.i128,
        "floor(shares * (total_usdc - locked_profit) / total_shares): what the shares are worth now.",
      ],
    ],
    FlashPolicy: [
      ["executors", T.vec(A), "Executor contracts `flash` may call (Vigil's liquidator)."],
      [
        "max_slippage_bps",
        T.u32,
        "Largest shortfall of a swap's output below the pool oracle's value, in basis points.",
      ],
      ["pools", T.vec(A), "Lending pools a liquidation may use."],
      ["routers", T.vec(A), "Swap routers (Soroswap ABI) a liquidation may use."],
      [
        "tokens",
        T.vec(A),
        "Tokens a swap path may pass through between its first (lot asset) and last (USDC) token; a direct pair needs none.",
      ],
    ],
  },
  errors: VIGIL_SPEC_ERRORS,
  docs: {
    VaultState: "The vault's books.",
    VaultConfig: "Bounded configuration.",
    PendingConfig: "A queued config change and when it applies.",
    PendingFlashPolicy: "A queued flash policy and when it applies.",
    Depositor: "One depositor's record.",
    DepositorBalance: "What `balance` returns.",
    FlashPolicy:
      'What a flash may touch, set by the admin. The vault lends only to `executors` and forwards the policy to the executor, which enforces `pools`, `routers` and the oracle-based `max_slippage_bps` floor (contracts/README.md, "the profit belongs to depositors").',
  },
};

/** The vault spec (the Wasm's `contractspecv0`). */
export const VAULT_SPEC = defineSpec(VAULT_SPEC_DEF);
