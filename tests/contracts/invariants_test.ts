/**
 * Property tests of the vault + registry (fast-check), in-process through the local node's
 * `invoke` (auth mocked, no fees): random sequences of deposits, withdrawals, flashes by any
 * party (repaid with profit / exactly / short / not at all / re-entering the vault; through the
 * listed executor, one no admin listed, or Vigil's liquidator with an empty or a losing plan), (de)registrations, min_stake changes, flash-policy
 * changes (list / de-list the executor, out of bounds) and time moves over three depositors and
 * two keepers,
 * with the model and invariants of `vigil_model.ts` (the share price never falls; no keeper
 * gains) checked after every step; and the share-inflation attack.
 *
 * CI runs a bounded number of cases; `VIGIL_PROPERTY_RUNS=<n>` runs n cases of each property
 * (the attack property runs 2n).
 */
import fc from "fast-check";
import { StrKey } from "@stellar/stellar-sdk";
import { deployVigil } from "../../contracts/deploy.ts";
import { scriptedExecutor, takingPool } from "../fixtures/scripted_executor.ts";
import { startVigil, type VigilFixture } from "./vigil_fixture.ts";
import {
  attackArb,
  big,
  opArb,
  propertyRuns,
  runInflationAttack,
  type VigilChain,
  VigilModel,
} from "./vigil_model.ts";

/** Actors: G accounts (trustlines) and contract addresses (SAC contract balances). */
interface Actors {
  depositors: string[];
  keepers: string[];
  /** A copy of the test executor that no admin lists. */
  rogue: string;
  /** A fake lending pool for liquidator flashes (listed in the policy). */
  pool: string;
}

async function actors(f: VigilFixture): Promise<Actors> {
  const funds = 10n ** 17n; // within a trustline's i64 limit
  const g = async () => (await f.user(funds)).publicKey();
  const c = async () => {
    const id = StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);
    await f.mint(id, funds);
    return id;
  };
  return {
    depositors: [await g(), await g(), await c()],
    keepers: [await g(), await c()],
    rogue: await f.node.deployContract(scriptedExecutor, {}),
    pool: await f.node.deployContract(takingPool, {}),
  };
}

/** A fresh vault + registry on the shared node, seen through the model's chain interface. */
async function freshChain(f: VigilFixture, a: Actors): Promise<VigilChain> {
  const { vault, registry, liquidator } = await deployVigil(f.node, {
    usdc: f.usdc,
    // A contract address: the mocked-auth invoke needs no account entry for it.
    admin: StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never),
  });
  const node = f.node;
  return {
    vault,
    registry,
    executor: f.executor,
    liquidator,
    rogue: a.rogue,
    pool: a.pool,
    usdc: f.usdc,
    depositors: a.depositors,
    keepers: a.keepers,
    invoke: (id, fn, args) => node.invoke(id, fn, args),
    view: (id, fn, args) => node.view(id, fn, args),
    balance: (addr) => f.balance(addr),
    mint: (addr, amount) => f.mint(addr, amount),
    advanceTime: (s) => node.advanceTime(s),
    // Exactly the timestamp the next direct invocation runs at (the open ledger's close time).
    now: () => Promise.resolve(node.chain.hostLedger().timestamp),
    ledger: () => Promise.resolve(node.chain.hostLedger().sequence),
  };
}

Deno.test("property: vault + registry invariants over random operation sequences", async () => {
  const f = await startVigil();
  try {
    const a = await actors(f);
    VigilModel.stats = {};
    const runs = propertyRuns(80);
    const t0 = performance.now();
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb(a.depositors.length, a.keepers.length), {
          minLength: 10,
          maxLength: 60,
          size: "max",
        }),
        async (ops) => {
          const m = new VigilModel(await freshChain(f, a));
          await m.init();
          for (const op of ops) await m.step(op);
        },
      ),
      { numRuns: runs },
    );
    const s = VigilModel.stats;
    console.log(
      `${runs} sequences in ${Math.round(performance.now() - t0)} ms; outcomes:`,
      JSON.stringify(s, big),
    );
    // The generator must reach the interesting paths, or the property proves little.
    for (
      const k of [
        "deposit:ok",
        "withdraw:ok",
        "flash:ok",
        "flash_profit",
        "flash_exact",
        "flash_liq",
        "flash:148",
        "flash:host",
        "flash:104",
        "flash:123",
        "flash:144",
        "flash:149",
        "policy:ok",
        "policy:107",
        "deregister:ok",
      ]
    ) {
      if (!s[k]) throw new Error(`no ${k} in ${runs} sequences`);
    }
  } finally {
    await f.close();
  }
});

Deno.test("property: the share-inflation (first-depositor) attack is unprofitable", async () => {
  const f = await startVigil();
  try {
    const a = await actors(f);
    const runs = propertyRuns(80) * 2;
    await fc.assert(
      fc.asyncProperty(attackArb, async (k) => {
        await runInflationAttack(await freshChain(f, a), k);
      }),
      { numRuns: runs },
    );
  } finally {
    await f.close();
  }
});
