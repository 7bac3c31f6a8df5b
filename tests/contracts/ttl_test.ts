/**
 * State archival (issue 20): every settled flash keeps the registry and the liquidator alive.
 * `registry.record_execution` extends the registry's instance and code TTL and
 * `liquidator.exec` its own, to 30 days (518,400 ledgers) once they fall below 14 days (241,920).
 * Before, only the vault extended itself: an active service could see its registry or liquidator
 * archived and every flash fail.
 *
 * The node here gives new entries 261,920 ledgers of TTL (instead of mainnet's 2,073,600), so a
 * few thousand closed ledgers bring them under the threshold. TTLs are read over JSON-RPC with
 * getLedgerEntries (`liveUntilLedgerSeq`).
 */
import assert from "node:assert/strict";
import { Address, xdr } from "@stellar/stellar-sdk";
import { planScVal } from "@vigil/testing/contracts/market_world";
import {
  send,
  TX_OPTS,
  USDC,
  type VigilFixture,
  withVigil,
} from "@vigil/testing/contracts/vigil_fixture";
import { deployFixture } from "@vigil/testing/contracts/mod";

const T = TX_OPTS;
/** The contracts' TTL policy (contracts/common/assembly/vigil.ts). */
const THRESHOLD = 17_280 * 14;
const EXTEND_TO = 17_280 * 30;

function instanceKey(id: string): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(id).toScAddress(),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
}

/** Ledgers left (liveUntil − latest) of a contract's instance and of its code. */
async function ttls(f: VigilFixture, id: string): Promise<{ instance: number; code: number }> {
  const inst = await f.server.getLedgerEntries(instanceKey(id));
  assert.equal(inst.entries.length, 1, `${id} instance`);
  const data = inst.entries[0].val;
  assert.ok(data.type === "contractData" && data.contractData.val.type === "scvContractInstance");
  const exe = data.contractData.val.instance.executable;
  assert.ok(exe.type === "contractExecutableWasm");
  const codeKey = xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: exe.wasmHash }));
  const code = await f.server.getLedgerEntries(codeKey);
  const latest = code.latestLedger;
  return {
    instance: inst.entries[0].liveUntilLedgerSeq! - latest,
    code: code.entries[0].liveUntilLedgerSeq! - latest,
  };
}

Deno.test("TTL: a settled flash extends the registry's instance and code (record_execution) and the liquidator's (exec) to 30 days once below 14 days", async () => {
  await withVigil(
    async (f) => {
      const alice = await f.user(1_000n * USDC);
      await send(
        await (await f.client(f.vault, alice)).deposit({
          depositor: alice.publicKey(),
          amount: 1_000n * USDC,
        }, T),
      );
      const kim = await f.user(200n * USDC);
      const k = kim.publicKey();
      await send(await (await f.client(f.registry, kim)).register({ operator: k, name: "kim" }, T));
      // A listed pool for an empty-plan flash through the liquidator (queued, then in force).
      const pool = await deployFixture(f.node, "taking_pool");
      await f.setPolicy({ ...(await f.policy()), pools: [pool] });
      // Let everything drift under the threshold: no transaction touches the contracts meanwhile.
      const before = {
        registry: await ttls(f, f.registry),
        liquidator: await ttls(f, f.liquidator),
      };
      const drift = Math.max(before.registry.instance, before.liquidator.instance) - THRESHOLD +
        100;
      if (drift > 0) await f.node.closeLedgers(drift);
      const low = { registry: await ttls(f, f.registry), liquidator: await ttls(f, f.liquidator) };
      for (const [name, t] of Object.entries(low)) {
        assert.ok(t.instance < THRESHOLD && t.code < THRESHOLD, `${name} below the threshold`);
      }
      // One settled flash (profit 0) through the liquidator.
      const kv = await f.client(f.vault, kim);
      await send(
        await kv.flash({
          keeper: k,
          executor: f.liquidator,
          amount: 1n * USDC,
          data: planScVal(pool, [], []),
          response_time_ms: 0n,
        }, T),
      );
      const after = {
        registry: await ttls(f, f.registry),
        liquidator: await ttls(f, f.liquidator),
      };
      console.log(
        `TTL (ledgers left): registry instance ${low.registry.instance} -> ` +
          `${after.registry.instance}, code ${low.registry.code} -> ${after.registry.code}; ` +
          `liquidator instance ${low.liquidator.instance} -> ${after.liquidator.instance}, code ` +
          `${low.liquidator.code} -> ${after.liquidator.code}`,
      );
      // Extended to the flash's ledger + 518,400 (read one ledger later at most).
      for (const [name, t] of Object.entries(after)) {
        assert.ok(
          t.instance >= EXTEND_TO - 1 && t.instance <= EXTEND_TO,
          `${name} instance ${t.instance}`,
        );
        assert.ok(t.code >= EXTEND_TO - 1 && t.code <= EXTEND_TO, `${name} code ${t.code}`);
      }
    },
    {},
    { network: { minPersistentTtl: THRESHOLD + 20_000 } },
  );
});
