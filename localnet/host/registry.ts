/**
 * Registry of TypeScript contract modules by the hash of their stub Wasm, with each module's
 * compiled spec codec (built once per module).
 *
 * @module
 */
import { contract, xdr } from "@stellar/stellar-sdk";
import type { ContractModule } from "../../contracts/sdk.ts";
import { SpecCodec } from "./codec.ts";
import { normalizeSpec, stubWasm } from "./wasm.ts";
import { sha256 } from "./auth.ts";
import { contractCodeKey } from "./xdr_fast.ts";

/** A registered module. */
export interface RegisteredModule {
  readonly module: ContractModule;
  /** sha256 of the stub Wasm. */
  readonly hash: Uint8Array;
  /** Hex of {@link hash}. */
  readonly hashHex: string;
  /** The stub Wasm served as the contract code. */
  readonly wasm: Uint8Array;
  /** Base64 LedgerKey of the contract code entry. */
  readonly codeKey: string;
  readonly codec: SpecCodec;
  /** The SDK Spec of the served (normalized) spec. */
  readonly spec: contract.Spec;
}

const byHash = new Map<string, RegisteredModule>();
const byModule = new WeakMap<ContractModule, RegisteredModule>();

function toHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** Registers a module (idempotent) and returns its record. */
export function register(module: ContractModule): RegisteredModule {
  const known = byModule.get(module);
  if (known) return known;
  const wasm = stubWasm(module.spec);
  const hash = sha256(wasm);
  const hashHex = toHex(hash);
  const existing = byHash.get(hashHex);
  if (existing && existing.module !== module) {
    // Same interface under another name: the code hash would be ambiguous on the ledger.
    if (existing.module.name !== module.name) {
      throw new Error(
        `module ${module.name} has the same spec (stub Wasm ${hashHex}) as ${existing.module.name}; give it a distinct spec (e.g. a doc string)`,
      );
    }
  }
  const entries = normalizeSpec(module.spec);
  for (const e of entries) {
    if (e.type !== "scSpecEntryFunctionV0") continue;
    const name = String((e as unknown as { functionV0: xdr.ScSpecFunctionV0 }).functionV0.name);
    if (typeof module.functions[name] !== "function") {
      throw new Error(`module ${module.name}: spec function ${name} has no implementation`);
    }
  }
  const rec: RegisteredModule = {
    module,
    hash,
    hashHex,
    wasm,
    codeKey: contractCodeKey(hash),
    codec: new SpecCodec(entries),
    spec: new contract.Spec(entries),
  };
  byHash.set(hashHex, existing ?? rec);
  byModule.set(module, existing ?? rec);
  return existing ?? rec;
}

/**
 * Registers a contract module so instances whose executable is `wasm(hash)` run it.
 * Returns the hex sha256 of its stub Wasm (the contract code hash on the ledger).
 */
export function registerModule(module: ContractModule): string {
  return register(module).hashHex;
}

/** The module registered for a code hash (hex), if any. */
export function moduleByHash(hashHex: string): RegisteredModule | undefined {
  return byHash.get(hashHex);
}

/** Hex of raw bytes. */
export { toHex };
