/**
 * Host errors: `Error(type, code)` as rs-soroban-env reports them, and which of them a
 * `try_call` may recover from.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";

/** A Soroban host error: `Error(type, code)` plus its diagnostic message. */
export class HostErr extends Error {
  constructor(
    readonly type: string,
    readonly code: number | string,
    readonly msg: string,
    readonly args: xdr.ScVal[] = [],
    /** Human message: a contract error's doc in the error enum, or an exception's message. */
    public detail?: string,
  ) {
    super(
      type === "Contract" ? `Error(Contract, #${code}): ${msg}` : `Error(${type}, ${code}): ${msg}`,
    );
    this.name = "HostErr";
  }
}

/** Errors a `try_call` cannot recover from (as rs-soroban-env `is_recoverable`). */
export function isRecoverable(e: HostErr): boolean {
  if (e.type !== "Contract" && e.code === "InternalError") return false;
  if (e.code === "ExceededLimit" && (e.type === "Storage" || e.type === "Budget")) return false;
  return true;
}
