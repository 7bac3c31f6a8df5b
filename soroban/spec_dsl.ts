/**
 * The TypeScript side of a contract's interface: the spec DSL ({@link T}, {@link defineSpec})
 * that each `contracts/<name>/spec.ts` (and each test-fixture contract's) writes its Soroban
 * interface in, which `contracts/build/builder.ts` embeds as the Wasm's `contractspecv0` section and
 * tests use to encode arguments; plus small ScVal helpers for storage keys and event topics.
 *
 * The contracts themselves are AssemblyScript compiled to Wasm (`contracts/sdk/` is their SDK).
 *
 * @module
 */
import { nativeToScVal, xdr } from "@stellar/stellar-sdk";

// ---------------------------------------------------------------------------------------------
// Spec DSL: type definitions in stellar-xdr JSON form, turned into xdr.ScSpecEntry values.
// ---------------------------------------------------------------------------------------------

/** A spec type in stellar-xdr JSON form ("i128", {"vec": {"element_type": "u32"}}, …). */
export type TypeDef = string | Record<string, unknown>;

/** Constructors for spec types. */
export const T = {
  bool: "bool",
  void: "void",
  u32: "u32",
  i32: "i32",
  u64: "u64",
  i64: "i64",
  u128: "u128",
  i128: "i128",
  u256: "u256",
  i256: "i256",
  address: "address",
  string: "string",
  symbol: "symbol",
  bytes: "bytes",
  val: "val",
  timepoint: "timepoint",
  bytesN: (n: number): TypeDef => ({ bytes_n: { n } }),
  vec: (element: TypeDef): TypeDef => ({ vec: { element_type: element } }),
  option: (value: TypeDef): TypeDef => ({ option: { value_type: value } }),
  map: (key: TypeDef, value: TypeDef): TypeDef => ({ map: { key_type: key, value_type: value } }),
  tuple: (...values: TypeDef[]): TypeDef => ({ tuple: { value_types: values } }),
  udt: (name: string): TypeDef => ({ udt: { name } }),
} as const;

/** One exported function of a contract. */
export interface FnSpec {
  name: string;
  doc?: string;
  /** Parameters in order: [name, type]. */
  inputs?: [string, TypeDef][];
  /** Return type; omitted = void. Wrapped in Result<_, errorEnum> when the spec has errors. */
  output?: TypeDef;
}

/** A contract's whole interface. */
export interface SpecDef {
  functions: FnSpec[];
  /**
   * Structs: name → fields in order [name, type, doc?]. Fields are sorted by name on the wire.
   * A field's doc is for the generated clients (`tools/gen_clients.ts`), not written into the Wasm.
   */
  structs?: Record<string, [name: string, type: TypeDef, doc?: string][]>;
  /** Unions (Rust enums with data): name → cases [name, ...payload types]. */
  unions?: Record<string, [string, ...TypeDef[]][]>;
  /** Integer enums: name → cases [name, value]. */
  enums?: Record<string, [string, number][]>;
  /** The contract error enum: case name → [code, human message]. */
  errors?: Record<string, [number, string]>;
  /** Name of the error enum (default "Error"). */
  errorEnumName?: string;
  /**
   * Docs of the structs, unions and enums by name, for the generated clients
   * (`tools/gen_clients.ts`); not written into the Wasm.
   */
  docs?: Record<string, string>;
}

/** Builds the ScSpecEntry list of a contract from a {@link SpecDef}. */
export function defineSpec(def: SpecDef): xdr.ScSpecEntry[] {
  const errName = def.errorEnumName ?? "Error";
  const hasErrors = def.errors && Object.keys(def.errors).length > 0;
  const entries: unknown[] = [];
  for (const f of def.functions) {
    const outputs = f.output === undefined && !hasErrors
      ? []
      : hasErrors
      ? [{ result: { ok_type: f.output ?? "void", error_type: { udt: { name: errName } } } }]
      : [f.output];
    entries.push({
      function_v0: {
        doc: f.doc ?? "",
        name: f.name,
        inputs: (f.inputs ?? []).map(([name, type]) => ({ doc: "", name, type })),
        outputs,
      },
    });
  }
  for (const [name, fields] of Object.entries(def.structs ?? {})) {
    entries.push({
      udt_struct_v0: {
        doc: "",
        lib: "",
        name,
        fields: fields.map(([fname, type]) => ({ doc: "", name: fname, type })),
      },
    });
  }
  for (const [name, cases] of Object.entries(def.unions ?? {})) {
    entries.push({
      udt_union_v0: {
        doc: "",
        lib: "",
        name,
        cases: cases.map(([cname, ...types]) =>
          types.length === 0
            ? { void_v0: { doc: "", name: cname } }
            : { tuple_v0: { doc: "", name: cname, type: types } }
        ),
      },
    });
  }
  for (const [name, cases] of Object.entries(def.enums ?? {})) {
    entries.push({
      udt_enum_v0: {
        doc: "",
        lib: "",
        name,
        cases: cases.map(([cname, value]) => ({ doc: "", name: cname, value })),
      },
    });
  }
  if (hasErrors) {
    entries.push({
      udt_error_enum_v0: {
        doc: "",
        lib: "",
        name: errName,
        cases: Object.entries(def.errors!).map(([cname, [value, doc]]) => ({
          doc,
          name: cname,
          value,
        })),
      },
    });
  }
  // deno-lint-ignore no-explicit-any
  return entries.map((e) => xdr.ScSpecEntry.fromJson(e as any));
}

// ---------------------------------------------------------------------------------------------
// ScVal helpers for storage keys and event topics
// ---------------------------------------------------------------------------------------------

/** Symbol ScVal. */
export const sym = (s: string): xdr.ScVal => xdr.ScVal.scvSymbol(s);
const addrCache = new Map<string, xdr.ScVal>();
/** Address ScVal from "G…"/"C…" (memoized: strkey decoding dominates a simple call otherwise). */
export const addr = (a: string): xdr.ScVal => {
  let v = addrCache.get(a);
  if (v === undefined) {
    v = nativeToScVal(a, { type: "address" });
    if (addrCache.size >= 50_000) addrCache.clear();
    addrCache.set(a, v);
  }
  return v;
};
/** i128 ScVal. */
export const i128 = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: "i128" });
/** u64 ScVal. */
export const u64 = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: "u64" });
/** u32 ScVal. */
export const u32 = (n: number): xdr.ScVal => xdr.ScVal.scvU32(n);
/** String ScVal. */
export const str = (s: string): xdr.ScVal => xdr.ScVal.scvString(s);
/** Bool ScVal. */
export const bool = (b: boolean): xdr.ScVal => xdr.ScVal.scvBool(b);
/** Vec ScVal. */
export const vec = (...items: xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec(items);
/** A Rust enum-variant key as Soroban encodes it: `Vec[Symbol(name), ...payload]`. */
export const variant = (name: string, ...payload: xdr.ScVal[]): xdr.ScVal =>
  xdr.ScVal.scvVec([sym(name), ...payload]);
