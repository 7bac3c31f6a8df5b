/**
 * The browser's write path (`writeCall`: build → simulate → assemble → sign → send → poll)
 * run in Deno against a local node, and the plain messages of the failures a depositor or
 * operator meets: a flash that was not repaid (issue 12), deregistration at any time,
 * a stake the USDC balance cannot cover (the token's untyped error inside `register`),
 * an already-registered keeper, a wallet refusal; and an archived depositor record, which the
 * withdrawal restores itself on protocol 27 (one signature, the cost reported), or — through an
 * RPC that answers with a `restorePreamble`, as before protocol 23 — with a restore signed first.
 */
import assert from "node:assert/strict";
import { Keypair, TransactionBuilder, type xdr } from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployVigil, USDC } from "@vigil/contracts/deploy/deploy_vigil";
import { type AutoRestore, clearSpecCache, type TxSigner, writeCall } from "@vigil/soroban/client";
import { archivedEntryKeys } from "@vigil/soroban/auto_restore";
import { startPreambleRpc } from "@vigil/testing/preamble_rpc";
import { plainError } from "@vigil/web/data/errors";
import { ContractCallError } from "@vigil/soroban/errors";
import { script } from "@vigil/testing/scripted_executor";
import { allowExecutor, STACK_POLICY_DELAY } from "@vigil/testing/web/stack";
import { deployFixture } from "@vigil/testing/contracts/mod";

function signer(kp: Keypair, passphrase: string): TxSigner {
  return {
    address: kp.publicKey(),
    signTransaction(xdr) {
      const tx = TransactionBuilder.fromXDR(xdr, passphrase);
      tx.sign(kp);
      return Promise.resolve({ signedTxXdr: tx.toXDR() });
    },
  };
}

Deno.test("write path and plain error messages against the local node", async (t) => {
  clearSpecCache();
  await using node = await startTestNode();
  const dev = await setupDevChain(node, { accounts: ["alice", "keeper1"] });
  const usdc = dev.contracts.usdc;
  const adminKey = await node.newAccount();
  // A short policy delay: listing the test executor widens the flash policy (queued).
  const { vault, registry, admin, policy } = await deployVigil(node, {
    usdc,
    admin: adminKey.publicKey(),
    config: { policy_delay: STACK_POLICY_DELAY },
  });
  const net = { rpcUrl: node.rpcUrl, passphrase: node.networkPassphrase };
  const alice = Keypair.fromSecret(dev.accounts.alice.secret);
  const k1 = Keypair.fromSecret(dev.accounts.keeper1.secret);
  const ctx = { usdc };

  await t.step("deposit confirms with the minted shares; stages in order", async () => {
    const stages: string[] = [];
    const r = await writeCall<bigint>(
      net,
      vault,
      "deposit",
      [alice.publicKey(), 500n * USDC],
      signer(alice, net.passphrase),
      {
        onStage: (s) => stages.push(s),
      },
    );
    assert.deepEqual(stages, ["building", "signing", "submitted", "confirmed"]);
    assert.ok(r.value > 0n);
    assert.match(r.hash, /^[0-9a-f]{64}$/);
    const bal = await node.view<{ shares: bigint }>(vault, "balance", {
      depositor: alice.publicKey(),
    });
    assert.equal(bal.shares, r.value);
  });

  await t.step("register, then AlreadyRegistered", async () => {
    await writeCall(net, registry, "register", [k1.publicKey(), "k1"], signer(k1, net.passphrase));
    const e = await writeCall(
      net,
      registry,
      "register",
      [k1.publicKey(), "k1"],
      signer(k1, net.passphrase),
    )
      .then(() => null, (e) => e);
    assert.ok(e instanceof ContractCallError);
    assert.equal(e.caseName, "AlreadyRegistered");
    assert.equal(plainError(e, ctx), "This account is already registered as a keeper.");
  });

  await t.step("a flash that keeps the money: FlashNotRepaid in plain words", async () => {
    const executor = await deployFixture(node, "scripted_executor");
    await allowExecutor(node, vault, admin, policy, executor);
    const e = await writeCall(
      net,
      vault,
      "flash",
      [k1.publicKey(), executor, 450n * USDC, script(), 0n],
      signer(k1, net.passphrase),
    )
      .then(() => null, (e) => e);
    assert.ok(e instanceof ContractCallError);
    assert.equal(e.caseName, "FlashNotRepaid");
    assert.match(plainError(e, ctx), /flash loan was not repaid in full; nothing happened/);
  });

  await t.step("a flash through an executor the policy does not list: in plain words", async () => {
    const executor = await deployFixture(node, "scripted_executor");
    const e = await writeCall(
      net,
      vault,
      "flash",
      [k1.publicKey(), executor, 450n * USDC, script(), 0n],
      signer(k1, net.passphrase),
    )
      .then(() => null, (e) => e);
    assert.ok(e instanceof ContractCallError);
    assert.equal(e.caseName, "ExecutorNotAllowed");
    assert.match(plainError(e, ctx), /flash policy does not list this executor/);
  });

  await t.step("the admin cancels with nothing queued: NothingPending in plain words", async () => {
    const e = await writeCall(net, vault, "cancel_pending", [], signer(adminKey, net.passphrase))
      .then(() => null, (e) => e);
    assert.ok(e instanceof ContractCallError);
    assert.equal(e.caseName, "NothingPending");
    assert.match(plainError(e, ctx), /^Nothing is pending: there is no proposed admin to accept/);
  });

  await t.step("deregister at any time: the whole stake comes back", async () => {
    const before = await node.view<bigint>(usdc, "balance", { id: k1.publicKey() });
    await writeCall(net, registry, "deregister", [k1.publicKey()], signer(k1, net.passphrase));
    const after = await node.view<bigint>(usdc, "balance", { id: k1.publicKey() });
    assert.equal(after - before, 100n * USDC);
  });

  await t.step("register without the stake in USDC: the token's error, named", async () => {
    const poor = Keypair.random();
    await node.fund(poor.publicKey());
    const e = await writeCall(
      net,
      registry,
      "register",
      [poor.publicKey(), "poor"],
      signer(poor, net.passphrase),
    )
      .then(() => null, (e) => e);
    assert.ok(e, "register must fail");
    const msg = plainError(e, ctx);
    assert.match(msg, /USDC/, `${msg} / ${(e as Error).message}`);
    assert.doesNotMatch(msg, /AAAA/);
    // Not registered afterwards.
    await assert.rejects(node.view(registry, "get_keeper", { operator: poor.publicKey() }));
  });

  await t.step("a wallet refusal is reported as such and nothing is sent", async () => {
    const before =
      (await node.view<{ shares: bigint }>(vault, "balance", { depositor: alice.publicKey() }))
        .shares;
    const refusing: TxSigner = {
      address: alice.publicKey(),
      signTransaction: () => Promise.reject({ code: -4, message: "User declined access" }),
    };
    const e = await writeCall(net, vault, "deposit", [alice.publicKey(), USDC], refusing).then(
      () => null,
      (e) => e,
    );
    assert.equal(plainError(e, ctx), "You rejected the request in your wallet.");
    const after =
      (await node.view<{ shares: bigint }>(vault, "balance", { depositor: alice.publicKey() }))
        .shares;
    assert.equal(after, before);
  });
});

/** A signer that counts the signatures it gives. */
function counting(kp: Keypair, passphrase: string): TxSigner & { count: number } {
  const inner = signer(kp, passphrase);
  const s = {
    address: inner.address,
    count: 0,
    signTransaction(xdr: string, opts: { networkPassphrase: string; address: string }) {
      s.count++;
      return inner.signTransaction(xdr, opts);
    },
  };
  return s;
}

Deno.test("an archived depositor record: the withdrawal restores it itself (one signature, cost reported); an old RPC's preamble path still works", async (t) => {
  clearSpecCache();
  // Short rent period so the record archives within the test (after the withdrawal cooldown).
  // The vault extends its records' TTL on use (about 518,400 ledgers); the real host clamps an
  // extension at the maximum entry TTL, so a small maximum keeps that within the test.
  await using node = await startTestNode({
    network: { minPersistentTtl: 5_000, minTemporaryTtl: 100, maxEntryTtl: 6_000 },
  });
  const dev = await setupDevChain(node, { accounts: ["alice"] });
  const usdc = dev.contracts.usdc;
  const { vault } = await deployVigil(node, { usdc });
  const net = { rpcUrl: node.rpcUrl, passphrase: node.networkPassphrase };
  const alice = Keypair.fromSecret(dev.accounts.alice.secret);
  const shares = await writeCall<bigint>(
    net,
    vault,
    "deposit",
    [alice.publicKey(), 100n * USDC],
    signer(alice, net.passphrase),
  );
  const half = shares.value / 2n;
  /** The Soroban data of a landed transaction. */
  const sorobanDataOf = async (hash: string) => {
    const got = await node.server.getTransaction(hash);
    assert.equal(got.status, "SUCCESS");
    const env = (got as { envelopeXdr: xdr.TransactionEnvelope }).envelopeXdr;
    assert.equal(env.type, "envelopeTypeTx");
    return (env as unknown as { v1: { tx: { ext: { sorobanData: xdr.SorobanTransactionData } } } })
      .v1.tx.ext.sorobanData;
  };
  let autoFee = 0n, autoShare = 0n;

  await t.step(
    "protocol 27: no restore stage, one transaction restores and withdraws",
    async () => {
      await node.advanceTime(6_200); // past the cooldown and the record's (maximum) TTL
      const wallet = counting(alice, net.passphrase);
      const stages: string[] = [];
      let auto: AutoRestore | undefined;
      const usdcBefore = await node.view<bigint>(usdc, "balance", { id: alice.publicKey() });
      const r = await writeCall<bigint>(net, vault, "withdraw", [alice.publicKey(), half], wallet, {
        onStage: (s, info) => {
          stages.push(s);
          auto ??= info?.autoRestore;
        },
        pollMs: 100,
      });
      assert.deepEqual(stages, ["building", "signing", "submitted", "confirmed"]);
      assert.equal(wallet.count, 1, "one signature");
      assert.ok(auto, "the automatic restore is reported");
      assert.ok(auto.entries >= 1, JSON.stringify(auto));
      assert.ok(BigInt(auto.resourceFee) > 0n, JSON.stringify(auto));
      assert.ok(auto.restoreFee !== null && BigInt(auto.restoreFee) > 0n, JSON.stringify(auto));
      assert.ok(BigInt(auto.restoreFee) <= BigInt(auto.resourceFee));
      autoFee = BigInt(auto.resourceFee);
      autoShare = BigInt(auto.restoreFee);
      assert.ok(r.value > 0n);
      const usdcAfter = await node.view<bigint>(usdc, "balance", { id: alice.publicKey() });
      assert.equal(usdcAfter - usdcBefore, r.value);
      // The transaction that landed restored the entries: its data lists them, and they are live.
      const keys = archivedEntryKeys(await sorobanDataOf(r.hash));
      assert.equal(keys.length, auto.entries);
      const live = await node.server.getLedgerEntries(...keys);
      assert.equal(live.entries.length, keys.length);
      for (const e of live.entries) assert.ok(e.liveUntilLedgerSeq! >= live.latestLedger);
    },
  );

  await t.step(
    "an RPC answering with a restorePreamble: the wallet signs the restore first",
    async () => {
      await node.advanceTime(6_200); // archived again
      await using old = startPreambleRpc(node.rpcUrl, node.networkPassphrase);
      const wallet = counting(alice, net.passphrase);
      const stages: string[] = [];
      let restoreFee: string | undefined;
      let auto: AutoRestore | undefined;
      const r = await writeCall<bigint>(
        { rpcUrl: old.url, passphrase: net.passphrase },
        vault,
        "withdraw",
        [alice.publicKey(), shares.value - half],
        wallet,
        {
          onStage: (s, info) => {
            stages.push(s);
            restoreFee ??= info?.restoreFee;
            auto ??= info?.autoRestore;
          },
          pollMs: 100,
        },
      );
      assert.equal(old.rewritten, 1, "the first simulation was answered with a preamble");
      assert.deepEqual(stages, [
        "building",
        "restoring",
        "submitted",
        "building",
        "signing",
        "submitted",
        "confirmed",
      ]);
      assert.equal(wallet.count, 2, "the restore, then the call");
      assert.ok(restoreFee !== undefined && BigInt(restoreFee) > 0n, `restore fee ${restoreFee}`);
      assert.equal(auto, undefined, "nothing left to restore inside the call");
      assert.ok(r.value > 0n);
      // The reported share bounds what the restore really added: the same withdrawal on live
      // entries costs at least the automatic one's fee minus that share (measured: 677,212
      // with the restore, 145,703 without, share reported 559,107 stroops).
      const liveFee = BigInt((await sorobanDataOf(r.hash)).resourceFee.toString());
      assert.ok(autoFee - liveFee > 0n, `${autoFee} vs ${liveFee}`);
      assert.ok(autoShare >= autoFee - liveFee, `share ${autoShare}, ${autoFee} - ${liveFee}`);
    },
  );
});

Deno.test("plain messages of the issue-20 contract errors", () => {
  const err = (caseName: string) =>
    new ContractCallError(
      "CVAULT",
      "flash",
      { type: "Contract", code: 165 },
      `Error(Contract, #165)`,
      "simulation",
      undefined,
      { message: caseName, caseName },
    );
  assert.match(plainError(err("SwapBelowFloor")), /returned less USDC than its floor/);
  assert.match(plainError(err("SwapBelowFloor")), /nothing happened/);
  assert.match(plainError(err("NotAllowed")), /swap-path token/);
  assert.match(plainError(err("NothingPending")), /no queued policy or configuration change/);
  // Issues 24 and 26: the liquidator's buy-leg ceiling and its on-chain MIN_PROFIT check.
  assert.match(plainError(err("SwapAboveCeiling")), /more USDC than its ceiling/);
  assert.match(plainError(err("BelowMinProfit")), /minimum profit .* nothing was lent/);
});
