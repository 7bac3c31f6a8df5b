/**
 * Vigil's committed Wasm files against the real Soroban host's structural rules (issue 14): no
 * start section, only Soroban host imports with i64 signatures, no floating point, only the
 * allowed features (mutable globals, sign extension, bulk memory), `memory` exported, the three
 * metadata sections present and right, and each contract well under 64 KiB.
 */
import assert from "node:assert/strict";
import initWabt from "wabt";
import { contract, xdr } from "@stellar/stellar-sdk";
import { CONTRACTS_VERSION, ENV_PROTOCOL, specFunctionNames, specSection } from "./builder.ts";
import { CONTRACT_TABLES } from "@vigil/testing/contract_tables";

/** Vigil's and the world's contracts (the fixtures break rules on purpose). */
const CONTRACTS = Object.fromEntries(
  CONTRACT_TABLES.filter((t) => t.kind !== "test fixture").flatMap((t) =>
    t.sources.map((c) => [c.name, c.spec] as const)
  ),
);
const wasmPath = (name: string): URL =>
  CONTRACT_TABLES.flatMap((t) =>
    t.sources.some((c) => c.name === name) ? [t.wasmPath(name)] : []
  )[0];

/** env.json (protocol 22) functions the contracts may import: module → export → arity. */
const ENV: Record<string, Record<string, number>> = {
  x: { "0": 2, "1": 2, "3": 0, "4": 0, "5": 1, "7": 0 }, // obj_cmp contract_event ledger_sequence ledger_timestamp fail_with_error current_contract_address
  i: {
    "_": 1, // obj_from_u64
    "0": 1, // obj_to_u64
    "3": 2, // obj_from_u128_pieces
    "4": 1, // obj_to_u128_lo64
    "5": 1, // obj_to_u128_hi64
    "6": 2, // obj_from_i128_pieces
    "7": 1, // obj_to_i128_lo64
    "8": 1, // obj_to_i128_hi64
    "9": 4, // obj_from_u256_pieces
    "c": 1,
    "d": 1,
    "e": 1,
    "f": 1, // obj_to_u256_*
    "g": 4, // obj_from_i256_pieces
    "j": 1,
    "k": 1,
    "l": 1,
    "m": 1, // obj_to_i256_*
    "q": 2, // u256_div
    "x": 2, // i256_mul
    "y": 2, // i256_div
  },
  m: { "1": 2, "3": 1, "9": 3, "a": 4 }, // map_get map_len map_new_from_lm map_unpack_to_lm
  v: { "_": 0, "0": 3, "1": 2, "2": 2, "3": 1, "4": 2, "6": 2, "7": 1, "d": 2, "g": 2 }, // 4 vec_push_front
  l: { "_": 3, "0": 2, "1": 2, "2": 2, "3": 3, "7": 4, "8": 2, "a": 2 }, // 3 create_contract, a get_contract_id
  d: { "_": 3 }, // call
  // serialize_to_bytes bytes_append string_copy_to_lm string_new_from_lm symbol_new_from_lm string_len
  b: { "_": 1, "e": 2, "g": 4, "i": 2, "j": 2, "k": 1 },
  c: { "_": 1 }, // compute_hash_sha256
  a: { "0": 1, "3": 1 }, // require_auth authorize_as_curr_contract
};
// Declared in the allocation vault's and HODL strategy's own sources (not in the SDK).
Object.assign(ENV.m, { "_": 0, "0": 3, "4": 2, "7": 1 }); // map_new map_put map_has map_keys
Object.assign(ENV.d, { "0": 3 }); // try_call
Object.assign(ENV.b, { "g": 4, "i": 2 }); // string_copy_to_linear_memory string_new_from_linear_memory

interface Section {
  id: number;
  name?: string;
  body: Uint8Array;
}

function leb(b: Uint8Array, pos: { o: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    const byte = b[pos.o++];
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result >>> 0;
    shift += 7;
  }
}

function name(b: Uint8Array, pos: { o: number }): string {
  const n = leb(b, pos);
  const s = new TextDecoder().decode(b.subarray(pos.o, pos.o + n));
  pos.o += n;
  return s;
}

function sections(wasm: Uint8Array): Section[] {
  assert.deepEqual([...wasm.subarray(0, 8)], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  const out: Section[] = [];
  const pos = { o: 8 };
  while (pos.o < wasm.length) {
    const id = wasm[pos.o++];
    const size = leb(wasm, pos);
    const end = pos.o + size;
    if (id === 0) {
      const n = name(wasm, pos);
      out.push({ id, name: n, body: wasm.subarray(pos.o, end) });
    } else out.push({ id, body: wasm.subarray(pos.o, end) });
    pos.o = end;
  }
  return out;
}

/** Function types: index → [param types, result types] (value-type bytes). */
function types(body: Uint8Array): [number[], number[]][] {
  const pos = { o: 0 };
  const n = leb(body, pos);
  const out: [number[], number[]][] = [];
  for (let i = 0; i < n; i++) {
    assert.deepEqual(body[pos.o++], 0x60);
    const np = leb(body, pos);
    const params = [...body.subarray(pos.o, pos.o + np)];
    pos.o += np;
    const nr = leb(body, pos);
    const results = [...body.subarray(pos.o, pos.o + nr)];
    pos.o += nr;
    out.push([params, results]);
  }
  return out;
}

function imports(
  body: Uint8Array,
): { module: string; field: string; kind: number; type: number }[] {
  const pos = { o: 0 };
  const n = leb(body, pos);
  const out = [];
  for (let i = 0; i < n; i++) {
    const module = name(body, pos);
    const field = name(body, pos);
    const kind = body[pos.o++];
    assert.deepEqual(kind, 0, `${module}.${field}: only function imports`);
    out.push({ module, field, kind, type: leb(body, pos) });
  }
  return out;
}

/** Splits a stream of `SCMetaEntry` XDR (kind 0: key string, val string) into pairs. */
function metaEntries(bytes: Uint8Array): [string, string][] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: [string, string][] = [];
  let o = 0;
  const str = (): string => {
    const n = view.getUint32(o);
    const s = new TextDecoder().decode(bytes.subarray(o + 4, o + 4 + n));
    o += 4 + Math.ceil(n / 4) * 4;
    return s;
  };
  while (o < bytes.length) {
    assert.equal(view.getUint32(o), 0, "SC_META_V0");
    o += 4;
    const key = str();
    out.push([key, str()]);
  }
  // Each entry re-encodes to the same bytes with the SDK's own XDR.
  const again = out.map(([key, val]) =>
    xdr.ScMetaEntry.scMetaV0(new xdr.ScMetaV0({ key, val })).toXDR()
  );
  assert.deepEqual([...again.flatMap((b) => [...b])], [...bytes]);
  return out;
}

const wabt = await initWabt();
/** Only what the Soroban host allows (everything else off). */
const FEATURES = {
  mutable_globals: true,
  sign_extension: true,
  bulk_memory: true,
  sat_float_to_int: false,
  multi_value: false,
  reference_types: false,
  simd: false,
  tail_call: false,
  extended_const: false,
  exceptions: false,
  threads: false,
  gc: false,
  memory64: false,
  function_references: false,
};

for (const contractName of Object.keys(CONTRACTS)) {
  Deno.test(`${contractName}.wasm passes the Soroban host's structural rules`, async () => {
    const wasm = await Deno.readFile(wasmPath(contractName));
    assert(wasm.length < 32 * 1024, `${contractName}.wasm is ${wasm.length} bytes`);
    const secs = sections(wasm);
    assert(!secs.some((s) => s.id === 8), "no start section");

    // Imports: only env.json host functions, with their arity, all over i64 Vals.
    const fnTypes = types(secs.find((s) => s.id === 1)!.body);
    for (const imp of imports(secs.find((s) => s.id === 2)!.body)) {
      const arity = ENV[imp.module]?.[imp.field];
      assert(
        arity !== undefined,
        `import ${imp.module}.${imp.field} is not a Soroban host function`,
      );
      const [params, results] = fnTypes[imp.type];
      assert.deepEqual(params, new Array(arity).fill(0x7e), `${imp.module}.${imp.field} params`);
      assert.deepEqual(results, [0x7e], `${imp.module}.${imp.field} result`);
    }
    // No float value types anywhere in the type section.
    for (const [params, results] of fnTypes) {
      assert(![...params, ...results].some((t) => t === 0x7d || t === 0x7c), "float type");
    }

    // Validation with only the allowed features, then no float opcode in the disassembly.
    const mod = wabt.readWasm(wasm, { readDebugNames: false, ...FEATURES });
    try {
      mod.validate();
      const text = mod.toText({});
      assert(!/\b(f32|f64)\./.test(text), "float instruction");
      assert(/\(export "memory" \(memory/.test(text), "memory is exported");
    } finally {
      mod.destroy();
    }

    // contractenvmetav0: protocol 22, pre-release 0.
    const env = secs.filter((s) => s.name === "contractenvmetav0");
    assert.deepEqual(env.length, 1);
    // deno-lint-ignore no-explicit-any
    const envMeta = (xdr.ScEnvMetaEntry.fromXDR(env[0].body) as any).toJson();
    assert.deepEqual(envMeta, {
      sc_env_meta_kind_interface_version: { protocol: ENV_PROTOCOL, pre_release: 0 },
    });

    // contractspecv0: exactly the spec table the clients use, and parseable by the SDK.
    const spec = secs.filter((s) => s.name === "contractspecv0");
    assert.deepEqual(spec.length, 1);
    assert.deepEqual([...spec[0].body], [...specSection(CONTRACTS[contractName])]);
    const parsed = contract.Spec.fromWasm(wasm as unknown as Buffer);
    assert.deepEqual(
      // deno-lint-ignore no-explicit-any
      parsed.funcs().map((f: any) => String(f.name)).sort(),
      specFunctionNames(CONTRACTS[contractName]),
    );

    // contractmetav0: the source version.
    const meta = secs.filter((s) => s.name === "contractmetav0");
    assert.deepEqual(meta.length, 1);
    const entries = metaEntries(meta[0].body);
    const kv = Object.fromEntries(entries);
    assert.deepEqual(kv.vigil_version, CONTRACTS_VERSION);
    assert(/^[0-9a-f]{64}$/.test(kv.source_sha256), "source_sha256");
  });
}
