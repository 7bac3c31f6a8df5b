/**
 * Call frames: the contract being called, its resolved executable and per-frame state.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import type { HostErr } from "./errors.ts";
import type { SpecCodec } from "./codec.ts";
import type { CompiledContract } from "./wasm/vm.ts";

/** A resolved contract being called: the built-in SAC or a Wasm contract. */
export interface Callee {
  kind: "sac" | "wasm";
  /** The compiled Wasm (kind "wasm"). */
  wasm?: CompiledContract;
  /** The contract code entry's LedgerKey (kind "wasm"). */
  codeKey?: string;
  codec: SpecCodec;
  contract: string;
  id: Uint8Array;
  scAddress: xdr.ScAddress;
  instanceKey: string;
  instance: xdr.ScContractInstance;
}

/** One contract call on the stack. */
export class Frame {
  /** New executable from `update_current_contract_wasm` (written when the frame succeeds). */
  newExecutable?: xdr.ContractExecutable;
  /** Instance storage, by key token (loaded on first use). */
  storage?: Map<string, xdr.ScMapEntry>;
  dirty = false;
  /** A host error raised inside this frame (fails the frame even if the contract swallowed it). */
  poison?: HostErr;
  readonly contract: string;

  constructor(
    readonly callee: Callee,
    readonly fn: string,
    readonly args: xdr.ScVal[],
    readonly caller: Frame | null,
  ) {
    this.contract = callee.contract;
  }
}

/** How a call is made. */
export type CallKind = "root" | "call" | "try" | "constructor" | "check_auth";
