/**
 * The vault's storage layout.
 *
 * Keys are encoded as a Rust `#[contracttype] enum VaultKey` would be (`Vec[Symbol(variant), …]`):
 * - instance: `Admin`, `Usdc`, `Registry` → Address; `Config` → VaultConfig; `State` → VaultState;
 *   `TotalLoss` → i128 (read only: never written since issue 12 removed the loss paths)
 * - persistent: `Depositor(Address)` → Depositor (`KeeperDraw(Address)` was retired by issue 12)
 *
 * @module
 */
import { addr, type Env, T, variant } from "../sdk.ts";
import type { xdr } from "@stellar/stellar-sdk";
import type { Depositor, VaultConfig, VaultState } from "./spec.ts";

/** TTL policy (ledgers): bump persistent entries below ~14 days to ~30 days. */
export const TTL_THRESHOLD = 17280 * 14;
/** TTL target (ledgers). */
export const TTL_EXTEND_TO = 17280 * 30;

const KEY_ADMIN = variant("Admin");
const KEY_USDC = variant("Usdc");
const KEY_REGISTRY = variant("Registry");
const KEY_CONFIG = variant("Config");
const KEY_STATE = variant("State");
const KEY_LOSS = variant("TotalLoss");
/** Persistent key `Depositor(address)`. */
export const keyDepositor = (a: string): xdr.ScVal => variant("Depositor", addr(a));

function getI<R>(env: Env, key: xdr.ScVal, type: string | Record<string, unknown>): R | undefined {
  const v = env.storage.instance.get(key);
  return v === undefined ? undefined : env.fromScVal<R>(v, type);
}

/** Keeps the instance entry alive. */
export const bumpInstance = (env: Env): void =>
  env.storage.instance.extendTtl(KEY_STATE, TTL_THRESHOLD, TTL_EXTEND_TO);

/** Admin address. */
export const getAdmin = (env: Env): string => getI<string>(env, KEY_ADMIN, T.address)!;
/** Stores the admin. */
export const setAdmin = (env: Env, a: string): void => env.storage.instance.set(KEY_ADMIN, addr(a));
/** USDC token contract. */
export const getUsdc = (env: Env): string => getI<string>(env, KEY_USDC, T.address)!;
/** Stores the USDC token. */
export const setUsdc = (env: Env, a: string): void => env.storage.instance.set(KEY_USDC, addr(a));
/** Registry address, if wired. */
export const getRegistry = (env: Env): string | undefined =>
  getI<string>(env, KEY_REGISTRY, T.address);
/** Stores the registry. */
export const setRegistry = (env: Env, a: string): void =>
  env.storage.instance.set(KEY_REGISTRY, addr(a));

/** Config. */
export const getConfig = (env: Env): VaultConfig =>
  getI<VaultConfig>(env, KEY_CONFIG, T.udt("VaultConfig"))!;
/** Stores the config. */
export const setConfig = (env: Env, c: VaultConfig): void =>
  env.storage.instance.set(KEY_CONFIG, env.toScVal(c, T.udt("VaultConfig")));

/** The books. */
export const getState = (env: Env): VaultState =>
  getI<VaultState>(env, KEY_STATE, T.udt("VaultState")) ??
    { active_liq: 0n, total_profit: 0n, total_shares: 0n, total_usdc: 0n };
/** Stores the books. */
export const setState = (env: Env, s: VaultState): void =>
  env.storage.instance.set(KEY_STATE, env.toScVal(s, T.udt("VaultState")));

/** Cumulative realized losses. */
export const getLoss = (env: Env): bigint => getI<bigint>(env, KEY_LOSS, T.i128) ?? 0n;

/** An all-zero depositor record. */
export const emptyDepositor = (): Depositor => ({
  deposited: 0n,
  first_deposit_at: 0n,
  last_deposit_at: 0n,
  locked_shares: 0n,
  shares: 0n,
  unlock_at: 0n,
  withdrawn: 0n,
});

/** A depositor's record, or undefined. */
export function getDepositor(env: Env, a: string): Depositor | undefined {
  const v = env.storage.persistent.get(keyDepositor(a));
  return v === undefined ? undefined : env.fromScVal<Depositor>(v, T.udt("Depositor"));
}

/**
 * Stores a depositor's record and bumps its TTL. Records are kept after a full withdrawal:
 * their cumulative deposited/withdrawn figures are the depositor's cost basis.
 */
export function setDepositor(env: Env, a: string, d: Depositor): void {
  const k = keyDepositor(a);
  env.storage.persistent.set(k, env.toScVal(d, T.udt("Depositor")));
  env.storage.persistent.extendTtl(k, TTL_THRESHOLD, TTL_EXTEND_TO);
}
