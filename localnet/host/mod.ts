/**
 * The contract host of the local node.
 *
 * - {@link invokeHostFunction}: runs one InvokeHostFunction (invoke a contract, upload code,
 *   create a contract) against a read-only ledger view and returns what it would change.
 *   Contracts are real Soroban Wasm (`wasm/`) or the built-in SAC.
 * - {@link deployStellarAsset}: in-process deployment of a Stellar Asset Contract.
 * - {@link encodeArgs}, {@link decodeResult}, {@link specFor}: native ↔ ScVal helpers.
 *
 * Semantics follow rs-soroban-env (details in each module's notes): errors as
 * `Error(Type, Code)`, footprint enforcement, Soroban authorization (record/enforce), contract
 * and diagnostic events, and the built-in Stellar Asset Contract.
 *
 * @module
 */
import { type Asset, contract, xdr } from "@stellar/stellar-sdk";
import type { InvokeRequest, InvokeResult, LedgerInfo, LedgerReader } from "./types.ts";
import { Invocation, SAC_CODEC } from "./host.ts";
import { type Conv, SpecCodec } from "./codec.ts";
import { instanceLedgerKey } from "./keys.ts";
import { SAC_SPEC_ENTRIES, sacInstanceStorage } from "./sac.ts";
import { specFromWasm } from "./wasm.ts";
import { contractCodeKey } from "./xdr_fast.ts";
import { toHex } from "../util.ts";

export type * from "./types.ts";
/** The spec entries in a Wasm's `contractspecv0` section. */
export { specFromWasm as specOfWasm };
export { HostErr } from "./host.ts";
export { CodecError } from "./codec.ts";
export { SAC_SPEC_ENTRIES } from "./sac.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/**
 * Runs one InvokeHostFunction. Never throws for contract/host failures: they come back as
 * `{ok: false, error, errorString, diagnosticEvents}` with no changes.
 */
export function invokeHostFunction(req: InvokeRequest): InvokeResult {
  return new Invocation(req).run();
}

/** Entries written (value) or deleted (null) by a deployment, by base64 LedgerKey. */
export type Changes = Map<string, xdr.LedgerEntry | null>;

/** A failed in-process deployment. */
export class DeployError extends Error {
  constructor(readonly result: InvokeResult) {
    super(result.errorString ?? result.error?.message ?? "deployment failed");
    this.name = "DeployError";
  }
}

/**
 * Deploys the Stellar Asset Contract of `asset` (id = `asset.contractId(passphrase)`), with
 * instance storage as `init_asset` writes it: METADATA, AssetInfo and (issued assets) Admin =
 * issuer. Throws {@link DeployError} if it already exists.
 */
export function deployStellarAsset(opts: {
  reader: LedgerReader;
  ledger: LedgerInfo;
  asset: Asset;
}): { contractId: string; changes: Changes } {
  const contractId = opts.asset.contractId(opts.ledger.networkPassphrase);
  const inv = new Invocation({
    reader: opts.reader,
    ledger: opts.ledger,
    source: opts.asset.isNative() ? contractId : opts.asset.getIssuer()!,
    hostFunction: DUMMY_HOST_FN,
    auth: [],
    mode: "record_allow_nonroot",
  });
  const res = inv.finish(() =>
    inv.createInstance(
      contractId,
      xdr.ContractExecutable.contractExecutableStellarAsset(),
      sacInstanceStorage(opts.asset),
    )
  );
  if (!res.ok) throw new DeployError(res);
  return { contractId, changes: res.changes };
}

const DUMMY_HOST_FN = xdr.HostFunction.hostFunctionTypeUploadContractWasm(new Uint8Array() as Any);

// ---------------------------------------------------------------------------------------------
// Native helpers
// ---------------------------------------------------------------------------------------------

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

/**
 * The `contract.Spec` of a deployed contract: the SAC interface for Stellar Asset Contracts,
 * else the spec in its code entry's Wasm.
 */
export function specFor(contractId: string, reader: LedgerReader): contract.Spec {
  const entry = reader.get(instanceLedgerKey(contractId));
  if (!entry) throw new Error(`contract ${contractId} not found`);
  const instance = (entry.data as Any).contractData.val.instance as xdr.ScContractInstance;
  if (instance.executable.type === "contractExecutableStellarAsset") return sacSpec;
  const hash: Uint8Array = (instance.executable as Any).wasmHash.value;
  const hex = toHex(hash);
  const code = reader.get(contractCodeKey(hash));
  if (!code) throw new Error(`contract code ${hex} not found`);
  const cached = wasmSpecs.get(hex);
  if (cached) return cached;
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

/** The SAC's codec (for in-process callers encoding SAC arguments). */
export const sacCodec: SpecCodec = SAC_CODEC;
