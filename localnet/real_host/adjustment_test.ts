/**
 * The resource adjustment of the node's simulateTransaction, pinned against the real RPC's.
 *
 * stellar-rpc (cmd/stellar-rpc/lib/preflight/src/shared.rs) preflights with soroban-simulation's
 * `SimulationAdjustmentConfig::default_adjustment()` (rs-soroban-env
 * soroban-simulation/src/simulation.rs): instructions ×1.04 with at least +50,000, read and write
 * bytes unadjusted, tx size ×1.1 + 500, refundable fee ×1.15; `adjust_u32` takes
 * `max(v + additive, floor(v × multiplicative))` and leaves 0 at 0. A request's
 * `resourceConfig.instructionLeeway` replaces the additive 50,000 when larger.
 */
import assert from "node:assert/strict";
import {
  Account,
  Address,
  Keypair,
  nativeToScVal,
  Operation,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { fixtureWasmSync } from "@vigil/testing/contracts/mod";
import { call, RealLedger } from "@vigil/testing/real_host/ledger";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { startTestNode } from "@vigil/testing/localnet";
import { closeRealHost, simulateInvoke } from "./mod.ts";
import { adjustedInstructions, instructionFee, INSTRUCTIONS_ADJUSTMENT } from "./node_host.ts";
import { FEE_CONFIG } from "../fees.ts";

Deno.test("adjustedInstructions: stellar-rpc's figures (×1.04, at least +50,000, leeway)", () => {
  assert.deepEqual(INSTRUCTIONS_ADJUSTMENT, { multiplicative: 1.04, additive: 50_000 });
  assert.equal(adjustedInstructions(0), 0, "an unused resource stays 0");
  assert.equal(adjustedInstructions(1), 50_001);
  assert.equal(adjustedInstructions(1_000_000), 1_050_000);
  assert.equal(adjustedInstructions(1_250_000), 1_300_000, "both terms meet");
  assert.equal(adjustedInstructions(2_000_000), 2_080_000);
  assert.equal(adjustedInstructions(12_345_678), 12_839_505, "floor(12,345,678 × 1.04)");
  // A leeway up to 50,000 changes nothing; a larger one replaces the additive term.
  assert.equal(adjustedInstructions(1_000_000, 10_000), 1_050_000);
  assert.equal(adjustedInstructions(1_000_000, 3_000_000), 4_000_000);
  assert.equal(adjustedInstructions(100_000_000, 3_000_000), 104_000_000);
  assert.equal(instructionFee(10_000, 25n), 25n);
  assert.equal(instructionFee(10_001, 25n), 26n, "rounded up");
});

Deno.test("real host: the simulated resources are the metered ones, adjusted as stellar-rpc does", () => {
  try {
    const l = new RealLedger();
    const admin = Keypair.random().publicKey();
    const user = Keypair.random().publicKey();
    l.account(admin, 1_000_0000000n);
    l.account(user, 1_000_0000000n);
    const counter = l.deploy(admin, fixtureWasmSync("counter"), [new Address(admin).toScVal()]);
    const hostFunction = call(counter, "increment", [
      new Address(user).toScVal(),
      nativeToScVal(5, { type: "u32" }),
    ]);
    const sim = (adjust: boolean) =>
      simulateInvoke({
        hostFunction,
        sourceAccount: Keypair.fromPublicKey(user).xdrAccountId(),
        ledger: l.info(),
        snapshot: (k) => l.entries.get(k),
        prngSeed: new Uint8Array(32).fill(7),
        adjust,
      });
    const raw = sim(false), adj = sim(true);
    assert.ok(raw.ok && adj.ok, raw.error?.debug);
    const r = raw.transactionData!.resources, a = adj.transactionData!.resources;
    assert.equal(r.instructions, raw.cpuInsns, "unadjusted = the metered instructions");
    assert.equal(adj.cpuInsns, raw.cpuInsns);
    assert.equal(a.instructions, adjustedInstructions(raw.cpuInsns));
    assert.equal(
      a.instructions,
      Math.max(raw.cpuInsns + 50_000, Math.floor(raw.cpuInsns * 1.04)),
    );
    assert.equal(a.diskReadBytes, r.diskReadBytes, "read bytes unadjusted");
    assert.equal(a.writeBytes, r.writeBytes, "write bytes unadjusted");
    assert.ok(a.writeBytes > 0);
    assert.ok(adj.transactionData!.resourceFee > raw.transactionData!.resourceFee);
  } finally {
    closeRealHost();
  }
});

Deno.test("simulateTransaction: resourceConfig.instructionLeeway as stellar-rpc applies it", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const acc = await node.server.getAccount(admin.publicKey());
  const tx = new TransactionBuilder(new Account(acc.accountId(), acc.sequenceNumber()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeContractFunction({
      contract: id,
      function: "get",
      args: [new Address(admin.publicKey()).toScVal()],
    }))
    .setTimeout(60)
    .build();
  const simulate = async (leeway?: number) => {
    const res = await fetch(node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "simulateTransaction",
        params: {
          transaction: tx.toXDR(),
          ...(leeway === undefined ? {} : { resourceConfig: { instructionLeeway: leeway } }),
        },
      }),
    });
    const j = (await res.json()).result;
    assert.ok(j.transactionData, JSON.stringify(j));
    const data = xdr.SorobanTransactionData.fromXDR(j.transactionData, "base64");
    return { ins: data.resources.instructions, fee: BigInt(j.minResourceFee) };
  };
  const base = await simulate();
  // A read this small is in the additive branch (0.04 × instructions < 50,000), so the metered
  // count is base − 50,000.
  assert.ok(base.ins < 1_250_000, `${base.ins}`);
  const metered = base.ins - 50_000;
  assert.equal(base.ins, adjustedInstructions(metered));
  // Up to 50,000 the leeway is already covered: nothing changes (it is not added on top).
  assert.deepEqual(await simulate(10_000), base);
  assert.deepEqual(await simulate(50_000), base);
  // Larger, it replaces the 50,000; the fee follows by the instruction term alone.
  const big = await simulate(3_000_000);
  assert.equal(big.ins, metered + 3_000_000);
  const rate = FEE_CONFIG.perInstructionIncrement;
  assert.equal(big.fee - base.fee, instructionFee(big.ins, rate) - instructionFee(base.ins, rate));
});
