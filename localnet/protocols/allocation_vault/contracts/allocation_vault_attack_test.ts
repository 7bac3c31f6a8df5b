/**
 * Attackers against the allocation vault and HODL strategy Wasm over JSON-RPC: Mallory, a
 * funded account with no role, calls every value-moving function with every assignment of the
 * parties (herself, a depositor, the manager, the vault, the strategies) to its address
 * arguments. Each attempt is refused in simulation, needs a signature that is not hers (the
 * first such call per function is sent with the entries signed by her key and the node refuses
 * it), or moves only her own funds. After every attempt: no victim's tokens, shares, share
 * value or strategy balance fell, the vault's share price and locked fees did not fall, roles,
 * pauses, fees and targets are unchanged, and Mallory is not richer.
 */
import assert from "node:assert/strict";
import {
  authorizeEntry,
  Keypair,
  Operation,
  rpc,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { type Client, TX } from "@vigil/testing/protocols/helpers/client";
import { setupDevChain } from "../../../dev_setup.ts";
import { deployAllocationVault } from "../deploy.ts";
import { sendAssembled, submitHostile } from "@vigil/testing/submit";

const E7 = 10_000_000n;

interface World {
  node: TestNode;
  mallory: Keypair;
  alice: string;
  manager: string;
  vault: string;
  s: string[];
  usdc: string;
}

/** A vault with a depositor (alice), invested 60/30 with 10 idle, and locked fees. */
async function withWorld(fn: (w: World) => Promise<void>): Promise<void> {
  await using node = await startTestNode();
  const base = await setupDevChain(node, { accounts: ["manager", "alice", "mallory"] });
  const manager = base.accounts.manager.public;
  const alice = base.accounts.alice.public;
  const usdc = base.contracts.usdc;
  const d = await deployAllocationVault(node, {
    asset: usdc,
    manager,
    weights: [5000, 5000],
    seed: { from: alice, amount: 1_000n * E7 },
    initialAllocation: [6000, 3000],
    vaultFeeBps: 1000,
  });
  // Yield on strategy 0, booked and its fee locked: distribute_fees has something to move.
  await node.invoke(usdc, "mint", [d.strategies[0], 50n * E7]);
  await node.invoke(d.allocation_vault, "report", {}, { source: manager });
  await node.invoke(d.allocation_vault, "lock_fees", { new_fee_bps: null }, { source: manager });
  // Alice also holds shares of strategy 0 directly.
  await node.invoke(d.strategies[0], "deposit", { amount: 20n * E7, from: alice }, {
    source: alice,
  });
  await node.closeLedgers(1);
  await fn({
    node,
    mallory: Keypair.fromSecret(base.accounts.mallory.secret),
    alice,
    manager,
    vault: d.allocation_vault,
    s: d.strategies,
    usdc,
  });
}

/** Everything an attack could change, in comparable form. */
async function observe(w: World) {
  const v = <R>(c: string, f: string, a: Record<string, unknown> | unknown[] = {}) =>
    w.node.view<R>(c, f, a);
  const usdc = (id: string) => v<bigint>(w.usdc, "balance", [id]);
  const shares = (id: string) => v<bigint>(w.vault, "balance", { id });
  const quote = async (n: bigint) =>
    n === 0n ? 0n : (await v<bigint[]>(w.vault, "get_asset_amounts_per_shares", {
      vault_shares: n,
    }))[0];
  const inStrategies = async (id: string) => {
    let t = 0n;
    for (const s of w.s) t += await v<bigint>(s, "balance", { from: id });
    return t;
  };
  const party = async (id: string) => {
    const sh = await shares(id);
    return {
      usdc: await usdc(id),
      shares: sh,
      value: await quote(sh),
      hodl: await inStrategies(id),
    };
  };
  const funds = (await v<{ total_amount: bigint }[]>(w.vault, "fetch_total_managed_funds"))[0];
  const m = w.mallory.publicKey();
  const mal = await party(m);
  return {
    alice: await party(w.alice),
    manager: await party(w.manager),
    lockedShares: await shares(w.vault),
    total: funds.total_amount,
    supply: await v<bigint>(w.vault, "total_supply"),
    config: JSON.stringify(
      [
        await v(w.vault, "get_manager"),
        await v(w.vault, "get_emergency_manager"),
        await v(w.vault, "get_rebalance_manager"),
        await v(w.vault, "get_fee_receiver"),
        await v(w.vault, "get_assets"),
        await v(w.vault, "get_fees"),
        await v(w.vault, "get_target_weights"),
      ],
      (_k, x) => typeof x === "bigint" ? x.toString() : x,
    ),
    // Fees locked for the fee receivers (lock_fees simulated with the manager's auth mocked).
    lockedFees: (await v<{ locked_fee: bigint }[]>(w.vault, "lock_fees", { new_fee_bps: null }))
      .reduce((t, r) => t + r.locked_fee, 0n),
    mallory: mal.usdc + mal.value + mal.hodl,
  };
}

type Obs = Awaited<ReturnType<typeof observe>>;

function assertNoHarm(before: Obs, after: Obs, what: string): void {
  for (const who of ["alice", "manager"] as const) {
    // Mallory may give her own funds away; nobody else's may fall.
    assert.ok(after[who].usdc >= before[who].usdc, `${what}: ${who}'s tokens fell`);
    assert.ok(after[who].shares >= before[who].shares, `${what}: ${who}'s vault shares fell`);
    assert.ok(after[who].value >= before[who].value, `${what}: ${who}'s share value fell`);
    assert.ok(after[who].hodl >= before[who].hodl, `${what}: ${who}'s strategy balance fell`);
  }
  assert.ok(after.lockedShares >= before.lockedShares, `${what}: locked shares fell`);
  // The share price never falls: total/supply.
  assert.ok(after.total * before.supply >= before.total * after.supply, `${what}: share price`);
  assert.ok(after.lockedFees >= before.lockedFees, `${what}: locked fees fell`);
  assert.equal(after.config, before.config, `${what}: roles, assets, fees or targets changed`);
  assert.ok(after.mallory <= before.mallory, `${what}: mallory got richer`);
}

/** Sends `tx` with every auth entry signed by `signer` (a forgery); the node must refuse it. */
async function forge(node: TestNode, signer: Keypair, tx: Awaited<ReturnType<Client[string]>>) {
  const built = tx.built!;
  const op = built.operations[0] as Operation.InvokeHostFunction;
  const latest = node.latestLedger().sequence;
  const forged = await Promise.all(
    (op.auth ?? []).map((e: xdr.SorobanAuthorizationEntry) =>
      authorizeEntry(e, signer, latest + 100, node.networkPassphrase)
    ),
  );
  const account = await node.server.getAccount(signer.publicKey());
  const sim = tx.simulation as rpc.Api.SimulateTransactionSuccessResponse;
  const t = new TransactionBuilder(account, {
    fee: "10000000",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(Operation.invokeHostFunction({ func: op.func, auth: forged }))
    .setSorobanData(sim.transactionData.build())
    .setTimeout(0).build();
  t.sign(signer);
  assert.notEqual(
    await submitHostile(node.server, t),
    "succeeded",
    "a forged authorization must not be accepted",
  );
}

/** Every assignment of `pool` to `n` address arguments. */
function assignments(pool: string[], n: number): string[][] {
  if (n === 0) return [[]];
  return assignments(pool, n - 1).flatMap((rest) => pool.map((p) => [p, ...rest]));
}

interface Tally {
  refused: number;
  needsOthers: number;
  forged: number;
  ownFunds: number;
}

async function attack(
  w: World,
  contract: string,
  fn: string,
  argSets: Record<string, unknown>[],
  tally: Tally,
): Promise<void> {
  const c = await w.node.clientFor<Client>(contract, w.mallory);
  const m = w.mallory.publicKey();
  let forgedOnce = false;
  for (const args of argSets) {
    const what = `${fn}(${JSON.stringify(args, (_k, x) => typeof x === "bigint" ? `${x}` : x)})`;
    const before = await observe(w);
    const tx = await c[fn](args, TX);
    if (rpc.Api.isSimulationError(tx.simulation!)) {
      tally.refused++;
    } else {
      const needs = tx.needsNonInvokerSigningBy();
      if (needs.length > 0) {
        assert.ok(!needs.includes(m), what);
        tally.needsOthers++;
        if (!forgedOnce) {
          await forge(w.node, w.mallory, tx);
          forgedOnce = true;
          tally.forged++;
        }
      } else {
        // Only Mallory's own authority is needed: she may send it.
        // Included and successful, or sendAssembled throws.
        await sendAssembled(tx, { force: true });
        tally.ownFunds++;
      }
    }
    assertNoHarm(before, await observe(w), what);
  }
}

const newTally = (): Tally => ({ refused: 0, needsOthers: 0, forged: 0, ownFunds: 0 });

Deno.test("allocation vault attack: deposit, withdraw and share transfer with any parties", async () => {
  await withWorld(async (w) => {
    const m = w.mallory.publicKey();
    const P = [m, w.alice, w.manager, w.vault, ...w.s];
    const t = newTally();
    await attack(
      w,
      w.vault,
      "deposit",
      P.flatMap((from) =>
        [1_000n, 100n * E7].flatMap((amount) =>
          [false, true].map((invest) => ({
            amounts_desired: [amount],
            amounts_min: [0n],
            from,
            invest,
          }))
        )
      ),
      t,
    );
    await attack(
      w,
      w.vault,
      "withdraw",
      P.flatMap((from) =>
        [1n, 999n * E7].map((withdraw_shares) => ({
          withdraw_shares,
          min_amounts_out: [0n],
          from,
        }))
      ),
      t,
    );
    await attack(
      w,
      w.vault,
      "transfer",
      assignments(P, 2).map(([from, to]) => ({ from, to, amount: 5n * E7 })),
      t,
    );
    // Every class of outcome happened: the test exercised refusals, forgeries and own funds.
    assert.ok(
      t.refused > 0 && t.needsOthers > 0 && t.forged === 3 && t.ownFunds > 0,
      JSON.stringify(t),
    );
  });
});

Deno.test("allocation vault attack: rebalance, rescue, pause, fees, roles and targets with any parties", async () => {
  await withWorld(async (w) => {
    const m = w.mallory.publicKey();
    const P = [m, w.alice, w.manager, w.vault, ...w.s];
    const t = newTally();
    const plans = [
      [{ tag: "Unwind", values: [w.s[0], 10n * E7] }],
      [{ tag: "Invest", values: [w.s[1], 10n * E7] }],
    ];
    await attack(
      w,
      w.vault,
      "rebalance",
      P.flatMap((caller) => plans.map((instructions) => ({ caller, instructions }))),
      t,
    );
    for (const fn of ["rescue", "pause_strategy", "unpause_strategy"]) {
      await attack(
        w,
        w.vault,
        fn,
        assignments(P, 2).filter(([s]) => w.s.includes(s)).map(([strategy_address, caller]) => ({
          strategy_address,
          caller,
        })),
        t,
      );
    }
    await attack(w, w.vault, "distribute_fees", P.map((caller) => ({ caller })), t);
    await attack(w, w.vault, "lock_fees", [{ new_fee_bps: null }, { new_fee_bps: 9000 }], t);
    await attack(
      w,
      w.vault,
      "release_fees",
      w.s.map((strategy) => ({ strategy, amount: 1n })),
      t,
    );
    await attack(
      w,
      w.vault,
      "set_fee_receiver",
      assignments(P, 2).map(([caller, new_fee_receiver]) => ({ caller, new_fee_receiver })),
      t,
    );
    await attack(w, w.vault, "set_manager", P.map((new_manager) => ({ new_manager })), t);
    await attack(
      w,
      w.vault,
      "set_emergency_manager",
      P.map((emergency_manager) => ({ emergency_manager })),
      t,
    );
    await attack(
      w,
      w.vault,
      "set_rebalance_manager",
      P.map((new_rebalance_manager) => ({ new_rebalance_manager })),
      t,
    );
    await attack(
      w,
      w.vault,
      "set_target_weights",
      P.map((caller) => ({ caller, weights: new Map([[w.s[0], 10_000]]) })),
      t,
    );
    assert.ok(t.refused > 0 && t.needsOthers > 0, JSON.stringify(t));
  });
});

Deno.test("HODL strategy attack: deposit, withdraw and harvest with any parties", async () => {
  await withWorld(async (w) => {
    const m = w.mallory.publicKey();
    const P = [m, w.alice, w.manager, w.vault, ...w.s];
    const t = newTally();
    for (const s of w.s) {
      await attack(
        w,
        s,
        "deposit",
        P.flatMap((from) => [1n * E7, 1n].map((amount) => ({ amount, from }))),
        t,
      );
      await attack(
        w,
        s,
        "withdraw",
        assignments(P, 2).map(([from, to]) => ({ amount: 1n * E7, from, to })),
        t,
      );
      await attack(w, s, "harvest", P.map((from) => ({ from, data: null })), t);
    }
    assert.ok(t.refused > 0 && t.needsOthers > 0 && t.ownFunds > 0, JSON.stringify(t));
  });
});
