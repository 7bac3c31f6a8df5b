/**
 * The market oracle's behaviour as a TypeScript module, for the in-memory fake host of the lending
 * pool unit tests only (`tests/protocols/lending_pool_fake_env.ts`, which cannot run Wasm). The
 * node runs the Wasm contract `contracts/wasm/oracle.wasm` (source `contracts/oracle/`, tests
 * `tests/contracts/oracle_test.ts`); this copy goes when the lending pool stand-in does.
 *
 * SEP-40 price oracle with Reflector's read ABI (Pulse / v4 `lastprice`, `price`,
 * `prices`, `decimals`, `resolution`, `base`, `assets`, `last_timestamp`, `admin`, `version`)
 * and an admin write `set_price(asset, price)` for scenarios and tests.
 *
 * Feed model: a real Reflector node publishes a round every `resolution` seconds. Here an asset
 * whose price was set is "live": every round carries the last price set, so `lastprice`
 * reports the current round's timestamp (ledger time floored to the resolution). The admin can
 * stop an asset's feed (`set_feed(asset, false)`); its rounds then end at the last published
 * round and, like Reflector (`obtain_last_record_timestamp`), `lastprice`/`prices` return None
 * once that round is 2 × resolution old, or for an unknown asset. Blend pools unwrap that None
 * (a trap) and reject prices older than 24 h or ≤ 0 with 1210 InvalidPrice.
 *
 * Storage (own layout; the Blend SDK reads the oracle only through simulation): instance
 * `Admin`, `Base` (Asset), `Decimals` (u32), `Resolution` (u32, seconds), `Assets` (Vec<Asset>);
 * persistent `Vec[Feed, Asset]` → `{history: Vec<PriceData>, live: bool, paused_at: u64}` where
 * history holds the latest price changes (newest last, at most {@link HISTORY_LEN}).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { type ContractModule, type Env, fail } from "../../../contracts/sdk.ts";
import {
  type AssetArg,
  HISTORY_LEN,
  MAX_RECORDS,
  ORACLE_SPEC,
  OracleError,
  otherAsset,
  type PriceData,
  stellarAsset,
} from "../../../contracts/oracle/spec.ts";
import {
  addr,
  address,
  big,
  bool,
  fields,
  i128,
  items,
  num,
  struct,
  sym,
  symText,
  u32,
  u64,
  vec,
} from "../../../localnet/protocols/lending_pool/codec.ts";

/** Limits, error codes, types and asset helpers are the Wasm oracle's own (one declaration). */
export { HISTORY_LEN, MAX_RECORDS, OracleError, otherAsset, stellarAsset };
export type { AssetArg, PriceData };

const K = {
  admin: () => sym("Admin"),
  base: () => sym("Base"),
  decimals: () => sym("Decimals"),
  resolution: () => sym("Resolution"),
  assets: () => sym("Assets"),
  feed: (a: AssetArg) => vec([sym("Feed"), assetScVal(a)]),
};

/** `Asset` as Soroban encodes the enum: `Vec[Symbol(variant), payload]`. */
export function assetScVal(a: AssetArg): xdr.ScVal {
  return a.tag === "Stellar"
    ? vec([sym("Stellar"), addr(a.values[0])])
    : vec([sym("Other"), sym(a.values[0])]);
}

function assetFromScVal(v: xdr.ScVal): AssetArg {
  const [tag, payload] = items(v);
  return symText(tag) === "Stellar"
    ? { tag: "Stellar", values: [address(payload)] }
    : { tag: "Other", values: [symText(payload)] };
}

function normAsset(a: unknown): AssetArg {
  // deno-lint-ignore no-explicit-any
  const x = a as any;
  if (!x || (x.tag !== "Stellar" && x.tag !== "Other") || !Array.isArray(x.values)) {
    throw new Error("malformed Asset");
  }
  return { tag: x.tag, values: [String(x.values[0])] } as AssetArg;
}

interface Feed {
  history: PriceData[];
  live: boolean;
  paused_at: bigint;
}

function encodeFeed(f: Feed): xdr.ScVal {
  return struct({
    history: vec(
      f.history.map((p) => struct({ price: i128(p.price), timestamp: u64(p.timestamp) })),
    ),
    live: xdr.ScVal.scvBool(f.live),
    paused_at: u64(f.paused_at),
  });
}

function decodeFeed(v: xdr.ScVal): Feed {
  const f = fields(v);
  return {
    history: items(f.history).map((p) => {
      const pf = fields(p);
      return { price: big(pf.price), timestamp: big(pf.timestamp) };
    }),
    live: bool(f.live),
    paused_at: big(f.paused_at),
  };
}

function getFeed(env: Env, a: AssetArg): Feed | undefined {
  const v = env.storage.persistent.get(K.feed(a));
  return v ? decodeFeed(v) : undefined;
}

function setFeed(env: Env, a: AssetArg, f: Feed): void {
  const k = K.feed(a);
  env.storage.persistent.set(k, encodeFeed(f));
  env.storage.persistent.extendTtl(k, 17280 * 30, 17280 * 31);
}

function resolution(env: Env): bigint {
  const v = env.storage.instance.get(K.resolution());
  if (!v) throw new Error("oracle not initialised");
  return BigInt(num(v));
}

function requireAdmin(env: Env): string {
  const v = env.storage.instance.get(K.admin());
  if (!v) fail(OracleError.Unauthorized);
  const admin = address(v);
  env.requireAuth(admin);
  return admin;
}

/** Timestamp of the round containing `t` (seconds). */
const roundOf = (t: bigint, res: bigint): bigint => (t / res) * res;

/** Timestamp of the newest published round of a feed, given the ledger time. */
function lastRound(f: Feed, now: bigint, res: bigint): bigint {
  return f.live ? roundOf(now, res) : roundOf(f.paused_at, res);
}

/** Price in effect at round `t` (the newest change at or before `t`), or undefined. */
function priceAt(f: Feed, t: bigint): bigint | undefined {
  for (let i = f.history.length - 1; i >= 0; i--) {
    if (f.history[i].timestamp <= t) return f.history[i].price;
  }
  return undefined;
}

/**
 * Newest round timestamp if the feed is fresh, else undefined (Reflector: None when the newest
 * round is ≥ 2 × resolution old or in the future).
 */
function freshRound(env: Env, f: Feed): bigint | undefined {
  const res = resolution(env);
  const now = env.ledger.timestamp;
  const last = lastRound(f, now, res);
  if (last > now || now - last >= 2n * res) return undefined;
  return last;
}

function lastprice(env: Env, a: AssetArg): PriceData | null {
  const f = getFeed(env, a);
  if (!f || f.history.length === 0) return null;
  const t = freshRound(env, f);
  if (t === undefined) return null;
  const price = priceAt(f, t);
  return price === undefined ? null : { price, timestamp: t };
}

function prices(env: Env, a: AssetArg, records: number): PriceData[] | null {
  const f = getFeed(env, a);
  if (!f || f.history.length === 0) return null;
  const newest = freshRound(env, f);
  if (newest === undefined) return null;
  const res = resolution(env);
  const out: PriceData[] = [];
  const n = Math.min(records, MAX_RECORDS);
  for (let i = 0; i < n; i++) {
    const t = newest - BigInt(i) * res;
    if (t < 0n) break;
    const p = priceAt(f, t);
    if (p === undefined) break;
    out.push({ price: p, timestamp: t });
  }
  return out.length > 0 ? out : null;
}

function priceAtTimestamp(env: Env, a: AssetArg, timestamp: bigint): PriceData | null {
  const f = getFeed(env, a);
  if (!f) return null;
  const res = resolution(env);
  const t = roundOf(timestamp, res);
  const now = env.ledger.timestamp;
  if (t > lastRound(f, now, res)) return null;
  const p = priceAt(f, t);
  return p === undefined ? null : { price: p, timestamp: t };
}

function listAssets(env: Env): AssetArg[] {
  const v = env.storage.instance.get(K.assets());
  return v ? items(v).map(assetFromScVal) : [];
}

const sameAsset = (x: AssetArg, y: AssetArg): boolean =>
  x.tag === y.tag && x.values[0] === y.values[0];

/** The oracle contract module. */
export const oracle: ContractModule = {
  name: "oracle",
  spec: ORACLE_SPEC,
  functions: {
    __constructor: (env, a) => {
      if (env.storage.instance.has(K.admin())) fail(OracleError.AlreadyInitialized);
      const decimals = Number(a.decimals);
      const res = Number(a.resolution);
      if (decimals > 18 || res < 1) fail(OracleError.InvalidConfig);
      env.storage.instance.set(K.admin(), addr(String(a.admin)));
      env.storage.instance.set(K.base(), assetScVal(normAsset(a.base)));
      env.storage.instance.set(K.decimals(), u32(decimals));
      env.storage.instance.set(K.resolution(), u32(res));
      const list = (a.assets as unknown[]).map(normAsset);
      env.storage.instance.set(K.assets(), vec(list.map(assetScVal)));
    },
    admin: (env) => {
      const v = env.storage.instance.get(K.admin());
      return v ? address(v) : null;
    },
    base: (env) => {
      const v = env.storage.instance.get(K.base());
      if (!v) throw new Error("oracle not initialised");
      return assetFromScVal(v);
    },
    assets: (env) => listAssets(env),
    decimals: (env) => {
      const v = env.storage.instance.get(K.decimals());
      if (!v) throw new Error("oracle not initialised");
      return num(v);
    },
    resolution: (env) => Number(resolution(env)),
    version: () => 4,
    last_timestamp: (env) => roundOf(env.ledger.timestamp, resolution(env)),
    lastprice: (env, a) => lastprice(env, normAsset(a.asset)),
    price: (env, a) => priceAtTimestamp(env, normAsset(a.asset), BigInt(a.timestamp)),
    prices: (env, a) => prices(env, normAsset(a.asset), Number(a.records)),

    set_price: (env, a) => {
      requireAdmin(env);
      const asset = normAsset(a.asset);
      const price = BigInt(a.price);
      if (price <= 0n) fail(OracleError.InvalidPrice);
      const res = resolution(env);
      const now = env.ledger.timestamp;
      const round = roundOf(now, res);
      const f = getFeed(env, asset) ?? { history: [], live: true, paused_at: 0n };
      // A new price replaces the one of the same round (Reflector keeps one record per round).
      const last = f.history.at(-1);
      if (last && last.timestamp === round) {
        f.history[f.history.length - 1] = { price, timestamp: round };
      } else f.history.push({ price, timestamp: round });
      if (f.history.length > HISTORY_LEN) f.history.splice(0, f.history.length - HISTORY_LEN);
      f.live = true;
      setFeed(env, asset, f);
      const list = listAssets(env);
      if (!list.some((x) => sameAsset(x, asset))) {
        list.push(asset);
        env.storage.instance.set(K.assets(), vec(list.map(assetScVal)));
      }
      env.emit(
        [sym("REFLECTOR"), sym("update")],
        vec([assetScVal(asset), i128(price), u64(round)]),
      );
    },

    set_feed: (env, a) => {
      requireAdmin(env);
      const asset = normAsset(a.asset);
      const f = getFeed(env, asset);
      if (!f) fail(OracleError.AssetMissing);
      const live = Boolean(a.live);
      if (f.live && !live) f.paused_at = env.ledger.timestamp;
      if (!f.live && live) {
        // Resuming republishes the last price from the current round on.
        const p = f.history.at(-1)!.price;
        const round = roundOf(env.ledger.timestamp, resolution(env));
        if (f.history.at(-1)!.timestamp !== round) f.history.push({ price: p, timestamp: round });
        if (f.history.length > HISTORY_LEN) f.history.splice(0, f.history.length - HISTORY_LEN);
      }
      f.live = live;
      setFeed(env, asset, f);
    },
  },
};

/** Raw `Option<PriceData>` decoding helper for tests and tools (positional, like the Blend SDK). */
export function decodePriceData(v: xdr.ScVal): PriceData | null {
  // deno-lint-ignore no-explicit-any
  if ((v as any).type === "scvVoid") return null;
  const f = fields(v);
  return { price: big(f.price), timestamp: big(f.timestamp) };
}
