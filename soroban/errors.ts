/**
 * Typed errors of Soroban calls (the keeper's, deploy's and the web's) and of the keeper logic
 * named by the spec. No SDK import: the light islands (header wallet button, error display) use
 * these without pulling in the Stellar SDK.
 *
 * Soroban reports contract failures as text (`HostError: Error(Contract, #1212)` in a
 * simulation, diagnostic events in a failed transaction); {@link parseHostError} turns that
 * text into `{type, code}` so callers can branch on numbers, never on substrings.
 *
 * @module
 */

/** A Soroban host error as `Error(<type>, <code>)`: a contract error number or a code name. */
export interface HostErrorCode {
  /** "Contract", "WasmVm", "Storage", "Auth", "Budget", … */
  type: string;
  /** The contract error number (type "Contract") or the code name ("InvalidAction", …). */
  code: number | string;
}

const HOST_ERROR_RE = /Error\((\w+), #?(\w+)\)/;

/** Finds the first `Error(Type, #N)` / `Error(Type, Code)` in a text; undefined when none. */
export function parseHostError(text: string | undefined): HostErrorCode | undefined {
  if (!text) return undefined;
  const m = HOST_ERROR_RE.exec(text);
  if (!m) return undefined;
  const n = Number(m[2]);
  return { type: m[1], code: m[0].includes("#") && Number.isInteger(n) ? n : m[2] };
}

/** The JSON-RPC transport failed (HTTP error, timeout, or a JSON-RPC `error` object). */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    message: string,
    readonly rpcCode?: number,
  ) {
    super(`${method}: ${message}`);
    this.name = "RpcError";
  }
}

/** What the web's write path adds to a {@link ContractCallError}. */
export interface ContractCallDetails {
  /** The message to show instead of the default one. */
  message?: string;
  /** Error case name from the contract's spec (e.g. "DepositCapExceeded"), when known. */
  caseName?: string | null;
  /** Contract that raised the error, when the diagnostics say (may differ from contractId). */
  origin?: string | null;
}

/**
 * A contract call failed in simulation or on chain with a host error. `contractCode` (`code`)
 * is the contract error number when `hostError.type === "Contract"`. The one class for the
 * keeper, deploy and the web (this module imports no SDK, so the light islands can use it).
 */
export class ContractCallError extends Error {
  /** Error case name from the contract's spec, when known (the web names errors by it). */
  readonly caseName: string | null;
  /** Contract that raised the error, when the diagnostics say (may differ from contractId). */
  readonly origin: string | null;

  constructor(
    readonly contractId: string,
    readonly fn: string,
    readonly hostError: HostErrorCode | undefined,
    /** The raw diagnostic text (host error, simulation error…). */
    readonly detail: string,
    /** "simulation" when no transaction was sent; "transaction" when it FAILED on chain. */
    readonly stage: "simulation" | "transaction",
    readonly txHash?: string,
    details: ContractCallDetails = {},
  ) {
    const what = hostError ? `Error(${hostError.type}, ${fmtCode(hostError.code)})` : "failed";
    super(details.message ?? `${fn} on ${short(contractId)} ${what} (${stage})`);
    this.name = "ContractCallError";
    this.caseName = details.caseName ?? null;
    this.origin = details.origin ?? null;
  }

  /** The contract error number, or undefined for other host errors. */
  get contractCode(): number | undefined {
    return this.hostError?.type === "Contract" && typeof this.hostError.code === "number"
      ? this.hostError.code
      : undefined;
  }

  /** The contract error number, or null for other host errors (the web's spelling). */
  get code(): number | null {
    return this.contractCode ?? null;
  }
}

/**
 * sendTransaction refused the envelope (status ERROR, TRY_AGAIN_LATER or DUPLICATE). Nothing
 * was included: no sequence consumed, no fee charged, no state changed.
 */
export class TxRejectedError extends Error {
  constructor(
    readonly status: string,
    /** The TransactionResult code name, e.g. "txInsufficientBalance", when known. */
    readonly txCode: string | undefined,
    readonly hash: string,
  ) {
    super(`transaction rejected: ${status}${txCode ? ` ${txCode}` : ""}`);
    this.name = "TxRejectedError";
  }
}

/**
 * The transaction was not included before its bound passed — its ledger bound (`maxLedger`), or
 * its time bound (`maxTime`, on the ledger clock) — so it never will be: nothing was applied, no
 * sequence number consumed, no fee charged — like a refusal.
 */
export class TxExpiredError extends TxRejectedError {
  constructor(
    hash: string,
    readonly latestLedger: number,
    /** The ledger bound (0 when the transaction had none). */
    readonly maxLedger: number,
    /** Set when the time bound, not the ledger bound, has passed (Unix seconds). */
    readonly maxTime?: number,
  ) {
    super("EXPIRED", undefined, hash);
    this.name = "TxExpiredError";
    this.message = maxTime !== undefined
      ? `transaction ${
        hash.slice(0, 12)
      }… not included by its max time ${maxTime} (latest ledger ${latestLedger} closed after it): it can no longer land`
      : `transaction ${hash.slice(0, 12)}… not included by ledger ${
        maxLedger - 1
      } (latest ${latestLedger}): it can no longer land`;
  }
}

/**
 * The transaction was sent but its outcome is unknown (not found before the poll deadline).
 * It may still land: callers must not assume either outcome.
 */
export class TxPendingError extends Error {
  constructor(readonly hash: string, readonly waitedMs: number) {
    super(`transaction ${hash.slice(0, 12)}… still pending after ${waitedMs} ms`);
    this.name = "TxPendingError";
  }
}

/**
 * The simulation recorded an authorization the keeper did not plan (`soroban/auth_guard.ts`):
 * another contract, function, spender, recipient, asset or amount, an extra nested call, an
 * entry for someone else's credentials, a create-contract authorization. Nothing was signed or
 * sent.
 */
export class UnexpectedAuthError extends Error {
  /** Contract of the refused invocation ("" for a create-contract authorization). */
  readonly contract: string;
  /** Function of the refused invocation. */
  readonly fn: string;
  /** Function names from the transaction's root to the refused invocation ("flash › exec › submit"). */
  readonly path: string;
  /** The refused invocation with its arguments, for the log. */
  readonly invocation: string;
  /** The call the keeper was about to send (set by `invokeContract`). */
  txCall?: string;

  /** The refused invocation, where it sits and why: the message without its prefix. */
  get summary(): string {
    return `${this.invocation} (at ${this.path}): ${this.reason}`;
  }

  constructor(
    /** Why it was refused, in words. */
    readonly reason: string,
    at: { contract: string; fn: string; path: string; invocation: string },
  ) {
    super(`refused to sign: ${at.invocation} (at ${at.path}): ${reason}`);
    this.name = "UnexpectedAuthError";
    this.contract = at.contract;
    this.fn = at.fn;
    this.path = at.path;
    this.invocation = at.invocation;
  }
}

/** Spec error: the auction was filled (or removed) before this keeper's fill landed. */
export class ErrAlreadyFilled extends Error {
  constructor(message = "auction already filled by another keeper") {
    super(message);
    this.name = "ErrAlreadyFilled";
  }
}

/** Spec error: the DEX quote is below the oracle-based slippage floor; no fallback is tried. */
export class ErrSlippageExceeded extends Error {
  constructor(
    readonly venue: string,
    readonly quote: bigint,
    readonly floor: bigint,
  ) {
    super(`quote ${quote} below slippage floor ${floor} on ${venue}`);
    this.name = "ErrSlippageExceeded";
  }
}

/** Spec error: every configured DEX venue failed. */
export class ErrNoRoute extends Error {
  constructor(readonly failures: { venue: string; error: string }[]) {
    super(
      `no route: ${
        failures.length === 0
          ? "no venue configured"
          : failures.map((f) => `${f.venue}: ${f.error}`).join("; ")
      }`,
    );
    this.name = "ErrNoRoute";
  }
}

/** True when `err` may have left a transaction in flight (the outcome is unknown). */
export function isAmbiguous(err: unknown): boolean {
  return err instanceof TxPendingError ||
    (err instanceof RpcError && err.method === "sendTransaction");
}

/** A short description of any thrown value, for logs (never includes secrets: we never hold any here). */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  if (typeof err === "object" && err !== null) {
    const o = err as { code?: unknown; message?: unknown };
    if (o.message !== undefined) return `RPC error ${String(o.code ?? "")}: ${String(o.message)}`;
    try {
      return JSON.stringify(err);
    } catch {
      return String(err);
    }
  }
  return String(err);
}

function fmtCode(code: number | string): string {
  return typeof code === "number" ? `#${code}` : code;
}

function short(id: string): string {
  return id.length > 12 ? `${id.slice(0, 4)}…${id.slice(-4)}` : id;
}

/** What a dry run would have sent: the call (or classic operations) and its simulated figures. */
export interface DryRunCall {
  /** `fn on C…` for a contract call, else the operation types (e.g. `changeTrust`). */
  call: string;
  contract?: string;
  fn?: string;
  /** The inclusion fee the transaction would have bid, stroops. */
  inclusionFee?: number;
  /** The simulated resource fee, stroops. */
  resourceFee?: string;
}

/**
 * DRY_RUN: the transaction was built, simulated and checked, and then neither signed nor sent.
 * Callers that can say what they would have done turn it into a `dry_run` outcome.
 */
export class DryRunError extends Error {
  constructor(readonly action: DryRunCall) {
    super(`dry run: would send ${action.call} (not sent)`);
    this.name = "DryRunError";
  }
}
