/**
 * The protocol-27 network settings table (localnet/network_settings.ts): the rent-rate formula,
 * the fee configuration it yields (the node's), and the list of the node's values that still
 * differ — pinned, so localnet/README.md's table stays true.
 */
import assert from "node:assert/strict";
import { Asset, Operation, TransactionBuilder } from "@stellar/stellar-sdk";
import {
  LEDGER_LIMITS,
  MAX_ENTRY_TTL,
  MIN_PERSISTENT_TTL,
  MIN_TEMPORARY_TTL,
  TX_LIMITS,
} from "./constants.ts";
import { FEE_CONFIG, nonRefundableFee } from "./fees.ts";
import {
  differencesFrom,
  MINIMUM_RENT_FEE_PER_1KB,
  P27_MAINNET_STATE_SIZE_SAMPLE,
  P27_SETTINGS,
  p27FeeConfig,
  rentFeePer1kb,
} from "./network_settings.ts";
import { startTestNode } from "@vigil/testing/localnet";

Deno.test("P27 rent rate: floor below the target, `high` at it, growth factor past it", () => {
  // The public network's state (~825 MB of a 3 GB target): the linear part is negative.
  assert.equal(rentFeePer1kb(P27_MAINNET_STATE_SIZE_SAMPLE), MINIMUM_RENT_FEE_PER_1KB);
  assert.equal(rentFeePer1kb(0n), 1_000n);
  // low + (high − low) × size / target, rounded up: at 2.5 GB, −17,000 + 22,500.
  assert.equal(rentFeePer1kb(2_500_000_000n), 5_500n);
  assert.equal(rentFeePer1kb(3_000_000_000n), 10_000n);
  // 30 MB past the target: 10,000 + 27,000 × 0.01 × 5,000 = 1,360,000.
  assert.equal(rentFeePer1kb(3_030_000_000n), 1_360_000n);
});

Deno.test("P27 fee schedule: CAP-66's flat write fee after SLP-4 (875/KB), rent 1,000/KB", () => {
  const f = p27FeeConfig();
  assert.equal(f.perWrite1kb, 875n);
  assert.equal(P27_SETTINGS.feeWrite1kb.xdr, "fee_write1_kb");
  assert.equal(f.rentPer1kb, 1_000n);
  assert.equal(f.perInstructionIncrement, 7n);
  // It is the node's schedule.
  assert.deepEqual(FEE_CONFIG, f);
  // A typical SAC transfer's non-refundable resources cost about a quarter of the protocol-23-era
  // schedule the node ran before issue 22 (the Stellar docs' table of 2025).
  const P23_ERA = {
    perInstructionIncrement: 25n,
    perDiskReadEntry: 6_250n,
    perWriteEntry: 10_000n,
    perDiskRead1kb: 1_786n,
    perWrite1kb: 11_539n,
    perHistorical1kb: 16_235n,
    perTxSize1kb: 1_624n,
    perEvent1kb: 10_000n,
    rentPer1kb: 11_539n,
    persistentRentDenominator: 1_402n,
    temporaryRentDenominator: 2_804n,
  };
  const r = {
    instructions: 2_000_000,
    diskReadEntries: 2,
    writeEntries: 2,
    diskReadBytes: 300,
    writeBytes: 300,
    txSizeBytes: 700,
  };
  const before = nonRefundableFee(r, P23_ERA);
  const p27 = nonRefundableFee(r, f);
  assert.ok(p27 * 3n < before && p27 * 5n > before, `${p27} vs ${before}`);
});

Deno.test("P27 settings: the node differs only in its per-ledger capacity (README table)", () => {
  const diff = differencesFrom({
    fees: FEE_CONFIG,
    txLimits: TX_LIMITS,
    ledger: LEDGER_LIMITS,
    ttl: { minPersistent: MIN_PERSISTENT_TTL, minTemporary: MIN_TEMPORARY_TTL, max: MAX_ENTRY_TTL },
  });
  assert.deepEqual(
    diff.map((d) => `${d.setting}: ${d.node} → ${d.p27}`),
    [
      "ledger_max_tx_count: 100 → 2000",
      "ledger_max_instructions: 500000000 → 580000000",
    ],
  );
});

Deno.test("P27 fee schedule (the default): a payment and a SAC transfer land", async () => {
  await using node = await startTestNode();
  const xlm = await node.deployAsset(Asset.native());
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  const client = await node.clientFor<
    {
      transfer(
        a: unknown,
      ): Promise<{ signAndSend(): Promise<{ getTransactionResponse?: { status: string } }> }>;
    }
  >(xlm, alice);
  const sent =
    await (await client.transfer({ from: alice.publicKey(), to: bob.publicKey(), amount: 1n }))
      .signAndSend();
  assert.equal(sent.getTransactionResponse?.status, "SUCCESS");
  const pay = new TransactionBuilder(await node.server.getAccount(bob.publicKey()), {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(
    Operation.payment({ destination: alice.publicKey(), asset: Asset.native(), amount: "1" }),
  )
    .setTimeout(30).build();
  pay.sign(bob);
  assert.equal(
    (await node.confirm((await node.server.sendTransaction(pay)).hash)).status,
    "SUCCESS",
  );
});
