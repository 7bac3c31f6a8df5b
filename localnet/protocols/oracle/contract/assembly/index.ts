// The local market's SEP-40 price oracle as a Soroban contract (interface: contracts/oracle/spec.ts).
//
// Reflector's read ABI (`lastprice`, `price`, `prices`, `decimals`, `resolution`, `base`,
// `assets`, `last_timestamp`, `admin`, `version`) and two admin writes for scenarios and tests:
// `set_price(asset, price)` and `set_feed(asset, live)`.
//
// Feed model (as the TypeScript stand-in it replaces): a real Reflector node publishes a round
// every `resolution` seconds. Here an asset whose price was set is "live": every round carries the
// last price set, so `lastprice` reports the current round (ledger time floored to the
// resolution). A stopped feed's rounds end at the round it was stopped in and, like Reflector,
// `lastprice`/`prices` return None once that round is 2 × resolution old, or for an unknown asset.
// Blend pools unwrap that None (a trap) and reject prices older than 24 h.
//
// Storage: instance `Admin`, `Base` (Asset), `Decimals` (u32), `Resolution` (u32), `Assets`
// (Vec<Asset>); persistent `Feed(Asset)` → FeedState {history: Vec<PriceData> (newest last, at
// most HISTORY_LEN, one record per round), live: bool, paused_at: u64}.
import {
  expectAddress, expectTag, extendInstanceTtl, extendTtl, fail, fromBool, fromU32, fromU64, get,
  has, I128, INSTANCE, ledgerTimestamp, PERSISTENT, publish, put, requireAuth, Schema, symbol,
  TAG_SYMBOL_OBJ, TAG_SYMBOL_SMALL, TAG_VEC_OBJ, tagOf, toBool, toU32, toU64, variant0, variant1,
  vec2, vecContains, vecGet, vecLen, vecOf, VOID,
} from "../../../../../contracts/sdk/index";
import * as env from "../../../../../contracts/sdk/env";

// `vec_del` (env.json v.2), declared here rather than in the SDK: an SDK change would change the
// source hash, hence the bytes, of every other contract.
@external("v", "2") declare function vec_del(v: u64, i: u64): u64;

// Error codes (OracleError in the spec; the stand-in's numbering, which callers already decode).
const AlreadyInitialized: u32 = 0;
const Unauthorized: u32 = 1;
const AssetMissing: u32 = 2;
const InvalidPrice: u32 = 3;
const InvalidConfig: u32 = 4;

/** Price changes a feed keeps: enough for MAX_RECORDS rounds of `prices`. */
const HISTORY_LEN: u32 = 32;
/** Reflector caps `prices(asset, records)` at 20 records. */
const MAX_RECORDS: u32 = 20;
/** Reflector's interface version. */
const VERSION: u32 = 4;
/** Largest `decimals` the constructor accepts. */
const MAX_DECIMALS: u32 = 18;

/** TTL policy (ledgers): an entry below ~30 days is extended to ~31 days. */
const TTL_THRESHOLD: u32 = 17280 * 30;
const TTL_EXTEND_TO: u32 = 17280 * 31;

// PriceData { price: i128, timestamp: u64 } (fields in byte order).
let PRICE: Schema | null = null;
function priceSchema(): Schema {
  if (PRICE == null) PRICE = new Schema("price,timestamp");
  return PRICE!;
}
const P_PRICE = 0;
const P_TIME = 1;

// FeedState { history, live, paused_at }.
let FEED: Schema | null = null;
function feedSchema(): Schema {
  if (FEED == null) FEED = new Schema("history,live,paused_at");
  return FEED!;
}
const F_HISTORY = 0;
const F_LIVE = 1;
const F_PAUSED = 2;

function keyAdmin(): u64 { return variant0("Admin"); }
function keyBase(): u64 { return variant0("Base"); }
function keyDecimals(): u64 { return variant0("Decimals"); }
function keyResolution(): u64 { return variant0("Resolution"); }
function keyAssets(): u64 { return variant0("Assets"); }
function keyFeed(asset: u64): u64 { return variant1("Feed", asset); }

/**
 * Traps unless `v` is an `Asset`: `Vec[Symbol("Stellar"), Address]` or
 * `Vec[Symbol("Other"), Symbol]`. A Wasm contract's arguments are not checked against its spec by
 * the host, and a malformed asset must not become a storage key.
 */
function expectAsset(v: u64): u64 {
  expectTag(v, TAG_VEC_OBJ);
  if (vecLen(v) != 2) unreachable();
  const tag = vecGet(v, 0);
  const payload = vecGet(v, 1);
  if (tag == symbol("Stellar")) {
    expectAddress(payload);
  } else if (tag == symbol("Other")) {
    const t = tagOf(payload);
    if (t != TAG_SYMBOL_SMALL && t != TAG_SYMBOL_OBJ) unreachable();
  } else {
    unreachable();
  }
  return v;
}

function bumpInstance(): void {
  extendInstanceTtl(TTL_THRESHOLD, TTL_EXTEND_TO);
}

function loadResolution(): u64 {
  return toU32(get(keyResolution(), INSTANCE)) as u64;
}

/** Timestamp of the round containing `t`. */
function roundOf(t: u64, res: u64): u64 {
  return (t / res) * res;
}

/** The newest published round of a feed at ledger time `now`. */
function lastRound(feed: StaticArray<u64>, now: u64, res: u64): u64 {
  return toBool(feed[F_LIVE]) ? roundOf(now, res) : roundOf(toU64(feed[F_PAUSED]), res);
}

/** The feed's stored state, or null for an asset never priced. */
function loadFeed(asset: u64): StaticArray<u64> | null {
  const k = keyFeed(asset);
  if (!has(k, PERSISTENT)) return null;
  return feedSchema().decode(get(k, PERSISTENT));
}

function storeFeed(asset: u64, feed: StaticArray<u64>): void {
  const k = keyFeed(asset);
  put(k, feedSchema().encode(feed), PERSISTENT);
  extendTtl(k, PERSISTENT, TTL_THRESHOLD, TTL_EXTEND_TO);
}

/** The price Val in effect at round `t` (the newest change at or before `t`), or VOID. */
function priceAt(history: u64, t: u64): u64 {
  for (let i = vecLen(history); i > 0; i--) {
    const p = priceSchema().decode(vecGet(history, i - 1));
    if (toU64(p[P_TIME]) <= t) return p[P_PRICE];
  }
  return VOID;
}

function priceData(price: u64, t: u64): u64 {
  const p = priceSchema().values();
  p[P_PRICE] = price;
  p[P_TIME] = fromU64(t);
  return priceSchema().encode(p);
}

/**
 * The newest round if the feed is fresh, else u64::MAX (Reflector: None when the newest round is
 * at least 2 × resolution old, or in the future).
 */
function freshRound(feed: StaticArray<u64>): u64 {
  const res = loadResolution();
  const now = ledgerTimestamp();
  const last = lastRound(feed, now, res);
  if (last > now || now - last >= 2 * res) return u64.MAX_VALUE;
  return last;
}

/** Appends (or, within the same round, replaces) the newest history record; keeps HISTORY_LEN. */
function pushRecord(history: u64, price: u64, round: u64): u64 {
  let h = history;
  const n = vecLen(h);
  const rec = priceData(price, round);
  if (n > 0 && toU64(priceSchema().decode(vecGet(h, n - 1))[P_TIME]) == round) {
    h = env.vec_put(h, fromU32(n - 1), rec);
  } else {
    h = env.vec_push_back(h, rec);
  }
  // One record past the bound at most: drop the oldest.
  if (vecLen(h) > HISTORY_LEN) h = vec_del(h, fromU32(0));
  return h;
}

function event(name: string, data: u64): void {
  publish(vec2(symbol("REFLECTOR"), symbol(name)), data);
}

export function __constructor(
  admin: u64,
  base: u64,
  assets: u64,
  decimals: u64,
  resolution_secs: u64,
): u64 {
  if (has(keyAdmin(), INSTANCE)) fail(AlreadyInitialized);
  expectAddress(admin);
  expectAsset(base);
  expectTag(assets, TAG_VEC_OBJ);
  for (let i: u32 = 0; i < vecLen(assets); i++) expectAsset(vecGet(assets, i));
  const d = toU32(decimals);
  const res = toU32(resolution_secs);
  if (d > MAX_DECIMALS || res < 1) fail(InvalidConfig);
  put(keyAdmin(), admin, INSTANCE);
  put(keyBase(), base, INSTANCE);
  put(keyDecimals(), decimals, INSTANCE);
  put(keyResolution(), resolution_secs, INSTANCE);
  put(keyAssets(), assets, INSTANCE);
  bumpInstance();
  return VOID;
}

export function admin(): u64 {
  return has(keyAdmin(), INSTANCE) ? get(keyAdmin(), INSTANCE) : VOID;
}

export function base(): u64 {
  return get(keyBase(), INSTANCE);
}

export function assets(): u64 {
  return get(keyAssets(), INSTANCE);
}

export function decimals(): u64 {
  return get(keyDecimals(), INSTANCE);
}

export function resolution(): u64 {
  return get(keyResolution(), INSTANCE);
}

export function version(): u64 {
  return fromU32(VERSION);
}

export function last_timestamp(): u64 {
  return fromU64(roundOf(ledgerTimestamp(), loadResolution()));
}

export function lastprice(asset: u64): u64 {
  const feed = loadFeed(expectAsset(asset));
  if (feed == null) return VOID;
  const t = freshRound(feed);
  if (t == u64.MAX_VALUE) return VOID;
  const p = priceAt(feed[F_HISTORY], t);
  return p == VOID ? VOID : priceData(p, t);
}

export function price(asset: u64, timestamp: u64): u64 {
  const feed = loadFeed(expectAsset(asset));
  if (feed == null) return VOID;
  const res = loadResolution();
  const t = roundOf(toU64(timestamp), res);
  if (t > lastRound(feed, ledgerTimestamp(), res)) return VOID;
  const p = priceAt(feed[F_HISTORY], t);
  return p == VOID ? VOID : priceData(p, t);
}

export function prices(asset: u64, records: u64): u64 {
  const feed = loadFeed(expectAsset(asset));
  let n = toU32(records);
  if (feed == null) return VOID;
  const newest = freshRound(feed);
  if (newest == u64.MAX_VALUE) return VOID;
  const res = loadResolution();
  if (n > MAX_RECORDS) n = MAX_RECORDS;
  let out = env.vec_new();
  for (let i: u32 = 0; i < n; i++) {
    const back = (i as u64) * res;
    if (back > newest) break;
    const t = newest - back;
    const p = priceAt(feed[F_HISTORY], t);
    if (p == VOID) break;
    out = env.vec_push_back(out, priceData(p, t));
  }
  return vecLen(out) > 0 ? out : VOID;
}

function requireAdmin(): void {
  if (!has(keyAdmin(), INSTANCE)) fail(Unauthorized);
  requireAuth(get(keyAdmin(), INSTANCE));
}

export function set_price(asset: u64, price_: u64): u64 {
  requireAdmin();
  expectAsset(asset);
  if (!I128.fromVal(price_).isPos()) fail(InvalidPrice);
  const round = roundOf(ledgerTimestamp(), loadResolution());
  let feed = loadFeed(asset);
  if (feed == null) {
    feed = feedSchema().values();
    feed[F_HISTORY] = env.vec_new();
    feed[F_PAUSED] = fromU64(0);
  }
  // A new price replaces the one of the same round (Reflector keeps one record per round).
  feed[F_HISTORY] = pushRecord(feed[F_HISTORY], price_, round);
  feed[F_LIVE] = fromBool(true);
  storeFeed(asset, feed);
  const list = get(keyAssets(), INSTANCE);
  if (!vecContains(list, asset)) put(keyAssets(), env.vec_push_back(list, asset), INSTANCE);
  bumpInstance();
  const d: StaticArray<u64> = [asset, price_, fromU64(round)];
  event("update", vecOf(d));
  return VOID;
}

export function set_feed(asset: u64, live: u64): u64 {
  requireAdmin();
  const feed = loadFeed(expectAsset(asset));
  if (feed == null) {
    fail(AssetMissing);
    return VOID;
  }
  const now = ledgerTimestamp();
  const on = toBool(live);
  const was = toBool(feed[F_LIVE]);
  if (was && !on) feed[F_PAUSED] = fromU64(now);
  if (!was && on) {
    // Resuming republishes the last price from the current round on.
    const h = feed[F_HISTORY];
    const last = priceSchema().decode(vecGet(h, vecLen(h) - 1));
    const round = roundOf(now, loadResolution());
    if (toU64(last[P_TIME]) != round) feed[F_HISTORY] = pushRecord(h, last[P_PRICE], round);
  }
  feed[F_LIVE] = fromBool(on);
  storeFeed(asset, feed);
  bumpInstance();
  event("feed", vec2(asset, fromBool(on)));
  return VOID;
}
