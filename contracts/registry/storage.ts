/**
 * The keeper registry's storage layout.
 *
 * Keys are encoded as a Rust `#[contracttype] enum DataKey` would be (`Vec[Symbol(variant), …]`):
 * - instance: `Admin` → Address, `Config` → RegistryConfig, `Vault` → Address
 * - persistent: `Keeper(Address)` → KeeperInfo, `KeeperList` → Vec<Address>
 *
 * @module
 */
import { addr, type Env, T, variant } from "../sdk.ts";
import type { xdr } from "@stellar/stellar-sdk";
import type { KeeperInfo, RegistryConfig } from "./spec.ts";

/** TTL policy (ledgers): bump persistent entries below ~14 days to ~30 days. */
export const TTL_THRESHOLD = 17280 * 14;
/** TTL target (ledgers). */
export const TTL_EXTEND_TO = 17280 * 30;

/** Instance key `Admin`. */
export const KEY_ADMIN: xdr.ScVal = variant("Admin");
/** Instance key `Config`. */
export const KEY_CONFIG: xdr.ScVal = variant("Config");
/** Instance key `Vault`. */
export const KEY_VAULT: xdr.ScVal = variant("Vault");
/** Persistent key `KeeperList`. */
export const KEY_LIST: xdr.ScVal = variant("KeeperList");
/** Persistent key `Keeper(operator)`. */
export const keyKeeper = (operator: string): xdr.ScVal => variant("Keeper", addr(operator));

/** Reads an instance value decoded as `type`, or undefined. */
function getInstance<R>(env: Env, key: xdr.ScVal, type: string | Record<string, unknown>) {
  const v = env.storage.instance.get(key);
  return v === undefined ? undefined : env.fromScVal<R>(v, type);
}

/** Keeps the instance entry alive (instance TTL covers admin/config/vault). */
export function bumpInstance(env: Env): void {
  // The instance's TTL is bumped through any instance key on the local host; a Rust contract
  // would call env.storage().instance().extend_ttl(..).
  env.storage.instance.extendTtl(KEY_CONFIG, TTL_THRESHOLD, TTL_EXTEND_TO);
}

/** The stored config (always present after the constructor). */
export const getConfig = (env: Env): RegistryConfig =>
  getInstance<RegistryConfig>(env, KEY_CONFIG, T.udt("RegistryConfig"))!;
/** Stores the config. */
export const setConfig = (env: Env, c: RegistryConfig): void =>
  env.storage.instance.set(KEY_CONFIG, env.toScVal(c, T.udt("RegistryConfig")));

/** The admin address. */
export const getAdmin = (env: Env): string => getInstance<string>(env, KEY_ADMIN, T.address)!;
/** Stores the admin address. */
export const setAdmin = (env: Env, a: string): void => env.storage.instance.set(KEY_ADMIN, addr(a));

/** The vault address, if stored. */
export const getVault = (env: Env): string | undefined =>
  getInstance<string>(env, KEY_VAULT, T.address);
/** Stores the vault address. */
export const setVault = (env: Env, a: string): void => env.storage.instance.set(KEY_VAULT, addr(a));

/** A keeper's record, or undefined. */
export function getKeeper(env: Env, operator: string): KeeperInfo | undefined {
  const k = keyKeeper(operator);
  const v = env.storage.persistent.get(k);
  return v === undefined ? undefined : env.fromScVal<KeeperInfo>(v, T.udt("KeeperInfo"));
}

/** Stores a keeper's record and bumps its TTL. */
export function setKeeper(env: Env, info: KeeperInfo): void {
  const k = keyKeeper(info.operator);
  env.storage.persistent.set(k, env.toScVal(info, T.udt("KeeperInfo")));
  env.storage.persistent.extendTtl(k, TTL_THRESHOLD, TTL_EXTEND_TO);
}

/** Removes a keeper's record. */
export const removeKeeper = (env: Env, operator: string): void =>
  env.storage.persistent.remove(keyKeeper(operator));

/** The list of registered operators. */
export function getList(env: Env): string[] {
  const v = env.storage.persistent.get(KEY_LIST);
  return v === undefined ? [] : env.fromScVal<string[]>(v, T.vec(T.address));
}

/** Stores the list of registered operators. */
export function setList(env: Env, list: string[]): void {
  env.storage.persistent.set(KEY_LIST, env.toScVal(list, T.vec(T.address)));
  env.storage.persistent.extendTtl(KEY_LIST, TTL_THRESHOLD, TTL_EXTEND_TO);
}
