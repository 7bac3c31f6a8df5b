/**
 * The context a host function runs in: the invocation, the calling Wasm frame (its handle
 * table, memory and fuel), and argument/return helpers that check Val tags the way the real
 * host's dispatch does.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import type { Invocation } from "../host.ts";
import type { Frame } from "../frame.ts";
import { type FrameHandles, type ObjectStore, valErr } from "./objects.ts";
import { major, minor, Tag, tagOf, u32Val } from "./val.ts";

/** One host function: its arity, first protocol and implementation over guest Vals. */
export interface HostFn {
  name: string;
  arity: number;
  minProtocol: number;
  fn: (c: VmCtx, ...args: bigint[]) => bigint;
}

/** Builds a table entry. */
export function hf(
  name: string,
  arity: number,
  fn: (c: VmCtx, ...args: bigint[]) => bigint,
  minProtocol = 20,
): HostFn {
  return { name, arity, fn, minProtocol };
}

/** Per-invocation state shared by every Wasm frame (PRNG seed, object store). */
export interface VmShared {
  store: ObjectStore;
  /** Base PRNG seed of the invocation. */
  readonly baseSeed: Uint8Array;
  /** Next sub-seed counter. */
  subSeeds: number;
}

/** The context of a host function call from one Wasm frame. */
export class VmCtx {
  mem?: WebAssembly.Memory;
  fuel!: WebAssembly.Global;
  /** Fuel at the last synchronisation with the invocation's counter. */
  fuelMark = 0n;
  /** Frame-local PRNG (lazily seeded). */
  prng?: { seed: Uint8Array; buf: Uint8Array; pos: number; counter: number };

  constructor(
    readonly h: Invocation,
    readonly frame: Frame,
    readonly shared: VmShared,
    readonly handles: FrameHandles,
  ) {}

  get store(): ObjectStore {
    return this.shared.store;
  }

  /** Charges `cpu` instructions against the Wasm fuel. */
  charge(cpu: number): void {
    const f = this.fuel.value as bigint - BigInt(cpu);
    this.fuel.value = f;
    if (f < 0n) throw valErr("Budget", "ExceededLimit", "CPU instruction limit exceeded");
  }

  /** A guest Val → absolute Val. */
  abs(v: bigint): bigint {
    return this.handles.toAbs(v);
  }

  /** An absolute Val → guest Val. */
  rel(v: bigint): bigint {
    return this.handles.toRel(v);
  }

  /** A guest object Val of `tag` → absolute. */
  obj(v: bigint, tag: number): bigint {
    if (tagOf(v) !== tag) {
      // The real dispatcher refuses a wrongly tagged typed argument while marshalling it.
      throw valErr("Value", "InvalidInput", `expected object tag ${tag}, got ${tagOf(v)}`);
    }
    return this.handles.toAbs(v);
  }

  /** A U32Val argument. */
  u32(v: bigint): number {
    if (tagOf(v) !== Tag.U32 || minor(v) !== 0) {
      throw valErr("Value", "InvalidInput", "expected a U32Val");
    }
    return major(v);
  }

  /** A U256Val / I256Val argument (small or object form), refused like the dispatcher does. */
  num256(v: bigint, signed: boolean): bigint {
    const t = tagOf(v);
    const [small, obj] = signed ? [Tag.I256Small, Tag.I256Object] : [Tag.U256Small, Tag.U256Object];
    if (t !== small && t !== obj) {
      throw valErr("Value", "InvalidInput", `expected a ${signed ? "I" : "U"}256Val`);
    }
    return this.store.numOf(this.abs(v), obj);
  }

  /** A BytesObject argument's bytes. */
  bytes(v: bigint): Uint8Array {
    return this.store.bytes(this.obj(v, Tag.BytesObject));
  }

  /** An AddressObject argument's strkey. */
  address(v: bigint): string {
    return this.store.addressStr(this.obj(v, Tag.AddressObject));
  }

  /** A VecObject argument's elements (absolute). */
  vec(v: bigint): bigint[] {
    return this.store.vec(this.obj(v, Tag.VecObject));
  }

  /** A guest Val → ScVal. */
  scval(v: bigint): xdr.ScVal {
    return this.store.toScVal(this.abs(v));
  }

  /** An ScVal → guest Val. */
  fromScVal(s: xdr.ScVal): bigint {
    return this.rel(this.store.fromScVal(s));
  }

  /** New bytes → guest Val. */
  newBytes(b: Uint8Array, tag: 72 | 73 | 74 = 72): bigint {
    return this.rel(this.store.newBytes(b, tag));
  }

  u32Val(n: number): bigint {
    return u32Val(n);
  }

  /** The linear memory (the module must export `memory`). */
  memory(): Uint8Array {
    if (!this.mem) throw valErr("WasmVm", "MissingValue", "module does not export memory");
    return new Uint8Array(this.mem.buffer);
  }

  /** A checked slice of linear memory. */
  memSlice(pos: number, len: number): Uint8Array {
    const m = this.memory();
    if (pos + len > m.length) {
      throw valErr("WasmVm", "IndexBounds", "linear memory access out of bounds");
    }
    return m.subarray(pos, pos + len);
  }

  /** Little-endian u32/u64 reads and writes of linear memory. */
  memView(): DataView {
    const m = this.memory();
    return new DataView(m.buffer, m.byteOffset, m.byteLength);
  }
}
