/**
 * Pool set-up and admin paths (Blend v2 `pool/config.rs`, `pool/status.rs` minus the backstop
 * reads): constructor, reserve queue/set with the setup-status shortcut, pool updates and
 * admin status changes.
 *
 * @module
 */
import { type Env, fail } from "../../../contracts/sdk.ts";
import { addr, i128, struct, sym, u32, vec } from "./codec.ts";
import { PoolError } from "./errors.ts";
import { SCALAR_12, SCALAR_7 } from "./math.ts";
import { accrue, makeReserve } from "./reserve.ts";
import {
  encodeReserveConfig,
  encodeReserveData,
  getInstanceAddress,
  getPoolConfig,
  getQueuedInit,
  getResConfig,
  getResData,
  getResList,
  hasReserve,
  keys,
  type ReserveConfig,
  type ReserveData,
  setPoolConfig,
  setQueuedInit,
  setResConfig,
  setResData,
  setResList,
} from "./storage.ts";
import { xdr } from "@stellar/stellar-sdk";

/** Pool status set by the constructor ("setup"): reserves can be set without the timelock. */
export const STATUS_SETUP = 6;
/** Timelock for reserve changes outside setup (7 days). */
const RESERVE_TIMELOCK = 7n * 24n * 60n * 60n;
/** Blend's MAX_RESERVES. */
const MAX_RESERVES = 30;

/** Constructor arguments (same order and names as Blend v2's `__constructor`). */
export interface InitArgs {
  admin: string;
  name: string;
  oracle: string;
  bstop_rate: number;
  max_positions: number;
  min_collateral: bigint;
  backstop_id: string;
  blnd_id: string;
}

function requireValidPoolConfig(bstopRate: number, maxPositions: number, minCollateral: bigint) {
  if (bstopRate >= 1e7 || maxPositions < 2 || maxPositions > 60 || minCollateral < 0n) {
    fail(PoolError.InvalidPoolConfigArgs);
  }
}

/** Initialises instance storage exactly as a v2 pool does (status 6 = setup). */
export function initialize(env: Env, a: InitArgs): void {
  env.requireAuth(a.admin);
  if (env.storage.instance.has(keys.config())) fail(PoolError.AlreadyInitializedError);
  requireValidPoolConfig(a.bstop_rate, a.max_positions, BigInt(a.min_collateral));
  env.storage.instance.set(keys.admin(), addr(a.admin));
  env.storage.instance.set(keys.name(), xdr.ScVal.scvString(a.name));
  env.storage.instance.set(keys.backstop(), addr(a.backstop_id));
  env.storage.instance.set(keys.blnd(), addr(a.blnd_id));
  setPoolConfig(env, {
    bstop_rate: a.bstop_rate,
    max_positions: a.max_positions,
    min_collateral: BigInt(a.min_collateral),
    oracle: a.oracle,
    status: STATUS_SETUP,
  });
}

/** The admin address, with its auth required. */
export function requireAdmin(env: Env): string {
  const admin = getInstanceAddress(env, keys.admin(), "admin");
  env.requireAuth(admin);
  return admin;
}

/** 1202 when reserve metadata is out of Blend's bounds. */
export function requireValidReserveMetadata(c: ReserveConfig): void {
  const bad = c.decimals > 18 || c.c_factor > 1e7 || c.l_factor > 1e7 || c.util > 0.9e7 ||
    c.max_util > 1e7 || c.max_util <= c.util || c.r_base < 1000 || c.r_base >= 1e7 ||
    c.r_one > c.r_two || c.r_two > c.r_three || c.reactivity > 1000;
  if (bad) fail(PoolError.InvalidReserveMetadata);
}

/** Normalises a ReserveConfig received from the host (numbers, bigint cap, boolean). */
export function toReserveConfig(m: Record<string, unknown>): ReserveConfig {
  return {
    c_factor: Number(m.c_factor),
    decimals: Number(m.decimals),
    enabled: Boolean(m.enabled),
    index: Number(m.index),
    l_factor: Number(m.l_factor),
    max_util: Number(m.max_util),
    r_base: Number(m.r_base),
    r_one: Number(m.r_one),
    r_three: Number(m.r_three),
    r_two: Number(m.r_two),
    reactivity: Number(m.reactivity),
    supply_cap: BigInt(m.supply_cap as bigint),
    util: Number(m.util),
  };
}

/** `queue_set_reserve`: admin queues a reserve change (unlocked at once in setup status). */
export function queueSetReserve(env: Env, asset: string, metadata: ReserveConfig): void {
  const admin = requireAdmin(env);
  requireValidReserveMetadata(metadata);
  const config = getPoolConfig(env);
  const now = env.ledger.timestamp;
  const unlock = config.status === STATUS_SETUP ? now : now + RESERVE_TIMELOCK;
  setQueuedInit(env, asset, { new_config: metadata, unlock_time: unlock });
  env.emit(
    [sym("queue_set_reserve"), addr(admin)],
    vec([addr(asset), encodeReserveConfig(metadata)]),
  );
}

/** `cancel_set_reserve`: admin drops a queued change. */
export function cancelSetReserve(env: Env, asset: string): void {
  const admin = requireAdmin(env);
  getQueuedInit(env, asset); // traps when nothing is queued
  env.storage.temporary.remove(keys.resInit(asset));
  env.emit([sym("cancel_set_reserve"), addr(admin)], addr(asset));
}

/** `set_reserve`: applies a queued, unlocked reserve change; returns the reserve index. */
export function setReserve(env: Env, asset: string): number {
  const queued = getQueuedInit(env, asset);
  if (queued.unlock_time > env.ledger.timestamp) fail(PoolError.InitNotUnlocked);
  env.storage.temporary.remove(keys.resInit(asset));
  const cfg = queued.new_config;
  requireValidReserveMetadata(cfg);
  let index: number;
  if (hasReserve(env, asset)) {
    // Existing reserve: accrue to now under the old config, keep its index.
    const pool = getPoolConfig(env);
    const old = getResConfig(env, asset);
    const r = makeReserve(asset, old, getResData(env, asset));
    accrue(r, pool.bstop_rate, env.ledger.timestamp);
    setResData(env, asset, r.data);
    index = old.index;
  } else {
    const list = getResList(env);
    if (list.length >= MAX_RESERVES) fail(PoolError.BadRequest);
    list.push(asset);
    setResList(env, list);
    index = list.length - 1;
    setResData(env, asset, {
      b_rate: SCALAR_12,
      d_rate: SCALAR_12,
      ir_mod: SCALAR_7,
      b_supply: 0n,
      d_supply: 0n,
      backstop_credit: 0n,
      last_time: env.ledger.timestamp,
    });
  }
  setResConfig(env, asset, { ...cfg, index });
  env.emit([sym("set_reserve")], vec([addr(asset), u32(index)]));
  return index;
}

/** `update_pool`: admin changes bstop_rate, max_positions and min_collateral. */
export function updatePool(
  env: Env,
  bstopRate: number,
  maxPositions: number,
  minCollateral: bigint,
): void {
  const admin = requireAdmin(env);
  requireValidPoolConfig(bstopRate, maxPositions, minCollateral);
  const c = getPoolConfig(env);
  setPoolConfig(env, {
    ...c,
    bstop_rate: bstopRate,
    max_positions: maxPositions,
    min_collateral: minCollateral,
  });
  env.emit(
    [sym("update_pool"), addr(admin)],
    vec([u32(bstopRate), u32(maxPositions), i128(minCollateral)]),
  );
}

/**
 * `set_status` (admin). Blend gates 0 and 2 on the backstop's deposits; the local chain has no
 * backstop, so the admin may set any status 0..6 (documented deviation).
 */
export function setStatus(env: Env, status: number): void {
  const admin = requireAdmin(env);
  if (!Number.isInteger(status) || status < 0 || status > 6) fail(PoolError.BadRequest);
  const c = getPoolConfig(env);
  setPoolConfig(env, { ...c, status });
  env.emit([sym("set_status"), addr(admin)], u32(status));
}

/** Reserve value returned by `get_reserve` (struct `Reserve {asset, config, data, scalar}`). */
export function reserveStruct(
  asset: string,
  cfg: ReserveConfig,
  data: ReserveData,
  scalar: bigint,
): xdr.ScVal {
  return struct({
    asset: addr(asset),
    config: encodeReserveConfig(cfg),
    data: encodeReserveData(data),
    scalar: i128(scalar),
  });
}
