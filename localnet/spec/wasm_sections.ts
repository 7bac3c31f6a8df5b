/**
 * Reading a Wasm module's custom sections, and the contract spec in its `contractspecv0`
 * section (what `contract.Client.from(...)` / `contract.Spec.fromWasm(...)` read).
 *
 * @module
 */
import { contract, type xdr } from "@stellar/stellar-sdk";

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
