/**
 * Sending transactions in tests and benches. Everything goes through soroban's one send path
 * (`@vigil/soroban/send`), except what a test deliberately hands to the node as is — a hostile
 * or malformed envelope, or one meant to see the node's raw answer (a full queue's
 * TRY_AGAIN_LATER): {@link submitRaw}.
 *
 * @module
 */
import {
  type contract,
  type FeeBumpTransaction,
  rpc,
  type Transaction,
  xdr,
} from "@stellar/stellar-sdk";
import { TxRejectedError } from "@vigil/soroban/errors";
import { type Confirmed, sendAndConfirm, type SendOptions } from "@vigil/soroban/send";

type Server = Pick<rpc.Server, "sendTransaction" | "getTransaction">;

/** The node's raw answer to `tx`, nothing polled or re-sent. */
export function submitRaw(
  server: Pick<rpc.Server, "sendTransaction">,
  tx: Transaction | FeeBumpTransaction,
): Promise<rpc.Api.SendTransactionResponse> {
  return server.sendTransaction(tx);
}

/**
 * Sends a signed `tx` through soroban's send path (short polls: the local node closes ledgers
 * quickly) and returns it confirmed; an included FAILED transaction throws with its result
 * code and diagnostic events.
 */
export async function sendOk(
  server: Server,
  tx: Transaction,
  what = "transaction",
  opts: SendOptions = {},
): Promise<Confirmed> {
  const r = await sendAndConfirm({ server }, tx, { pollIntervalMs: 25, ...opts });
  if (r.failed) {
    const events = JSON.stringify(r.failed.diagnosticEvents?.map((e) => e.toJson()) ?? []);
    throw new Error(`${what} FAILED: ${r.failed.opCode ?? "?"} ${events}`);
  }
  return r;
}

/**
 * What the node did with a (hostile) signed `tx`, through soroban's send path: "refused"
 * (sendTransaction ERROR: nothing included), "failed" (included, FAILED) or "succeeded".
 */
export async function submitHostile(
  server: Server,
  tx: Transaction,
): Promise<"refused" | "failed" | "succeeded"> {
  try {
    const r = await sendAndConfirm({ server }, tx, { pollIntervalMs: 25 });
    return r.failed ? "failed" : "succeeded";
  } catch (e) {
    if (e instanceof TxRejectedError) return "refused";
    throw e;
  }
}

/**
 * One JSON-RPC request over plain `fetch`, no SDK in the way: what a benchmark of the node
 * measures (its own cost plus loopback HTTP). Throws on a JSON-RPC error.
 */
// deno-lint-ignore no-explicit-any
export async function jsonRpc(url: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** Submits a base64 envelope as is (`sendTransaction`), returning the node's raw answer. */
export function submitEnvelope(
  url: string,
  envelopeXdr: string,
): Promise<{ status: string; hash: string; errorResultXdr?: string }> {
  return jsonRpc(url, "sendTransaction", { transaction: envelopeXdr });
}

/**
 * Signs and sends a contract client's call through soroban's send path and returns what
 * `signAndSend()` would (the decoded result, and the transaction's response). The SDK's own
 * `signAndSend` polls getTransaction with a backoff that starts at 1 s, so every call of a test
 * paid at least a second on a node that closes ledgers in milliseconds; this polls every 25 ms.
 * An included FAILED transaction throws, as `sendOk`.
 */
export async function sendAssembled<T>(
  tx: contract.AssembledTransaction<T>,
  opts: { force?: boolean } = {},
): Promise<{ result: T; response: Confirmed }> {
  // `force`: sign a call the client takes for a read (as `signAndSend({ force: true })`).
  await tx.sign({ force: opts.force });
  const signed = tx.signed;
  if (!signed) throw new Error("the assembled transaction was not signed");
  const server = new rpc.Server(tx.options.rpcUrl, { allowHttp: true });
  const r = await sendOk(
    server,
    signed,
    `${tx.options.method ?? "call"} on ${tx.options.contractId}`,
  );
  const value = r.returnValue ?? xdr.ScVal.scvVoid();
  return { result: tx.options.parseResultXdr(value), response: r };
}
