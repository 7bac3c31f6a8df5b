/**
 * Friendbot: creates and funds an account with a real CreateAccount transaction from the
 * network root account (so its hash is a real, included transaction).
 *
 * @module
 */
import {
  Account,
  Address,
  Asset,
  nativeToScVal,
  Operation,
  StrKey,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { simulateEnvelope } from "./apply_soroban.ts";
import { loadAccount } from "./accounts.ts";
import { FRIENDBOT_STARTING_BALANCE } from "./constants.ts";
import type { Chain } from "./ledger.ts";
import { txMetaB64, txResultB64 } from "./meta.ts";

/** An HTTP answer of friendbot. */
export interface FriendbotReply {
  status: number;
  body: Record<string, unknown>;
}

const problem = (status: number, title: string, detail: string): FriendbotReply => ({
  status,
  body: { type: "https://stellar.org/horizon-errors/bad_request", title, status, detail },
});

/** One friendbot transaction at a time per chain: the root account queues one at a time. */
const turns = new WeakMap<Chain, Promise<unknown>>();

/**
 * Funds `addr` with 10,000 XLM (HTTP-style reply, like the real friendbot): submits the
 * transaction and answers once the ledger that includes it has closed.
 */
export function friendbot(chain: Chain, addr: string | null): Promise<FriendbotReply> {
  const prev = turns.get(chain) ?? Promise.resolve();
  const next = prev.then(() => fundOnce(chain, addr));
  turns.set(chain, next.catch(() => {}));
  return next;
}

function fundOnce(chain: Chain, addr: string | null): Promise<FriendbotReply> | FriendbotReply {
  if (addr && StrKey.isValidContract(addr)) return fundContract(chain, addr);
  if (!addr || !StrKey.isValidEd25519PublicKey(addr)) {
    return problem(400, "Bad Request", `invalid address: ${addr ?? "(missing addr)"}`);
  }
  chain.settle();
  if (loadAccount(chain.store, addr)) {
    return problem(
      400,
      "Bad Request",
      "account already funded to starting balance (createAccountAlreadyExist)",
    );
  }
  const rootId = chain.root.publicKey();
  const rootAcc = loadAccount(chain.store, rootId)!;
  const tx = new TransactionBuilder(new Account(rootId, rootAcc.seqNum.toString()), {
    fee: "100",
    networkPassphrase: chain.passphrase,
  })
    .addOperation(
      Operation.createAccount({
        destination: addr,
        startingBalance: (Number(FRIENDBOT_STARTING_BALANCE) / 1e7).toString(),
      }),
    )
    .setTimeout(300)
    .build();
  tx.sign(chain.root);
  return submitted(chain, tx);
}

async function submitted(chain: Chain, tx: Transaction): Promise<FriendbotReply> {
  const env = tx.toEnvelope();
  const b64 = env.toXdr("base64");
  const out = chain.submit(env, b64);
  if (out.status !== "PENDING") {
    return problem(
      500,
      "Transaction Failed",
      `friendbot transaction rejected: ${out.status} ${out.errorResultXdr ?? ""}`,
    );
  }
  const rec = await chain.whenIncluded(out.hash);
  if (!rec) {
    return problem(500, "Transaction Failed", "friendbot transaction left the queue unapplied");
  }
  if (!rec.successful) {
    return problem(400, "Transaction Failed", `friendbot transaction failed: ${txResultB64(rec)}`);
  }
  return {
    status: 200,
    body: {
      hash: rec.hash,
      ledger: rec.ledger,
      successful: true,
      envelope_xdr: rec.envelopeB64,
      result_xdr: txResultB64(rec),
      result_meta_xdr: txMetaB64(rec, chain.nativeSac),
    },
  };
}

/**
 * Funds a contract address the way the newer friendbot does: a real native-SAC
 * `transfer(root, C, 10,000 XLM)` transaction (needs the native SAC deployed).
 */
function fundContract(chain: Chain, contractId: string): Promise<FriendbotReply> | FriendbotReply {
  chain.settle();
  const rootId = chain.root.publicKey();
  const sac = Asset.native().contractId(chain.passphrase);
  const op = Operation.invokeContractFunction({
    contract: sac,
    function: "transfer",
    args: [
      new Address(rootId).toScVal(),
      new Address(contractId).toScVal(),
      nativeToScVal(FRIENDBOT_STARTING_BALANCE, { type: "i128" }),
    ],
  });
  const seq = loadAccount(chain.store, rootId)!.seqNum.toString();
  const build = () =>
    new TransactionBuilder(new Account(rootId, seq), {
      fee: "100",
      networkPassphrase: chain.passphrase,
    });
  const sim = simulateEnvelope(
    { reader: chain.store, host: chain.host, hostLedger: chain.simulationLedger() },
    build().addOperation(op).setTimeout(300).build().toEnvelope(),
    undefined,
  );
  if (sim.error || !sim.transactionData || !sim.results) {
    return problem(400, "Bad Request", `cannot fund ${contractId}: ${sim.error ?? "no result"}`);
  }
  const body = op.body;
  if (body.type !== "invokeHostFunction") throw new Error("unreachable");
  const tx = build()
    .addOperation(
      Operation.invokeHostFunction({
        func: body.invokeHostFunctionOp.hostFunction,
        auth: sim.results[0].auth.map((a) => xdr.SorobanAuthorizationEntry.fromXdr(a, "base64")),
      }),
    )
    .setSorobanData(xdr.SorobanTransactionData.fromXdr(sim.transactionData, "base64"))
    .setTimeout(300)
    .build();
  tx.sign(chain.root);
  return submitted(chain, tx);
}
