// Test fixture: a fake lending pool that is its own oracle, with no prices: submit pays `to`
// every withdraw-collateral request (type 3) from the pool's own balance (a "lot"), get_config
// names the pool as the oracle and lastprice is always None (the liquidator's PriceUnavailable).
import {
  currentContract, I128, Schema, tokenTransfer, toU32, vecGet, vecLen, VOID,
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
    if (toU32(r[R_TYPE]) != 3) continue;
    tokenTransfer(r[R_ADDRESS], currentContract(), to, I128.fromVal(r[R_AMOUNT]));
  }
  return VOID;
}

export function get_config(): u64 {
  const v: StaticArray<u64> = [currentContract()];
  return new Schema("oracle").encode(v);
}

export function lastprice(asset: u64): u64 {
  return VOID;
}
