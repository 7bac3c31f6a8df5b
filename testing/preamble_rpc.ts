/**
 * A JSON-RPC proxy in front of a protocol-27 node that answers simulations as a pre-protocol-23
 * stellar-rpc did: when a simulated invocation would restore archived entries itself (the
 * transaction data's v1 extension, CAP-66), the proxy drops that extension and adds the
 * `restorePreamble` an older RPC returned instead (the RestoreFootprint data and fee for those
 * entries, simulated by the node itself). Everything else is passed through unchanged, so the
 * clients' old two-transaction restore path runs against the real host and ledger.
 *
 * @module
 */
import { type Transaction, TransactionBuilder, xdr } from "@stellar/stellar-sdk";
import { archivedEntryKeys, restoreDraft } from "@vigil/soroban/auto_restore";

/** A running proxy. */
export interface PreambleRpc extends AsyncDisposable {
  /** The proxy's RPC URL. */
  url: string;
  /** How many simulations were rewritten into preamble answers so far. */
  readonly rewritten: number;
}

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

async function call(url: string, method: string, params: unknown): Promise<Json> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return await res.json();
}

/** Starts the proxy in front of `upstream` (a node on `passphrase`). */
export function startPreambleRpc(upstream: string, passphrase: string): PreambleRpc {
  let rewritten = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    const res = await call(upstream, body.method, body.params);
    res.id = body.id;
    const result = res.result;
    if (body.method === "simulateTransaction" && result?.transactionData) {
      const data = xdr.SorobanTransactionData.fromXdr(result.transactionData, "base64");
      const keys = archivedEntryKeys(data);
      if (keys.length > 0) {
        const sim = TransactionBuilder.fromXDR(body.params.transaction, passphrase);
        const source = (sim as Transaction).source;
        const restore = restoreDraft(passphrase, source, keys);
        const pre = (await call(upstream, "simulateTransaction", {
          transaction: restore.toXDR(),
        })).result;
        if (!pre?.transactionData) throw new Error(`restore simulation: ${JSON.stringify(pre)}`);
        result.restorePreamble = {
          transactionData: pre.transactionData,
          minResourceFee: pre.minResourceFee,
        };
        // An old RPC knew no v1 extension.
        result.transactionData = new xdr.SorobanTransactionData({
          ext: xdr.SorobanTransactionDataExt.v0(),
          resources: data.resources,
          resourceFee: data.resourceFee,
        }).toXdr("base64");
        rewritten++;
      }
    }
    return Response.json(res);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    get rewritten() {
      return rewritten;
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
