/**
 * The spec codec: converts between native JS values and ScVals through a contract's spec.
 *
 * Native shapes follow `contract.Spec` of `@stellar/stellar-sdk` 17 (what clients see):
 * u32/i32 → number; u64/i64/u128/i128/u256/i256/timepoint/duration → bigint; bool; void → null;
 * string/symbol → string; bytes/bytesN → Uint8Array; address/muxed_address → "G…"/"C…"/"M…";
 * vec/tuple → array; map → array of [key, value] pairs (a JS Map is accepted on input);
 * option → value or null; struct → object (tuple-like struct → array); union → {tag, values?};
 * enum → number. Unlike the SDK, structs are encoded with their map keys sorted and decoded by
 * field name (the real host rejects unsorted maps), and decoding is strict about ScVal types
 * (a mismatch throws {@link CodecError}; for contract arguments the host reports it as
 * `Error(WasmVm, InvalidAction)`, the trap soroban-sdk's argument conversion produces).
 * The type `val` maps to a raw `xdr.ScVal` (the contract sees the value untouched).
 * Any `xdr.ScVal` given as a native value is passed through unchanged.
 *
 * Conversions are compiled once per type (cached per codec), so the hot path does no spec lookups.
 *
 * @module
 */
import { Address, nativeToScVal, StrKey, xdr } from "@stellar/stellar-sdk";
import { compareScVal } from "./scval_order.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const scAddrCache = new Map<string, xdr.ScAddress>();
const strCache = new WeakMap<xdr.ScAddress, string>();

/** ScAddress of a "G…"/"C…"/"M…" strkey (cached). Throws on an invalid address. */
export function scAddressFromString(s: string): xdr.ScAddress {
  let a = scAddrCache.get(s);
  if (a === undefined) {
    a = Address.fromString(s).toScAddress() as xdr.ScAddress;
    if (scAddrCache.size > 100_000) scAddrCache.clear();
    scAddrCache.set(s, a);
    strCache.set(a, s);
  }
  return a;
}

/** Strkey of an ScAddress (cached per object). */
export function addressFromScAddress(a: xdr.ScAddress): string {
  let s = strCache.get(a);
  if (s === undefined) {
    switch (a.type) {
      case "scAddressTypeAccount":
        s = StrKey.encodeEd25519PublicKey((a as Any).accountId.ed25519.value);
        break;
      case "scAddressTypeContract":
        s = StrKey.encodeContract((a as Any).contractId.value);
        break;
      default:
        s = Address.fromScAddress(a as Any).toString();
    }
    strCache.set(a, s);
  }
  return s;
}

/** A spec type in stellar-xdr JSON form (as `soroban/spec_dsl.ts` `TypeDef`). */
export type TypeJson = string | Record<string, unknown>;

/** A value did not fit the spec type. */
export class CodecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CodecError";
  }
}

/** Compiled conversion for one spec type. */
export interface Conv {
  enc(v: unknown): xdr.ScVal;
  dec(v: xdr.ScVal): unknown;
}

/** One function of a spec. */
export interface FnCodec {
  name: string;
  inputs: { name: string; conv: Conv }[];
  /** Conversion of the return value (the Ok type for a Result), or null for void. */
  output: Conv | null;
  /** Whether the output is `Result<_, E>`. */
  isResult: boolean;
}

const MASK64 = (1n << 64n) - 1n;

function fail(msg: string): never {
  throw new CodecError(msg);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (v instanceof Uint8Array) return `bytes(${v.length})`;
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function toBig(v: unknown, what: string): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  return fail(`expected an integer for ${what}, got ${describe(v)}`);
}

function isScVal(v: unknown): v is xdr.ScVal {
  return typeof v === "object" && v !== null && (xdr.ScVal as Any).is?.(v) === true;
}

function expect(v: xdr.ScVal, type: string, what: string): Any {
  if (v.type !== type) fail(`expected ${what}, got ${v.type}`);
  return v as Any;
}

// ---------------------------------------------------------------------------------------------
// Primitive conversions (shared, stateless)
// ---------------------------------------------------------------------------------------------

function intConv(
  name: string,
  scvType: string,
  min: bigint,
  max: bigint,
  make: (n: bigint) => xdr.ScVal,
  read: (v: Any) => bigint,
): Conv {
  return {
    enc(v) {
      if (isScVal(v)) return v;
      const n = toBig(v, name);
      if (n < min || n > max) fail(`value ${n} is out of range for ${name}`);
      return make(n);
    },
    dec(v) {
      return read(expect(v, scvType, name));
    },
  };
}

const U64_MAX = MASK64;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
const U128_MAX = (1n << 128n) - 1n;
const I128_MIN = -(1n << 127n);
const I128_MAX = (1n << 127n) - 1n;
const U256_MAX = (1n << 256n) - 1n;
const I256_MIN = -(1n << 255n);
const I256_MAX = (1n << 255n) - 1n;

/** i128 ScVal from a bigint. */
export function i128Val(n: bigint): xdr.ScVal {
  return xdr.ScVal.scvI128(
    new xdr.Int128Parts({ hi: BigInt.asIntN(64, n >> 64n), lo: n & MASK64 }) as Any,
  );
}

/** bigint of an i128 ScVal. */
export function i128Of(v: xdr.ScVal): bigint {
  const p = (v as Any).i128;
  return (BigInt(p.hi) << 64n) | BigInt(p.lo);
}

function u128Val(n: bigint): xdr.ScVal {
  return xdr.ScVal.scvU128(new xdr.Uint128Parts({ hi: n >> 64n, lo: n & MASK64 }) as Any);
}

function big256(p: Any, signed: boolean): bigint {
  const n = (BigInt(p.hiHi) << 192n) | (BigInt(p.hiLo) << 128n) | (BigInt(p.loHi) << 64n) |
    BigInt(p.loLo);
  return signed ? BigInt.asIntN(256, n) : n;
}

const PRIM: Record<string, Conv> = {
  bool: {
    enc(v) {
      if (isScVal(v)) return v;
      if (typeof v !== "boolean") fail(`expected a boolean, got ${describe(v)}`);
      return xdr.ScVal.scvBool(v);
    },
    dec(v) {
      return expect(v, "scvBool", "bool").b;
    },
  },
  void: {
    enc(v) {
      if (isScVal(v)) return v;
      if (v !== null && v !== undefined) fail(`expected void, got ${describe(v)}`);
      return xdr.ScVal.scvVoid();
    },
    dec(v) {
      expect(v, "scvVoid", "void");
      return null;
    },
  },
  u32: {
    enc(v) {
      if (isScVal(v)) return v;
      const n = typeof v === "number" ? v : Number(toBig(v, "u32"));
      if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
        fail(`value ${v} is out of range for u32`);
      }
      return xdr.ScVal.scvU32(n);
    },
    dec(v) {
      return expect(v, "scvU32", "u32").u32;
    },
  },
  i32: {
    enc(v) {
      if (isScVal(v)) return v;
      const n = typeof v === "number" ? v : Number(toBig(v, "i32"));
      if (!Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) {
        fail(`value ${v} is out of range for i32`);
      }
      return xdr.ScVal.scvI32(n);
    },
    dec(v) {
      return expect(v, "scvI32", "i32").i32;
    },
  },
  u64: intConv(
    "u64",
    "scvU64",
    0n,
    U64_MAX,
    (n) => xdr.ScVal.scvU64(n as Any),
    (v) => BigInt(v.u64),
  ),
  i64: intConv(
    "i64",
    "scvI64",
    I64_MIN,
    I64_MAX,
    (n) => xdr.ScVal.scvI64(n as Any),
    (v) => BigInt(v.i64),
  ),
  timepoint: intConv(
    "timepoint",
    "scvTimepoint",
    0n,
    U64_MAX,
    (n) => xdr.ScVal.scvTimepoint(n as Any),
    (v) => BigInt(v.timepoint),
  ),
  duration: intConv(
    "duration",
    "scvDuration",
    0n,
    U64_MAX,
    (n) => xdr.ScVal.scvDuration(n as Any),
    (v) => BigInt(v.duration),
  ),
  u128: intConv(
    "u128",
    "scvU128",
    0n,
    U128_MAX,
    u128Val,
    (v) => (BigInt(v.u128.hi) << 64n) | BigInt(v.u128.lo),
  ),
  i128: intConv("i128", "scvI128", I128_MIN, I128_MAX, i128Val, (v) => i128Of(v)),
  u256: intConv(
    "u256",
    "scvU256",
    0n,
    U256_MAX,
    (n) => nativeToScVal(n, { type: "u256" }),
    (v) => big256(v.u256, false),
  ),
  i256: intConv(
    "i256",
    "scvI256",
    I256_MIN,
    I256_MAX,
    (n) => nativeToScVal(n, { type: "i256" }),
    (v) => big256(v.i256, true),
  ),
  bytes: {
    enc(v) {
      if (isScVal(v)) return v;
      if (!(v instanceof Uint8Array)) fail(`expected bytes, got ${describe(v)}`);
      return xdr.ScVal.scvBytes(Uint8Array.from(v) as Any);
    },
    dec(v) {
      return expect(v, "scvBytes", "bytes").bytes.value;
    },
  },
  string: {
    enc(v) {
      if (isScVal(v)) return v;
      if (typeof v !== "string") fail(`expected a string, got ${describe(v)}`);
      return xdr.ScVal.scvString(v);
    },
    dec(v) {
      // Like the SDK: a Symbol is accepted where a String is expected.
      if (v.type === "scvSymbol") return String((v as Any).sym);
      return String(expect(v, "scvString", "string").str);
    },
  },
  symbol: {
    enc(v) {
      if (isScVal(v)) return v;
      if (typeof v !== "string") fail(`expected a symbol string, got ${describe(v)}`);
      if (!/^[A-Za-z0-9_]{0,32}$/.test(v)) fail(`invalid symbol ${JSON.stringify(v)}`);
      return xdr.ScVal.scvSymbol(v);
    },
    dec(v) {
      if (v.type === "scvString") return String((v as Any).str);
      return String(expect(v, "scvSymbol", "symbol").sym);
    },
  },
  address: {
    enc(v) {
      if (isScVal(v)) return v;
      if (typeof v === "string") return addressScVal(v);
      if (v instanceof Address) return v.toScVal();
      return fail(`expected an address string, got ${describe(v)}`);
    },
    dec(v) {
      const a = expect(v, "scvAddress", "address").address as xdr.ScAddress;
      if (a.type !== "scAddressTypeAccount" && a.type !== "scAddressTypeContract") {
        fail(`expected an account or contract address, got ${a.type}`);
      }
      return addressFromScAddress(a);
    },
  },
  muxed_address: {
    enc(v) {
      if (isScVal(v)) return v;
      if (typeof v === "string") return addressScVal(v);
      return fail(`expected an address string, got ${describe(v)}`);
    },
    dec(v) {
      return addressFromScAddress(expect(v, "scvAddress", "address").address);
    },
  },
  val: {
    enc(v) {
      if (isScVal(v)) return v;
      return nativeToScVal(v);
    },
    dec(v) {
      return v;
    },
  },
  error: {
    enc(v) {
      if (isScVal(v)) return v;
      if (typeof v !== "number") fail(`expected an error code, got ${describe(v)}`);
      return xdr.ScVal.scvError(xdr.ScError.sceContract(v) as Any);
    },
    dec(v) {
      const e = expect(v, "scvError", "error").error;
      return e.type === "sceContract" ? e.contractCode : e;
    },
  },
};

const addrValCache = new Map<string, xdr.ScVal>();

/** Address ScVal of a "G…"/"C…"/"M…" string (cached; ScVals are immutable). */
export function addressScVal(s: string): xdr.ScVal {
  let v = addrValCache.get(s);
  if (v === undefined) {
    v = xdr.ScVal.scvAddress(scAddressFromString(s));
    if (addrValCache.size > 100_000) addrValCache.clear();
    addrValCache.set(s, v);
  }
  return v;
}

/** Sorts ScMap entries by key (host order); duplicate keys are an error. */
export function sortedMap(entries: xdr.ScMapEntry[]): xdr.ScVal {
  entries.sort((a, b) => compareScVal(a.key, b.key));
  for (let i = 1; i < entries.length; i++) {
    if (compareScVal(entries[i - 1].key, entries[i].key) === 0) fail("duplicate map key");
  }
  return xdr.ScVal.scvMap(entries);
}

// ---------------------------------------------------------------------------------------------
// The codec of one spec
// ---------------------------------------------------------------------------------------------

interface UdtJson {
  kind: "struct" | "union" | "enum" | "error";
  // deno-lint-ignore no-explicit-any
  def: any;
}

/** Compiled codec of a contract spec. */
export class SpecCodec {
  /** Functions by name. */
  readonly fns = new Map<string, FnCodec>();
  /** Error enum cases: code → doc message. */
  readonly errors = new Map<number, string>();
  private readonly udts = new Map<string, UdtJson>();
  private readonly convs = new Map<string, Conv>();

  constructor(readonly entries: xdr.ScSpecEntry[]) {
    const fnDefs: Any[] = [];
    for (const e of entries) {
      const j = e.toJson() as Any;
      if (j.function_v0) fnDefs.push(j.function_v0);
      else if (j.udt_struct_v0) {
        this.udts.set(j.udt_struct_v0.name, { kind: "struct", def: j.udt_struct_v0 });
      } else if (j.udt_union_v0) {
        this.udts.set(j.udt_union_v0.name, { kind: "union", def: j.udt_union_v0 });
      } else if (j.udt_enum_v0) {
        this.udts.set(j.udt_enum_v0.name, { kind: "enum", def: j.udt_enum_v0 });
      } else if (j.udt_error_enum_v0) {
        this.udts.set(j.udt_error_enum_v0.name, { kind: "error", def: j.udt_error_enum_v0 });
        for (const c of j.udt_error_enum_v0.cases) this.errors.set(c.value, c.doc || c.name);
      }
    }
    for (const f of fnDefs) {
      const outputs: TypeJson[] = f.outputs ?? [];
      let output: Conv | null = null;
      let isResult = false;
      if (outputs.length > 0) {
        const o = outputs[0] as Any;
        if (typeof o === "object" && o.result) {
          isResult = true;
          output = o.result.ok_type === "void" ? null : this.conv(o.result.ok_type);
        } else if (o !== "void") {
          output = this.conv(o);
        }
      }
      this.fns.set(f.name, {
        name: f.name,
        inputs: (f.inputs ?? []).map((i: Any) => ({ name: i.name, conv: this.conv(i.type) })),
        output,
        isResult,
      });
    }
  }

  /** The compiled conversion of a spec type (JSON form), cached. */
  conv(t: TypeJson): Conv {
    const key = typeof t === "string" ? t : JSON.stringify(t);
    let c = this.convs.get(key);
    if (c === undefined) {
      // Placeholder first, so recursive UDTs resolve lazily.
      const holder: { c?: Conv } = {};
      this.convs.set(key, {
        enc: (v) => holder.c!.enc(v),
        dec: (v) => holder.c!.dec(v),
      });
      holder.c = this.build(t);
      this.convs.set(key, holder.c);
      c = holder.c;
    }
    return c;
  }

  /** Encodes native positional or named arguments of `fn` (throws CodecError). */
  encodeArgs(fn: string, args: unknown[] | Record<string, unknown> | undefined): xdr.ScVal[] {
    const f = this.fns.get(fn);
    if (!f) fail(`no function ${fn} in the spec`);
    const a = args ?? [];
    if (Array.isArray(a)) {
      if (a.length !== f.inputs.length) {
        fail(`${fn} takes ${f.inputs.length} argument(s), got ${a.length}`);
      }
      return f.inputs.map((inp, i) => wrap(inp.name, () => inp.conv.enc(a[i])));
    }
    return f.inputs.map((inp) => {
      if (!(inp.name in a)) fail(`missing argument ${inp.name} of ${fn}`);
      return wrap(inp.name, () => inp.conv.enc((a as Record<string, unknown>)[inp.name]));
    });
  }

  private build(t: TypeJson): Conv {
    if (typeof t === "string") {
      const p = PRIM[t];
      if (!p) fail(`unsupported spec type ${t}`);
      return p;
    }
    const j = t as Any;
    if (j.option) {
      const inner = this.conv(j.option.value_type);
      return {
        enc: (v) => (v === null || v === undefined ? xdr.ScVal.scvVoid() : inner.enc(v)),
        dec: (v) => (v.type === "scvVoid" ? null : inner.dec(v)),
      };
    }
    if (j.vec) {
      const el = this.conv(j.vec.element_type);
      return {
        enc: (v) => {
          if (isScVal(v)) return v;
          if (!Array.isArray(v)) fail(`expected an array, got ${describe(v)}`);
          return xdr.ScVal.scvVec(v.map((x) => el.enc(x)));
        },
        dec: (v) => ((expect(v, "scvVec", "vec").vec ?? []) as xdr.ScVal[]).map((x) => el.dec(x)),
      };
    }
    if (j.tuple) {
      const ts: Conv[] = j.tuple.value_types.map((x: TypeJson) => this.conv(x));
      // The unit type `()` — what a Rust `Result<(), E>` declares as its ok type — is the empty
      // tuple in a spec and travels as Void (soroban-sdk converts `()` to `Val::VOID`).
      if (ts.length === 0) {
        return {
          enc: (v) => isScVal(v) ? v : xdr.ScVal.scvVoid(),
          dec: (v) => {
            if (v.type === "scvVoid") return null;
            const items = (expect(v, "scvVec", "tuple").vec ?? []) as xdr.ScVal[];
            if (items.length !== 0) fail("expected a tuple of 0");
            return [];
          },
        };
      }
      return {
        enc: (v) => {
          if (isScVal(v)) return v;
          if (!Array.isArray(v) || v.length !== ts.length) {
            fail(`expected a tuple of ${ts.length}, got ${describe(v)}`);
          }
          return xdr.ScVal.scvVec(v.map((x, i) => ts[i].enc(x)));
        },
        dec: (v) => {
          const items = (expect(v, "scvVec", "tuple").vec ?? []) as xdr.ScVal[];
          if (items.length !== ts.length) fail(`expected a tuple of ${ts.length}`);
          return items.map((x, i) => ts[i].dec(x));
        },
      };
    }
    if (j.map) {
      const kc = this.conv(j.map.key_type);
      const vc = this.conv(j.map.value_type);
      return {
        enc: (v) => {
          if (isScVal(v)) return v;
          const pairs: [unknown, unknown][] = v instanceof Map
            ? [...v.entries()]
            : Array.isArray(v)
            ? v as [unknown, unknown][]
            : fail(`expected a Map or [key, value] pairs, got ${describe(v)}`);
          return sortedMap(
            pairs.map(([k, x]) => new xdr.ScMapEntry({ key: kc.enc(k), val: vc.enc(x) })),
          );
        },
        dec: (v) =>
          ((expect(v, "scvMap", "map").map ?? []) as xdr.ScMapEntry[]).map((
            e,
          ) => [kc.dec(e.key), vc.dec(e.val)]),
      };
    }
    if (j.bytes_n) {
      const n: number = j.bytes_n.n;
      return {
        enc: (v) => {
          if (isScVal(v)) return v;
          if (!(v instanceof Uint8Array) || v.length !== n) {
            fail(`expected ${n} bytes, got ${describe(v)}`);
          }
          return xdr.ScVal.scvBytes(Uint8Array.from(v) as Any);
        },
        dec: (v) => {
          const b: Uint8Array = expect(v, "scvBytes", `bytes${n}`).bytes.value;
          if (b.length !== n) fail(`expected ${n} bytes, got ${b.length}`);
          return b;
        },
      };
    }
    if (j.result) return this.conv(j.result.ok_type);
    if (j.udt) return this.udtConv(j.udt.name);
    return fail(`unsupported spec type ${JSON.stringify(t)}`);
  }

  private udtConv(name: string): Conv {
    const u = this.udts.get(name);
    if (!u) fail(`no type ${name} in the spec`);
    if (u.kind === "enum") {
      const values = new Set<number>(u.def.cases.map((c: Any) => c.value));
      return {
        enc: (v) => {
          if (isScVal(v)) return v;
          if (typeof v !== "number" || !values.has(v)) fail(`no case ${v} in enum ${name}`);
          return xdr.ScVal.scvU32(v);
        },
        dec: (v) => {
          const n = expect(v, "scvU32", `enum ${name}`).u32;
          if (!values.has(n)) fail(`no case ${n} in enum ${name}`);
          return n;
        },
      };
    }
    if (u.kind === "error") return PRIM.error;
    if (u.kind === "struct") return this.structConv(name, u.def.fields);
    return this.unionConv(name, u.def.cases);
  }

  private structConv(name: string, fieldsJson: Any[]): Conv {
    const numeric = fieldsJson.length > 0 && fieldsJson.every((f) => /^\d+$/.test(f.name));
    if (numeric) {
      const ts: Conv[] = fieldsJson.map((f) => this.conv(f.type));
      return {
        enc: (v) => {
          if (isScVal(v)) return v;
          if (!Array.isArray(v) || v.length !== ts.length) fail(`expected ${name} as an array`);
          return xdr.ScVal.scvVec(v.map((x, i) => ts[i].enc(x)));
        },
        dec: (v) => {
          const items = (expect(v, "scvVec", name).vec ?? []) as xdr.ScVal[];
          if (items.length !== ts.length) fail(`expected ${ts.length} fields in ${name}`);
          return items.map((x, i) => ts[i].dec(x));
        },
      };
    }
    // Keys sorted by name: the order the real host (and soroban-sdk) uses on the wire.
    const fields = fieldsJson
      .map((f) => ({
        name: f.name as string,
        conv: this.conv(f.type),
        sym: xdr.ScVal.scvSymbol(f.name),
      }))
      .sort((a, b) => compareScVal(a.sym, b.sym));
    const byName = new Map(fields.map((f) => [f.name, f]));
    return {
      enc: (v) => {
        if (isScVal(v)) return v;
        if (typeof v !== "object" || v === null || Array.isArray(v)) {
          fail(`expected ${name} as an object, got ${describe(v)}`);
        }
        const o = v as Record<string, unknown>;
        return xdr.ScVal.scvMap(
          fields.map((f) =>
            new xdr.ScMapEntry({
              key: f.sym,
              val: wrap(`${name}.${f.name}`, () => f.conv.enc(o[f.name])),
            })
          ),
        );
      },
      dec: (v) => {
        const entries = (expect(v, "scvMap", name).map ?? []) as xdr.ScMapEntry[];
        const out: Record<string, unknown> = {};
        const seen = new Set<string>();
        for (const e of entries) {
          if (e.key.type !== "scvSymbol") fail(`non-symbol key in ${name}`);
          const k = String((e.key as Any).sym);
          const f = byName.get(k);
          if (!f) continue;
          out[k] = wrap(`${name}.${k}`, () => f.conv.dec(e.val));
          seen.add(k);
        }
        // Absent fields read as void, like soroban-sdk's sparse unpack (fine for Option).
        for (const f of fields) {
          if (!seen.has(f.name)) {
            out[f.name] = wrap(`${name}.${f.name}`, () => f.conv.dec(xdr.ScVal.scvVoid()));
          }
        }
        return out;
      },
    };
  }

  private unionConv(name: string, casesJson: Any[]): Conv {
    const cases = new Map<string, Conv[] | null>();
    for (const c of casesJson) {
      if (c.void_v0) cases.set(c.void_v0.name, null);
      else cases.set(c.tuple_v0.name, (c.tuple_v0.type as TypeJson[]).map((t) => this.conv(t)));
    }
    return {
      enc: (v) => {
        if (isScVal(v)) return v;
        const tag = typeof v === "string" ? v : (v as Any)?.tag;
        if (typeof tag !== "string" || !cases.has(tag)) {
          fail(`no case ${String(tag)} in union ${name}`);
        }
        const ts = cases.get(tag)!;
        const head = xdr.ScVal.scvSymbol(tag);
        if (ts === null) return xdr.ScVal.scvVec([head]);
        const values = (v as Any).values;
        if (!Array.isArray(values) || values.length !== ts.length) {
          fail(`union ${name}::${tag} expects ${ts.length} value(s)`);
        }
        return xdr.ScVal.scvVec([head, ...values.map((x: unknown, i: number) => ts[i].enc(x))]);
      },
      dec: (v) => {
        const items = (expect(v, "scvVec", `union ${name}`).vec ?? []) as xdr.ScVal[];
        if (items.length === 0 || items[0].type !== "scvSymbol") fail(`bad union ${name}`);
        const tag = String((items[0] as Any).sym);
        if (!cases.has(tag)) fail(`no case ${tag} in union ${name}`);
        const ts = cases.get(tag)!;
        if (ts === null) {
          if (items.length !== 1) fail(`union ${name}::${tag} takes no values`);
          return { tag };
        }
        if (items.length !== ts.length + 1) {
          fail(`union ${name}::${tag} expects ${ts.length} value(s)`);
        }
        return { tag, values: ts.map((t, i) => t.dec(items[i + 1])) };
      },
    };
  }
}

function wrap<T>(where: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof CodecError && !e.message.startsWith(where)) {
      throw new CodecError(`${where}: ${e.message}`);
    }
    throw e;
  }
}
