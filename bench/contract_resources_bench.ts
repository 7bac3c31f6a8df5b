/**
 * Measured resources of each Vigil contract function on the local node's Wasm path, as
 * simulation reports them (what a transaction would declare): CPU instructions, footprint read
 * and write entries, disk-read and write bytes, contract events and the simulated resource fee
 * (protocol 27's schedule), against the node's per-transaction limits. Prints the Markdown table kept in `contracts/README.md`.
 *
 * Vigil is deployed on the market scenario (Blend pool stand-in, oracle, Soroswap) with the flash
 * policy naming its pool and router, so the table also has a real liquidation: a flash through
 * the liquidator that fills a Blend auction, withdraws the XLM lot and swaps all of it to USDC.
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
  nativeToScVal,
  Operation,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startLocalnet } from "@vigil/localnet/node";
import { TX_LIMITS } from "@vigil/localnet/constants";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployMarket } from "@vigil/localnet/scenarios/market";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import { deployVigil, USDC } from "@vigil/contracts/deploy/deploy_vigil";
import { sendOk } from "@vigil/testing/submit";

// deno-lint-ignore no-explicit-any
type AnyClient = contract.Client & Record<string, any>;
const TX = { timeoutInSeconds: 86400 } as const;

const net = await startLocalnet({ port: 0, ledgerMs: 0 });
const server = new rpc.Server(net.rpcUrl, { allowHttp: true });
try {
  const dev = await setupDevChain(net);
  const usdc = dev.contracts.usdc;
  const market = await deployMarket(net, dev);
  const pool = market.contracts.lending_pool;
  const router = market.contracts.primary_dex_router;
  const xlm = market.contracts.xlm;
  const issuer = { publicKey: () => market.usdcIssuer };
  const asset = new Asset("USDC", market.usdcIssuer);
  const admin = Keypair.random();
  await net.fund(admin.publicKey());
  const { vault, registry, liquidator } = await deployVigil(net, {
    usdc,
    admin: admin.publicKey(),
    config: { withdraw_cooldown: 0n },
    policy: { pools: [pool], routers: [router] },
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
    await sendOk(server, tx, "changeTrust");
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
      } | ${Number(r.write_bytes).toLocaleString("en-US")} | ${events} | ${
        Number(sim.minResourceFee).toLocaleString("en-US")
      } |`,
    );
    if (send) await tx.signAndSend();
  };

  const plan = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("allowance_until"),
      val: xdr.ScVal.scvU32(1_000_000),
    }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("buys"), val: xdr.ScVal.scvVec([]) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("min_ratio_bps"), val: xdr.ScVal.scvU32(0) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("pool"), val: new Address(pool).toScVal() }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("requests"), val: xdr.ScVal.scvVec([]) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("swaps"), val: xdr.ScVal.scvVec([]) }),
  ]);
  const policy = {
    executors: [liquidator],
    max_slippage_bps: 300,
    pools: [pool],
    routers: [router],
    tokens: [] as string[],
  };

  // dev keeper1: 100,000 USDC, XLM for the lot.
  const keeper = Keypair.fromSecret(dev.accounts.keeper1.secret);
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
  await measure("registry.get_keepers", await reg.get_keepers({ start: 0, limit: 100 }), false);
  await measure("registry.get_keeper_count", await reg.get_keeper_count(), false);
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
      data: {
        allowance_until: 1_000_000,
        buys: [],
        min_ratio_bps: 0,
        pool,
        requests: [],
        swaps: [],
      },
      policy,
    }, TX),
  );
  await measure("vault.set_flash_policy", await vaultAdmin.set_flash_policy({ policy }, TX));
  await measure("vault.get_flash_policy", await vA.get_flash_policy(), false);

  // A real liquidation: XLM −15 % at the oracle opens borrower_xlm_1's auction (bid USDC, lot
  // XLM); 250 ledgers in, the whole lot is on offer. One flash fills it, withdraws the lot and
  // swaps all of it to USDC on Soroswap.
  const borrower = market.borrowers.find((b) => b.name === "borrower_xlm_1")!.public;
  await net.invoke(market.contracts.oracle, "set_price", {
    asset: stellarAsset(xlm),
    price: 850_000n,
  }, { source: market.accounts.market_admin.public });
  let opened = false;
  for (const percent of [50, 40, 60, 30, 70, 25, 80, 20, 90, 100]) {
    try {
      await net.invoke(pool, "new_auction", {
        auction_type: 0,
        user: borrower,
        bid: [usdc],
        lot: [xlm],
        percent,
      });
      opened = true;
      break;
    } catch { /* another percent */ }
  }
  if (!opened) throw new Error("no liquidation auction could be opened");
  await net.closeLedgers(250);
  const request = (request_type: number, address: string, amount: bigint) =>
    xdr.ScVal.scvMap([
      new xdr.ScMapEntry({
        key: xdr.ScVal.scvSymbol("address"),
        val: new Address(address).toScVal(),
      }),
      new xdr.ScMapEntry({
        key: xdr.ScVal.scvSymbol("amount"),
        val: nativeToScVal(amount, { type: "i128" }),
      }),
      new xdr.ScMapEntry({
        key: xdr.ScVal.scvSymbol("request_type"),
        val: xdr.ScVal.scvU32(request_type),
      }),
    ]);
  // Above the auction's bid at this block (~6,267 USDC): Blend refunds what a repay overshoots.
  const flashAmount = 7_000n * USDC;
  const realPlan = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("allowance_until"),
      val: xdr.ScVal.scvU32(1_000_000),
    }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("buys"), val: xdr.ScVal.scvVec([]) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("min_ratio_bps"), val: xdr.ScVal.scvU32(0) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("pool"), val: new Address(pool).toScVal() }),
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("requests"),
      val: xdr.ScVal.scvVec([
        request(6, borrower, 100n),
        request(5, usdc, flashAmount),
        request(3, xlm, 1n << 62n),
      ]),
    }),
    new xdr.ScMapEntry({
      key: xdr.ScVal.scvSymbol("swaps"),
      val: xdr.ScVal.scvVec([xdr.ScVal.scvMap([
        new xdr.ScMapEntry({
          key: xdr.ScVal.scvSymbol("amount_in"),
          val: nativeToScVal(1n, { type: "i128" }),
        }),
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("kind"), val: xdr.ScVal.scvU32(0) }),
        new xdr.ScMapEntry({
          key: xdr.ScVal.scvSymbol("min_out"),
          val: nativeToScVal(0n, { type: "i128" }),
        }),
        new xdr.ScMapEntry({
          key: xdr.ScVal.scvSymbol("path"),
          val: xdr.ScVal.scvVec([new Address(xlm).toScVal(), new Address(usdc).toScVal()]),
        }),
        new xdr.ScMapEntry({
          key: xdr.ScVal.scvSymbol("router"),
          val: new Address(router).toScVal(),
        }),
      ])]),
    }),
  ]);
  await measure(
    "vault.flash (liquidator, real Blend fill + withdraw + one Soroswap swap)",
    await vK.flash({
      keeper: keeper.publicKey(),
      executor: liquidator,
      amount: flashAmount,
      data: realPlan,
      response_time_ms: 500n,
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
        min_fill_profit: 1n * USDC,
        policy_delay: 259_200n,
        profit_unlock_secs: 86_400n,
        withdraw_cooldown: 0n, // a change: queued for policy_delay (config_queued)
      },
    }, TX),
  );
  await measure("registry.deregister", await reg.deregister({ operator: keeper.publicKey() }, TX));

  console.log(
    "| Function | CPU instructions | Read entries | Write entries | Read bytes | Write bytes | Contract events | Resource fee (stroops) |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) console.log(r);
  console.log(
    `| **Per-transaction limit** | ${
      TX_LIMITS.instructions.toLocaleString("en-US")
    } | ${TX_LIMITS.readEntries} (read + write) | ${TX_LIMITS.writeEntries} | ${
      TX_LIMITS.diskReadBytes.toLocaleString("en-US")
    } | ${TX_LIMITS.writeBytes.toLocaleString("en-US")} | – | – |`,
  );
} finally {
  await net.close();
}
