/**
 * Error types of contract calls, kept free of SDK imports so the light islands (header
 * wallet button, error display) can use them without pulling in the Stellar SDK.
 *
 * @module
 */

/** A contract call failed with `Error(Contract, #code)`. */
export class ContractCallError extends Error {
  override name = "ContractCallError";
  constructor(
    message: string,
    /** The contract whose function was called. */
    readonly contractId: string,
    readonly fn: string,
    /** Numeric contract error code, when the failure was a typed contract error. */
    readonly code: number | null,
    /** Error case name from the contract's spec (e.g. "DepositCapExceeded"), when known. */
    readonly caseName: string | null,
    /** The raw diagnostic text (host error, simulation error…). */
    readonly detail: string,
    /** Contract that raised the error, when the diagnostics say (may differ from contractId). */
    readonly origin: string | null = null,
  ) {
    super(message);
  }
}

/** The transaction was sent but did not succeed (FAILED, or rejected by sendTransaction). */
export class TxFailedError extends Error {
  override name = "TxFailedError";
  constructor(message: string, readonly hash: string | null, readonly status: string) {
    super(message);
  }
}
