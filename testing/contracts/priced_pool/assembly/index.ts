// Test fixture: a fake lending pool that is its own oracle, with prices a test sets, and whose
// submit moves exactly the requested amounts: Repay (type 5) takes `amount` of the asset from
// `spender`, WithdrawCollateral (type 3) pays `amount` to `to` from the pool's own balance, a fill
// (type 6) moves nothing. The liquidator's BelowMinProfit property test (random amounts and
// prices against a bigint model) runs its ratio check on these exact amounts.
import {
  currentContract, fromU64, get, has, I128, INSTANCE, put, Schema, symbol, tokenTransfer, toU32,
  vec2, vecGet, vecLen, VOID,
} from "../../../../contracts/sdk/index";

// Blend's Positions { collateral, liabilities, supply }, all empty.
@external("m", "_") declare function map_new(): u64;

export function get_positions(address: u64): u64 {
  const v: StaticArray<u64> = [map_new(), map_new(), map_new()];
  return new Schema("collateral,liabilities,supply").encode(v);
}

// Request { address, amount, request_type } (fields in byte order).
const R_ADDRESS = 0;
const R_AMOUNT = 1;
const R_TYPE = 2;
function request(requests: u64, i: u32): StaticArray<u64> {
  return new Schema("address,amount,request_type").decode(vecGet(requests, i));
}

export function submit(from: u64, spender: u64, to: u64, requests: u64): u64 {
  const n = vecLen(requests);
  for (let i: u32 = 0; i < n; i++) {
    const r = request(requests, i);
    const kind = toU32(r[R_TYPE]);
    const amount = I128.fromVal(r[R_AMOUNT]);
    if (kind == 5) tokenTransfer(r[R_ADDRESS], spender, currentContract(), amount);
    else if (kind == 3) tokenTransfer(r[R_ADDRESS], currentContract(), to, amount);
  }
  return VOID;
}

export function get_config(): u64 {
  const v: StaticArray<u64> = [currentContract()];
  return new Schema("oracle").encode(v);
}

function priceKey(token: u64): u64 {
  return vec2(symbol("price"), token);
}

export function set_price(token: u64, price: u64): u64 {
  put(priceKey(token), price, INSTANCE);
  return VOID;
}

// lastprice(Asset::Stellar(token)) -> Option<PriceData { price, timestamp }>
export function lastprice(asset: u64): u64 {
  const key = priceKey(vecGet(asset, 1));
  if (!has(key, INSTANCE)) return VOID;
  const v: StaticArray<u64> = [get(key, INSTANCE), fromU64(0)];
  return new Schema("price,timestamp").encode(v);
}
