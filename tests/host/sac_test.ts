import assert from "node:assert/strict";
import {
  Account,
  Asset,
  Keypair,
  MuxedAccount,
  nativeToScVal,
  scValToNative,
  StrKey,
  xdr,
} from "@stellar/stellar-sdk";
import { PROBE_SPEC } from "../fixtures/contracts/probe/spec.ts";
import { encodeArgs, type InvokeResult, sacCodec } from "../../localnet/host/mod.ts";
import { instanceLedgerKey, scAddressFromString } from "../../localnet/host/keys.ts";
import { contractDataKey } from "../../localnet/host/xdr_fast.ts";
import { MemLedger, PASSPHRASE, send, simulate } from "./fixture.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const sac = (fn: string, args: Record<string, unknown> | unknown[] = []) =>
  encodeArgs(sacCodec, fn, args);

function setup() {
  const l = new MemLedger();
  const issuer = Keypair.random();
  const alice = Keypair.random();
  const bob = Keypair.random();
  const usdcAsset = new Asset("USDC", issuer.publicKey());
  for (const k of [issuer, alice, bob]) l.account(k.publicKey(), 100_0000000n);
  l.trustline(alice.publicKey(), usdcAsset, 0n);
  const usdc = l.deploySac(usdcAsset);
  const xlm = l.deploySac(Asset.native());
  const probe = l.deploy("probe", [], issuer.publicKey());
  return { l, issuer, alice, bob, usdcAsset, usdc, xlm, probe };
}

function code(r: InvokeResult): [string, string | number] | undefined {
  return r.error ? [r.error.type, r.error.code] : undefined;
}

function eventsOf(r: InvokeResult) {
  return r.events.map((e) => {
    const b = (e.body as Any).v0;
    return {
      contract: StrKey.encodeContract(e.contractId!.value as Any),
      topics: b.topics.map(scValToNative),
      data: scValToNative(b.data),
    };
  });
}

function balance(l: MemLedger, token: string, id: string): bigint {
  const r = simulate(
    l,
    id.startsWith("G") ? id : Keypair.random().publicKey(),
    token,
    "balance",
    sac("balance", [id]),
  );
  assert.equal(r.ok, true, r.errorString);
  return scValToNative(r.returnValue!) as bigint;
}

Deno.test("SAC: ids and instance storage as init_asset writes them", () => {
  const { l, issuer, usdcAsset, usdc, xlm } = setup();
  assert.equal(usdc, usdcAsset.contractId(PASSPHRASE));
  assert.equal(xlm, "CDMLFMKMMD7MWZP3FKUBZPVHTUEDLSX4BYGYKH4GCESXYHS3IHQ4EIG4");
  const inst = (l.get(instanceLedgerKey(usdc))!.data as Any).contractData.val.instance;
  assert.equal(inst.executable.type, "contractExecutableStellarAsset");
  const storage = (inst.storage as xdr.ScMapEntry[]).map((e) => [scValToNative(e.key), e.val]);
  assert.deepEqual(storage.map(([k]) => k), ["METADATA", ["Admin"], ["AssetInfo"]]);
  assert.deepEqual(scValToNative(storage[0][1] as xdr.ScVal), {
    decimal: 7,
    name: `USDC:${issuer.publicKey()}`,
    symbol: "USDC",
  });
  assert.equal(scValToNative(storage[1][1] as xdr.ScVal), issuer.publicKey());
  const info = (storage[2][1] as Any).vec;
  assert.equal(scValToNative(info[0]), "AlphaNum4");
  const m = scValToNative(info[1]) as Any;
  assert.equal(m.asset_code, "USDC");
  assert.deepEqual(new Uint8Array(m.issuer), issuer.rawPublicKey());

  const native = (l.get(instanceLedgerKey(xlm))!.data as Any).contractData.val.instance
    .storage as xdr.ScMapEntry[];
  assert.deepEqual(native.map((e) => scValToNative(e.key)), ["METADATA", ["AssetInfo"]]);
  assert.deepEqual(scValToNative(native[0].val), { decimal: 7, name: "native", symbol: "native" });
  assert.deepEqual(scValToNative(native[1].val), ["Native"]);
});

Deno.test("SAC: read functions", () => {
  const { l, issuer, alice, usdc, xlm } = setup();
  const read = (c: string, fn: string) =>
    scValToNative(simulate(l, alice.publicKey(), c, fn, []).returnValue!);
  assert.equal(read(usdc, "decimals"), 7);
  assert.equal(read(usdc, "name"), `USDC:${issuer.publicKey()}`);
  assert.equal(read(usdc, "symbol"), "USDC");
  assert.equal(read(usdc, "admin"), issuer.publicKey());
  assert.equal(read(xlm, "name"), "native");
  const noAdmin = simulate(l, alice.publicKey(), xlm, "admin", []);
  assert.deepEqual(code(noAdmin), ["Storage", "MissingValue"]);
  assert.equal(balance(l, xlm, alice.publicKey()), 100_0000000n);
  assert.equal(balance(l, usdc, issuer.publicKey()), (1n << 63n) - 1n); // unlimited
  const noTl = simulate(
    l,
    alice.publicKey(),
    usdc,
    "balance",
    sac("balance", [Keypair.random().publicKey()]),
  );
  assert.deepEqual(code(noTl), ["Contract", 13]);
});

Deno.test("SAC: mint by the admin to a trustline and to a contract; events and storage", async () => {
  const { l, issuer, alice, bob, usdc, probe } = setup();
  // Minting needs the admin's (issuer's) authorization: recorded for a non-source admin.
  const sim = simulate(
    l,
    alice.publicKey(),
    usdc,
    "mint",
    sac("mint", [alice.publicKey(), 5_0000000n]),
  );
  assert.equal(sim.ok, true);
  assert.equal(sim.auth.length, 1);
  assert.equal(
    StrKey.encodeEd25519PublicKey(
      (sim.auth[0].credentials as Any).address.address.accountId.ed25519.value,
    ),
    issuer.publicKey(),
  );

  const r = await send(
    l,
    issuer.publicKey(),
    usdc,
    "mint",
    sac("mint", [alice.publicKey(), 5_0000000n]),
  );
  assert.equal(r.ok, true, r.errorString);
  assert.deepEqual(eventsOf(r), [{
    contract: usdc,
    topics: ["mint", alice.publicKey(), `USDC:${issuer.publicKey()}`],
    data: 5_0000000n,
  }]);
  assert.equal(balance(l, usdc, alice.publicKey()), 5_0000000n);

  const noTl = await send(l, issuer.publicKey(), usdc, "mint", sac("mint", [bob.publicKey(), 1n]));
  assert.deepEqual(code(noTl), ["Contract", 13]);
  assert.match(noTl.errorString!, /trustline entry is missing for account/);

  const toC = await send(l, issuer.publicKey(), usdc, "mint", sac("mint", [probe, 7n]));
  assert.equal(toC.ok, true);
  const key = xdr.ScVal.scvVec([
    xdr.ScVal.scvSymbol("Balance"),
    nativeToScVal(probe, { type: "address" }),
  ]);
  const entry = l.get(contractDataKey(scAddressFromString(usdc), key, 1))!;
  assert.deepEqual(scValToNative((entry.data as Any).contractData.val), {
    amount: 7n,
    authorized: true,
    clawback: false,
  });
  assert.equal(balance(l, usdc, probe), 7n);

  const toIssuer = await send(
    l,
    issuer.publicKey(),
    usdc,
    "mint",
    sac("mint", [issuer.publicKey(), 1n]),
  );
  assert.deepEqual(code(toIssuer), ["Contract", 2]);
  const negative = await send(
    l,
    issuer.publicKey(),
    usdc,
    "mint",
    sac("mint", [alice.publicKey(), -1n]),
  );
  assert.deepEqual(code(negative), ["Contract", 8]);
});

Deno.test("SAC: transfers G→C→G with the right events; insufficient balances fail with #10", async () => {
  const { l, issuer, alice, usdc, probe } = setup();
  await send(l, issuer.publicKey(), usdc, "mint", sac("mint", [alice.publicKey(), 10_0000000n]));
  const g2c = await send(
    l,
    alice.publicKey(),
    usdc,
    "transfer",
    sac("transfer", [alice.publicKey(), probe, 4_0000000n]),
  );
  assert.equal(g2c.ok, true, g2c.errorString);
  assert.deepEqual(eventsOf(g2c)[0].topics, [
    "transfer",
    alice.publicKey(),
    probe,
    `USDC:${issuer.publicKey()}`,
  ]);
  assert.equal(eventsOf(g2c)[0].data, 4_0000000n);
  assert.equal(balance(l, usdc, alice.publicKey()), 6_0000000n);
  assert.equal(balance(l, usdc, probe), 4_0000000n);

  // The contract pays out: its own auth comes from the invoker rule.
  const pay = encodeArgs(PROBE_SPEC, "pay", {
    token: usdc,
    to: alice.publicKey(),
    amount: 1_0000000n,
  });
  const c2g = await send(l, alice.publicKey(), probe, "pay", pay);
  assert.equal(c2g.ok, true, c2g.errorString);
  assert.deepEqual(c2g.auth, []);
  assert.equal(balance(l, usdc, probe), 3_0000000n);
  assert.equal(balance(l, usdc, alice.publicKey()), 7_0000000n);

  const tooMuchC = encodeArgs(PROBE_SPEC, "pay", {
    token: usdc,
    to: alice.publicKey(),
    amount: 5_0000000n,
  });
  const r1 = await send(l, alice.publicKey(), probe, "pay", tooMuchC);
  assert.deepEqual(code(r1), ["Contract", 10]);
  assert.match(r1.errorString!, /balance is not sufficient to spend/);
  const r2 = await send(
    l,
    alice.publicKey(),
    usdc,
    "transfer",
    sac("transfer", [alice.publicKey(), probe, 8_0000000n]),
  );
  assert.deepEqual(code(r2), ["Contract", 10]);
  assert.match(r2.errorString!, /resulting balance is not within the allowed range/);
  const r3 = await send(
    l,
    alice.publicKey(),
    usdc,
    "transfer",
    sac("transfer", [alice.publicKey(), probe, -1n]),
  );
  assert.deepEqual(code(r3), ["Contract", 8]);
  // A failed transfer inside try_call leaves the first one in place.
  const twice = encodeArgs(PROBE_SPEC, "pay_twice_try", {
    token: usdc,
    to: alice.publicKey(),
    amount: 2_0000000n,
  });
  const r4 = await send(l, alice.publicKey(), probe, "pay_twice_try", twice);
  assert.equal(r4.ok, true, r4.errorString);
  assert.equal(scValToNative(r4.returnValue!), false);
  assert.equal(balance(l, usdc, probe), 1_0000000n);
});

Deno.test("SAC: issuer transfers emit mint/burn (CAP-67); the issuer's balance is unlimited", async () => {
  const { l, issuer, alice, usdc } = setup();
  const out = await send(
    l,
    issuer.publicKey(),
    usdc,
    "transfer",
    sac("transfer", [issuer.publicKey(), alice.publicKey(), 3n]),
  );
  assert.equal(out.ok, true, out.errorString);
  assert.deepEqual(eventsOf(out)[0].topics, [
    "mint",
    alice.publicKey(),
    `USDC:${issuer.publicKey()}`,
  ]);
  const back = await send(
    l,
    alice.publicKey(),
    usdc,
    "transfer",
    sac("transfer", [alice.publicKey(), issuer.publicKey(), 1n]),
  );
  assert.equal(back.ok, true, back.errorString);
  assert.deepEqual(eventsOf(back)[0].topics, [
    "burn",
    alice.publicKey(),
    `USDC:${issuer.publicKey()}`,
  ]);
  assert.equal(eventsOf(back)[0].data, 1n);
  assert.equal(balance(l, usdc, alice.publicKey()), 2n);
});

Deno.test("SAC native: account balances, the reserve, burn unsupported", async () => {
  const { l, alice, bob, xlm } = setup();
  // 100 XLM, no subentries: minimum balance 2 × 0.5 XLM.
  const ok = await send(
    l,
    alice.publicKey(),
    xlm,
    "transfer",
    sac("transfer", [alice.publicKey(), bob.publicKey(), 99_0000000n]),
  );
  assert.equal(ok.ok, true, ok.errorString);
  assert.equal(l.nativeBalance(alice.publicKey()), 1_0000000n);
  assert.equal(l.nativeBalance(bob.publicKey()), 199_0000000n);
  assert.deepEqual(eventsOf(ok)[0].topics, [
    "transfer",
    alice.publicKey(),
    bob.publicKey(),
    "native",
  ]);
  const below = await send(
    l,
    alice.publicKey(),
    xlm,
    "transfer",
    sac("transfer", [alice.publicKey(), bob.publicKey(), 1n]),
  );
  assert.deepEqual(code(below), ["Contract", 10]);
  const burn = await send(l, bob.publicKey(), xlm, "burn", sac("burn", [bob.publicKey(), 1n]));
  assert.deepEqual(code(burn), ["Contract", 2]);
  // A missing account is AccountMissing (#6).
  const ghost = Keypair.random().publicKey();
  const r = simulate(
    l,
    bob.publicKey(),
    xlm,
    "transfer",
    sac("transfer", [bob.publicKey(), ghost, 1n]),
  );
  assert.deepEqual(code(r), ["Contract", 6]);
});

Deno.test("SAC: approve, allowance, transfer_from, burn_from, burn", async () => {
  const { l, issuer, alice, bob, usdc, probe } = setup();
  l.trustline(bob.publicKey(), new Asset("USDC", issuer.publicKey()), 0n);
  await send(l, issuer.publicKey(), usdc, "mint", sac("mint", [alice.publicKey(), 10_0000000n]));
  const until = l.sequence + 50;
  const ap = await send(
    l,
    alice.publicKey(),
    usdc,
    "approve",
    sac("approve", [alice.publicKey(), bob.publicKey(), 3_0000000n, until]),
  );
  assert.equal(ap.ok, true, ap.errorString);
  assert.deepEqual(eventsOf(ap)[0], {
    contract: usdc,
    topics: ["approve", alice.publicKey(), bob.publicKey(), `USDC:${issuer.publicKey()}`],
    data: [3_0000000n, until],
  });
  const allowance = () =>
    scValToNative(
      simulate(
        l,
        bob.publicKey(),
        usdc,
        "allowance",
        sac("allowance", [alice.publicKey(), bob.publicKey()]),
      ).returnValue!,
    );
  assert.equal(allowance(), 3_0000000n);
  const tf = await send(
    l,
    bob.publicKey(),
    usdc,
    "transfer_from",
    sac("transfer_from", [bob.publicKey(), alice.publicKey(), probe, 2_0000000n]),
  );
  assert.equal(tf.ok, true, tf.errorString);
  assert.equal(allowance(), 1_0000000n);
  assert.equal(balance(l, usdc, probe), 2_0000000n);
  const over = await send(
    l,
    bob.publicKey(),
    usdc,
    "transfer_from",
    sac("transfer_from", [bob.publicKey(), alice.publicKey(), probe, 2_0000000n]),
  );
  assert.deepEqual(code(over), ["Contract", 9]);
  const bf = await send(
    l,
    bob.publicKey(),
    usdc,
    "burn_from",
    sac("burn_from", [bob.publicKey(), alice.publicKey(), 1_0000000n]),
  );
  assert.equal(bf.ok, true, bf.errorString);
  assert.deepEqual(eventsOf(bf)[0].topics, [
    "burn",
    alice.publicKey(),
    `USDC:${issuer.publicKey()}`,
  ]);
  assert.equal(allowance(), 0n);
  const burn = await send(
    l,
    alice.publicKey(),
    usdc,
    "burn",
    sac("burn", [alice.publicKey(), 1_0000000n]),
  );
  assert.equal(burn.ok, true);
  assert.equal(balance(l, usdc, alice.publicKey()), 6_0000000n);
  // An allowance past its live-until ledger reads as zero.
  await send(
    l,
    alice.publicKey(),
    usdc,
    "approve",
    sac("approve", [alice.publicKey(), bob.publicKey(), 5n, l.sequence + 1]),
  );
  assert.equal(allowance(), 5n);
  l.sequence += 2;
  assert.equal(allowance(), 0n);
  const past = await send(
    l,
    alice.publicKey(),
    usdc,
    "approve",
    sac("approve", [alice.publicKey(), bob.publicKey(), 5n, l.sequence - 1]),
  );
  assert.deepEqual(code(past), ["Contract", 9]);
});

Deno.test("SAC: set_admin, set_authorized, muxed destination", async () => {
  const { l, issuer, alice, bob, usdc } = setup();
  const sa = await send(
    l,
    issuer.publicKey(),
    usdc,
    "set_admin",
    sac("set_admin", [bob.publicKey()]),
  );
  assert.equal(sa.ok, true, sa.errorString);
  assert.deepEqual(eventsOf(sa)[0].topics, [
    "set_admin",
    issuer.publicKey(),
    `USDC:${issuer.publicKey()}`,
  ]);
  assert.equal(eventsOf(sa)[0].data, bob.publicKey());
  assert.equal(
    scValToNative(simulate(l, alice.publicKey(), usdc, "admin", []).returnValue!),
    bob.publicKey(),
  );
  // The old admin no longer authorizes mints: the new admin must sign.
  const unsigned = await send(
    l,
    issuer.publicKey(),
    usdc,
    "mint",
    sac("mint", [alice.publicKey(), 1n]),
  );
  assert.equal(unsigned.ok, false);
  const signed = await send(
    l,
    issuer.publicKey(),
    usdc,
    "mint",
    sac("mint", [alice.publicKey(), 1n]),
    [bob],
  );
  assert.equal(signed.ok, true, signed.errorString);
  assert.equal(balance(l, usdc, alice.publicKey()), 1n);
  // Revoking needs AUTH_REVOCABLE on the issuer (not set here).
  const revoke = await send(
    l,
    bob.publicKey(),
    usdc,
    "set_authorized",
    sac("set_authorized", [alice.publicKey(), false]),
  );
  assert.deepEqual(code(revoke), ["Contract", 2]);

  // Muxed destination: the event data carries the mux id.
  const muxed = new MuxedAccount(new Account(alice.publicKey(), "0"), "42").accountId();
  const to = xdr.ScVal.scvAddress(scAddressFromString(muxed));
  const args = [
    nativeToScVal(bob.publicKey(), { type: "address" }),
    to,
    nativeToScVal(1n, { type: "i128" }),
  ];
  l.trustline(bob.publicKey(), new Asset("USDC", issuer.publicKey()), 5n);
  const mx = await send(l, bob.publicKey(), usdc, "transfer", args);
  assert.equal(mx.ok, true, mx.errorString);
  assert.deepEqual(eventsOf(mx)[0].topics, [
    "transfer",
    bob.publicKey(),
    alice.publicKey(),
    `USDC:${issuer.publicKey()}`,
  ]);
  assert.deepEqual(eventsOf(mx)[0].data, { amount: 1n, to_muxed_id: 42n });
});
