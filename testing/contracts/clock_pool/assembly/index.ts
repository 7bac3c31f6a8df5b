// Test fixture: a fake lending pool whose payout depends on the ledger it runs in: submit takes
// requests[0].amount of requests[0].address from spender and pays `to` that amount plus
// ledger timestamp mod 997 from its own balance (like Blend, where interest and the repay
// refund move per ledger).
import {
  addI128, currentContract, I128, ledgerTimestamp, requireAuth, Schema, tokenTransfer, vecGet,
  vecLen, VOID,
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
  if (vecLen(requests) == 0) return VOID;
  const r = request(requests, 0);
  requireAuth(spender);
  const amount = I128.fromVal(r[R_AMOUNT]);
  tokenTransfer(r[R_ADDRESS], spender, currentContract(), amount);
  const out = addI128(amount, I128.of((ledgerTimestamp() % 997) as i64), 1);
  tokenTransfer(r[R_ADDRESS], currentContract(), to, out);
  return VOID;
}
