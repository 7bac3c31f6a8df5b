/**
 * The ONE send-and-confirm path to Soroban RPC, shared by the keeper, the browser's write path
 * and deploy: sign (a {@link Keypair}, or a wallet's `signTransaction`), send, and poll until
 * the transaction is included or can no longer be.
 *
 * Browser-safe: no Deno API, no Node built-in; only the SDK and SDK-free error types.
 *
 * Coping with a real network (stellar-core's queue behind stellar-rpc):
 * - TRY_AGAIN_LATER (queue full, or one of ours already queued) and a send lost in transit
 *   re-send the same envelope on the next poll, for as long as the transaction is valid;
 *   DUPLICATE means the node already has it: it is polled like PENDING;
 * - NOT_FOUND is polled until the transaction's bound has passed — its `maxLedger`, or its
 *   `maxTime` on both the ledger's and the wall clock — then it can never land:
 *   {@link TxExpiredError};
 * - ERROR on the first send is a {@link TxRejectedError} with the decoded result code
 *   (`txBadSeq`, `txInsufficientFee`, …).
 *
 * @module
 */
import {
  type Keypair,
  type rpc,
  type Transaction,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";
import { bytesToHex } from "@noble/hashes/utils";
import delay from "delay";
import {
  type DryRunCall,
  DryRunError,
  type HostErrorCode,
  RpcError,
  TxExpiredError,
  TxPendingError,
  TxRejectedError,
} from "./errors.ts";

/**
 * What the send path needs of an RPC client: the SDK server's two transaction methods, and
 * whether the client was shut down (`ChainRpc` fits; so does `{ server }` for a bare
 * `rpc.Server`).
 */
export interface SendRpc {
  readonly server: Pick<rpc.Server, "sendTransaction" | "getTransaction">;
  /** True once the client is closed: a failed request is then final, not retried. */
  readonly closed?: boolean;
}

/** A wallet able to sign a transaction envelope (base64 XDR), e.g. Stellar Wallets Kit. */
export interface WalletSigner {
  address: string;
  signTransaction(
    xdr: string,
    opts: { networkPassphrase: string; address: string },
  ): Promise<{ signedTxXdr: string }>;
}

/** Who signs: a key pair held in this process, or a wallet asked through its callback. */
export type Signer = Keypair | WalletSigner;

/** The signer's account address. */
export function signerAddress(signer: Signer): string {
  return isWallet(signer) ? signer.address : signer.publicKey();
}

function isWallet(signer: Signer): signer is WalletSigner {
  return typeof (signer as WalletSigner).signTransaction === "function";
}

/**
 * `tx` signed by `signer`: a key pair signs it in place; a wallet signs its envelope and the
 * signed envelope is parsed back.
 */
export async function signTx(
  signer: Signer,
  tx: Transaction,
  networkPassphrase: string,
): Promise<Transaction> {
  if (!isWallet(signer)) {
    tx.sign(signer);
    return tx;
  }
  const { signedTxXdr } = await signer.signTransaction(tx.toXDR(), {
    networkPassphrase,
    address: signer.address,
  });
  return TransactionBuilder.fromXDR(signedTxXdr, networkPassphrase) as Transaction;
}

/** Options of {@link sendAndConfirm}. */
export interface SendOptions {
  /** Poll interval of getTransaction in ms (default 250). */
  pollIntervalMs?: number;
  /**
   * Wall-clock safety net: give up polling after this many ms and throw
   * {@link TxPendingError} (default 60 000; the transaction's bound normally decides first).
   */
  pollTimeoutMs?: number;
  /** Told once, with the hash, when the node first accepts the envelope (PENDING/DUPLICATE). */
  onQueued?: (hash: string) => void;
  /** DRY_RUN: called instead of sending, then {@link DryRunError} is thrown (nothing sent). */
  dryRun?: (action: DryRunCall) => void;
}

/** Outcome of {@link sendAndConfirm}: included (succeeded, or `failed` with what is known). */
export interface Confirmed {
  hash: string;
  ledger: number;
  returnValue?: xdr.ScVal;
  confirmMs: number;
  /** The fee charged, stroops (when the node reports the result). */
  feeCharged?: bigint;
  failed?: {
    hostError?: HostErrorCode;
    opCode?: string;
    /** The failed transaction's diagnostic events (to name the contract that raised it). */
    diagnosticEvents?: xdr.DiagnosticEvent[];
  };
}

/**
 * Sends a signed transaction and polls getTransaction until it is included or can no longer
 * be. PENDING and DUPLICATE are polled; TRY_AGAIN_LATER and a send lost in transit are re-sent
 * (the same envelope) on the next poll; while NOT_FOUND the envelope is re-sent every few
 * polls (DUPLICATE if the node still has it; back in the queue if it was dropped). Throws
 * {@link TxRejectedError} when the node refuses it (ERROR: nothing included),
 * {@link TxExpiredError} when its ledger or time bound has passed without it (it never will
 * land), and {@link TxPendingError} when the wall-clock safety net runs out first — ambiguous.
 * An included FAILED transaction is returned with `failed` set (its sequence number and fee
 * were consumed). Callers that sign with an account hold a source lock around it.
 */
export async function sendAndConfirm(
  chain: SendRpc,
  signed: Transaction,
  opts: SendOptions = {},
): Promise<Confirmed> {
  if (opts.dryRun) {
    const action: DryRunCall = {
      call: signed.operations.map((o) => o.type).join(", "),
      inclusionFee: Number(signed.fee),
    };
    opts.dryRun(action);
    throw new DryRunError(action);
  }
  const server = chain.server;
  const hash = bytesToHex(signed.hash());
  const maxLedger = signed.ledgerBounds?.maxLedger ?? 0;
  const maxTime = Number(signed.timeBounds?.maxTime ?? 0);
  const t0 = performance.now();
  const pollMs = opts.pollIntervalMs ?? 250;
  const deadline = t0 + (opts.pollTimeoutMs ?? 60_000);
  let told = false;
  const queued = (): "queued" => {
    if (!told) opts.onQueued?.(hash);
    told = true;
    return "queued";
  };
  // "queued": the node has it; "retry": send again next poll.
  const send = async (first: boolean): Promise<"queued" | "retry"> => {
    let sent: rpc.Api.SendTransactionResponse;
    try {
      sent = await server.sendTransaction(signed);
    } catch {
      // The request may have reached the node: poll, and send again.
      if (chain.closed) throw new RpcError("sendTransaction", "closed");
      return "retry";
    }
    if (sent.status === "PENDING" || sent.status === "DUPLICATE") return queued();
    if (sent.status === "TRY_AGAIN_LATER") return "retry";
    // ERROR. On a re-send it may just mean the first copy was applied meanwhile (a real node
    // answers txBAD_SEQ then): polling decides.
    if (!first) return "queued";
    throw new TxRejectedError(sent.status, resultCode(sent.errorResult), hash);
  };
  let state = await send(true);
  for (let polls = 1;; polls++) {
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
        confirmMs: ms(t0),
        feeCharged: feeOf(s.resultXdr),
      };
    }
    if (got?.status === "FAILED") {
      const f = got as rpc.Api.GetFailedTransactionResponse;
      return {
        hash,
        ledger: f.ledger,
        confirmMs: ms(t0),
        feeCharged: feeOf(f.resultXdr),
        failed: {
          hostError: hostErrorFromDiagnostics(f.diagnosticEventsXdr),
          opCode: opResultCode(f.resultXdr),
          diagnosticEvents: f.diagnosticEventsXdr,
        },
      };
    }
    if (got) {
      // NOT_FOUND with the ledger before maxLedger already closed: the next ledger is past the
      // bound, so the transaction can never be included.
      if (maxLedger > 0 && got.latestLedger >= maxLedger - 1) {
        throw new TxExpiredError(hash, got.latestLedger, maxLedger);
      }
      // Past maxTime: a network checks it against the ledger's close time, a local node with
      // time travel against the wall clock; the earlier of the two clocks decides, so an
      // envelope is never declared dead while either could still take it.
      const closeTime = Number(got.latestLedgerCloseTime);
      const now = Math.min(Number.isFinite(closeTime) ? closeTime : 0, Date.now() / 1000);
      if (maxTime > 0 && now > maxTime) {
        throw new TxExpiredError(hash, got.latestLedger, maxLedger, maxTime);
      }
    }
    if (performance.now() >= deadline) throw new TxPendingError(hash, Math.round(ms(t0)));
    await delay(pollMs);
    if (state === "retry" || polls % 8 === 0) state = await send(false);
  }
}

/** `tx` signed by `signer`, then {@link sendAndConfirm}. */
export async function signAndConfirm(
  chain: SendRpc,
  signer: Signer,
  tx: Transaction,
  networkPassphrase: string,
  opts: SendOptions = {},
): Promise<Confirmed> {
  return sendAndConfirm(chain, await signTx(signer, tx, networkPassphrase), opts);
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

/** The TransactionResult code of a refused envelope ("txBadSeq", …), when the node sent one. */
function resultCode(result: xdr.TransactionResult | undefined): string | undefined {
  try {
    return result?.result?.type;
  } catch {
    return undefined;
  }
}

function opResultCode(result: xdr.TransactionResult | undefined): string | undefined {
  if (!result) return undefined;
  try {
    return JSON.stringify(result.result.toJson()).slice(0, 200);
  } catch {
    return result.result.type;
  }
}

function feeOf(result: xdr.TransactionResult | undefined): bigint | undefined {
  try {
    return result ? BigInt(String(result.feeCharged)) : undefined;
  } catch {
    return undefined;
  }
}

function ms(t0: number): number {
  return performance.now() - t0;
}
