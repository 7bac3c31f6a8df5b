/**
 * Test contracts in WAT: compiled with `wabt` at test set-up, with the custom sections a
 * Soroban contract carries (`contractenvmetav0` interface version, `contractspecv0` spec).
 *
 * Macros expanded before compiling (so the WAT stays readable):
 * `(sym "name")` small Symbol Val, `(u32 N)` U32Val, `(i32v N)` I32Val, `(cerr N)` a contract
 * Error Val, `(void)`, `(true)`, `(false)`; all become `(i64.const …)`.
 *
 * @module
 */
import initWabt from "wabt";
import type { xdr } from "@stellar/stellar-sdk";

// deno-lint-ignore no-explicit-any
type Any = any;

let wabtP: Promise<Any> | undefined;

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** One custom section. */
export function customSection(name: string, payload: Uint8Array): Uint8Array {
  const nb = new TextEncoder().encode(name);
  const body = [...leb(nb.length), ...nb, ...payload];
  return Uint8Array.from([0, ...leb(body.length), ...body]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** The contractenvmetav0 payload: SCEnvMetaEntry interface version. */
export function envMeta(protocol: number, preRelease = 0): Uint8Array {
  const b = new Uint8Array(12);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, 0);
  dv.setUint32(4, protocol);
  dv.setUint32(8, preRelease);
  return b;
}

function symVal(s: string): bigint {
  let acc = 0n;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    const code = c === 95 ? 1 : c >= 48 && c <= 57 ? c - 46 : c >= 65 && c <= 90 ? c - 53 : c - 59;
    acc = (acc << 6n) | BigInt(code);
  }
  return (acc << 8n) | 14n;
}

/** Expands the Val macros. */
export function expandMacros(src: string): string {
  const c = (v: bigint) => `(i64.const ${BigInt.asIntN(64, v)})`;
  return src
    .replace(/\(sym "([A-Za-z0-9_]{1,9})"\)/g, (_, s) => c(symVal(s)))
    .replace(/\(u32 (\d+)\)/g, (_, n) => c((BigInt(n) << 32n) | 4n))
    .replace(/\(i32v (-?\d+)\)/g, (_, n) => c((BigInt.asUintN(32, BigInt(n)) << 32n) | 5n))
    .replace(/\(cerr (\d+)\)/g, (_, n) => c((BigInt(n) << 32n) | 3n))
    .replace(/\(void\)/g, c(2n))
    .replace(/\(true\)/g, c(1n))
    .replace(/\(false\)/g, c(0n));
}

/** Options of {@link wat}. */
export interface WatOptions {
  /** Spec entries for contractspecv0 (what contract.Client reads). */
  spec?: xdr.ScSpecEntry[];
  /** contractenvmetav0 protocol (default 22); null leaves the section out. */
  protocol?: number | null;
  preRelease?: number;
  /** wabt feature flags (e.g. {tail_call: true}). */
  features?: Record<string, boolean>;
}

/** Compiles WAT (with macros) into a Soroban contract Wasm. */
export async function wat(src: string, opts: WatOptions = {}): Promise<Uint8Array> {
  wabtP ??= initWabt();
  const wabt = await wabtP;
  const mod = wabt.parseWat("contract.wat", expandMacros(src), {
    multi_value: true,
    mutable_globals: true,
    sign_extension: true,
    bulk_memory: true,
    ...opts.features,
  });
  try {
    const bin: Uint8Array = mod.toBinary({}).buffer;
    const parts: Uint8Array[] = [Uint8Array.from(bin)];
    if (opts.protocol !== null) {
      parts.push(customSection("contractenvmetav0", envMeta(opts.protocol ?? 22, opts.preRelease)));
    }
    if (opts.spec) {
      parts.push(
        customSection("contractspecv0", concat(opts.spec.map((e) => e.toXdr() as Uint8Array))),
      );
    }
    return concat(parts);
  } finally {
    mod.destroy();
  }
}
