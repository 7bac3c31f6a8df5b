import assert from "node:assert/strict";
import {
  Asset,
  authorizeEntry,
  hash,
  Keypair,
  nativeToScVal,
  scValToNative,
  xdr,
} from "@stellar/stellar-sdk";
import { COUNTER_SPEC } from "../fixtures/contracts/counter/spec.ts";
import { PROBE_SPEC } from "../fixtures/contracts/probe/spec.ts";
import {
  encodeArgs,
  invokeHostFunction,
  type InvokeResult,
  sacCodec,
} from "../../localnet/host/mod.ts";
import {
  accountLedgerKey,
  addressFromScAddress,
  instanceLedgerKey,
} from "../../localnet/host/keys.ts";
import {
  apply,
  invokeFn,
  MemLedger,
  NETWORK_ID,
  PASSPHRASE,
  signEntries,
  simulate,
} from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function setup() {
  const l = new MemLedger();
  const admin = Keypair.random();
  const user = Keypair.random();
  l.account(admin.publicKey(), 1000_0000000n);
  l.account(user.publicKey(), 1000_0000000n);
  const c = l.deploy("counter", { admin: admin.publicKey() }, admin.publicKey());
  return { l, admin, user, c };
}

const incr = (user: string, by: number) => encodeArgs(COUNTER_SPEC, "increment", { user, by });

function code(r: InvokeResult): [string, string | number] | undefined {
  return r.error ? [r.error.type, r.error.code] : undefined;
}

Deno.test("record: a non-source address gets ADDRESS credentials, nonce in readWrite, account read-only", () => {
  const { l, admin, user, c } = setup();
  const sim = simulate(l, admin.publicKey(), c, "increment", incr(user.publicKey(), 5));
  assert.equal(sim.ok, true, sim.errorString);
  assert.equal(sim.auth.length, 1);
  const cred = sim.auth[0].credentials as Any;
  assert.equal(cred.type, "sorobanCredentialsAddress");
  assert.equal(addressFromScAddress(cred.address.address), user.publicKey());
  assert.ok(BigInt(cred.address.nonce) >= 0n);
  // The nonce is random (as stellar-rpc's recording mode): a second simulation of the same call
  // gets another one, so two signed entries for the same call never collide.
  const again = simulate(l, admin.publicKey(), c, "increment", incr(user.publicKey(), 5));
  const nonce2 = (again.auth[0].credentials as Any).address.nonce;
  assert.notEqual(BigInt(nonce2), BigInt(cred.address.nonce));
  assert.equal(cred.address.signatureExpirationLedger, 0);
  assert.equal(cred.address.signature.type, "scvVoid");
  const fn = (sim.auth[0].rootInvocation.function as Any).contractFn;
  assert.equal(addressFromScAddress(fn.contractAddress), c);
  assert.equal(String(fn.functionName), "increment");
  assert.deepEqual(fn.args.map(scValToNative), [user.publicKey(), 5]);
  assert.deepEqual(sim.auth[0].rootInvocation.subInvocations, []);
  // Nonce: temporary contract data under the user's address, in readWrite.
  const nonceKeys = sim.readWrite.filter((k) => {
    const lk = xdr.LedgerKey.fromXdr(k, "base64") as Any;
    return lk.type === "contractData" && lk.contractData.key.type === "scvLedgerKeyNonce";
  });
  assert.equal(nonceKeys.length, 1);
  const nk = (xdr.LedgerKey.fromXdr(nonceKeys[0], "base64") as Any).contractData;
  assert.equal(nk.durability.name, "temporary");
  assert.equal(addressFromScAddress(nk.contract), user.publicKey());
  assert.equal(BigInt(nk.key.nonceKey.nonce), BigInt(cred.address.nonce));
  assert.ok(sim.readOnly.includes(accountLedgerKey(user.publicKey())));
  // Entries serialize (they go back to the client as base64).
  assert.equal(
    xdr.SorobanAuthorizationEntry.fromXdr(sim.auth[0].toXdr("base64"), "base64").toXdr("base64"),
    sim.auth[0].toXdr("base64"),
  );
});

Deno.test("record: the source account gets SOURCE_ACCOUNT credentials and no nonce", () => {
  const { l, user, c } = setup();
  const sim = simulate(l, user.publicKey(), c, "increment", incr(user.publicKey(), 5));
  assert.equal(sim.ok, true);
  assert.equal(sim.auth.length, 1);
  assert.equal(sim.auth[0].credentials.type, "sorobanCredentialsSourceAccount");
  assert.equal(sim.readWrite.length, 1); // just the counter
  assert.ok(!sim.readOnly.includes(accountLedgerKey(user.publicKey())));
});

Deno.test("enforce: a good signature from signAuthEntries-style authorizeEntry is accepted, nonce consumed", async () => {
  const { l, admin, user, c } = setup();
  const a = incr(user.publicKey(), 5);
  const sim = simulate(l, admin.publicKey(), c, "increment", a);
  const auth = await signEntries(sim.auth, [user], l.sequence + 100);
  const res = apply(l, admin.publicKey(), c, "increment", a, auth, sim);
  assert.equal(res.ok, true, res.errorString);
  const nonces = [...res.changes].filter(([, e]) =>
    (e!.data as Any).contractData.key.type === "scvLedgerKeyNonce"
  );
  assert.equal(nonces.length, 1);
  const [nonceKey, nonceEntry] = nonces[0];
  assert.ok(sim.readWrite.includes(nonceKey));
  assert.equal((nonceEntry!.data as Any).contractData.durability.name, "temporary");
  assert.equal((nonceEntry!.data as Any).contractData.val.type, "scvVoid");
  assert.equal(res.liveUntil!.get(nonceKey), l.sequence + 100);
  // Replay of the same signed entry: the nonce exists now.
  const replay = apply(l, admin.publicKey(), c, "increment", a, auth, sim);
  assert.deepEqual(code(replay), ["Auth", "ExistingValue"]);
  assert.match(replay.errorString!, /nonce already exists for address/);
});

Deno.test("enforce: bad signature, foreign signer, unsigned entry", async () => {
  const { l, admin, user, c } = setup();
  const a = incr(user.publicKey(), 5);
  const sim = simulate(l, admin.publicKey(), c, "increment", a);
  // Corrupted signature bytes.
  const bad = await authorizeEntry(
    sim.auth[0],
    (preimage: Any) => {
      const sig = user.sign(hash(preimage.toXdr()));
      sig[0] ^= 0xff;
      return Promise.resolve({ signature: sig, publicKey: user.publicKey() });
    },
    l.sequence + 100,
    PASSPHRASE,
  ).catch(() => undefined);
  // The SDK refuses to build a bad signature; build the ScVal by hand instead.
  assert.equal(bad, undefined);
  const good = await authorizeEntry(sim.auth[0], user, l.sequence + 100, PASSPHRASE);
  const creds = (good.credentials as Any).address as xdr.SorobanAddressCredentials;
  const sigMap = ((creds.signature as Any).vec[0] as Any).map as xdr.ScMapEntry[];
  const sigBytes = Uint8Array.from((sigMap[1].val as Any).bytes.value as Uint8Array);
  sigBytes[5] ^= 1;
  const tampered = withSignature(
    good,
    xdr.ScVal.scvVec([
      xdr.ScVal.scvMap([
        sigMap[0],
        new xdr.ScMapEntry({ key: sigMap[1].key, val: xdr.ScVal.scvBytes(sigBytes as Any) }),
      ]),
    ]),
  );
  const r1 = apply(l, admin.publicKey(), c, "increment", a, [tampered], sim);
  assert.deepEqual(code(r1), ["Crypto", "InvalidInput"]);
  assert.match(r1.errorString!, /failed ED25519 verification/);

  // Signed by a key that is not a signer of the account.
  const stranger = Keypair.random();
  const foreign = await authorizeEntry(
    sim.auth[0],
    stranger,
    l.sequence + 100,
    PASSPHRASE,
    user.publicKey(),
  )
    .catch(() => authorizeEntry(sim.auth[0], stranger, l.sequence + 100, PASSPHRASE));
  const r2 = apply(l, admin.publicKey(), c, "increment", a, [foreign], sim);
  assert.deepEqual(code(r2), ["Auth", "InvalidAction"]);
  assert.match(r2.errorString!, /failed account authentication with error/);
  assert.match(r2.errorString!, /signer does not belong to account/);

  // Submitted without signing (the recorded scvVoid placeholder).
  const r3 = apply(l, admin.publicKey(), c, "increment", a, sim.auth, sim);
  assert.equal(r3.ok, false);
  assert.equal(r3.changes.size, 0);
  // Nothing was committed by the failures: a good signature still works.
  const ok = apply(l, admin.publicKey(), c, "increment", a, [good], sim);
  assert.equal(ok.ok, true, ok.errorString);
});

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

Deno.test("enforce: expired and too-late signatures", async () => {
  const { l, admin, user, c } = setup();
  const a = incr(user.publicKey(), 5);
  const sim = simulate(l, admin.publicKey(), c, "increment", a);
  const expiring = await signEntries(sim.auth, [user], l.sequence + 1);
  l.sequence += 2;
  const expired = apply(l, admin.publicKey(), c, "increment", a, expiring, sim);
  assert.deepEqual(code(expired), ["Auth", "InvalidInput"]);
  assert.match(expired.errorString!, /signature has expired/);
  const maxLiveUntil = l.sequence + l.info().maxEntryTtl - 1;
  const late = await signEntries(sim.auth, [user], maxLiveUntil + 1);
  const r = apply(l, admin.publicKey(), c, "increment", a, late, sim);
  assert.deepEqual(code(r), ["Auth", "InvalidInput"]);
  assert.match(r.errorString!, /signature expiration is too late/);
  const edge = await signEntries(sim.auth, [user], maxLiveUntil);
  assert.equal(apply(l, admin.publicKey(), c, "increment", a, edge, sim).ok, true);
});

Deno.test("enforce: arguments must match exactly what was signed", async () => {
  const { l, admin, user, c } = setup();
  const sim = simulate(l, admin.publicKey(), c, "increment", incr(user.publicKey(), 5));
  const auth = await signEntries(sim.auth, [user], l.sequence + 100);
  const r = apply(l, admin.publicKey(), c, "increment", incr(user.publicKey(), 6), auth, sim);
  assert.deepEqual(code(r), ["Auth", "InvalidAction"]);
  assert.match(r.errorString!, /Unauthorized function call for address/);
  const none = apply(l, admin.publicKey(), c, "increment", incr(user.publicKey(), 5), [], sim);
  assert.deepEqual(code(none), ["Auth", "InvalidAction"]);
});

Deno.test("enforce: SOURCE_ACCOUNT credentials authorize only the source", () => {
  const { l, admin, user, c } = setup();
  const a = incr(user.publicKey(), 5);
  const sim = simulate(l, user.publicKey(), c, "increment", a);
  assert.equal(apply(l, user.publicKey(), c, "increment", a, sim.auth, sim).ok, true);
  const wrongSource = apply(l, admin.publicKey(), c, "increment", a, sim.auth, sim);
  assert.deepEqual(code(wrongSource), ["Auth", "InvalidAction"]);
});

Deno.test("enforce: multisig weights must reach the medium threshold; keys strictly ascending", async () => {
  const { l, admin, c } = setup();
  const owner = Keypair.random();
  const cosigner = Keypair.random();
  // master weight 1, medium threshold 2, one extra signer of weight 1.
  l.account(owner.publicKey(), 100_0000000n, {
    thresholds: "01000200",
    signers: [{ key: cosigner.publicKey(), weight: 1 }],
  });
  const a = incr(owner.publicKey(), 1);
  const sim = simulate(l, admin.publicKey(), c, "increment", a);
  const until = l.sequence + 50;
  const one = await signEntries(sim.auth, [owner], until);
  const low = apply(l, admin.publicKey(), c, "increment", a, one, sim);
  assert.deepEqual(code(low), ["Auth", "InvalidAction"]);
  assert.match(low.errorString!, /signature weight is lower than threshold/);

  const both = async (order: 1 | -1) =>
    await authorizeEntry(
      sim.auth[0],
      (preimage: Any) => {
        const payload = hash(preimage.toXdr());
        const sigs = [owner, cosigner]
          .map((k) => ({ pk: k.rawPublicKey(), sig: k.sign(payload) }))
          .sort((x, y) => order * Buffer.compare(Buffer.from(x.pk), Buffer.from(y.pk)));
        return Promise.resolve({
          signatureScVal: xdr.ScVal.scvVec(sigs.map((s) =>
            xdr.ScVal.scvMap([
              new xdr.ScMapEntry({
                key: xdr.ScVal.scvSymbol("public_key"),
                val: xdr.ScVal.scvBytes(s.pk as Any),
              }),
              new xdr.ScMapEntry({
                key: xdr.ScVal.scvSymbol("signature"),
                val: xdr.ScVal.scvBytes(s.sig as Any),
              }),
            ])
          )),
        });
      },
      until,
      PASSPHRASE,
    );
  const unordered = apply(l, admin.publicKey(), c, "increment", a, [await both(-1)], sim);
  assert.deepEqual(code(unordered), ["Auth", "InvalidAction"]);
  assert.match(unordered.errorString!, /public keys are not ordered/);
  const ok = apply(l, admin.publicKey(), c, "increment", a, [await both(1)], sim);
  assert.equal(ok.ok, true, ok.errorString);
});

Deno.test("invoker rule: a contract authorizes require_auth(self) in the contract it calls directly", () => {
  const l = new MemLedger();
  const admin = Keypair.random().publicKey();
  l.account(admin, 10_0000000n);
  const [a, b, c] = [1, 2, 3].map((s) => l.deploy("probe", [], admin, s));
  const direct = encodeArgs(PROBE_SPEC, "auth_self_via", { other: b });
  const sim = simulate(l, admin, a, "auth_self_via", direct);
  assert.equal(sim.ok, true, sim.errorString);
  assert.deepEqual(sim.auth, []);
  assert.equal(apply(l, admin, a, "auth_self_via", direct, [], sim).ok, true);

  // a → b.relay → c.need_auth(a): not a direct call, so `a` must authorize it.
  const deep = encodeArgs(PROBE_SPEC, "need_auth_deep", { middle: b, last: c });
  const rec = simulate(l, admin, a, "need_auth_deep", deep);
  assert.deepEqual(code(rec), ["Auth", "InvalidAction"]);
  assert.match(
    rec.errorString!,
    /\[recording authorization only\] encountered authorization not tied to the root contract invocation for an address\. Use `require_auth\(\)` in the top invocation or enable non-root authorization\./,
  );
  const nonroot = simulate(l, admin, a, "need_auth_deep", deep, "record_allow_nonroot");
  assert.equal(nonroot.ok, true, nonroot.errorString);
  assert.equal(nonroot.auth.length, 1);
  const cred = (nonroot.auth[0].credentials as Any).address;
  assert.equal(addressFromScAddress(cred.address), a);
  assert.equal(
    String((nonroot.auth[0].rootInvocation.function as Any).contractFn.functionName),
    "need_auth",
  );
  const enforced = apply(l, admin, a, "need_auth_deep", deep, [], nonroot);
  assert.deepEqual(code(enforced), ["Auth", "InvalidAction"]);
});

Deno.test("sub-invocation: one entry covers transfer_via and the token transfer beneath it", async () => {
  const l = new MemLedger();
  const admin = Keypair.random();
  const user = Keypair.random();
  const dest = Keypair.random().publicKey();
  l.account(admin.publicKey(), 10_0000000n);
  l.account(user.publicKey(), 100_0000000n);
  l.account(dest, 10_0000000n);
  const xlm = l.deploySac(Asset.native());
  const c = l.deploy("counter", { admin: admin.publicKey() }, admin.publicKey());
  const a = encodeArgs(COUNTER_SPEC, "transfer_via", {
    token: xlm,
    from: user.publicKey(),
    to: dest,
    amount: 5_0000000n,
  });
  const sim = simulate(l, admin.publicKey(), c, "transfer_via", a);
  assert.equal(sim.ok, true, sim.errorString);
  assert.equal(sim.auth.length, 1);
  const root = sim.auth[0].rootInvocation;
  assert.equal(String((root.function as Any).contractFn.functionName), "transfer_via");
  assert.equal(root.subInvocations.length, 1);
  const sub = (root.subInvocations[0].function as Any).contractFn;
  assert.equal(addressFromScAddress(sub.contractAddress), xlm);
  assert.equal(String(sub.functionName), "transfer");
  assert.deepEqual(sub.args.map(scValToNative), [user.publicKey(), dest, 5_0000000n]);
  // Accounts whose balances change are in readWrite.
  assert.ok(sim.readWrite.includes(accountLedgerKey(user.publicKey())));
  assert.ok(sim.readWrite.includes(accountLedgerKey(dest)));

  const signed = await signEntries(sim.auth, [user], l.sequence + 10);
  const res = apply(l, admin.publicKey(), c, "transfer_via", a, signed, sim);
  assert.equal(res.ok, true, res.errorString);
  assert.equal(l.nativeBalance(user.publicKey()), 95_0000000n);
  assert.equal(l.nativeBalance(dest), 15_0000000n);

  // Signing only the root (dropping the sub-invocation) does not authorize the transfer.
  const sim2 = simulate(l, admin.publicKey(), c, "transfer_via", a);
  const trimmed = new xdr.SorobanAuthorizationEntry({
    credentials: sim2.auth[0].credentials,
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: sim2.auth[0].rootInvocation.function,
      subInvocations: [],
    }),
  });
  const [trimmedSigned] = await signEntries([trimmed], [user], l.sequence + 10);
  const r = apply(l, admin.publicKey(), c, "transfer_via", a, [trimmedSigned], sim2);
  assert.deepEqual(code(r), ["Auth", "InvalidAction"]);
  assert.equal(l.nativeBalance(dest), 15_0000000n);
  void nativeToScVal;
});

Deno.test("enforce: a contract address authenticates through its __check_auth", () => {
  const l = new MemLedger();
  const issuer = Keypair.random();
  const alice = Keypair.random();
  l.account(issuer.publicKey(), 100_0000000n);
  l.account(alice.publicKey(), 100_0000000n);
  const usdcAsset = new Asset("USDC", issuer.publicKey());
  l.trustline(alice.publicKey(), usdcAsset, 0n);
  const usdc = l.deploySac(usdcAsset);
  const wallet = l.deploy("toy_account", [], issuer.publicKey());
  const mint = encodeArgs(sacCodec, "mint", [wallet, 10n]);
  const ms = simulate(l, issuer.publicKey(), usdc, "mint", mint);
  assert.equal(apply(l, issuer.publicKey(), usdc, "mint", mint, ms.auth, ms).ok, true);

  const t = encodeArgs(sacCodec, "transfer", [wallet, alice.publicKey(), 4n]);
  const sim = simulate(l, alice.publicKey(), usdc, "transfer", t);
  assert.equal(sim.ok, true, sim.errorString);
  const cred = (sim.auth[0].credentials as Any).address as xdr.SorobanAddressCredentials;
  assert.equal(addressFromScAddress(cred.address), wallet);
  const expiration = l.sequence + 5;
  const payload = hash(
    xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
      new xdr.HashIdPreimageSorobanAuthorization({
        networkId: NETWORK_ID,
        nonce: cred.nonce,
        signatureExpirationLedger: expiration,
        invocation: sim.auth[0].rootInvocation,
      }),
    ).toXdr() as Any,
  ) as Uint8Array;
  const entry = (sig: Uint8Array) =>
    new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
        new xdr.SorobanAddressCredentials({
          address: cred.address,
          nonce: cred.nonce,
          signatureExpirationLedger: expiration,
          signature: xdr.ScVal.scvBytes(sig as Any),
        }),
      ),
      rootInvocation: sim.auth[0].rootInvocation,
    });
  // Recording does not run __check_auth (as the real host), so the wallet's own entries are
  // missing from the recorded footprint: clients re-simulate with the signed entries (enforce).
  const short = apply(l, alice.publicKey(), usdc, "transfer", t, [entry(payload)], sim);
  assert.deepEqual(code(short), ["Storage", "ExceededLimit"]);
  const resim = (sig: Uint8Array) =>
    invokeHostFunction({
      reader: l,
      ledger: l.info(),
      source: alice.publicKey(),
      hostFunction: invokeFn(usdc, "transfer", t),
      auth: [entry(sig)],
      mode: "enforce",
    });
  const wrong = resim(new Uint8Array(32));
  assert.deepEqual(code(wrong), ["Auth", "InvalidAction"]);
  assert.match(wrong.errorString!, /failed account authentication with error/);
  const fp = resim(payload);
  assert.equal(fp.ok, true, fp.errorString);
  assert.ok(fp.readOnly.includes(instanceLedgerKey(wallet)));
  const ok = apply(l, alice.publicKey(), usdc, "transfer", t, [entry(payload)], fp);
  assert.equal(ok.ok, true, ok.errorString);
  const bal = simulate(
    l,
    alice.publicKey(),
    usdc,
    "balance",
    encodeArgs(sacCodec, "balance", [alice.publicKey()]),
  );
  assert.equal(scValToNative(bal.returnValue!), 4n);
});

Deno.test("enforce: unsupported credential types fail the invocation instead of throwing", () => {
  const { l, admin, user, c } = setup();
  const a = incr(user.publicKey(), 1);
  const sim = simulate(l, admin.publicKey(), c, "increment", a);
  const addr = (sim.auth[0].credentials as Any).address as xdr.SorobanAddressCredentials;
  const v2 = new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(addr),
    rootInvocation: sim.auth[0].rootInvocation,
  });
  const r = apply(l, admin.publicKey(), c, "increment", a, [v2], sim);
  assert.equal(r.ok, false);
  assert.deepEqual(code(r), ["Auth", "InvalidInput"]);
});
