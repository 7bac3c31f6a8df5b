import assert from "node:assert/strict";
import { bytesToHex } from "@noble/hashes/utils";
import {
  Account,
  Keypair,
  Networks,
  Operation,
  type rpc,
  scValToNative,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { RpcError, TxExpiredError, TxPendingError, TxRejectedError } from "./errors.ts";
import { sendAndConfirm, type SendRpc, signAndConfirm, signerAddress, signTx } from "./send.ts";

const PASS = Networks.TESTNET;
const KP = Keypair.random();

function tx(bounds: { maxLedger?: number; maxTime?: number } = {}): Transaction {
  return new TransactionBuilder(new Account(KP.publicKey(), "7"), {
    fee: "100",
    networkPassphrase: PASS,
    timebounds: { minTime: 0, maxTime: bounds.maxTime ?? 0 },
    ...(bounds.maxLedger ? { ledgerbounds: { minLedger: 0, maxLedger: bounds.maxLedger } } : {}),
  }).addOperation(Operation.bumpSequence({ bumpTo: "9" })).build();
}

function signed(bounds?: { maxLedger?: number; maxTime?: number }): Transaction {
  const t = tx(bounds);
  t.sign(KP);
  return t;
}

type Send = Partial<rpc.Api.SendTransactionResponse> | Error;
type Get = Partial<rpc.Api.GetTransactionResponse> | Error;

/** A scripted RPC: each call takes the next answer; the last one repeats. */
function fakeRpc(sends: Send[], gets: Get[]) {
  const log = { sent: [] as string[], polled: 0 };
  const next = <T>(xs: T[], i: number) => xs[Math.min(i, xs.length - 1)];
  const chain: SendRpc & { closed: boolean } = {
    closed: false,
    server: {
      sendTransaction: (t) => {
        const a = next(sends, log.sent.length);
        log.sent.push((t as Transaction).toXDR());
        return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as never);
      },
      getTransaction: () => {
        const a = next(gets, log.polled++);
        return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as never);
      },
    },
  };
  return { chain, log };
}

const notFound = (latestLedger: number, latestLedgerCloseTime = 1000): Get => ({
  status: "NOT_FOUND" as rpc.Api.GetTransactionStatus.NOT_FOUND,
  latestLedger,
  latestLedgerCloseTime,
});
const success = (ledger: number): Get => ({
  status: "SUCCESS" as rpc.Api.GetTransactionStatus.SUCCESS,
  ledger,
  returnValue: xdr.ScVal.scvU32(5),
});
const FAST = { pollIntervalMs: 1 };

Deno.test("sendAndConfirm: PENDING then SUCCESS returns the ledger; onQueued told once", async () => {
  const { chain, log } = fakeRpc([{ status: "PENDING" }], [notFound(10), success(11)]);
  const queued: string[] = [];
  const t = signed({ maxLedger: 30 });
  const r = await sendAndConfirm(chain, t, { ...FAST, onQueued: (h) => queued.push(h) });
  assert.equal(r.ledger, 11);
  assert.equal(r.hash, bytesToHex(t.hash()));
  assert.deepEqual(queued, [r.hash]);
  assert.equal(scValToNative(r.returnValue!), 5);
  assert.equal(r.failed, undefined);
  assert.equal(log.sent.length, 1);
});

Deno.test("sendAndConfirm: TRY_AGAIN_LATER re-sends the same envelope until it is queued", async () => {
  const { chain, log } = fakeRpc(
    [{ status: "TRY_AGAIN_LATER" }, { status: "TRY_AGAIN_LATER" }, { status: "PENDING" }],
    [notFound(10), notFound(10), notFound(11), success(12)],
  );
  const t = signed({ maxLedger: 30 });
  const r = await sendAndConfirm(chain, t, FAST);
  assert.equal(r.ledger, 12);
  assert.equal(log.sent.length, 3);
  assert.ok(log.sent.every((e) => e === t.toXDR()), "the same envelope, never a new one");
});

Deno.test("sendAndConfirm: TRY_AGAIN_LATER is not a refusal, but past maxLedger it expires", async () => {
  const { chain, log } = fakeRpc(
    [{ status: "TRY_AGAIN_LATER" }],
    [notFound(27), notFound(28), notFound(29)],
  );
  const err = await sendAndConfirm(chain, signed({ maxLedger: 30 }), FAST).catch((e) => e);
  assert.ok(err instanceof TxExpiredError, String(err));
  assert.ok(err instanceof TxRejectedError, "an expiry is a refusal: nothing was applied");
  assert.equal(err.maxLedger, 30);
  assert.equal(err.latestLedger, 29);
  assert.equal(log.polled, 3, "polled until the last ledger it could land in had closed");
});

Deno.test("sendAndConfirm: NOT_FOUND past the time bound (ledger clock) is a typed expiry", async () => {
  const { chain } = fakeRpc(
    [{ status: "PENDING" }],
    [notFound(5, 1990), notFound(6, 2000), notFound(7, 2001)],
  );
  const err = await sendAndConfirm(chain, signed({ maxTime: 2000 }), FAST).catch((e) => e);
  assert.ok(err instanceof TxExpiredError, String(err));
  assert.equal(err.maxTime, 2000);
  assert.equal(err.latestLedger, 7, "a ledger closing exactly at maxTime may still hold it");
  assert.match(err.message, /max time 2000/);
});

Deno.test("sendAndConfirm: a ledger clock running ahead of the wall clock does not expire it", async () => {
  // A local node with time travel: ledger time far ahead, validity checked on the wall clock.
  const wall = Math.floor(Date.now() / 1000);
  const { chain } = fakeRpc(
    [{ status: "PENDING" }],
    [notFound(5, wall + 5000), notFound(6, wall + 6000), success(7)],
  );
  const r = await sendAndConfirm(chain, signed({ maxTime: wall + 60 }), FAST);
  assert.equal(r.ledger, 7);
});

Deno.test("sendAndConfirm: ERROR on the first send is TxRejectedError with the result code", async () => {
  const errorResult = new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString("100"),
    result: xdr.TransactionResultResult.txBadSeq(),
    ext: xdr.TransactionResultExt.v0(),
  });
  const { chain, log } = fakeRpc([{ status: "ERROR", errorResult }], [success(1)]);
  const err = await sendAndConfirm(chain, signed({ maxLedger: 30 }), FAST).catch((e) => e);
  assert.ok(err instanceof TxRejectedError && !(err instanceof TxExpiredError), String(err));
  assert.equal(err.status, "ERROR");
  assert.equal(err.txCode, "txBadSeq");
  assert.equal(log.polled, 0, "a refused envelope is not polled");
});

Deno.test("sendAndConfirm: ERROR on a re-send is left to polling (the first copy may have landed)", async () => {
  const { chain, log } = fakeRpc(
    [{ status: "TRY_AGAIN_LATER" }, { status: "ERROR" }],
    [notFound(10), success(11)],
  );
  const r = await sendAndConfirm(chain, signed({ maxLedger: 30 }), FAST);
  assert.equal(r.ledger, 11);
  assert.equal(log.sent.length, 2);
});

Deno.test("sendAndConfirm: a send lost in transit is re-sent; failed polls keep polling", async () => {
  const { chain, log } = fakeRpc(
    [new Error("connection reset"), { status: "PENDING" }],
    [new Error("timeout"), notFound(10), success(11)],
  );
  const r = await sendAndConfirm(chain, signed({ maxLedger: 30 }), FAST);
  assert.equal(r.ledger, 11);
  assert.equal(log.sent.length, 2);
});

Deno.test("sendAndConfirm: a closed client stops at once with RpcError", async () => {
  const { chain } = fakeRpc([new Error("aborted")], [success(1)]);
  chain.closed = true;
  const err = await sendAndConfirm(chain, signed({ maxLedger: 30 }), FAST).catch((e) => e);
  assert.ok(err instanceof RpcError && err.method === "sendTransaction", String(err));
});

Deno.test("sendAndConfirm: no bound reached before the wall-clock net → TxPendingError", async () => {
  const { chain } = fakeRpc([{ status: "PENDING" }], [notFound(10)]);
  const err = await sendAndConfirm(chain, signed({ maxLedger: 1000 }), {
    pollIntervalMs: 1,
    pollTimeoutMs: 20,
  }).catch((e) => e);
  assert.ok(err instanceof TxPendingError, String(err));
  assert.ok(!(err instanceof TxRejectedError), "the outcome is unknown, not a refusal");
});

Deno.test("sendAndConfirm: an included FAILED transaction is returned with `failed` set", async () => {
  const resultXdr = new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString("100"),
    result: xdr.TransactionResultResult.txFailed([]),
    ext: xdr.TransactionResultExt.v0(),
  });
  const { chain } = fakeRpc([{ status: "PENDING" }], [{
    status: "FAILED" as rpc.Api.GetTransactionStatus.FAILED,
    ledger: 9,
    resultXdr,
    diagnosticEventsXdr: [],
  }]);
  const r = await sendAndConfirm(chain, signed({ maxLedger: 30 }), FAST);
  assert.equal(r.ledger, 9);
  assert.ok(r.failed);
  assert.equal(r.failed.hostError, undefined);
  assert.match(r.failed.opCode ?? "", /tx_failed/);
  assert.equal(r.feeCharged, 100n, "the fee was charged");
});

Deno.test("signTx: a key pair signs in place; a wallet signs the envelope it is handed", async () => {
  const byKey = await signTx(KP, tx(), PASS);
  assert.equal(byKey.signatures.length, 1);
  assert.equal(signerAddress(KP), KP.publicKey());

  const asked: { address: string; networkPassphrase: string }[] = [];
  const wallet = {
    address: KP.publicKey(),
    signTransaction(envelope: string, o: { networkPassphrase: string; address: string }) {
      asked.push(o);
      const t = TransactionBuilder.fromXDR(envelope, o.networkPassphrase) as Transaction;
      t.sign(KP);
      return Promise.resolve({ signedTxXdr: t.toXDR() });
    },
  };
  const unsigned = tx();
  const byWallet = await signTx(wallet, unsigned, PASS);
  assert.deepEqual(asked, [{ networkPassphrase: PASS, address: KP.publicKey() }]);
  assert.equal(unsigned.signatures.length, 0, "the wallet signed a copy");
  assert.equal(byWallet.signatures.length, 1);
  assert.equal(bytesToHex(byWallet.hash()), bytesToHex(unsigned.hash()));
  assert.equal(signerAddress(wallet), KP.publicKey());

  const { chain, log } = fakeRpc([{ status: "PENDING" }], [success(3)]);
  const r = await signAndConfirm(chain, wallet, tx({ maxLedger: 9 }), PASS, FAST);
  assert.equal(r.ledger, 3);
  assert.equal(log.sent.length, 1);
});
