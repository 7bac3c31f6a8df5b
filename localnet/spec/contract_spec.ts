/**
 * Contract specs on the node's side: native JS values ↔ ScVals through a contract's spec, for
 * the in-process API (`Localnet.invoke`, `deployWasm` constructor arguments). No contract runs
 * here — the real Soroban host (`../real_host/`) executes; this only reads `contractspecv0`
 * (or the Stellar Asset Contract's interface) and converts values.
 *
 * @module
 */
import { Address, contract, xdr } from "@stellar/stellar-sdk";
import type { LedgerReader } from "../host_api.ts";
import { type Conv, SpecCodec } from "./codec.ts";
import { SAC_SPEC_ENTRIES } from "./sac_spec.ts";
import { specFromWasm } from "./wasm_sections.ts";
import { toHex } from "../util.ts";

export { CodecError, SpecCodec } from "./codec.ts";
export { SAC_SPEC_ENTRIES } from "./sac_spec.ts";
/** The spec entries in a Wasm's `contractspecv0` section. */
export { specFromWasm as specOfWasm, wasmCustomSections } from "./wasm_sections.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Anything a codec can be made from. */
export type SpecSource = contract.Spec | xdr.ScSpecEntry[] | SpecCodec;

const codecs = new WeakMap<object, SpecCodec>();

/** The (cached) codec of a spec source. */
export function codecFor(spec: SpecSource): SpecCodec {
  if (spec instanceof SpecCodec) return spec;
  let c = codecs.get(spec);
  if (!c) {
    c = new SpecCodec(Array.isArray(spec) ? spec : spec.entries);
    codecs.set(spec, c);
  }
  return c;
}

/**
 * Encodes native arguments of `fn` through a spec (positional array, or object keyed by
 * parameter name). Throws {@link CodecError} when a value does not fit.
 */
export function encodeArgs(
  spec: SpecSource,
  fn: string,
  args: Record<string, unknown> | unknown[] = [],
): xdr.ScVal[] {
  return codecFor(spec).encodeArgs(fn, args);
}

/** Decodes a function's return ScVal through a spec (the Ok type of a Result; void → null). */
export function decodeResult(spec: SpecSource, fn: string, value: xdr.ScVal): unknown {
  const f = codecFor(spec).fns.get(fn);
  if (!f) throw new Error(`no function ${fn} in the spec`);
  if (!f.output) return null;
  return f.output.dec(value);
}

/** Conversion for one spec type (JSON form), e.g. to decode a storage value. */
export function typeCodec(spec: SpecSource, type: string | Record<string, unknown>): Conv {
  return codecFor(spec).conv(type);
}

const sacSpec = new contract.Spec(SAC_SPEC_ENTRIES);

/** The SAC's codec (for in-process callers encoding SAC arguments). */
export const sacCodec: SpecCodec = codecFor(sacSpec);

/** Base64 LedgerKey of a contract's instance entry. */
function instanceKey(contractId: string): string {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(contractId).toScAddress(),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent,
    }),
  ).toXdr("base64");
}

/**
 * The `contract.Spec` of a deployed contract: the SAC interface for Stellar Asset Contracts,
 * else the spec in its code entry's Wasm.
 */
export function specFor(contractId: string, reader: LedgerReader): contract.Spec {
  const entry = reader.get(instanceKey(contractId));
  if (!entry) throw new Error(`contract ${contractId} not found`);
  const instance = (entry.data as Any).contractData.val.instance as xdr.ScContractInstance;
  if (instance.executable.type === "contractExecutableStellarAsset") return sacSpec;
  const hash: Uint8Array = (instance.executable as Any).wasmHash.value;
  const hex = toHex(hash);
  const cached = wasmSpecs.get(hex);
  if (cached) return cached;
  const code = reader.get(
    xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: hash as Any })).toXdr(
      "base64",
    ),
  );
  if (!code) throw new Error(`contract code ${hex} not found`);
  const spec = new contract.Spec(specFromWasm((code.data as Any).contractCode.code));
  // Code is content-addressed: the same hash always has the same spec. Parsing it (and building
  // its codec, cached per Spec object) on every call was a third of an in-process invocation.
  if (wasmSpecs.size >= MAX_CACHED_SPECS) wasmSpecs.delete(wasmSpecs.keys().next().value!);
  wasmSpecs.set(hex, spec);
  return spec;
}

/** Specs of uploaded Wasm by code hash (bounded: oldest dropped first). */
const wasmSpecs = new Map<string, contract.Spec>();
const MAX_CACHED_SPECS = 256;
