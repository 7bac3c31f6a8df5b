/**
 * Stub Wasm: the code served for every TypeScript contract. It is a valid empty Wasm module
 * whose only content is a `contractspecv0` custom section holding the contract's spec, which
 * is all that `contract.Client.from(...)` / `contract.Spec.fromWasm(...)` read.
 *
 * @module
 */
import { contract, xdr } from "@stellar/stellar-sdk";

// deno-lint-ignore no-explicit-any
type Any = any;

function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
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

/** One Wasm custom section (id 0) with the given name and payload. */
function customSection(name: string, payload: Uint8Array): Uint8Array {
  const nameBytes = new TextEncoder().encode(name);
  const body = concat([Uint8Array.from(leb128(nameBytes.length)), nameBytes, payload]);
  return concat([Uint8Array.of(0), Uint8Array.from(leb128(body.length)), body]);
}

/**
 * The spec as served: struct fields sorted by name, which is how soroban-sdk emits specs and
 * what `contract.Spec` needs (it decodes a struct's map entries by position).
 */
export function normalizeSpec(spec: xdr.ScSpecEntry[]): xdr.ScSpecEntry[] {
  return spec.map((e) => {
    if (e.type !== "scSpecEntryUdtStructV0") return e;
    const j = e.toJson() as Any;
    const fields = [...j.udt_struct_v0.fields];
    const numeric = fields.length > 0 && fields.every((f: Any) => /^\d+$/.test(f.name));
    if (numeric) return e;
    const sorted = [...fields].sort((
      a: Any,
      b: Any,
    ) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (sorted.every((f, i) => f === fields[i])) return e;
    j.udt_struct_v0.fields = sorted;
    return xdr.ScSpecEntry.fromJson(j);
  });
}

/**
 * Builds the stub Wasm of a spec: `\0asm` version 1, then a custom section `contractspecv0`
 * holding the concatenated XDR of the (normalized) spec entries.
 */
export function stubWasm(spec: xdr.ScSpecEntry[]): Uint8Array {
  const entries = normalizeSpec(spec).map((e) => e.toXdr() as Uint8Array);
  return concat([
    Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00),
    customSection("contractspecv0", concat(entries)),
  ]);
}

/** Reads the custom sections of a Wasm module (name → payloads). */
export function wasmCustomSections(wasm: Uint8Array): Map<string, Uint8Array[]> {
  const out = new Map<string, Uint8Array[]>();
  if (
    wasm.length < 8 || wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d
  ) {
    throw new Error("not a Wasm module");
  }
  let i = 8;
  const readLeb = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = wasm[i++];
      if (b === undefined) throw new Error("truncated Wasm module");
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
  };
  while (i < wasm.length) {
    const id = wasm[i++];
    const size = readLeb();
    const end = i + size;
    if (end > wasm.length) throw new Error("truncated Wasm section");
    if (id === 0) {
      const nameLen = readLeb();
      const name = new TextDecoder().decode(wasm.subarray(i, i + nameLen));
      i += nameLen;
      const list = out.get(name) ?? [];
      list.push(wasm.slice(i, end));
      out.set(name, list);
    }
    i = end;
  }
  return out;
}

/** The spec entries held in a Wasm module's `contractspecv0` section. */
export function specFromWasm(wasm: Uint8Array): xdr.ScSpecEntry[] {
  const sections = wasmCustomSections(wasm).get("contractspecv0");
  if (!sections || sections.length === 0) throw new Error("no contractspecv0 section");
  return new contract.Spec(sections[0]).entries;
}
