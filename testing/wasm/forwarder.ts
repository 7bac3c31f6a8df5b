/**
 * The "forwarder" test contract, generated from the host function table: for every host
 * function `<m>.<e>` it exports `<m>_<e>` (`_` export → `<m>__`), which passes its Val
 * arguments straight to the host function and returns the result. Raw 64-bit parameters are
 * passed as 8-byte little-endian Bytes and raw results come back as such Bytes. For functions
 * that use linear memory, `m_<m>_<e>(data, …)` first copies `data` to memory offset 0 and
 * returns `[result, memory[0..512)]`. This lets the tests call every host function over RPC.
 *
 * @module
 */
import { HOST_FNS } from "./host_fns.ts";
import { wat } from "../wat.ts";

/**
 * Host functions whose parameters (indices) / result are raw 64-bit integers, not Vals.
 * `storage`: a `StorageType` parameter (a raw i64 too), which the tests pass as a U32Val and
 * the forwarder unwraps.
 */
export const RAW: Record<string, { args?: number[]; ret?: boolean; storage?: number }> = {
  "l._": { storage: 2 },
  "l.0": { storage: 1 },
  "l.1": { storage: 1 },
  "l.2": { storage: 1 },
  "l.7": { storage: 1 },
  "i._": { args: [0] },
  "i.0": { ret: true },
  "i.1": { args: [0] },
  "i.2": { ret: true },
  "i.3": { args: [0, 1] },
  "i.4": { ret: true },
  "i.5": { ret: true },
  "i.6": { args: [0, 1] },
  "i.7": { ret: true },
  "i.8": { ret: true },
  "i.9": { args: [0, 1, 2, 3] },
  "i.c": { ret: true },
  "i.d": { ret: true },
  "i.e": { ret: true },
  "i.f": { ret: true },
  "i.g": { args: [0, 1, 2, 3] },
  "i.j": { ret: true },
  "i.k": { ret: true },
  "i.l": { ret: true },
  "i.m": { ret: true },
  "i.D": { args: [0] },
  "i.E": { ret: true },
  "i.F": { args: [0] },
  "i.G": { ret: true },
  "x.0": { ret: true },
  "v.f": { ret: true },
  "p.1": { args: [0, 1], ret: true },
};

/** Host functions that read or write linear memory (get an `m_` variant). */
export const MEMORY_FNS = [
  "x._",
  "m.9",
  "m.a",
  "v.g",
  "v.h",
  "b.1",
  "b.2",
  "b.3",
  "b.g",
  "b.h",
  "b.i",
  "b.j",
  "b.m",
];

/** Export name of a host function's forwarder. */
export function fwdName(key: string): string {
  const [m, e] = key.split(".");
  return `${m}_${e === "_" ? "_" : e}`;
}

/** The forwarder's WAT. */
export function forwarderWat(maxProtocol = 23): string {
  const lines: string[] = ["(module"];
  const fns = HOST_FNS.filter(([, , , p]) => p <= maxProtocol).map(([k, , arity]) =>
    [k, { arity }] as const
  );
  const id = (k: string) => "$h" + k.replace(".", "_").replace(/[^A-Za-z0-9_]/g, "u");
  for (const [k, f] of fns) {
    const [m, e] = k.split(".");
    const params = Array(f.arity).fill("i64").join(" ");
    lines.push(
      `  (import "${m}" "${e}" (func ${id(k)} ${params ? `(param ${params})` : ""} (result i64)))`,
    );
  }
  lines.push(`  (memory (export "memory") 1)`);
  const body = (k: string, arity: number, offset: number) => {
    const raw = RAW[k] ?? {};
    const out: string[] = [];
    const args: string[] = [];
    for (let i = 0; i < arity; i++) {
      const p = `(local.get ${i + offset})`;
      if (raw.storage === i) {
        args.push(`(i64.shr_u ${p} (i64.const 32))`);
      } else if (raw.args?.includes(i)) {
        const pos = 1024 + 8 * i;
        out.push(`    (drop (call $hb_1 ${p} (u32 0) (u32 ${pos}) (u32 8)))`);
        args.push(`(i64.load (i32.const ${pos}))`);
      } else args.push(p);
    }
    out.push(`    (local.set $r (call ${id(k)} ${args.join(" ")}))`);
    if (raw.ret) {
      out.push(`    (i64.store (i32.const 1536) (local.get $r))`);
      out.push(`    (local.set $r (call $hb_3 (u32 1536) (u32 8)))`);
    }
    return out;
  };
  for (const [k, f] of fns) {
    const params = Array(f.arity).fill("i64").join(" ");
    lines.push(
      `  (func (export "${fwdName(k)}") ${
        params ? `(param ${params})` : ""
      } (result i64) (local $r i64)`,
      ...body(k, f.arity, 0),
      `    (local.get $r))`,
    );
    if (MEMORY_FNS.includes(k)) {
      const p2 = Array(f.arity + 1).fill("i64").join(" ");
      lines.push(
        `  (func (export "m_${
          fwdName(k)
        }") (param ${p2}) (result i64) (local $r i64) (local $snap i64)`,
        `    (drop (call $hb_1 (local.get 0) (u32 0) (u32 0) (call $hb_8 (local.get 0))))`,
        ...body(k, f.arity, 1),
        `    (local.set $snap (call $hb_3 (u32 0) (u32 512)))`,
        `    (i64.store (i32.const 2048) (local.get $r))`,
        `    (i64.store (i32.const 2056) (local.get $snap))`,
        `    (call $hv_g (u32 2048) (u32 2)))`,
      );
    }
  }
  lines.push(")");
  return lines.join("\n");
}

/** The forwarder contract Wasm. */
export function forwarderWasm(): Promise<Uint8Array> {
  // It imports protocol-23 functions, so it must declare protocol 23: the host refuses a
  // contract that imports a function newer than its declared protocol.
  return wat(forwarderWat(23), { protocol: 23 });
}
