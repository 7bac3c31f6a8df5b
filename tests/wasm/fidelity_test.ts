/**
 * Error classes checked against the real host (`stellar/rs-soroban-env`): a host function
 * argument whose Val tag does not match its env.json type fails when the dispatcher marshals it
 * (`Error(Value, InvalidInput)`), and `map_unpack_to_linear_memory` reports a key that is not a
 * symbol as a conversion error and a differing name as a symbol mismatch (both `Value` errors,
 * see `mem_helper.rs` `check_symbol_matches`).
 */
import assert from "node:assert/strict";
import { xdr } from "@stellar/stellar-sdk";
import {
  addr,
  forwarder,
  i32,
  native,
  num,
  str,
  sym,
  u32,
  vec,
} from "@vigil/testing/wasm/fwd_fixture";

Deno.test("dispatch: a typed argument with the wrong tag is Error(Value, InvalidInput)", async () => {
  await using f = await forwarder();
  // MapObject parameter given a VecObject.
  assert.match(await f.hfErr("m.3", vec()), /Error\(Value, InvalidInput\)/);
  // U32Val index given an I32.
  assert.match(await f.hfErr("v.1", vec(u32(1)), i32(0)), /Error\(Value, InvalidInput\)/);
  // BytesObject parameter given a String.
  assert.match(await f.hfErr("b.8", str("abc")), /Error\(Value, InvalidInput\)/);
  // fail_with_error's Error parameter given a U32.
  assert.match(await f.hfErr("x.5", u32(3)), /Error\(Value, InvalidInput\)/);
  // call's Symbol parameter given a String (the address is checked first, so pass a real one).
  assert.match(await f.hfErr("d._", addr(f.id), str("v_3"), vec()), /Error\(Value, InvalidInput\)/);
  // U256Val parameter given a U32 (u256_add), and given a U256 where an I256 is due (i256_add).
  assert.match(await f.hfErr("i.n", u32(1), u32(2)), /Error\(Value, InvalidInput\)/);
  assert.match(
    await f.hfErr("i.v", num(1, "i256"), num(1, "u256")),
    /Error\(Value, InvalidInput\)/,
  );
  assert.equal(native(await f.hf("i.n", num(1, "u256"), num(2, "u256"))), 3n);
  // The right tags still work (so the assertions above test the tag, not the function).
  assert.equal(native(await f.hf("m.3", xdr.ScVal.scvMap([]))), 0);
  assert.equal(native(await f.hf("v.1", vec(u32(1)), u32(0))), 1);
});

Deno.test("map_unpack_to_linear_memory: mismatch and non-symbol keys are Value errors", async () => {
  await using f = await forwarder();
  const data = new Uint8Array(256);
  const dv = new DataView(data.buffer);
  ["amount", "owner"].forEach((n, i) => {
    data.set(new TextEncoder().encode(n), 64 + i * 16);
    dv.setUint32(i * 8, 64 + i * 16, true);
    dv.setUint32(i * 8 + 4, n.length, true);
  });
  const entry = (key: xdr.ScVal, v: number) => new xdr.ScMapEntry({ key, val: u32(v) });
  const other = xdr.ScVal.scvMap([entry(sym("amount"), 9), entry(sym("ownerx"), 1)]);
  const err = (m: xdr.ScVal) =>
    f.hfMem("m.a", data, m, u32(0), u32(300), u32(2)).then(
      () => "succeeded",
      (e) => String(e),
    );
  assert.match(await err(other), /Error\(Value, InvalidInput\)/);
  const numeric = xdr.ScVal.scvMap([entry(u32(1), 9), entry(u32(2), 1)]);
  assert.match(await err(numeric), /Error\(Value, UnexpectedType\)/);
  // Same keys unpack (the fixture is right).
  const good = xdr.ScVal.scvMap([entry(sym("amount"), 9), entry(sym("owner"), 1)]);
  assert.equal(await err(good), "succeeded");
});
