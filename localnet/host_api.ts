/**
 * What the ledger layer needs from the contract host (`localnet/host/mod.ts`, owned by the
 * host module). Kept as an interface so the ledger layer's modules depend on this contract,
 * not on the host's internals.
 *
 * @module
 */
import type { Asset, contract, xdr } from "@stellar/stellar-sdk";
import type { InvokeRequest, InvokeResult, LedgerInfo, LedgerReader } from "./host/types.ts";

/** Entries written (value) or deleted (null) by a deployment, by base64 LedgerKey. */
export type Changes = Map<string, xdr.LedgerEntry | null>;

/** The host functions the node calls. */
export interface HostApi {
  invokeHostFunction(req: InvokeRequest): InvokeResult;
  deployStellarAsset(opts: {
    reader: LedgerReader;
    ledger: LedgerInfo;
    asset: Asset;
  }): { contractId: string; changes: Changes };
  /** The spec of a deployed contract (SAC spec for Stellar Asset Contracts). */
  specFor(contractId: string, reader: LedgerReader): contract.Spec;
  /** Encodes native arguments of `fn` through a spec (positional or by parameter name). */
  encodeArgs(
    spec: contract.Spec,
    fn: string,
    args?: Record<string, unknown> | unknown[],
  ): xdr.ScVal[];
  /** Decodes a function's return value through a spec (the Ok type of a Result; void → null). */
  decodeResult(spec: contract.Spec, fn: string, value: xdr.ScVal): unknown;
}
