/**
 * Vigil's keeper registry: keeper directory, staking and performance counters. See
 * `contracts/README.md` for the full contract documentation.
 *
 * Issue 12 removed draws from the vault (a flash is repaid inside its own invocation), and with
 * them `mark_draw`, `clear_draw`, `slash` and the draw timer: nothing can be outstanding, so there
 * is nothing to slash. `deregister` pays the whole stake back at any time. `record_execution` is
 * called only by a settled flash and clamps the self-reported response time to one hour.
 *
 * @module
 */
import {
  addr,
  bool,
  type ContractModule,
  type Env,
  fail,
  i128,
  str,
  sym,
  T,
  u64,
  vec,
} from "../sdk.ts";
import type { xdr } from "@stellar/stellar-sdk";
import { VigilError as E } from "./errors.ts";
import { type KeeperInfo, REGISTRY_SPEC, type RegistryConfig } from "./spec.ts";
import * as S from "./storage.ts";
import { I64_MAX, saturatingAdd, U128_MAX, U64_MAX } from "../vault/math.ts";

export type { KeeperInfo, RegistryConfig } from "./spec.ts";
export { REGISTRY_SPEC } from "./spec.ts";

/** Bounds of the registry's configuration (constructor and admin `set_config`). */
export const REGISTRY_BOUNDS = {
  minStake: { min: 1n, max: I64_MAX },
} as const;

/** Largest response time `record_execution` books (1 h); larger reports are clamped to it. */
export const MAX_RESPONSE_TIME_MS = 3_600_000n;

/** Most keepers the registry holds (keeps `get_keepers`' single list entry within entry-size limits). */
export const MAX_KEEPERS = 1000;
/** Longest keeper name, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 64;

function validateConfig(c: RegistryConfig): void {
  const b = REGISTRY_BOUNDS;
  if (c.min_stake < b.minStake.min || c.min_stake > b.minStake.max) fail(E.InvalidConfig);
}

/** Fails unless `caller` is the stored vault AND authorized this call (the invoker rule). */
function requireVault(env: Env, caller: string): void {
  const vault = S.getVault(env);
  if (vault === undefined) fail(E.NotInit);
  if (caller !== vault) fail(E.Unauthorized);
  env.requireAuth(caller);
}

function mustGetKeeper(env: Env, operator: string): KeeperInfo {
  const info = S.getKeeper(env, operator);
  if (info === undefined) fail(E.NotRegistered);
  return info;
}

function emit(env: Env, name: string, subject: string | undefined, data: xdr.ScVal): void {
  env.emit(subject === undefined ? [sym(name)] : [sym(name), addr(subject)], data);
}

function __constructor(env: Env, a: { admin: string; config: RegistryConfig; vault: string }) {
  validateConfig(a.config);
  S.setAdmin(env, a.admin);
  S.setConfig(env, a.config);
  S.setVault(env, a.vault);
  S.bumpInstance(env);
  env.emit(
    [sym("init")],
    vec(addr(a.admin), addr(a.vault), env.toScVal(a.config, T.udt("RegistryConfig"))),
  );
}

function register(env: Env, a: { operator: string; name: string }): KeeperInfo {
  env.requireAuth(a.operator);
  if (S.getKeeper(env, a.operator) !== undefined) fail(E.AlreadyRegistered);
  const nameBytes = new TextEncoder().encode(a.name).length;
  if (nameBytes < 1 || nameBytes > MAX_NAME_BYTES) fail(E.InvalidName);
  const list = S.getList(env);
  if (list.length >= MAX_KEEPERS) fail(E.RegistryFull);
  const cfg = S.getConfig(env);
  const now = env.ledger.timestamp;
  const info: KeeperInfo = {
    avg_response_time_ms: 0n,
    name: a.name,
    operator: a.operator,
    registered_at: now,
    response_count: 0n,
    stake: cfg.min_stake,
    successful_fills: 0n,
    total_executions: 0n,
    total_profit: 0n,
    total_response_time_ms: 0n,
  };
  S.setKeeper(env, info);
  list.push(a.operator);
  S.setList(env, list);
  S.bumpInstance(env);
  // Exactly min_stake. A balance below it fails inside the token (Error(Contract, #10)), which
  // reverts the whole call: the keeper stays unregistered.
  env.call(cfg.usdc_token, "transfer", {
    from: a.operator,
    to: env.currentContract,
    amount: cfg.min_stake,
  });
  emit(env, "register", a.operator, vec(str(a.name), i128(cfg.min_stake), u64(now)));
  return info;
}

function deregister(env: Env, a: { operator: string }): bigint {
  env.requireAuth(a.operator);
  const info = mustGetKeeper(env, a.operator);
  S.removeKeeper(env, a.operator);
  const list = S.getList(env);
  const i = list.indexOf(a.operator);
  if (i >= 0) {
    list[i] = list[list.length - 1];
    list.pop();
  }
  S.setList(env, list);
  S.bumpInstance(env);
  if (info.stake > 0n) {
    const cfg = S.getConfig(env);
    env.call(cfg.usdc_token, "transfer", {
      from: env.currentContract,
      to: a.operator,
      amount: info.stake,
    });
  }
  emit(env, "deregister", a.operator, vec(i128(info.stake)));
  return info.stake;
}

function get_keeper(env: Env, a: { operator: string }): KeeperInfo {
  return mustGetKeeper(env, a.operator);
}

function record_execution(
  env: Env,
  a: { caller: string; keeper: string; success: boolean; profit: bigint; response_time_ms: bigint },
): void {
  requireVault(env, a.caller);
  const info = mustGetKeeper(env, a.keeper);
  if (a.profit < 0n) fail(E.InvalidAmount);
  // The keeper reports its own latency: one absurd value must not own the average forever.
  const rt = a.response_time_ms > MAX_RESPONSE_TIME_MS ? MAX_RESPONSE_TIME_MS : a.response_time_ms;
  // Statistics saturate instead of failing: a counter must never block a keeper's repayment.
  info.total_executions = saturatingAdd(info.total_executions, 1n, U64_MAX);
  if (a.success) {
    info.successful_fills = saturatingAdd(info.successful_fills, 1n, U64_MAX);
    info.total_profit = saturatingAdd(info.total_profit, a.profit, (1n << 127n) - 1n);
    info.total_response_time_ms = saturatingAdd(
      info.total_response_time_ms,
      rt,
      U128_MAX,
    );
    info.response_count = saturatingAdd(info.response_count, 1n, U64_MAX);
    info.avg_response_time_ms = info.total_response_time_ms / info.response_count;
  }
  S.setKeeper(env, info);
  emit(
    env,
    "execution",
    a.keeper,
    vec(bool(a.success), i128(a.profit), u64(rt), u64(info.total_executions)),
  );
}

function set_config(env: Env, a: { min_stake: bigint }): void {
  env.requireAuth(S.getAdmin(env));
  const cfg: RegistryConfig = { ...S.getConfig(env), min_stake: a.min_stake };
  validateConfig(cfg);
  S.setConfig(env, cfg);
  S.bumpInstance(env);
  env.emit([sym("set_config")], env.toScVal(cfg, T.udt("RegistryConfig")));
}

/** The keeper registry contract module. */
export const registryContract: ContractModule = {
  name: "registry",
  spec: REGISTRY_SPEC,
  functions: {
    __constructor,
    register,
    deregister,
    get_keeper,
    get_keepers: (env: Env) => S.getList(env),
    get_config: (env: Env) => S.getConfig(env),
    get_vault: (env: Env) => S.getVault(env) ?? fail(E.NotInit),
    get_admin: (env: Env) => S.getAdmin(env),
    record_execution,
    set_config,
  },
};
