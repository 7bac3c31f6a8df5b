/**
 * Soroban authorization on the real host, through the node: entries recorded by simulation,
 * then signed (or tampered with) and enforced when the transaction is applied — the signature,
 * the signer, the signed arguments, source-account credentials, multisig thresholds, a tree with
 * a sub-invocation (a contract moving a user's tokens), non-root auth and a contract account's
 * `__check_auth`.
 */
import assert from "node:assert/strict";
import {
  Asset,
  authorizeEntry,
  hash,
  Keypair,
  rpc,
  scValToNative,
  xdr,
} from "@stellar/stellar-sdk";
import { Buffer } from "node:buffer";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";
import {
  addr,
  call,
  failure,
  i128,
  patchAccount,
  prepare,
  type Prepared,
  prepareSigned,
  read,
  send,
  u32,
} from "@vigil/testing/wasm/sac_rpc";

// deno-lint-ignore no-explicit-any
type Any = any;

async function setup() {
  const node = await startTestNode();
  const admin = await node.newAccount();
  const user = await node.newAccount();
  const counter = await deployFixture(node, "counter", [admin.publicKey()]);
  return { node, admin, user, counter };
}

const authOf = (p: Prepared) => (p.sim as rpc.Api.SimulateTransactionSuccessResponse).result!.auth;
const latest = async (node: TestNode) => (await node.server.getLatestLedger()).sequence;
const sign = async (
  node: TestNode,
  e: xdr.SorobanAuthorizationEntry,
  kp: Keypair,
  until?: number,
) => await authorizeEntry(e, kp, until ?? (await latest(node)) + 100, node.networkPassphrase);

/** A copy of an address-credentials entry with another signature ScVal. */
function withSignature(
  e: xdr.SorobanAuthorizationEntry,
  signature: xdr.ScVal,
): xdr.SorobanAuthorizationEntry {
  const a = (e.credentials as Any).address as xdr.SorobanAddressCredentials;
  return new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
      new xdr.SorobanAddressCredentials({
        address: a.address,
        nonce: a.nonce,
        signatureExpirationLedger: a.signatureExpirationLedger,
        signature,
      }),
    ),
    rootInvocation: e.rootInvocation,
  });
}

Deno.test("auth: recorded address credentials; a tampered signature, a foreign signer and other arguments are refused", async () => {
  const { node, admin, user, counter } = await setup();
  await using _ = node;
  const u = user.publicKey();
  const p = await prepare(node, admin.publicKey(), counter, "increment", [addr(u), u32(5)]);
  const [entry] = authOf(p);
  // Recorded: the user's address credentials with a nonce and no signature yet; the nonce's
  // temporary entry under the user's address is written.
  const cred = (entry.credentials as Any).address;
  assert.equal(entry.credentials.type, "sorobanCredentialsAddress");
  assert.equal(scValToNative(xdr.ScVal.scvAddress(cred.address)), u);
  assert.equal(cred.signature.type, "scvVoid");
  const fn = (entry.rootInvocation.function as Any).contractFn;
  assert.equal(String(fn.functionName), "increment");
  assert.deepEqual(fn.args.map(scValToNative), [u, 5]);
  const rw = (p.sim as rpc.Api.SimulateTransactionSuccessResponse).transactionData.build()
    .resources.footprint.readWrite as Any[];
  const nonces = rw.filter((k) =>
    k.type === "contractData" && k.contractData.key.type === "scvLedgerKeyNonce"
  );
  assert.equal(nonces.length, 1);
  assert.equal(nonces[0].contractData.durability.name, "temporary");
  assert.equal(BigInt(nonces[0].contractData.key.nonceKey.nonce), BigInt(cred.nonce));
  // Another simulation of the same call draws another nonce.
  const again = authOf(
    await prepare(node, admin.publicKey(), counter, "increment", [
      addr(u),
      u32(5),
    ]),
  );
  assert.notEqual(BigInt((again[0].credentials as Any).address.nonce), BigInt(cred.nonce));

  // A signature with one bit flipped.
  const good = await sign(node, entry, user);
  const sigMap = ((good.credentials as Any).address.signature.vec[0] as Any).map as Any[];
  const bad = Uint8Array.from(sigMap[1].val.bytes.value ?? sigMap[1].val.bytes);
  bad[5] ^= 1;
  const tampered = withSignature(
    good,
    xdr.ScVal.scvVec([xdr.ScVal.scvMap([
      sigMap[0],
      new xdr.ScMapEntry({ key: sigMap[1].key, val: xdr.ScVal.scvBytes(Buffer.from(bad)) }),
    ])]),
  );
  const r1 = await send(node, admin, p, [tampered]);
  assert.equal(r1.status, "FAILED");
  assert.match(failure(r1), /Error\(Auth, InvalidAction\)[\s\S]*failed account authentication/);
  assert.match(failure(r1), /Error\(Crypto, InvalidInput\)/);

  // Signed by a key that is not the account's signer.
  const foreign = await authorizeEntry(
    entry,
    ((preimage: Any) =>
      Promise.resolve({
        signature: Keypair.random().sign(hash(preimage.toXDR())),
        publicKey: Keypair.random().publicKey(),
      })) as Any,
    (await latest(node)) + 100,
    node.networkPassphrase,
  ).catch(async () => await sign(node, entry, Keypair.random()));
  const r2 = await send(node, admin, p, [foreign]);
  assert.equal(r2.status, "FAILED");
  assert.match(failure(r2), /Error\(Auth, InvalidAction\)/);

  // The signed entry for `increment(user, 5)` does not authorize `increment(user, 6)`.
  const six = await prepare(node, admin.publicKey(), counter, "increment", [addr(u), u32(6)]);
  const r3 = await send(node, admin, six, [good]);
  assert.equal(r3.status, "FAILED");
  assert.match(failure(r3), /Error\(Auth, InvalidAction\)/);
  // None of the failures applied anything; the good signature still works once.
  assert.equal(await read(node, u, counter, "get", [addr(u)]), 0);
  const ok = await send(node, admin, p, [good]);
  assert.equal(ok.status, "SUCCESS", failure(ok));
  assert.equal(await read(node, u, counter, "get", [addr(u)]), 5);
});

Deno.test("auth: source-account credentials authorize only the transaction's source", async () => {
  const { node, admin, user, counter } = await setup();
  await using _ = node;
  const u = user.publicKey();
  const p = await prepare(node, u, counter, "increment", [addr(u), u32(2)]);
  const [entry] = authOf(p);
  assert.equal(entry.credentials.type, "sorobanCredentialsSourceAccount");
  // The same entries in a transaction the admin sends: the source is not the user.
  const wrong = await send(node, admin, p);
  assert.equal(wrong.status, "FAILED");
  assert.match(failure(wrong), /Error\(Auth, InvalidAction\)/);
  const right = await send(node, user, p);
  assert.equal(right.status, "SUCCESS", failure(right));
});

Deno.test("auth: multisig weights must reach the medium threshold, signatures in key order", async () => {
  const { node, admin, counter } = await setup();
  await using _ = node;
  const owner = await node.newAccount();
  const cosigner = Keypair.random();
  // Master weight 1, medium threshold 2, one more signer of weight 1.
  patchAccount(node, owner.publicKey(), {
    thresholds: Uint8Array.of(1, 0, 2, 0),
    signers: [{ key: cosigner.publicKey(), weight: 1 }],
  });
  await node.closeLedgers(1);
  const o = owner.publicKey();
  const p = await prepare(node, admin.publicKey(), counter, "increment", [addr(o), u32(1)]);
  const [entry] = authOf(p);
  const until = (await latest(node)) + 50;
  const low = await send(node, admin, p, [await sign(node, entry, owner, until)]);
  assert.equal(low.status, "FAILED");
  assert.match(failure(low), /Error\(Auth, InvalidAction\)/);

  const both = (order: 1 | -1) =>
    authorizeEntry(
      entry,
      ((preimage: Any) => {
        const payload = hash(preimage.toXDR());
        const sigs = [owner, cosigner]
          .map((k) => ({ pk: k.rawPublicKey(), sig: k.sign(payload) }))
          .sort((x, y) => order * Buffer.compare(x.pk, y.pk));
        return Promise.resolve({
          signatureScVal: xdr.ScVal.scvVec(sigs.map((s) =>
            xdr.ScVal.scvMap([
              new xdr.ScMapEntry({
                key: xdr.ScVal.scvSymbol("public_key"),
                val: xdr.ScVal.scvBytes(s.pk),
              }),
              new xdr.ScMapEntry({
                key: xdr.ScVal.scvSymbol("signature"),
                val: xdr.ScVal.scvBytes(s.sig),
              }),
            ])
          )),
        });
      }) as Any,
      until,
      node.networkPassphrase,
    );
  const unordered = await send(node, admin, p, [await both(-1)]);
  assert.equal(unordered.status, "FAILED");
  assert.match(failure(unordered), /Error\(Auth, InvalidAction\)/);
  // Two signature checks cost more than the recorded estimate: re-simulate with the signed
  // entry (as a wallet does) before sending.
  const signed = [await both(1)];
  const resim = await prepareSigned(node, admin.publicKey(), p, signed);
  const ok = await send(node, admin, resim, signed);
  assert.equal(ok.status, "SUCCESS", failure(ok));
  assert.equal(await read(node, o, counter, "get", [addr(o)]), 1);
});

Deno.test("auth tree: one entry covers transfer_via and the SAC transfer beneath it; a trimmed tree does not", async () => {
  const { node, admin, user, counter } = await setup();
  await using _ = node;
  const xlm = await node.deployAsset(Asset.native());
  const dest = (await node.newAccount()).publicKey();
  const u = user.publicKey();
  const args = [addr(xlm), addr(u), addr(dest), i128(5_0000000n)];
  const p = await prepare(node, admin.publicKey(), counter, "transfer_via", args);
  const [entry] = authOf(p);
  const root = entry.rootInvocation;
  assert.equal(String((root.function as Any).contractFn.functionName), "transfer_via");
  assert.equal(root.subInvocations.length, 1);
  const sub = (root.subInvocations[0].function as Any).contractFn;
  assert.equal(scValToNative(xdr.ScVal.scvAddress(sub.contractAddress)), xlm);
  assert.equal(String(sub.functionName), "transfer");
  assert.deepEqual(sub.args.map(scValToNative), [u, dest, 5_0000000n]);

  const before = await read(node, u, xlm, "balance", [addr(dest)]) as bigint;
  // Signing only the root (no sub-invocation) does not authorize the transfer.
  const trimmed = new xdr.SorobanAuthorizationEntry({
    credentials: entry.credentials,
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: root.function,
      subInvocations: [],
    }),
  });
  const r = await send(node, admin, p, [await sign(node, trimmed, user)]);
  assert.equal(r.status, "FAILED");
  assert.match(failure(r), /Error\(Auth, InvalidAction\)/);
  assert.equal(await read(node, u, xlm, "balance", [addr(dest)]), before);
  const ok = await send(node, admin, p, [await sign(node, entry, user)]);
  assert.equal(ok.status, "SUCCESS", failure(ok));
  assert.equal(await read(node, u, xlm, "balance", [addr(dest)]), before + 5_0000000n);
});

Deno.test("auth: the invoker rule, and non-root auth refused by recording and by enforcement", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const [a, b, c] = [
    await deployFixture(node, "probe"),
    await deployFixture(node, "probe"),
    await deployFixture(node, "probe"),
  ];
  const ad = admin.publicKey();
  // a → b.need_auth(a): a direct call, so a's require_auth needs no entry.
  const direct = await prepare(node, ad, a, "auth_self_via", [addr(b)]);
  assert.ok(rpc.Api.isSimulationSuccess(direct.sim), JSON.stringify(direct.sim));
  assert.deepEqual(authOf(direct), []);
  assert.equal((await send(node, admin, direct)).status, "SUCCESS");

  // a → b.relay → c.need_auth(a): not a direct call, so `a` must authorize it, and a contract
  // that is not the root cannot be recorded (stellar-rpc's default mode refuses it)…
  const deep = await prepare(node, ad, a, "need_auth_deep", [addr(b), addr(c)]);
  assert.ok(rpc.Api.isSimulationError(deep.sim));
  assert.match(
    (deep.sim as rpc.Api.SimulateTransactionErrorResponse).error,
    /Error\(Auth, InvalidAction\)[\s\S]*unauthorized call for a contract earlier in the call stack/,
  );
  // …while record_allow_nonroot records an entry for `a` (rooted at need_auth), which a
  // contract without __check_auth cannot satisfy: enforcement fails.
  const res = await (await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "simulateTransaction",
      params: {
        transaction: deep.raw.toEnvelope().toXDR("base64"),
        authMode: "record_allow_nonroot",
      },
    }),
  })).json();
  assert.equal(res.result.error, undefined, res.result.error);
  const entries = (res.result.results[0].auth as string[]).map((e) =>
    xdr.SorobanAuthorizationEntry.fromXDR(e, "base64")
  );
  assert.equal(entries.length, 1);
  assert.equal(
    scValToNative(xdr.ScVal.scvAddress((entries[0].credentials as Any).address.address)),
    a,
  );
  assert.equal(
    String((entries[0].rootInvocation.function as Any).contractFn.functionName),
    "need_auth",
  );
  const enforced = await send(node, admin, {
    raw: deep.raw,
    sim: rpc.parseRawSimulation(res.result),
  }, entries);
  assert.equal(enforced.status, "FAILED");
  assert.match(failure(enforced), /Error\(Auth, /);
});

Deno.test("auth: a contract account authenticates through its __check_auth", async () => {
  await using node = await startTestNode();
  const issuer = await node.newAccount();
  const alice = await node.newAccount();
  const usdc = await node.deployAsset(new Asset("USDC", issuer.publicKey()));
  const wallet = await deployFixture(node, "toy_account");
  await call(node, issuer, usdc, "mint", [addr(wallet), i128(10n)]);
  // The wallet pays the issuer back (a burn: the issuer needs no trustline).
  const p = await prepare(node, alice.publicKey(), usdc, "transfer", [
    addr(wallet),
    addr(issuer.publicKey()),
    i128(4n),
  ]);
  const [entry] = authOf(p);
  const cred = (entry.credentials as Any).address as xdr.SorobanAddressCredentials;
  assert.equal(scValToNative(xdr.ScVal.scvAddress(cred.address)), wallet);
  const expiration = (await latest(node)) + 10;
  const payload = hash(
    xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
      new xdr.HashIdPreimageSorobanAuthorization({
        networkId: hash(Buffer.from(node.networkPassphrase)),
        nonce: cred.nonce,
        signatureExpirationLedger: expiration,
        invocation: entry.rootInvocation,
      }),
    ).toXDR(),
  );
  const signed = (sig: Uint8Array) =>
    new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
        new xdr.SorobanAddressCredentials({
          address: cred.address,
          nonce: cred.nonce,
          signatureExpirationLedger: expiration,
          signature: xdr.ScVal.scvBytes(Buffer.from(sig)),
        }),
      ),
      rootInvocation: entry.rootInvocation,
    });
  // Recording does not run __check_auth, so the wallet's own entries are not in the recorded
  // footprint: re-simulate with the signed entry (enforcing) to get the footprint to send.
  const enforced = (sig: Uint8Array) => prepareSigned(node, alice.publicKey(), p, [signed(sig)]);
  const wrong = await enforced(new Uint8Array(32));
  assert.ok(rpc.Api.isSimulationError(wrong.sim));
  assert.match(
    (wrong.sim as rpc.Api.SimulateTransactionErrorResponse).error,
    /Error\(Auth, InvalidAction\)|Error\(Contract, #1\)/,
  );
  const right = await enforced(payload);
  const ok = await send(node, alice, right, [signed(payload)]);
  assert.equal(ok.status, "SUCCESS", failure(ok));
  assert.equal(await read(node, alice.publicKey(), usdc, "balance", [addr(wallet)]), 6n);
});
