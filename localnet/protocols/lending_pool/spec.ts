/**
 * The lending pool's contract interface: the Blend v2 pool spec (names, argument order, types
 * and plain, non-`Result` returns exactly as in the SDK's embedded `PoolContractV2` spec), limited
 * to the functions this stand-in implements, plus Blend's `PoolError` enum.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "../../../contracts/sdk.ts";
import { PoolError } from "./errors.ts";

const addrT = T.address;
const reqVec = T.vec(T.udt("Request"));
const positions = T.udt("Positions");

const base = defineSpec({
  functions: [
    {
      name: "__constructor",
      inputs: [
        ["admin", addrT],
        ["name", T.string],
        ["oracle", addrT],
        ["bstop_rate", T.u32],
        ["max_positions", T.u32],
        ["min_collateral", T.i128],
        ["backstop_id", addrT],
        ["blnd_id", addrT],
      ],
    },
    {
      name: "submit",
      inputs: [["from", addrT], ["spender", addrT], ["to", addrT], ["requests", reqVec]],
      output: positions,
    },
    {
      name: "submit_with_allowance",
      inputs: [["from", addrT], ["spender", addrT], ["to", addrT], ["requests", reqVec]],
      output: positions,
    },
    {
      name: "new_auction",
      inputs: [
        ["auction_type", T.u32],
        ["user", addrT],
        ["bid", T.vec(addrT)],
        ["lot", T.vec(addrT)],
        ["percent", T.u32],
      ],
      output: T.udt("AuctionData"),
    },
    {
      name: "get_auction",
      inputs: [["auction_type", T.u32], ["user", addrT]],
      output: T.udt("AuctionData"),
    },
    { name: "del_auction", inputs: [["auction_type", T.u32], ["user", addrT]] },
    { name: "bad_debt", inputs: [["user", addrT]] },
    { name: "get_positions", inputs: [["address", addrT]], output: positions },
    { name: "get_reserve", inputs: [["asset", addrT]], output: T.udt("Reserve") },
    { name: "get_reserve_list", output: T.vec(addrT) },
    { name: "get_config", output: T.udt("PoolConfig") },
    { name: "get_admin", output: addrT },
    {
      name: "get_reserve_emissions",
      inputs: [["reserve_token_index", T.u32]],
      output: T.option(T.udt("ReserveEmissionData")),
    },
    {
      name: "get_user_emissions",
      inputs: [["user", addrT], ["reserve_token_index", T.u32]],
      output: T.option(T.udt("UserEmissionData")),
    },
    {
      name: "queue_set_reserve",
      inputs: [["asset", addrT], ["metadata", T.udt("ReserveConfig")]],
    },
    { name: "cancel_set_reserve", inputs: [["asset", addrT]] },
    { name: "set_reserve", inputs: [["asset", addrT]], output: T.u32 },
    {
      name: "update_pool",
      inputs: [["backstop_take_rate", T.u32], ["max_positions", T.u32], [
        "min_collateral",
        T.i128,
      ]],
    },
    { name: "set_status", inputs: [["pool_status", T.u32]] },
    { name: "propose_admin", inputs: [["new_admin", addrT]] },
    { name: "accept_admin" },
  ],
  structs: {
    Request: [["address", addrT], ["amount", T.i128], ["request_type", T.u32]],
    Positions: [
      ["collateral", T.map(T.u32, T.i128)],
      ["liabilities", T.map(T.u32, T.i128)],
      ["supply", T.map(T.u32, T.i128)],
    ],
    AuctionData: [
      ["bid", T.map(addrT, T.i128)],
      ["block", T.u32],
      ["lot", T.map(addrT, T.i128)],
    ],
    AuctionKey: [["auct_type", T.u32], ["user", addrT]],
    UserReserveKey: [["reserve_id", T.u32], ["user", addrT]],
    PoolConfig: [
      ["bstop_rate", T.u32],
      ["max_positions", T.u32],
      ["min_collateral", T.i128],
      ["oracle", addrT],
      ["status", T.u32],
    ],
    ReserveConfig: [
      ["c_factor", T.u32],
      ["decimals", T.u32],
      ["enabled", T.bool],
      ["index", T.u32],
      ["l_factor", T.u32],
      ["max_util", T.u32],
      ["r_base", T.u32],
      ["r_one", T.u32],
      ["r_three", T.u32],
      ["r_two", T.u32],
      ["reactivity", T.u32],
      ["supply_cap", T.i128],
      ["util", T.u32],
    ],
    ReserveData: [
      ["b_rate", T.i128],
      ["b_supply", T.i128],
      ["backstop_credit", T.i128],
      ["d_rate", T.i128],
      ["d_supply", T.i128],
      ["ir_mod", T.i128],
      ["last_time", T.u64],
    ],
    Reserve: [
      ["asset", addrT],
      ["config", T.udt("ReserveConfig")],
      ["data", T.udt("ReserveData")],
      ["scalar", T.i128],
    ],
    QueuedReserveInit: [["new_config", T.udt("ReserveConfig")], ["unlock_time", T.u64]],
    ReserveEmissionData: [
      ["eps", T.u64],
      ["expiration", T.u64],
      ["index", T.i128],
      ["last_time", T.u64],
    ],
    UserEmissionData: [["accrued", T.i128], ["index", T.i128]],
    PriceData: [["price", T.i128], ["timestamp", T.u64]],
  },
  unions: {
    Asset: [["Stellar", addrT], ["Other", T.symbol]],
  },
});

// Blend panics with its errors (`panic_with_error!`) instead of returning `Result`, so the
// functions above keep plain outputs and the error enum is appended on its own.
const errorEnum = xdr.ScSpecEntry.fromJson({
  udt_error_enum_v0: {
    doc: "Error codes for the pool contract.",
    lib: "",
    name: "PoolError",
    cases: Object.entries(PoolError).map(([name, value]) => ({ doc: "", name, value })),
  },
  // deno-lint-ignore no-explicit-any
} as any);

/** The pool's spec entries. */
export const lendingPoolSpec: xdr.ScSpecEntry[] = [...base, errorEnum];
