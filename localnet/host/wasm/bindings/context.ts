/**
 * Module `x` (context): logging, Val comparison, contract events, ledger facts and
 * `fail_with_error`.
 *
 * @module
 */
import { hf, type HostFn } from "../ctx.ts";
import { errorOfVal, valErr } from "../objects.ts";
import { Tag, tagOf, VOID } from "../val.ts";
import { readSliceVals } from "./util.ts";

export const CONTEXT: [string, HostFn][] = [
  [
    "_",
    hf("log_from_linear_memory", 4, (c, mp, ml, vp, vl) => {
      const msg = new TextDecoder().decode(c.memSlice(c.u32(mp), c.u32(ml)));
      const vals = readSliceVals(c, c.u32(vp), c.u32(vl)).map((v) => c.store.toScVal(v));
      c.h.log(msg, vals);
      return VOID;
    }),
  ],
  [
    "0",
    hf("obj_cmp", 2, (c, a, b) => {
      const r = c.store.compare(c.abs(a), c.abs(b));
      return BigInt(r);
    }),
  ],
  [
    "1",
    hf("contract_event", 2, (c, t, d) => {
      const topics = c.vec(t);
      if (topics.length > 4) throw valErr("Events", "InvalidInput", "too many event topics");
      const ts = topics.map((v) => {
        const tag = tagOf(v);
        if (tag === Tag.VecObject || tag === Tag.MapObject) {
          throw valErr("Events", "InvalidInput", "event topic cannot be a vec or map");
        }
        if (tag === Tag.BytesObject && c.store.bytes(v).length > 32) {
          throw valErr("Events", "InvalidInput", "event topic bytes longer than 32");
        }
        return c.store.toScVal(v);
      });
      const data = c.scval(d);
      c.charge(5_000);
      c.h.emit(c.frame, ts, data);
      return VOID;
    }),
  ],
  ["2", hf("get_ledger_version", 0, (c) => c.u32Val(c.h.req.ledger.protocolVersion))],
  ["3", hf("get_ledger_sequence", 0, (c) => c.u32Val(c.h.req.ledger.sequence))],
  [
    "4",
    hf("get_ledger_timestamp", 0, (c) => c.rel(c.store.num(64, BigInt(c.h.req.ledger.timestamp)))),
  ],
  [
    "5",
    hf("fail_with_error", 1, (_c, e) => {
      if (tagOf(e) !== Tag.Error) throw valErr("Value", "InvalidInput", "expected an Error");
      const { type, code } = errorOfVal(e);
      if (type !== "Contract") {
        throw valErr(
          "Context",
          "UnexpectedType",
          "contract attempted to fail with non-ContractError error code",
        );
      }
      throw valErr("Contract", String(code), "failing with contract error");
    }),
  ],
  ["6", hf("get_ledger_network_id", 0, (c) => c.newBytes(Uint8Array.from(c.h.networkId)))],
  [
    "7",
    hf(
      "get_current_contract_address",
      0,
      (c) => c.rel(c.store.newAddress(c.frame.callee.scAddress, c.frame.contract)),
    ),
  ],
  ["8", hf("get_max_live_until_ledger", 0, (c) => c.u32Val(c.h.maxLiveUntil))],
];
