/**
 * The boundary between the node's ledger/RPC layer and the contract host (the real Soroban host,
 * `real_host/`): what the ledger layer asks of it and the types that cross. The ledger layer owns
 * the entry store, ledgers, transaction validation and fees; the host runs one InvokeHostFunction
 * against a read-only view of the store and returns what it would change, which the ledger layer
 * applies only when the invocation succeeded. Ledger keys cross as base64 `LedgerKey` XDR strings
 * (canonical, so usable as Map keys); entries as `xdr.LedgerEntry`.
 *
 * @module
 */
import type { Asset, contract, xdr } from "@stellar/stellar-sdk";

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

/** Read access to the current ledger entries. */
export interface LedgerReader {
  /** The live entry for a base64 LedgerKey, or undefined. */
  get(key: string): xdr.LedgerEntry | undefined;
  /** The live-until ledger of a live contract data/code entry (its TTL), when the reader knows it. */
  liveUntil?(key: string): number | undefined;
}

/** Ledger facts an invocation sees. */
export interface LedgerInfo {
  sequence: number;
  timestamp: bigint;
  networkPassphrase: string;
  /** sha256(passphrase) */
  networkId: Uint8Array;
  protocolVersion: number;
  /** Max TTL of an entry (ledgers), for auth expiry checks. */
  maxEntryTtl: number;
  /** Base reserve in stroops (default 5_000_000): the SAC keeps native balances above the reserve. */
  baseReserve?: number;
  /** Minimum TTL of new temporary entries (default 16), for nonce entries. */
  minTempTtl?: number;
  /** Minimum TTL of new persistent entries and code (default mainnet's 2,073,600). */
  minPersistentTtl?: number;
}

/** Auth handling of an invocation (stellar-rpc semantics). */
export type AuthMode = "enforce" | "record" | "record_allow_nonroot";

/** One InvokeHostFunction to run. */
export interface InvokeRequest {
  reader: LedgerReader;
  ledger: LedgerInfo;
  /** The operation's source account (op source if set, else tx source), G… */
  source: string;
  hostFunction: xdr.HostFunction;
  /** Auth entries attached to the operation (used in enforce mode). */
  auth: xdr.SorobanAuthorizationEntry[];
  mode: AuthMode;
  /**
   * Declared footprint (base64 LedgerKeys). When given (applying a submitted tx), any read
   * outside readOnly ∪ readWrite, or write outside readWrite, fails the invocation with
   * `Error(Storage, ExceededLimit)`. When absent (simulation), every access is allowed and
   * recorded.
   */
  footprint?: { readOnly: Set<string>; readWrite: Set<string> };
  /**
   * CPU instruction budget (the transaction's declared instructions when applying; default the
   * network limit, 100M). Wasm execution stops with `Error(Budget, ExceededLimit)` past it.
   */
  instructionLimit?: number;
}

/** A host error, as Soroban's `Error(<type>, <code>)`. */
export interface HostErrorInfo {
  /** "Contract" | "WasmVm" | "Context" | "Storage" | "Object" | "Crypto" | "Events" | "Budget" | "Value" | "Auth" */
  type: string;
  /** Contract error number, or a code name ("InvalidAction", "ExceededLimit", …). */
  code: number | string;
  /**
   * Human message: for contract errors the error enum's doc (e.g. "Too big"); for an
   * unexpected exception inside a call its message; otherwise the host's diagnostic message
   * (e.g. "balance is not sufficient to spend").
   */
  message: string;
}

/** Resources an invocation used, for fee computation and SorobanTransactionData. */
export interface InvokeResources {
  instructions: number;
  diskReadBytes: number;
  writeBytes: number;
}

/** What an invocation did. */
export interface InvokeResult {
  ok: boolean;
  /** The return value (on success). */
  returnValue?: xdr.ScVal;
  /** The failure (when !ok). */
  error?: HostErrorInfo;
  /**
   * The failure as stellar-rpc reports it in simulation: `HostError: Error(Contract, #3)\n\n
   * Event log (newest first):\n   0: [Diagnostic Event] …`.
   */
  errorString?: string;
  /** Contract events (empty when !ok: a failed call emits nothing). */
  events: xdr.ContractEvent[];
  /**
   * Every event in emission order as DiagnosticEvents — fn_call / fn_return / error / log
   * diagnostics and the contract events too (what stellar-rpc returns as simulation `events`).
   * `inSuccessfulContractCall` is false for events of failed (rolled-back) calls, and for all
   * of them when !ok. Filter on `event.type` for diagnostics only.
   */
  diagnosticEvents: xdr.DiagnosticEvent[];
  /**
   * Entries to write (value) or delete (null), by base64 LedgerKey. Empty when !ok.
   * `lastModifiedLedgerSeq` is set by the ledger layer when applying.
   */
  changes: Map<string, xdr.LedgerEntry | null>;
  /** Every key read (and not written), base64 LedgerKey — the readOnly footprint. */
  readOnly: string[];
  /** Every key written, created or deleted (including nonce keys) — the readWrite footprint. */
  readWrite: string[];
  /** Auth entries recorded (record modes) — or the submitted ones (enforce). */
  auth: xdr.SorobanAuthorizationEntry[];
  resources: InvokeResources;
  /**
   * Requested live-until ledgers by base64 LedgerKey (nonce entries: their signature expiration;
   * `extendTtl` calls: sequence + extendTo). The ledger layer applies max(current, requested);
   * entries absent here get its default TTL when created. Empty when !ok.
   */
  liveUntil?: Map<string, number>;
}
