/**
 * Issue 26, several fills at once: ONE registered keeper (a child process, real host, real Blend
 * Wasm) with its default two channel accounts fills two auctions that mature in the same ledger,
 * both in that ledger — each flash sent from its own channel account (the transaction's source),
 * the keeper's key signing only the flash's Soroban authorization. The test creates both
 * auctions itself, in one ledger, for two identical borrowers, so they share their first
 * profitable block; both fills land in it (0 ledgers after it, by the keeper's own account).
 */
import assert from "node:assert/strict";
import { Asset, type Keypair, Operation, rpc, TransactionBuilder } from "@stellar/stellar-sdk";
import { openBorrower } from "@vigil/demo/market_driver";
import {
  CHANNEL_FUNDING,
  ChannelPool,
  deriveChannels,
  keepChannelsFunded,
  readBalances,
  XLM,
} from "@vigil/keeper/channels";
import { ChainRpc } from "@vigil/soroban/rpc";
import { startTestNode } from "@vigil/testing/localnet";
import {
  auctionOf,
  events,
  keeperEnv,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  type World,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";

const REGISTERED = /registered in the keeper registry|AlreadyRegistered/;
/**
 * Ledgers closed at once after the auctions start: these auctions first clear MIN_PROFIT about
 * 190 blocks in, so the keeper, started after the skip, has ~20 one-second ledgers to get ready.
 */
const SKIP_LEDGERS = 170;

/** The first auction percent the pool accepts for `user` (Blend bounds it by the health band). */
async function acceptedPercent(w: World, user: string, bid: string[], lot: string[]) {
  for (const percent of [50, 40, 60, 30, 70, 25, 75, 20, 80, 90, 100, 10]) {
    try {
      await w.node.view(w.pool, "new_auction", { auction_type: 0, user, bid, lot, percent });
      return percent;
    } catch { /* refused: try the next */ }
  }
  throw new Error(`no auction percent accepted for ${user}`);
}

/** The source account of a transaction and the fee it paid (stroops), read back from the node. */
async function txSource(w: World, hash: string): Promise<{ source: string; fee: bigint }> {
  const got = await w.node.server.getTransaction(hash);
  assert.equal(got.status, "SUCCESS", `transaction ${hash}`);
  const ok = got as rpc.Api.GetSuccessfulTransactionResponse;
  const tx = TransactionBuilder.fromXDR(ok.envelopeXdr, w.node.networkPassphrase);
  return {
    source: "innerTransaction" in tx ? tx.innerTransaction.source : tx.source,
    fee: BigInt(String(ok.resultXdr.feeCharged)),
  };
}

Deno.test("one keeper with channel accounts fills two auctions maturing in the same ledger, both in that ledger", async () => {
  const w = await startWorld({ ledgerMs: 1000 });
  const keeper: Keypair = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    // Two identical borrowers (3,000 USD of XLM at HF 1.005), pushed under by −1 % XLM (the
    // market's own borrowers stay above water: these two are the only auctions).
    const borrowers = [];
    for (let i = 0; i < 2; i++) {
      borrowers.push(
        await openBorrower(w.node, w.market, { token: "xlm", usd: 3_000, hf: 1_0050000n }),
      );
    }
    await shock(w, w.xlm, -100);
    const users = borrowers.map((b) => b.address);
    const bid = [w.usdc];
    const lot = [w.xlm];
    const percents = await Promise.all(users.map((u) => acceptedPercent(w, u, bid, lot)));
    // Both auctions in one ledger: in-process calls between two closes of the ledger timer.
    await Promise.all(users.map((user, i) =>
      w.node.invoke(w.pool, "new_auction", {
        auction_type: 0,
        user,
        bid,
        lot,
        percent: percents[i],
      })
    ));
    const created = (await events(w, w.pool, "new_auction"))
      .filter((e) => users.includes(String(e.topics[2])));
    assert.equal(created.length, 2, "both auctions created");
    assert.equal(created[0].ledger, created[1].ledger, "both auctions start in one ledger");
    const starts = await Promise.all(users.map((u) => auctionOf(w, u)));
    assert.equal(starts[0]?.block, starts[1]?.block);

    // Most of the auctions' ~200-block curve is skipped before the keeper starts, so it sees the
    // ledgers come at their real pace (1 s) from then on and waits for the shared first
    // profitable block.
    await w.node.closeLedgers(SKIP_LEDGERS);

    // One keeper, registered alone: the primary of both auctions; two channel accounts (default).
    ({ k } = await startKeeper(keeperEnv(w, keeper)));
    await k.waitFor(REGISTERED, 30_000);
    await k.waitFor(/created 2 channel account\(s\)/, 30_000);
    const channels = (await deriveChannels(keeper, 2)).map((c) => c.publicKey());
    const funded = logLines(k).find((l) => /created 2 channel account\(s\)/.test(String(l.msg)));
    assert.deepEqual(funded?.created, channels, "the keeper created its two channel accounts");

    const fills = await until(
      async () => {
        const f = (await events(w, w.pool, "fill_auction"))
          .filter((e) => users.includes(String(e.topics[2])));
        return f.length >= 2 ? f : undefined;
      },
      90_000,
      "both fills",
    );
    assert.equal(fills.length, 2, "one fill per auction");
    const [a, b] = fills;
    // The keeper's account of each fill: its ledger and the first profitable block, from the
    // prices of that block.
    const landed = await until(
      () => {
        const l = logLines(k!).filter((l) =>
          /ledger\(s\) after the first profitable block/.test(String(l.msg)) &&
          users.includes(String(l.user))
        );
        return Promise.resolve(l.length >= 2 ? l : undefined);
      },
      10_000,
      "the keeper's two fill lines",
    );
    console.log(
      `channels: auctions created in ledger ${created[0].ledger}, first profitable block ${
        landed.map((l) => l.first_profitable_block).join("/")
      }, fills in ledgers ${a.ledger} and ${b.ledger}`,
    );
    assert.equal(a.ledger, b.ledger, "both auctions filled in the same ledger");
    for (const l of landed) {
      assert.equal(l.first_profitable_block, a.ledger, "filled in the ledger they matured in");
      assert.equal(l.ledgers_after_first_profitable, 0);
      assert.ok(channels.includes(String(l.channel)), "the fill line names its channel");
    }
    assert.notEqual(a.txHash, b.txHash, "two transactions");
    const flashes = await events(w, w.vault, "flash");
    const sources = new Set<string>();
    for (const f of fills) {
      // The filler is the keeper (Vigil's liquidator submits for it), inside a vault flash
      // through Vigil's liquidator, in the fill's own transaction.
      const [filler] = f.value as unknown[];
      assert.equal(String(filler), keeper.publicKey(), "the keeper is the filler");
      const flash = flashes.find((x) => x.txHash === f.txHash);
      assert.ok(flash, "the fill is a vault flash");
      assert.equal(String(flash.topics[1]), keeper.publicKey());
      assert.equal(
        String((flash.value as unknown[])[3]),
        w.liquidator,
        "through Vigil's liquidator",
      );
      const { source, fee } = await txSource(w, f.txHash);
      console.log(`channels: fill ${f.txHash.slice(0, 8)} from ${source}, fee ${fee} stroops`);
      assert.ok(channels.includes(source), `the fill's source ${source} is a channel account`);
      sources.add(source);
    }
    assert.equal(sources.size, 2, "each fill from its own channel account");
  } catch (e) {
    if (k) {
      console.error(
        k.stderr().split("\n").filter((l) => !l.includes('"level":"debug"')).slice(-40).join("\n"),
      );
    }
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

Deno.test("channel funding on a node: missing channels created in one transaction, a low one topped up to 10 XLM, nothing sent when all are funded", async () => {
  await using node = await startTestNode({ ledgerMs: 100 });
  const keeper = await node.newAccount(1_000n);
  const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
  try {
    const keys = await deriveChannels(keeper, 2);
    const ids = keys.map((k) => k.publicKey());
    const pool = new ChannelPool(keys);
    const first = await keepChannelsFunded(chain, keeper, pool);
    assert.deepEqual(first.created, ids);
    assert.equal(first.sent, 2n * CHANNEL_FUNDING);
    assert.equal(pool.size, 2);
    assert.deepEqual([...(await readBalances(chain, ids)).values()], [10n * XLM, 10n * XLM]);
    // Nothing due: one read, nothing sent.
    const idle = await keepChannelsFunded(chain, keeper, pool);
    assert.deepEqual([idle.created, idle.toppedUp, idle.sent, idle.txHash], [
      [],
      [],
      0n,
      undefined,
    ]);
    // Channel 1 spends 7 XLM (as fees would): below 4 XLM, topped up back to 10.
    const acc = await chain.server.getAccount(ids[1]);
    const spend = new TransactionBuilder(acc, {
      fee: "100",
      networkPassphrase: node.networkPassphrase,
    }).addOperation(Operation.payment({
      destination: keeper.publicKey(),
      asset: Asset.native(),
      amount: "7",
    })).setTimeout(60).build();
    spend.sign(keys[1]);
    assert.equal(
      (await node.confirm((await node.server.sendTransaction(spend)).hash)).status,
      "SUCCESS",
    );
    const low = (await readBalances(chain, ids)).get(ids[1])!;
    assert.ok(low < 4n * XLM);
    const topUp = await keepChannelsFunded(chain, keeper, pool);
    assert.deepEqual(topUp.toppedUp, [ids[1]]);
    assert.equal(topUp.sent, CHANNEL_FUNDING - low);
    assert.equal((await readBalances(chain, ids)).get(ids[1]), CHANNEL_FUNDING);
  } finally {
    chain.close();
  }
});
