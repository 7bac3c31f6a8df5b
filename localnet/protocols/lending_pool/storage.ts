/**
 * Storage layout of the lending pool, byte-compatible with a Blend v2 pool (`pool/src/storage.rs`
 * v2.0.0) so `@blend-capital/blend-sdk` reads it straight from the ledger.
 *
 * Instance: `Admin`, `Backstop`, `BLNDTkn`, `Config`, `Name` (nothing else: the SDK rejects
 * unknown instance keys). Persistent: `ResList`, `Vec[ResConfig, asset]`, `Vec[ResData, asset]`,
 * `Vec[Positions, user]`. Temporary: `Vec[Auction, {auct_type, user}]`, `Vec[ResInit, asset]`,
 * `PropAdmin`. No emission entries are ever written (a v2 pool must never hold `EmisConfig`).
 *
 * @module
 */
import type { Env, Storage } from "../../../contracts/sdk.ts";
import {
  addr,
  address,
  big,
  bool,
  fields,
  i128,
  items,
  mapAddrI128,
  mapU32I128,
  num,
  readMapAddrI128,
  readMapU32I128,
  struct,
  sym,
  symText,
  u32,
  u64,
  vec,
} from "./codec.ts";
import { xdr } from "@stellar/stellar-sdk";

// TTLs from pool/src/storage.rs (Blend assumes 5 s ledgers).
const ONE_DAY_LEDGERS = 17280;
const LEDGER_THRESHOLD_SHARED = ONE_DAY_LEDGERS * 45;
const LEDGER_BUMP_SHARED = LEDGER_THRESHOLD_SHARED + ONE_DAY_LEDGERS;
const LEDGER_THRESHOLD_USER = ONE_DAY_LEDGERS * 100;
const LEDGER_BUMP_USER = LEDGER_THRESHOLD_USER + 20 * ONE_DAY_LEDGERS;
const LEDGER_THRESHOLD_INSTANCE = ONE_DAY_LEDGERS * 30;
const LEDGER_BUMP_INSTANCE = LEDGER_THRESHOLD_INSTANCE + ONE_DAY_LEDGERS;

/** PoolConfig (instance `Config`). */
export interface PoolConfig {
  bstop_rate: number;
  max_positions: number;
  min_collateral: bigint;
  oracle: string;
  status: number;
}

/** ReserveConfig (persistent `ResConfig(asset)`), v2 13-field layout. */
export interface ReserveConfig {
  c_factor: number;
  decimals: number;
  enabled: boolean;
  index: number;
  l_factor: number;
  max_util: number;
  r_base: number;
  r_one: number;
  r_three: number;
  r_two: number;
  reactivity: number;
  supply_cap: bigint;
  util: number;
}

/** ReserveData (persistent `ResData(asset)`). */
export interface ReserveData {
  b_rate: bigint;
  b_supply: bigint;
  backstop_credit: bigint;
  d_rate: bigint;
  d_supply: bigint;
  ir_mod: bigint;
  last_time: bigint;
}

/** A user's positions: reserve index → b/dToken balance. */
export interface Positions {
  collateral: Map<number, bigint>;
  liabilities: Map<number, bigint>;
  supply: Map<number, bigint>;
}

/** AuctionData (temporary `Auction({auct_type, user})`). */
export interface AuctionData {
  bid: Map<string, bigint>;
  block: number;
  lot: Map<string, bigint>;
}

/** QueuedReserveInit (temporary `ResInit(asset)`). */
export interface QueuedReserveInit {
  new_config: ReserveConfig;
  unlock_time: bigint;
}

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

/** Storage keys exactly as `PoolDataKey` / the instance Symbols encode. */
export const keys = {
  admin: (): xdr.ScVal => sym("Admin"),
  propAdmin: (): xdr.ScVal => sym("PropAdmin"),
  name: (): xdr.ScVal => sym("Name"),
  backstop: (): xdr.ScVal => sym("Backstop"),
  blnd: (): xdr.ScVal => sym("BLNDTkn"),
  config: (): xdr.ScVal => sym("Config"),
  resList: (): xdr.ScVal => sym("ResList"),
  resConfig: (asset: string): xdr.ScVal => vec([sym("ResConfig"), addr(asset)]),
  resData: (asset: string): xdr.ScVal => vec([sym("ResData"), addr(asset)]),
  resInit: (asset: string): xdr.ScVal => vec([sym("ResInit"), addr(asset)]),
  positions: (user: string): xdr.ScVal => vec([sym("Positions"), addr(user)]),
  auction: (auctType: number, user: string): xdr.ScVal =>
    vec([sym("Auction"), struct({ auct_type: u32(auctType), user: addr(user) })]),
};

// ---------------------------------------------------------------------------------------------
// Value codecs
// ---------------------------------------------------------------------------------------------

/** Encodes a PoolConfig. */
export function encodePoolConfig(c: PoolConfig): xdr.ScVal {
  return struct({
    bstop_rate: u32(c.bstop_rate),
    max_positions: u32(c.max_positions),
    min_collateral: i128(c.min_collateral),
    oracle: addr(c.oracle),
    status: u32(c.status),
  });
}

/** Decodes a PoolConfig. */
export function decodePoolConfig(v: xdr.ScVal): PoolConfig {
  const f = fields(v);
  return {
    bstop_rate: num(f.bstop_rate),
    max_positions: num(f.max_positions),
    min_collateral: big(f.min_collateral),
    oracle: address(f.oracle),
    status: num(f.status),
  };
}

/** Encodes a ReserveConfig (13 fields, v2). */
export function encodeReserveConfig(c: ReserveConfig): xdr.ScVal {
  return struct({
    c_factor: u32(c.c_factor),
    decimals: u32(c.decimals),
    enabled: xdr.ScVal.scvBool(c.enabled),
    index: u32(c.index),
    l_factor: u32(c.l_factor),
    max_util: u32(c.max_util),
    r_base: u32(c.r_base),
    r_one: u32(c.r_one),
    r_three: u32(c.r_three),
    r_two: u32(c.r_two),
    reactivity: u32(c.reactivity),
    supply_cap: i128(c.supply_cap),
    util: u32(c.util),
  });
}

/** Decodes a ReserveConfig. */
export function decodeReserveConfig(v: xdr.ScVal): ReserveConfig {
  const f = fields(v);
  return {
    c_factor: num(f.c_factor),
    decimals: num(f.decimals),
    enabled: bool(f.enabled),
    index: num(f.index),
    l_factor: num(f.l_factor),
    max_util: num(f.max_util),
    r_base: num(f.r_base),
    r_one: num(f.r_one),
    r_three: num(f.r_three),
    r_two: num(f.r_two),
    reactivity: num(f.reactivity),
    supply_cap: big(f.supply_cap),
    util: num(f.util),
  };
}

/** Encodes a ReserveData. */
export function encodeReserveData(d: ReserveData): xdr.ScVal {
  return struct({
    b_rate: i128(d.b_rate),
    b_supply: i128(d.b_supply),
    backstop_credit: i128(d.backstop_credit),
    d_rate: i128(d.d_rate),
    d_supply: i128(d.d_supply),
    ir_mod: i128(d.ir_mod),
    last_time: u64(d.last_time),
  });
}

/** Decodes a ReserveData. */
export function decodeReserveData(v: xdr.ScVal): ReserveData {
  const f = fields(v);
  return {
    b_rate: big(f.b_rate),
    b_supply: big(f.b_supply),
    backstop_credit: big(f.backstop_credit),
    d_rate: big(f.d_rate),
    d_supply: big(f.d_supply),
    ir_mod: big(f.ir_mod),
    last_time: big(f.last_time),
  };
}

/** Encodes Positions (all three maps always present). */
export function encodePositions(p: Positions): xdr.ScVal {
  return struct({
    collateral: mapU32I128(p.collateral),
    liabilities: mapU32I128(p.liabilities),
    supply: mapU32I128(p.supply),
  });
}

/** Decodes Positions. */
export function decodePositions(v: xdr.ScVal): Positions {
  const f = fields(v);
  return {
    collateral: readMapU32I128(f.collateral),
    liabilities: readMapU32I128(f.liabilities),
    supply: readMapU32I128(f.supply),
  };
}

/** Encodes AuctionData. */
export function encodeAuction(a: AuctionData): xdr.ScVal {
  return struct({ bid: mapAddrI128(a.bid), block: u32(a.block), lot: mapAddrI128(a.lot) });
}

/** Decodes AuctionData. */
export function decodeAuction(v: xdr.ScVal): AuctionData {
  const f = fields(v);
  return { bid: readMapAddrI128(f.bid), block: num(f.block), lot: readMapAddrI128(f.lot) };
}

/** An empty Positions value. */
export const emptyPositions = (): Positions => ({
  collateral: new Map(),
  liabilities: new Map(),
  supply: new Map(),
});

// ---------------------------------------------------------------------------------------------
// Accessors
// ---------------------------------------------------------------------------------------------

/** A missing required entry: Blend unwraps these (`unwrap_optimized`), which traps. */
function trap(what: string): never {
  throw new Error(`missing ${what} (unwrap on None)`);
}

/** Extends the instance TTL the way every mutating Blend entry point does. */
export function extendInstance(env: Env): void {
  env.storage.instance.extendTtl(keys.config(), LEDGER_THRESHOLD_INSTANCE, LEDGER_BUMP_INSTANCE);
}

/** Reads the pool config (traps when not initialised). */
export function getPoolConfig(env: Env): PoolConfig {
  const v = env.storage.instance.get(keys.config());
  return v ? decodePoolConfig(v) : trap("pool config");
}

/** Writes the pool config. */
export function setPoolConfig(env: Env, c: PoolConfig): void {
  env.storage.instance.set(keys.config(), encodePoolConfig(c));
}

/** Reads an instance Address (Admin, Backstop, BLNDTkn). */
export function getInstanceAddress(env: Env, key: xdr.ScVal, what: string): string {
  const v = env.storage.instance.get(key);
  return v ? address(v) : trap(what);
}

/** A TTL class of pool/src/storage.rs: extend to `bump` ledgers when below `threshold`. */
type Ttl = readonly [threshold: number, bump: number];
const TTL_SHARED: Ttl = [LEDGER_THRESHOLD_SHARED, LEDGER_BUMP_SHARED];
const TTL_USER: Ttl = [LEDGER_THRESHOLD_USER, LEDGER_BUMP_USER];

/** Reads a persistent entry and, when it exists, extends its TTL (as Blend's getters do). */
function readBumped(env: Env, k: xdr.ScVal, [threshold, bump]: Ttl): xdr.ScVal | undefined {
  const v = env.storage.persistent.get(k);
  if (v) env.storage.persistent.extendTtl(k, threshold, bump);
  return v;
}

/** Writes an entry and extends its TTL (as Blend's setters do). */
function writeBumped(st: Storage, k: xdr.ScVal, v: xdr.ScVal, [threshold, bump]: Ttl): void {
  st.set(k, v);
  st.extendTtl(k, threshold, bump);
}

/** The reserve list (empty when unset). */
export function getResList(env: Env): string[] {
  const v = readBumped(env, keys.resList(), TTL_SHARED);
  return v ? items(v).map(address) : [];
}

/** Writes the reserve list. */
export function setResList(env: Env, list: string[]): void {
  writeBumped(env.storage.persistent, keys.resList(), vec(list.map(addr)), TTL_SHARED);
}

/** True when `asset` is a reserve of the pool. */
export function hasReserve(env: Env, asset: string): boolean {
  return env.storage.persistent.has(keys.resConfig(asset));
}

/** Reads a reserve config (traps when the asset is not a reserve, like Blend). */
export function getResConfig(env: Env, asset: string): ReserveConfig {
  const v = readBumped(env, keys.resConfig(asset), TTL_SHARED);
  return v ? decodeReserveConfig(v) : trap(`reserve config for ${asset}`);
}

/** Writes a reserve config. */
export function setResConfig(env: Env, asset: string, c: ReserveConfig): void {
  writeBumped(env.storage.persistent, keys.resConfig(asset), encodeReserveConfig(c), TTL_SHARED);
}

/** Reads reserve data (traps when missing). */
export function getResData(env: Env, asset: string): ReserveData {
  const v = readBumped(env, keys.resData(asset), TTL_SHARED);
  return v ? decodeReserveData(v) : trap(`reserve data for ${asset}`);
}

/** Writes reserve data. */
export function setResData(env: Env, asset: string, d: ReserveData): void {
  writeBumped(env.storage.persistent, keys.resData(asset), encodeReserveData(d), TTL_SHARED);
}

/** A user's positions, or empty ones when the user never had any. */
export function getPositions(env: Env, user: string): Positions {
  const v = readBumped(env, keys.positions(user), TTL_USER);
  return v ? decodePositions(v) : emptyPositions();
}

/** Writes a user's positions (Blend always writes the entry, even when empty). */
export function setPositions(env: Env, user: string, p: Positions): void {
  writeBumped(env.storage.persistent, keys.positions(user), encodePositions(p), TTL_USER);
}

/** True when an auction of `auctType` exists for `user`. */
export function hasAuction(env: Env, auctType: number, user: string): boolean {
  return env.storage.temporary.has(keys.auction(auctType, user));
}

/** Reads an auction; a missing one traps (Blend: `unwrap_optimized`). */
export function getAuction(env: Env, auctType: number, user: string): AuctionData {
  const v = env.storage.temporary.get(keys.auction(auctType, user));
  return v ? decodeAuction(v) : trap(`auction ${auctType} for ${user}`);
}

/** Stores an auction in temporary storage with Blend's ~46-day TTL. */
export function setAuction(env: Env, auctType: number, user: string, a: AuctionData): void {
  writeBumped(env.storage.temporary, keys.auction(auctType, user), encodeAuction(a), TTL_SHARED);
}

/** Deletes an auction. */
export function delAuction(env: Env, auctType: number, user: string): void {
  env.storage.temporary.remove(keys.auction(auctType, user));
}

/** Encodes a QueuedReserveInit. */
export function encodeQueuedInit(q: QueuedReserveInit): xdr.ScVal {
  return struct({ new_config: encodeReserveConfig(q.new_config), unlock_time: u64(q.unlock_time) });
}

/** Reads a queued reserve set (traps when not queued). */
export function getQueuedInit(env: Env, asset: string): QueuedReserveInit {
  const v = env.storage.temporary.get(keys.resInit(asset));
  if (!v) trap(`queued reserve for ${asset}`);
  const f = fields(v);
  return { new_config: decodeReserveConfig(f.new_config), unlock_time: big(f.unlock_time) };
}

/** Queues a reserve set. */
export function setQueuedInit(env: Env, asset: string, q: QueuedReserveInit): void {
  writeBumped(env.storage.temporary, keys.resInit(asset), encodeQueuedInit(q), TTL_USER);
}

/** Text of the pool name. */
export function getName(env: Env): string {
  const v = env.storage.instance.get(keys.name());
  return v ? symText(v) : trap("name");
}
