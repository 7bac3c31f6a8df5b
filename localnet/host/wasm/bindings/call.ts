/**
 * Module `d` (call): `call` and `try_call` into any contract (Wasm or the built-in SAC). A failed `try_call` rolls back the callee's effects (the invocation's frame
 * machinery does that) and returns the error as a Val.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { HostErr, isRecoverable } from "../../errors.ts";
import { errorValOf, valErr } from "../objects.ts";
import { Tag, tagOf } from "../val.ts";
import { reloadFuel, syncFuel } from "../vm.ts";

function doCall(c: VmCtx, a: bigint, f: bigint, v: bigint, kind: "call" | "try"): bigint {
  const contract = c.address(a);
  const t = tagOf(f);
  if (t !== Tag.SymbolSmall && t !== Tag.SymbolObject) {
    throw valErr("Value", "InvalidInput", "function name must be a Symbol");
  }
  const fn = new TextDecoder().decode(c.store.symbolBytes(c.abs(f)));
  const args = c.vec(v).map((x) => c.store.toScVal(x));
  syncFuel(c.h, c);
  let ret: xdr.ScVal;
  try {
    ret = c.h.callContract(c.frame, contract, fn, args, kind);
  } catch (e) {
    reloadFuel(c.h, c);
    if (e instanceof HostErr) {
      const fnSym = xdr.ScVal.scvSymbol(fn);
      if (kind === "try" && isRecoverable(e)) {
        c.h.diagError(e.type, e.code, "contract try_call failed", [fnSym, xdr.ScVal.scvVec(args)]);
        return e.type === "Contract"
          ? errorValOf("Contract", e.code)
          : errorValOf("Context", "InvalidAction");
      }
      c.h.diagError(e.type, e.code, "contract call failed", [fnSym, xdr.ScVal.scvVec(args)]);
      c.h.diagError(
        e.type,
        e.code,
        "escalating error to VM trap from failed host function call: call",
      );
      if (!c.frame.poison) c.frame.poison = e;
    }
    throw e;
  }
  reloadFuel(c.h, c);
  return c.fromScVal(ret);
}

export const CALL: [string, HostFn][] = [
  ["_", hf("call", 3, (c, a, f, v) => doCall(c, a, f, v, "call"))],
  ["0", hf("try_call", 3, (c, a, f, v) => doCall(c, a, f, v, "try"))],
];
