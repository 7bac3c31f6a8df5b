/**
 * The native ↔ ScVal codec driven by a contract's spec (`localnet/spec/`, moved from
 * `localnet/host/codec.ts` when the home-made host was deleted): what `invoke`, `view` and
 * `deployWasm` encode arguments and decode results with.
 */
import assert from "node:assert/strict";
import { contract, Keypair, nativeToScVal, StrKey, xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "@vigil/soroban/spec_dsl";
import { CodecError, SpecCodec } from "./codec.ts";
import { decodeResult, encodeArgs } from "./contract_spec.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const G = Keypair.random().publicKey();
const C = StrKey.encodeContract(new Uint8Array(32).fill(9) as Any);

const spec = defineSpec({
  functions: [
    {
      name: "all",
      inputs: [
        ["a", T.u32],
        ["b", T.i128],
        ["c", T.address],
        ["d", T.option(T.u64)],
        ["e", T.vec(T.udt("Pos"))],
        ["f", T.map(T.symbol, T.i128)],
        ["g", T.tuple(T.bool, T.string)],
        ["h", T.bytesN(4)],
        ["i", T.udt("Action")],
        ["j", T.udt("Kind")],
      ],
      output: T.udt("Pos"),
    },
    { name: "nothing" },
    { name: "maybe", inputs: [["x", T.u32]], output: T.option(T.address) },
  ],
  // Fields deliberately not in name order: the wire order must be sorted.
  structs: { Pos: [["zeta", T.i128], ["alpha", T.address], ["mid", T.option(T.u32)]] },
  unions: { Action: [["Stop"], ["Move", T.i128, T.address]] },
  enums: { Kind: [["Small", 1], ["Large", 2]] },
  errors: { Bad: [1, "Bad thing"] },
});

/**
 * The spec with struct fields sorted by name, as soroban-sdk emits specs: `contract.Spec`
 * decodes a struct's map entries by position, so it needs that order.
 */
function normalizeSpec(entries: xdr.ScSpecEntry[]): xdr.ScSpecEntry[] {
  return entries.map((e) => {
    if (e.type !== "scSpecEntryUdtStructV0") return e;
    const j = e.toJson() as Any;
    const fields = [...j.udt_struct_v0.fields];
    if (fields.length > 0 && fields.every((f: Any) => /^\d+$/.test(f.name))) return e;
    j.udt_struct_v0.fields = fields.sort((a: Any, b: Any) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
    return xdr.ScSpecEntry.fromJson(j);
  });
}

const codec = new SpecCodec(spec);
const sdkSpec = new contract.Spec(normalizeSpec(spec));

const sample = {
  a: 7,
  b: -12345678901234567890n,
  c: G,
  d: null,
  e: [{ zeta: 5n, alpha: C, mid: 3 }, { zeta: -1n, alpha: G, mid: null }],
  f: [["b", 2n], ["a", 1n]],
  g: [true, "hi"],
  h: new Uint8Array([1, 2, 3, 4]),
  i: { tag: "Move", values: [10n, C] },
  j: 2,
};

Deno.test("codec: encodes arguments by name or position, struct keys sorted, map keys sorted", () => {
  const byName = codec.encodeArgs("all", sample);
  const byPos = codec.encodeArgs("all", Object.values(sample));
  assert.deepEqual(byName.map((v) => v.toXdr("base64")), byPos.map((v) => v.toXdr("base64")));
  const pos = byName[4] as Any;
  const keys = pos.vec[0].map.map((e: Any) => String(e.key.sym));
  assert.deepEqual(keys, ["alpha", "mid", "zeta"]);
  const mapKeys = (byName[5] as Any).map.map((e: Any) => String(e.key.sym));
  assert.deepEqual(mapKeys, ["a", "b"]);
});

Deno.test("codec: round trip native → ScVal → native", () => {
  const vals = codec.encodeArgs("all", sample);
  const f = codec.fns.get("all")!;
  const back = Object.fromEntries(f.inputs.map((inp, i) => [inp.name, inp.conv.dec(vals[i])]));
  assert.deepEqual(back, {
    ...sample,
    f: [["a", 1n], ["b", 2n]], // maps come back sorted, as [key, value] pairs
  });
});

Deno.test("codec: interoperates with the SDK's contract.Spec in both directions", () => {
  const ours = codec.encodeArgs("all", sample);
  const theirs = sdkSpec.funcArgsToScVals("all", { ...sample, f: new Map([["a", 1n], ["b", 2n]]) });
  assert.deepEqual(ours.map((v) => v.toXdr("base64")), theirs.map((v) => v.toXdr("base64")));
  // A struct return value decodes identically with the SDK (by position, thanks to sorting).
  const ret = codec.fns.get("all")!.output!.enc({ zeta: 9n, alpha: G, mid: 4 });
  const sdkRes = sdkSpec.funcResToNative("all", ret) as Any;
  assert.deepEqual(sdkRes.unwrap(), { alpha: G, mid: 4, zeta: 9n });
  assert.deepEqual(decodeResult(spec, "all", ret), { alpha: G, mid: 4, zeta: 9n });
});

Deno.test("codec: strict decoding rejects mismatched ScVal types", () => {
  const f = codec.fns.get("all")!;
  assert.throws(() => f.inputs[0].conv.dec(xdr.ScVal.scvU64(7n as Any)), CodecError);
  assert.throws(() => f.inputs[1].conv.dec(xdr.ScVal.scvU32(7)), CodecError);
  assert.throws(
    () => f.inputs[7].conv.dec(xdr.ScVal.scvBytes(new Uint8Array(3) as Any)),
    CodecError,
  );
  assert.throws(() => f.inputs[9].conv.dec(xdr.ScVal.scvU32(3)), CodecError); // not an enum case
  assert.throws(
    () => f.inputs[8].conv.dec(xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Jump")])),
    CodecError,
  );
});

Deno.test("codec: encoding rejects out-of-range and wrongly shaped values", () => {
  assert.throws(() => codec.encodeArgs("all", { ...sample, a: -1 }), /out of range for u32/);
  assert.throws(() => codec.encodeArgs("all", { ...sample, b: 1n << 127n }), /out of range/);
  assert.throws(
    () => codec.encodeArgs("all", { ...sample, h: new Uint8Array(5) }),
    /expected 4 bytes/,
  );
  assert.throws(() => codec.encodeArgs("all", { ...sample, c: "nope" }), Error);
  assert.throws(() => codec.encodeArgs("all", [1, 2]), /takes 10 argument/);
  const { a: _a, ...missing } = sample;
  assert.throws(() => codec.encodeArgs("all", missing), /missing argument a/);
});

Deno.test("codec: options, void results and Result outputs", () => {
  assert.deepEqual(encodeArgs(spec, "nothing", []), []);
  assert.equal(decodeResult(spec, "nothing", xdr.ScVal.scvVoid()), null);
  const none = codec.fns.get("maybe")!.output!;
  assert.equal(none.enc(null).type, "scvVoid");
  assert.equal(none.dec(xdr.ScVal.scvVoid()), null);
  assert.equal(none.dec(nativeToScVal(C, { type: "address" })), C);
  // The spec has an error enum: outputs are Result<T, Error>, errors come from the table.
  assert.equal(codec.errors.get(1), "Bad thing");
});

Deno.test("codec: ScVals given as native values pass through unchanged", () => {
  const raw = nativeToScVal(42, { type: "u32" });
  const out = codec.encodeArgs("maybe", [raw]);
  assert.equal(out[0], raw);
});

Deno.test("codec: struct decoding is by field name (absent Option fields read as null)", () => {
  const conv = codec.conv(T.udt("Pos"));
  const v = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("alpha"),
      val: nativeToScVal(G, { type: "address" }),
    }),
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("zeta"),
      val: nativeToScVal(1n, { type: "i128" }),
    }),
  ]);
  assert.deepEqual(conv.dec(v), { alpha: G, zeta: 1n, mid: null });
  const missingRequired = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("alpha"),
      val: nativeToScVal(G, { type: "address" }),
    }),
  ]);
  assert.throws(() => conv.dec(missingRequired), /Pos\.zeta/);
});

Deno.test("the unit type `()` (a Rust Result<(), E> ok type, the empty tuple in a spec) decodes Void", () => {
  // How soroban-sdk declares `fn initialize(..) -> Result<(), FactoryError>` (the official
  // Soroswap factory, router and pair): ok_type {tuple: {value_types: []}}, returned as Void.
  const spec = [
    xdr.ScSpecEntry.fromJson({
      function_v0: {
        doc: "",
        name: "initialize",
        inputs: [],
        outputs: [{
          result: { ok_type: { tuple: { value_types: [] } }, error_type: { udt: { name: "E" } } },
        }],
      },
      // deno-lint-ignore no-explicit-any
    } as any),
    xdr.ScSpecEntry.fromJson({
      udt_error_enum_v0: { doc: "", lib: "", name: "E", cases: [{ doc: "", name: "A", value: 1 }] },
      // deno-lint-ignore no-explicit-any
    } as any),
  ];
  assert.equal(decodeResult(spec, "initialize", xdr.ScVal.scvVoid()), null);
  assert.deepEqual(decodeResult(spec, "initialize", xdr.ScVal.scvVec([])), []);
  assert.throws(
    () => decodeResult(spec, "initialize", xdr.ScVal.scvVec([xdr.ScVal.scvU32(1)])),
    CodecError,
  );
  assert.throws(() => decodeResult(spec, "initialize", xdr.ScVal.scvU32(1)), CodecError);
});
