/**
 * Compatibility with `@stellar/stellar-sdk` 14.4.3 (the copy the Blend SDK pins): its RPC
 * client and contract.Client decode everything the node serves (at protocol 27: meta V4, fee events).
 */
import assert from "node:assert/strict";
import { startTestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";

// The v14 typings pull in an @types/node that breaks type-checking of node: builtins in the
// same program, so the module is loaded untyped (a non-literal specifier is not type-checked).
const SDK14 = "@stellar/stellar-sdk-14";

Deno.test("SDK 14.4.3: Client.from, read, write, events, transactions, ledgers decode", async () => {
  // deno-lint-ignore no-explicit-any
  const sdk14: any = await import(SDK14);
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const kp = sdk14.Keypair.fromSecret((await node.newAccount()).secret());
  const server = new sdk14.rpc.Server(node.rpcUrl, { allowHttp: true });
  const client = await sdk14.contract.Client.from({
    contractId: id,
    networkPassphrase: node.networkPassphrase,
    rpcUrl: node.rpcUrl,
    allowHttp: true,
    publicKey: kp.publicKey(),
    ...sdk14.contract.basicNodeSigner(kp, node.networkPassphrase),
  });
  const c = client;
  const read = await c.get({ user: kp.publicKey() });
  assert.equal(read.result.unwrap(), 0);
  const tx = await c.increment({ user: kp.publicKey(), by: 3 });
  const sent = await tx.signAndSend();
  assert.equal(sent.result.unwrap(), 3);
  const hash = sent.sendTransactionResponse.hash;
  const got = await server.getTransaction(hash);
  assert.equal(got.status, "SUCCESS");
  assert.equal(got.returnValue?.u32(), 3);
  const latest = await server.getLatestLedger();
  const evs = await server.getEvents({
    startLedger: latest.sequence - 5 > 0 ? latest.sequence - 5 : 1,
    filters: [],
  });
  // The counter's event between the transaction's CAP-67 fee charge and refund.
  assert.deepEqual(
    evs.events.map((e: { topic: { sym(): unknown }[] }) => String(e.topic[0].sym())),
    ["fee", "incr", "fee"],
  );
  const txs = await server.getTransactions({ startLedger: got.ledger, pagination: { limit: 1 } });
  assert.equal(txs.transactions[0].txHash, hash);
  const ledgers = await server.getLedgers({ startLedger: got.ledger, pagination: { limit: 1 } });
  assert.equal(ledgers.ledgers[0].sequence, got.ledger);
  // A failed simulation (contract error) decodes to Err in v14 too.
  const bad = await c.increment({ user: kp.publicKey(), by: 1000 });
  assert.equal(bad.result.unwrapErr().message, "Too big");
  // The remaining read methods of the issue's list decode with v14's parsers as well.
  assert.equal((await server.getNetwork()).passphrase, node.networkPassphrase);
  assert.equal((await server.getHealth()).status, "healthy");
  assert.equal((await server.getVersionInfo()).protocolVersion, 27);
  assert.equal(typeof (await server.getFeeStats()).sorobanInclusionFee.p50, "string");
  assert.equal((await server.getAccount(kp.publicKey())).accountId(), kp.publicKey());
  // Raw XDR of a ledger close meta and header decode with v14's types.
  const raw = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLatestLedger", params: null }),
  }).then((r) => r.json());
  sdk14.xdr.LedgerHeader.fromXDR(raw.result.headerXdr, "base64");
  sdk14.xdr.LedgerCloseMeta.fromXDR(raw.result.metadataXdr, "base64");
});
