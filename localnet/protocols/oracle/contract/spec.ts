/**
 * The local market's SEP-40 price oracle: its Soroban interface (functions, structs, errors).
 *
 * Reflector's read ABI (v4: `lastprice`, `price`, `prices`, `decimals`, `resolution`, `base`,
 * `assets`, `last_timestamp`, `admin`, `version`) plus the admin writes `set_price` and
 * `set_feed` that scenarios, tests and `localnet_shock` drive. Like Reflector, the reads return
 * plain values (no `Result`): failures are contract errors listed in `OracleError`.
 *
 * Struct fields are listed in byte order of their names (how `#[contracttype]` structs appear on
 * the wire).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** Oracle error codes (the numbering of the TypeScript stand-in this contract replaced). */
export const OracleError = {
  AlreadyInitialized: 0,
  Unauthorized: 1,
  AssetMissing: 2,
  InvalidPrice: 3,
  InvalidConfig: 4,
} as const;

/** How many price changes an asset's feed keeps (enough for 20 records of `prices`). */
export const HISTORY_LEN = 32;
/** Reflector caps `prices(asset, records)` at 20 records (v4.1 behaviour). */
export const MAX_RECORDS = 20;

/** SEP-40 `Asset` in its native (contract.Client) form. */
export type AssetArg = { tag: "Stellar"; values: [string] } | { tag: "Other"; values: [string] };

/** SEP-40 `PriceData`. */
export interface PriceData {
  price: bigint;
  timestamp: bigint;
}

const assetT = T.udt("Asset");
const priceT = T.udt("PriceData");

const base = defineSpec({
  functions: [
    {
      name: "__constructor",
      doc:
        "Stores the admin, the base asset, the listed assets, decimals (at most 18) and the round length in seconds (at least 1).",
      inputs: [
        ["admin", T.address],
        ["base", assetT],
        ["assets", T.vec(assetT)],
        ["decimals", T.u32],
        ["resolution", T.u32],
      ],
    },
    { name: "admin", doc: "The admin allowed to publish prices.", output: T.option(T.address) },
    { name: "base", doc: "The asset prices are quoted in.", output: assetT },
    { name: "assets", doc: "Assets listed or priced so far.", output: T.vec(assetT) },
    { name: "decimals", doc: "Decimals of every price.", output: T.u32 },
    { name: "resolution", doc: "Seconds between rounds.", output: T.u32 },
    { name: "version", doc: "Reflector interface version (4).", output: T.u32 },
    { name: "last_timestamp", doc: "The current round's timestamp.", output: T.u64 },
    {
      name: "lastprice",
      doc:
        "The current round's price; None for an unknown asset or a feed whose newest round is 2 x resolution old.",
      inputs: [["asset", assetT]],
      output: T.option(priceT),
    },
    {
      name: "price",
      doc: "The price of the round containing timestamp; None before the first or after the last.",
      inputs: [["asset", assetT], ["timestamp", T.u64]],
      output: T.option(priceT),
    },
    {
      name: "prices",
      doc: "Up to min(records, 20) rounds, newest first; None when stale or unknown.",
      inputs: [["asset", assetT], ["records", T.u32]],
      output: T.option(T.vec(priceT)),
    },
    {
      name: "set_price",
      doc:
        "Admin only: publishes price (> 0) for the current round (replacing one set earlier in the round); lists the asset.",
      inputs: [["asset", assetT], ["price", T.i128]],
    },
    {
      name: "set_feed",
      doc:
        "Admin only: stops (false) or resumes (true) a priced asset's feed; resuming republishes its last price.",
      inputs: [["asset", assetT], ["live", T.bool]],
    },
  ],
  structs: { PriceData: [["price", T.i128], ["timestamp", T.u64]] },
  unions: { Asset: [["Stellar", T.address], ["Other", T.symbol]] },
});

// Plain outputs like Reflector's, so the error enum is appended rather than given to defineSpec
// (which would wrap every output in Result).
const errors = xdr.ScSpecEntry.fromJson({
  udt_error_enum_v0: {
    doc: "",
    lib: "",
    name: "OracleError",
    cases: Object.entries(OracleError).map(([name, value]) => ({ doc: "", name, value })),
  },
  // deno-lint-ignore no-explicit-any
} as any);

/** The oracle's spec. */
export const ORACLE_SPEC: xdr.ScSpecEntry[] = [...base, errors];

/** Native `Asset::Stellar(contract)`: what `lastprice` takes for a token. */
export const stellarAsset = (contractId: string): AssetArg => ({
  tag: "Stellar",
  values: [contractId],
});

/** Native `Asset::Other(symbol)`. */
export const otherAsset = (symbol: string): AssetArg => ({ tag: "Other", values: [symbol] });
