/**
 * Contract calls: read-only simulation, and the write path build → simulate → assemble → sign
 * → send → poll. Failures are typed ({@link ContractCallError} with the contract error number,
 * {@link TxRejectedError} when the envelope is refused, {@link TxPendingError} when the
 * outcome is unknown), so callers branch on facts, not on message substrings.
 *
 * No retries here: the caller decides (the spec forbids automatic swap retries, and a
 * retried draw could double-draw).
 *
 * @module
 */
import {
  Account,
  Contract,
  type Keypair,
  rpc,
  TimeoutInfinite,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import {
  ContractCallError,
  type HostErrorCode,
  parseHostError,
  RpcError,
  TxPendingError,
  TxRejectedError,
} from "./errors.ts";
import { ledgerNow } from "./ledger.ts";
import type { ChainRpc } from "./rpc.ts";

/** Source of read-only simulations: it need not exist (stellar-rpc does not check it). */
export const NULL_ACCOUNT = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF";

/** The result of a successful simulation. */
export interface SimulationOk {
  retval: xdr.ScVal;
  latestLedger: number;
  minResourceFee: string;
}

/**
 * Simulates `contractId.fn(args)` without sending anything (a view call). Throws
 * {@link ContractCallError} (stage "simulation") when the call fails.
 */
export async function simulateRead(
  chain: ChainRpc,
  contractId: string,
  fn: string,
  args: xdr.ScVal[] = [],
  source: string = NULL_ACCOUNT,
): Promise<SimulationOk> {
  const tx = new TransactionBuilder(new Account(source, "0"), {
    fee: "100",
    networkPassphrase: chain.networkPassphrase,
  })
    .addOperation(new Contract(contractId).call(fn, ...args))
    .setTimeout(TimeoutInfinite)
    .build();
  const sim = await chain.server.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(sim)) {
    throw new ContractCallError(contractId, fn, parseHostError(sim.error), sim.error, "simulation");
  }
  const ok = sim as rpc.Api.SimulateTransactionSuccessResponse;
  return {
    retval: ok.result?.retval ?? xdr.ScVal.scvVoid(),
    latestLedger: ok.latestLedger,
    minResourceFee: ok.minResourceFee,
  };
}

/** Options of {@link invokeContract}. */
export interface InvokeOptions {
  /** Inclusion fee in stroops on top of the resource fee (default 10 000 = 0.001 XLM). */
  inclusionFee?: number;
  /** Seconds the transaction stays valid, counted on the ledger clock (default 60). */
  validForSec?: number;
  /** Poll interval of getTransaction in ms (default 250). */
  pollIntervalMs?: number;
  /** Give up polling after this many ms and throw {@link TxPendingError} (default 30 000). */
  pollTimeoutMs?: number;
  /**
   * The source account with its current sequence number, when the caller already read it (saves
   * a getLedgerEntries on a latency-critical path). Default: read it now.
   */
  account?: Account;
  /** Called after a successful simulation, right before the transaction is sent. */
  beforeSend?: (sim: SimulationOk) => void | Promise<void>;
}

/** A transaction that was included and succeeded. */
export interface InvokeResult {
  hash: string;
  /** Ledger the transaction was included in. */
  ledger: number;
  returnValue?: xdr.ScVal;
  /** Wall-clock ms from send to confirmation. */
  confirmMs: number;
}

/**
 * Calls `contractId.fn(args)` in a transaction signed by `keypair` (the transaction source;
 * Soroban auth for the keypair's address is satisfied by source-account credentials).
 */
export async function invokeContract(
  chain: ChainRpc,
  keypair: Keypair,
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
  opts: InvokeOptions = {},
): Promise<InvokeResult> {
  const server = chain.server;
  const account = opts.account ?? await server.getAccount(keypair.publicKey());
  const maxTime = ledgerNow(chain) + (opts.validForSec ?? 60);
  const tx = new TransactionBuilder(account, {
    fee: String(opts.inclusionFee ?? 10_000),
    networkPassphrase: chain.networkPassphrase,
    timebounds: { minTime: 0, maxTime },
  })
    .addOperation(new Contract(contractId).call(fn, ...args))
    .build();
  const sim = await server.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(sim)) {
    throw new ContractCallError(contractId, fn, parseHostError(sim.error), sim.error, "simulation");
  }
  const okSim = sim as rpc.Api.SimulateTransactionSuccessResponse;
  await opts.beforeSend?.({
    retval: okSim.result?.retval ?? xdr.ScVal.scvVoid(),
    latestLedger: okSim.latestLedger,
    minResourceFee: okSim.minResourceFee,
  });
  const prepared = rpc.assembleTransaction(tx, sim).build();
  prepared.sign(keypair);
  const sent = await sendAndConfirm(chain, prepared, opts);
  if (sent.failed) {
    throw new ContractCallError(
      contractId,
      fn,
      sent.failed.hostError,
      `transaction failed${sent.failed.opCode ? ` (${sent.failed.opCode})` : ""}`,
      "transaction",
      sent.hash,
    );
  }
  return {
    hash: sent.hash,
    ledger: sent.ledger,
    returnValue: sent.returnValue,
    confirmMs: sent.confirmMs,
  };
}

/** Outcome of {@link sendAndConfirm}: included (succeeded, or `failed` with what is known). */
export interface Confirmed {
  hash: string;
  ledger: number;
  returnValue?: xdr.ScVal;
  confirmMs: number;
  failed?: { hostError?: HostErrorCode; opCode?: string };
}

/**
 * Sends a signed transaction and polls getTransaction until it is included. Throws
 * {@link TxRejectedError} when the node refuses it (nothing included), {@link RpcError}
 * (method sendTransaction) when the send itself failed in transit and {@link TxPendingError}
 * when it is still unknown at the deadline — both ambiguous. An included FAILED transaction is
 * returned with `failed` set (its sequence number and fee were consumed).
 */
export async function sendAndConfirm(
  chain: ChainRpc,
  signed: Transaction,
  opts: Pick<InvokeOptions, "pollIntervalMs" | "pollTimeoutMs"> = {},
): Promise<Confirmed> {
  const server = chain.server;
  const hash = Array.from(signed.hash(), (b) => b.toString(16).padStart(2, "0")).join("");
  const t0 = performance.now();
  let sent: rpc.Api.SendTransactionResponse;
  try {
    sent = await server.sendTransaction(signed);
  } catch (err) {
    // The request may have reached the node: the outcome is unknown.
    if (err instanceof RpcError) throw err;
    throw new RpcError("sendTransaction", describeRaw(err));
  }
  if (sent.status !== "PENDING") {
    const code = sent.errorResult?.result?.type;
    throw new TxRejectedError(sent.status, code, hash);
  }
  const pollMs = opts.pollIntervalMs ?? 250;
  const deadline = t0 + (opts.pollTimeoutMs ?? 30_000);
  for (;;) {
    let got: rpc.Api.GetTransactionResponse | undefined;
    try {
      got = await server.getTransaction(hash);
    } catch (err) {
      if (chain.closed) throw err;
      got = undefined; // a failed poll is not an outcome; keep polling until the deadline
    }
    if (got?.status === "SUCCESS") {
      const s = got as rpc.Api.GetSuccessfulTransactionResponse;
      return {
        hash,
        ledger: s.ledger,
        returnValue: s.returnValue,
        confirmMs: performance.now() - t0,
      };
    }
    if (got?.status === "FAILED") {
      const f = got as rpc.Api.GetFailedTransactionResponse;
      return {
        hash,
        ledger: f.ledger,
        confirmMs: performance.now() - t0,
        failed: {
          hostError: hostErrorFromDiagnostics(f.diagnosticEventsXdr),
          opCode: opResultCode(f.resultXdr),
        },
      };
    }
    if (performance.now() >= deadline) {
      throw new TxPendingError(hash, Math.round(performance.now() - t0));
    }
    await sleep(pollMs);
  }
}

/** Finds the `[error, Error(..)]` diagnostic event of a failed call. */
export function hostErrorFromDiagnostics(
  events: xdr.DiagnosticEvent[] | undefined,
): HostErrorCode | undefined {
  for (const d of events ?? []) {
    const body = d.event.body;
    if (body.type !== "v0") continue;
    const [t0, t1] = body.v0.topics;
    if (t0?.type === "scvSymbol" && String(t0.sym) === "error" && t1?.type === "scvError") {
      const e = t1.error;
      if (e.type === "sceContract") return { type: "Contract", code: e.contractCode };
      const name = String(e.code.name).replace(/^scec/, "");
      return { type: e.type.replace(/^sce/, ""), code: name };
    }
  }
  return undefined;
}

function opResultCode(result: xdr.TransactionResult | undefined): string | undefined {
  if (!result) return undefined;
  try {
    return JSON.stringify(result.result.toJson()).slice(0, 200);
  } catch {
    return result.result.type;
  }
}

function describeRaw(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null && "message" in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}

/** Promise-based sleep that never leaks a timer past its resolution. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
