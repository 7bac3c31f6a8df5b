/**
 * The keeper registry's Soroban interface (functions, structs, errors).
 *
 * Struct fields are listed in byte order of their names, which is how `#[contracttype]`
 * structs appear on the wire (ScMap keys sorted).
 *
 * @module
 */
import { defineSpec, type SpecDef, T } from "@vigil/soroban/spec_dsl";
import { VIGIL_SPEC_ERRORS } from "./errors.ts";

/** Most operators one `get_keepers` page returns (the list itself is unbounded). */
export const MAX_KEEPERS_PAGE = 100;

const A = T.address;

/**
 * The registry's interface as written (types and docs): `REGISTRY_SPEC` is what the Wasm embeds,
 * and `tools/gen_clients.ts` generates `contracts/clients/registry.ts` from this.
 */
export const REGISTRY_SPEC_DEF: SpecDef = {
  functions: [
    {
      name: "__constructor",
      doc: "Stores admin, config and the vault address. Validates the config bounds.",
      inputs: [["admin", A], ["config", T.udt("RegistryConfig")], ["vault", A]],
    },
    {
      name: "register",
      doc: "Registers operator (operator auth). Pulls exactly min_stake USDC into the registry.",
      inputs: [["operator", A], ["name", T.string]],
      output: T.udt("KeeperInfo"),
    },
    {
      name: "deregister",
      doc: "Removes operator (operator auth) and pays the whole stake back. Returns it.",
      inputs: [["operator", A]],
      output: T.i128,
    },
    {
      name: "get_keeper",
      doc: "The keeper's record, or NotRegistered.",
      inputs: [["operator", A]],
      output: T.udt("KeeperInfo"),
    },
    {
      name: "get_keepers",
      doc:
        "Registered operators at list indices [start, start + min(limit, 100)), in registration order (swap-removed on deregister). Page with get_keeper_count.",
      inputs: [["start", T.u32], ["limit", T.u32]],
      output: T.vec(A),
    },
    {
      name: "get_keeper_count",
      doc: "How many operators are registered (no cap).",
      output: T.u32,
    },
    { name: "get_config", doc: "The registry configuration.", output: T.udt("RegistryConfig") },
    {
      name: "get_vault",
      doc: "The vault address allowed to call record_execution.",
      output: A,
    },
    {
      name: "get_admin",
      doc: "The admin address (bounded set_config only); None after renounce_admin.",
      output: T.option(A),
    },
    {
      name: "get_pending_admin",
      doc: "The proposed next admin, if any (propose_admin, then accept_admin).",
      output: T.option(A),
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
      doc: "Admin only: removes the admin for good; every admin function is Unauthorized after it.",
    },
    {
      name: "record_execution",
      doc:
        "Vault only (called by a settled flash): books one execution into the keeper's counters (profit always; successful_fills and the self-reported response time, clamped to at most 3,600,000 ms, only when success); extends the registry's instance and code TTL.",
      inputs: [
        ["caller", A],
        ["keeper", A],
        ["success", T.bool],
        ["profit", T.i128],
        ["response_time_ms", T.u64],
      ],
    },
    {
      name: "set_config",
      doc: "Admin only: changes min_stake within [1, i64::MAX].",
      inputs: [["min_stake", T.i128]],
    },
  ],
  structs: {
    RegistryConfig: [
      [
        "min_stake",
        T.i128,
        "USDC a keeper stakes to register (pulled by `register`, paid back by `deregister`).",
      ],
      ["usdc_token", A, "The USDC token contract of the stake."],
    ],
    KeeperInfo: [
      [
        "avg_response_time_ms",
        T.u64,
        "Avg of response_time_ms over successful executions, floor(total/count); 0 with no samples.",
      ],
      ["name", T.string],
      ["operator", A],
      ["registered_at", T.u64],
      [
        "response_count",
        T.u64,
        "Number of successful executions with a response time (the avg's denominator).",
      ],
      ["stake", T.i128],
      ["successful_fills", T.u64],
      ["total_executions", T.u64],
      ["total_profit", T.i128],
      [
        "total_response_time_ms",
        T.u128,
        "Sum of response_time_ms over successful executions (the avg's numerator; u128: cannot overflow).",
      ],
    ],
  },
  errors: VIGIL_SPEC_ERRORS,
  docs: {
    RegistryConfig: "The registry's configuration as the contract stores and returns it.",
    KeeperInfo: "One registered keeper.",
  },
};

/** The registry spec (the Wasm's `contractspecv0`). */
export const REGISTRY_SPEC = defineSpec(REGISTRY_SPEC_DEF);
