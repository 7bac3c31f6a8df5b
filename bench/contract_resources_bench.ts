/**
 * Measured resources of each Vigil contract function on the local node's Wasm path, as
 * simulation reports them (what a transaction would declare): CPU instructions, footprint read
 * and write entries, disk-read and write bytes, and contract events, against the node's
 * per-transaction limits. Prints the Markdown table kept in `contracts/README.md`.
 *
 * Run: `deno run -A bench/contract_resources_bench.ts`
 *
 * @module
 */
import {
  Address,
  Asset,
  contract,
  Keypair,
  Operation,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startLocalnet } from "../localnet/mod.ts";
import { TX_LIMITS } from "../localnet/constants.ts";
import { deployVigil, USDC } from "../contracts/deploy.ts";

// deno-lint-ignore no-explicit-any
type AnyClient = contract.Client & Record<string, any>;
const TX = { timeoutInSeconds: 86400 } as const;

const net = await startLocalnet({ port: 0, ledgerMs: 0 });
const server = new rpc.Server(net.rpcUrl, { allowHttp: true });
try {
  const issuer = Keypair.random();
  await net.fund(issuer.publicKey());
  const asset = new Asset("USDC", issuer.publicKey());
  const usdc = await net.deployAsset(asset);
  const admin = Keypair.random();
  await net.fund(admin.publicKey());
  const { vault, registry, liquidator } = await deployVigil(net, {
    usdc,
    admin: admin.publicKey(),
    config: { withdraw_cooldown: 0n },
  });

  const user = async (amount: bigint): Promise<Keypair> => {
    const kp = Keypair.random();
    await net.fund(kp.publicKey());
    const account = await server.getAccount(kp.publicKey());
    const tx = new TransactionBuilder(account, {
      fee: "1000",
      networkPassphrase: net.networkPassphrase,
    })
      .addOperation(Operation.changeTrust({ asset })).setTimeout(60).build();
    tx.sign(kp);
    await server.pollTransaction((await server.sendTransaction(tx)).hash, { attempts: 60 });
    await net.invoke(usdc, "mint", { to: kp.publicKey(), amount }, { source: issuer.publicKey() });
    return kp;
  };
  const client = (id: string, kp: Keypair) =>
    contract.Client.from({
      contractId: id,
      networkPassphrase: net.networkPassphrase,
      rpcUrl: net.rpcUrl,
      allowHttp: true,
      publicKey: kp.publicKey(),
      ...contract.basicNodeSigner(kp, net.networkPassphrase),
    }) as Promise<AnyClient>;

  const rows: string[] = [];
  /** Records the simulation's resources of `tx`, then (optionally) sends it. */
  // deno-lint-ignore no-explicit-any
  const measure = async (label: string, tx: contract.AssembledTransaction<any>, send = true) => {
    const sim = tx.simulation as rpc.Api.SimulateTransactionSuccessResponse;
    if (rpc.Api.isSimulationError(sim)) throw new Error(`${label}: ${sim.error}`);
    // deno-lint-ignore no-explicit-any
    const data = (sim.transactionData.build() as any).toJson();
    const r = data.resources;
    const events = (sim.events ?? []).filter((e) =>
      // deno-lint-ignore no-explicit-any
      (e as any).toJson().event.type === "contract"
    ).length;
    rows.push(
      `| ${label} | ${
        Number(r.instructions).toLocaleString("en-US")
      } | ${r.footprint.read_only.length} | ${r.footprint.read_write.length} | ${
        Number(r.disk_read_bytes ?? r.read_bytes ?? 0).toLocaleString("en-US")
      } | ${Number(r.write_bytes).toLocaleString("en-US")} | ${events} |`,
    );
    if (send) await tx.signAndSend();
  };

  const plan = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("allowance_until"),
      val: xdr.ScVal.scvU32(1_000_000),
    }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("pool"), val: new Address(registry).toScVal() }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("requests"), val: xdr.ScVal.scvVec([]) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("swaps"), val: xdr.ScVal.scvVec([]) }),
  ]);

  const keeper = await user(1_000n * USDC);
  const alice = await user(10_000n * USDC);
  const bob = await user(10_000n * USDC);
  const reg = await client(registry, keeper);
  const vA = await client(vault, alice);
  const vB = await client(vault, bob);
  const vK = await client(vault, keeper);
  const regAdmin = await client(registry, admin);
  const vaultAdmin = await client(vault, admin);
  const liq = await client(liquidator, keeper);

  await measure(
    "registry.register",
    await reg.register({ operator: keeper.publicKey(), name: "k" }, TX),
  );
  await measure(
    "registry.get_keeper",
    await reg.get_keeper({ operator: keeper.publicKey() }),
    false,
  );
  await measure("registry.get_keepers", await reg.get_keepers(), false);
  await measure("registry.get_config", await reg.get_config(), false);
  await measure("registry.set_config", await regAdmin.set_config({ min_stake: 100n * USDC }, TX));
  await measure(
    "vault.deposit (first)",
    await vA.deposit({ depositor: alice.publicKey(), amount: 5_000n * USDC }, TX),
  );
  await measure(
    "vault.deposit",
    await vB.deposit({ depositor: bob.publicKey(), amount: 5_000n * USDC }, TX),
  );
  await measure(
    "vault.flash (liquidator, empty plan; incl. registry.record_execution)",
    await vK.flash({
      keeper: keeper.publicKey(),
      executor: liquidator,
      amount: 1_000n * USDC,
      data: plan,
      response_time_ms: 500n,
    }, TX),
  );
  await measure(
    "liquidator.exec (direct, empty plan)",
    await liq.exec({
      keeper: keeper.publicKey(),
      vault,
      usdc,
      amount: 0n,
      data: { allowance_until: 1_000_000, pool: registry, requests: [], swaps: [] },
    }, TX),
  );
  await measure(
    "vault.withdraw",
    await vB.withdraw({ depositor: bob.publicKey(), shares: 1_000n * USDC }, TX),
  );
  await measure("vault.get_state", await vA.get_state(), false);
  await measure("vault.balance", await vA.balance({ depositor: alice.publicKey() }), false);
  await measure(
    "vault.get_depositor",
    await vA.get_depositor({ depositor: alice.publicKey() }),
    false,
  );
  await measure(
    "vault.set_config",
    await vaultAdmin.set_config({
      config: {
        deposit_cap: 10_000_000n * USDC,
        max_draw_per_keeper: 10_000n * USDC,
        withdraw_cooldown: 0n,
      },
    }, TX),
  );
  await measure("registry.deregister", await reg.deregister({ operator: keeper.publicKey() }, TX));

  console.log(
    "| Function | CPU instructions | Read entries | Write entries | Read bytes | Write bytes | Contract events |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) console.log(r);
  console.log(
    `| **Per-transaction limit** | ${
      TX_LIMITS.instructions.toLocaleString("en-US")
    } | ${TX_LIMITS.readEntries} (read + write) | ${TX_LIMITS.writeEntries} | ${
      TX_LIMITS.diskReadBytes.toLocaleString("en-US")
    } | ${TX_LIMITS.writeBytes.toLocaleString("en-US")} | – |`,
  );
} finally {
  await net.close();
}
