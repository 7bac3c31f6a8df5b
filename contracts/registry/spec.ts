/**
 * The keeper registry's Soroban interface (functions, structs, errors).
 *
 * Struct fields are listed in byte order of their names, which is how `#[contracttype]`
 * structs appear on the wire (ScMap keys sorted).
 *
 * @module
 */
import { defineSpec, T } from "../sdk.ts";
import { VIGIL_SPEC_ERRORS } from "./errors.ts";

/** `RegistryConfig` as the contract stores and returns it. */
export interface RegistryConfig {
  min_stake: bigint;
  usdc_token: string;
}

/** `KeeperInfo`: one registered keeper. */
export interface KeeperInfo {
  /** Avg of response_time_ms over successful executions, floor(total/count); 0 with no samples. */
  avg_response_time_ms: bigint;
  name: string;
  operator: string;
  registered_at: bigint;
  /** Number of successful executions with a response time (the avg's denominator). */
  response_count: bigint;
  stake: bigint;
  successful_fills: bigint;
  total_executions: bigint;
  total_profit: bigint;
  /** Sum of response_time_ms over successful executions (the avg's numerator; u128: cannot overflow). */
  total_response_time_ms: bigint;
}

/** Most keepers the registry holds (keeps `get_keepers`' single list entry within entry-size limits). */
export const MAX_KEEPERS = 1000;

const A = T.address;

/** The registry spec. */
export const REGISTRY_SPEC = defineSpec({
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
      doc: "Registered operators, in registration order (swap-removed on deregister).",
      output: T.vec(A),
    },
    { name: "get_config", doc: "The registry configuration.", output: T.udt("RegistryConfig") },
    {
      name: "get_vault",
      doc: "The vault address allowed to call record_execution.",
      output: A,
    },
    { name: "get_admin", doc: "The admin address (bounded set_config only).", output: A },
    {
      name: "record_execution",
      doc:
        "Vault only (called by a settled flash): books one execution into the keeper's counters; response_time_ms is clamped to at most 3,600,000 (1 h).",
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
      ["min_stake", T.i128],
      ["usdc_token", A],
    ],
    KeeperInfo: [
      ["avg_response_time_ms", T.u64],
      ["name", T.string],
      ["operator", A],
      ["registered_at", T.u64],
      ["response_count", T.u64],
      ["stake", T.i128],
      ["successful_fills", T.u64],
      ["total_executions", T.u64],
      ["total_profit", T.i128],
      ["total_response_time_ms", T.u128],
    ],
  },
  errors: VIGIL_SPEC_ERRORS,
});
