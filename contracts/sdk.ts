/**
 * The contract SDK: what a TypeScript contract hosted by the local node is written against.
 *
 * A contract is a plain module value ({@link ContractModule}): a spec (the Soroban interface,
 * served to clients inside a stub Wasm's `contractspecv0` section) and a table of functions.
 * The host decodes each call's arguments through the spec into native values (i128/u64 →
 * bigint, u32/i32 → number, Address → "G…"/"C…" string, struct → object, union →
 * `{tag, values}`), runs the function with an {@link Env}, and encodes the return value back
 * through the spec. Throwing {@link ContractError} fails the call as `Error(Contract, #N)`;
 * any other exception is `Error(WasmVm, InvalidAction)` (what a Rust panic produces). A failed
 * call rolls back every write and event it made.
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
  /** Structs: name → fields in order [name, type]. Fields are sorted by name on the wire. */
  structs?: Record<string, [string, TypeDef][]>;
  /** Unions (Rust enums with data): name → cases [name, ...payload types]. */
  unions?: Record<string, [string, ...TypeDef[]][]>;
  /** Integer enums: name → cases [name, value]. */
  enums?: Record<string, [string, number][]>;
  /** The contract error enum: case name → [code, human message]. */
  errors?: Record<string, [number, string]>;
  /** Name of the error enum (default "Error"). */
  errorEnumName?: string;
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
// Errors
// ---------------------------------------------------------------------------------------------

/** A typed contract error: fails the call as `Error(Contract, #code)`. */
export class ContractError extends Error {
  constructor(readonly code: number, message?: string) {
    super(message ?? `Error(Contract, #${code})`);
    this.name = "ContractError";
  }
}

/** Throws the contract error `code` (shorthand for `throw new ContractError(code)`). */
export function fail(code: number, message?: string): never {
  throw new ContractError(code, message);
}

// ---------------------------------------------------------------------------------------------
// The environment a contract function runs in
// ---------------------------------------------------------------------------------------------

/** One storage tier. Keys and values are ScVals, so layouts can match real contracts byte for byte. */
export interface Storage {
  get(key: xdr.ScVal): xdr.ScVal | undefined;
  has(key: xdr.ScVal): boolean;
  set(key: xdr.ScVal, value: xdr.ScVal): void;
  remove(key: xdr.ScVal): void;
  /**
   * Extend the entry's TTL to `extendTo` ledgers from now if it is at most `threshold` ledgers
   * (Soroban's `extend_ttl`; `threshold > extendTo` is an error). On instance storage it extends the
   * contract's instance and code.
   */
  extendTtl(key: xdr.ScVal, threshold: number, extendTo: number): void;
}

/** Outcome of {@link Env.tryCall}. */
export type TryCallResult<T> =
  | { ok: true; value: T }
  | { ok: false; error: { type: string; code: number | string; message: string } };

/** What a contract function can do. */
export interface Env {
  /** This contract's address (C…). */
  readonly currentContract: string;
  /** The address that called this contract directly (a C… contract), or undefined for a root call. */
  readonly invoker: string | undefined;
  /** The ledger being closed (or simulated against). */
  readonly ledger: { readonly sequence: number; readonly timestamp: bigint };
  readonly storage: {
    readonly instance: Storage;
    readonly persistent: Storage;
    readonly temporary: Storage;
  };
  /**
   * Requires that `address` authorized this call with its exact arguments. A contract is
   * implicitly authorized for calls it makes directly (the invoker rule).
   */
  requireAuth(address: string): void;
  /** Requires that `address` authorized this function with the given arguments instead. */
  requireAuthForArgs(address: string, args: xdr.ScVal[]): void;
  /**
   * Calls `fn` on another contract. Arguments are native values, encoded with the callee's
   * spec (positional array or object keyed by parameter name); the result is decoded with it.
   * A failure of the callee fails this call too (like a Rust cross-contract call).
   */
  call<R = unknown>(contract: string, fn: string, args?: unknown[] | Record<string, unknown>): R;
  /** Like {@link call} but a callee failure is returned (its writes rolled back), not raised. */
  tryCall<R = unknown>(
    contract: string,
    fn: string,
    args?: unknown[] | Record<string, unknown>,
  ): TryCallResult<R>;
  /** Publishes a contract event. */
  emit(topics: xdr.ScVal[], data: xdr.ScVal): void;
  /** Encodes a native value as a type of this contract's spec (e.g. a struct by name). */
  toScVal(value: unknown, type: TypeDef): xdr.ScVal;
  /** Decodes an ScVal as a type of this contract's spec. */
  fromScVal<R = unknown>(value: xdr.ScVal, type: TypeDef): R;
}

/** A contract function: native arguments keyed by parameter name, native return value. */
// deno-lint-ignore no-explicit-any
export type ContractFn = (env: Env, args: any) => unknown;

/** A contract hosted by the local node. */
export interface ContractModule {
  /** Short name, used in logs and as a default key in `localnet.json`. */
  readonly name: string;
  /** The interface served in the stub Wasm; every function below must be in it. */
  readonly spec: xdr.ScSpecEntry[];
  /** Exported functions by name; `__constructor` runs once at deployment. */
  readonly functions: Record<string, ContractFn>;
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
