/**
 * Vigil's Wasm contracts on the local node's Wasm path, over JSON-RPC with `contract.Client` and
 * real signatures, deployed by `main.ts deploy` (child process) or its in-process function:
 * the whole life cycle (register, deposit, flash through the liquidator, withdraw, deregister),
 * a second deploy changing nothing, the deployed code byte-identical to `contracts/wasm/`,
 * the deployed flash policy, flash profit booking and `FlashNotRepaid` with keeper-chosen
 * executors (the `gift_executor` fixture) once the admin listed them (`ExecutorNotAllowed` before), and the typed
 * errors.
 */
import { sendAssembled } from "@vigil/testing/submit";
import { childEnv, denoRunArgs } from "@vigil/util/deno_child";
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  contract,
  hash,
  Keypair,
  Operation,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { type Deployment, deployToNetwork } from "@vigil/contracts/deploy/net";
import { wasmPath } from "@vigil/contracts/wasm_path";
import { VigilError, type VigilErrorName } from "@vigil/contracts/registry/errors";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { sendOk } from "@vigil/testing/submit";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const USDC = 10_000_000n;
const TX = { timeoutInSeconds: 30 * 86400 } as const;
// deno-lint-ignore no-explicit-any
type AnyClient = contract.Client & Record<string, any>;

interface World {
  node: TestNode;
  usdc: string;
  asset: Asset;
  issuer: Keypair;
  user(amount?: bigint): Promise<Keypair>;
  client(id: string, kp?: Keypair): Promise<AnyClient>;
  balance(id: string): Promise<bigint>;
}

async function world(): Promise<World> {
  const node = await startTestNode({ ledgerMs: 50 });
  const issuer = await node.newAccount();
  const asset = new Asset("USDC", issuer.publicKey());
  const usdc = await node.deployAsset(asset);
  const user = async (amount = 0n) => {
    const kp = await node.newAccount();
    const account = await node.server.getAccount(kp.publicKey());
    const tx = new TransactionBuilder(account, {
      fee: "1000",
      networkPassphrase: node.networkPassphrase,
    }).addOperation(Operation.changeTrust({ asset })).setTimeout(60).build();
    tx.sign(kp);
    await sendOk(node.server, tx, "changeTrust");
    if (amount > 0n) {
      await node.invoke(usdc, "mint", { to: kp.publicKey(), amount }, {
        source: issuer.publicKey(),
      });
    }
    return kp;
  };
  return {
    node,
    usdc,
    asset,
    issuer,
    user,
    client: (id, kp) => node.clientFor<AnyClient>(id, kp),
    balance: (id) => node.view<bigint>(usdc, "balance", { id }),
  };
}

/** Signs and sends; returns the unwrapped result. */
// deno-lint-ignore no-explicit-any
async function send<R = unknown>(tx: contract.AssembledTransaction<any>): Promise<R> {
  const { result } = await sendAssembled(tx);
  // deno-lint-ignore no-explicit-any
  const r = result as any;
  if (r && typeof r.isOk === "function") {
    assert.ok(r.isOk(), "call failed");
    return r.unwrap() as R;
  }
  return r as R;
}

/** The simulation failed with Vigil's typed error `name`. */
// deno-lint-ignore no-explicit-any
function expectErr(tx: contract.AssembledTransaction<any>, name: VigilErrorName): void {
  const sim = tx.simulation!;
  assert.ok(rpc.Api.isSimulationError(sim), `expected ${name}, but the simulation succeeded`);
  assert.match(sim.error, new RegExp(`Error\\(Contract, #${VigilError[name]}\\)`));
}

function read<R>(tx: { result: unknown }): R {
  // deno-lint-ignore no-explicit-any
  const r = tx.result as any;
  return (r && typeof r.isOk === "function" ? r.unwrap() : r) as R;
}

async function runDeploy(
  rpcUrl: string,
  usdc: string,
  secret: string,
  dir: string,
): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: denoRunArgs(MAIN, ["deploy", "--rpc-url", rpcUrl, "--usdc", usdc, "--out", "d.json"]),
    cwd: dir,
    env: childEnv({ DEPLOYER_SECRET: secret, NO_COLOR: "1" }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: r.code,
    out: new TextDecoder().decode(r.stdout),
    err: new TextDecoder().decode(r.stderr),
  };
}

/** A `LiquidationPlan` with nothing to do, as the `Val` the vault forwards (a struct ScMap). */
const emptyPlan = (pool: string): xdr.ScVal =>
  xdr.ScVal.scvMap([
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

Deno.test("main.ts deploy on a fresh node: a working vault, registry and liquidator; a second run changes nothing", async () => {
  const w = await world();
  const dir = await Deno.makeTempDir();
  try {
    const deployer = await w.node.newAccount();
    const first = await runDeploy(w.node.rpcUrl, w.usdc, deployer.secret(), dir);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /deploy: deployed on "Standalone Network/);
    assert.ok(!(first.out + first.err).includes(deployer.secret()));
    const text1 = await Deno.readTextFile(`${dir}/d.json`);
    assert.ok(!text1.includes(deployer.secret()), "no secret in the out file");
    const d = JSON.parse(text1) as Deployment;
    assert.equal(d.network_passphrase, w.node.networkPassphrase);
    assert.equal(d.admin, deployer.publicKey());

    // The code on the node is byte-identical to the committed Wasm, and each instance runs it.
    for (const name of ["vault", "registry", "liquidator"] as const) {
      const file = await Deno.readFile(wasmPath(name));
      const h = new Uint8Array(hash(file as Buffer));
      assert.equal(
        d.wasm_hashes[name],
        [...h].map((b) => b.toString(16).padStart(2, "0")).join(""),
      );
      const code = await w.node.server.getLedgerEntries(
        xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: h as Buffer })),
      );
      assert.equal(code.entries.length, 1);
      const wasm = await w.node.server.getContractWasmByContractId(d.contracts[name]);
      assert.deepEqual([...new Uint8Array(wasm)], [...file], `${name} instance executable`);
    }

    // The deployed flash policy: only Vigil's liquidator may be lent to; no pool, router or
    // hop token without --pool/--router/--token. The admin (the deployer here) lists a pool for
    // the flash below: a wider policy, so it is queued for the deployed policy_delay (72 h).
    const vaultAdmin = await w.client(d.contracts.vault, deployer);
    assert.deepEqual(read(await vaultAdmin.get_flash_policy()), {
      executors: [d.contracts.liquidator],
      max_slippage_bps: 300,
      pools: [],
      routers: [],
      tokens: [],
    });
    const pool = await deployFixture(w.node, "taking_pool");
    const withPool = {
      executors: [d.contracts.liquidator],
      max_slippage_bps: 300,
      pools: [pool],
      routers: [],
      tokens: [],
    };
    await send(await vaultAdmin.set_flash_policy({ policy: withPool }, TX));
    const pending = read<{ applies_at: bigint }>(await vaultAdmin.get_pending_flash_policy());
    // applies_at = the change's ledger time + 72 h (ledgers close on a timer here).
    const wait = pending.applies_at - w.node.latestLedger().closeTime;
    assert.ok(wait <= 72n * 3600n && wait > 72n * 3600n - 120n, `queued for 72 h: ${wait} s left`);
    await w.node.advanceTime(72 * 3600);
    assert.deepEqual(read(await vaultAdmin.get_flash_policy()), withPool);

    // Register a keeper, deposit, flash through the liquidator, withdraw, deregister.
    const keeper = await w.user(250n * USDC);
    const depositor = await w.user(1_000n * USDC);
    const registry = await w.client(d.contracts.registry, keeper);
    const info = await send<Record<string, unknown>>(
      await registry.register({ operator: keeper.publicKey(), name: "k1" }, TX),
    );
    assert.equal(info.stake, 100n * USDC);
    assert.equal(info.name, "k1");
    assert.equal(await w.balance(keeper.publicKey()), 150n * USDC);
    assert.equal(await w.balance(d.contracts.registry), 100n * USDC);

    const vaultD = await w.client(d.contracts.vault, depositor);
    const shares = await send<bigint>(
      await vaultD.deposit({ depositor: depositor.publicKey(), amount: 500n * USDC }, TX),
    );
    assert.equal(shares, 500n * USDC - 1000n, "first deposit: 1:1 less the locked 1000");

    const vaultK = await w.client(d.contracts.vault, keeper);
    const profit = await send<bigint>(
      await vaultK.flash({
        keeper: keeper.publicKey(),
        executor: d.contracts.liquidator,
        amount: 200n * USDC,
        data: emptyPlan(pool),
        response_time_ms: 1234n,
      }, TX),
    );
    assert.equal(profit, 0n);
    assert.equal(await w.balance(d.contracts.vault), 500n * USDC, "flash repaid in full");
    assert.equal(await w.balance(keeper.publicKey()), 150n * USDC);
    const after = read<Record<string, bigint>>(
      await registry.get_keeper({ operator: keeper.publicKey() }),
    );
    // An empty plan books nothing: an execution, not a fill (min_fill_profit 1 USDC).
    assert.equal(after.successful_fills, 0n);
    assert.equal(after.total_executions, 1n);
    assert.equal(after.avg_response_time_ms, 0n);
    assert.equal(after.response_count, 0n);

    expectErr(
      await vaultD.withdraw({ depositor: depositor.publicKey(), shares }, TX),
      "WithdrawCooldown",
    );
    await w.node.advanceTime(3600);
    const paid = await send<bigint>(
      await vaultD.withdraw({ depositor: depositor.publicKey(), shares }, TX),
    );
    assert.equal(paid, shares, "price 1: shares pay 1:1");
    assert.equal(await w.balance(depositor.publicKey()), 1_000n * USDC - 1000n);
    const st = read<Record<string, bigint>>(await vaultD.get_state());
    assert.deepEqual(st, {
      active_liq: 0n,
      locked_profit: 0n,
      total_profit: 0n,
      total_shares: 1000n,
      total_usdc: 1000n,
      unlock_end: 0n,
    });

    const back = await send<bigint>(
      await registry.deregister({ operator: keeper.publicKey() }, TX),
    );
    assert.equal(back, 100n * USDC);
    assert.equal(await w.balance(keeper.publicKey()), 250n * USDC);

    // Re-running with the out file verifies and changes nothing.
    const second = await runDeploy(w.node.rpcUrl, w.usdc, deployer.secret(), dir);
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /verified, nothing changed/);
    assert.equal(await Deno.readTextFile(`${dir}/d.json`), text1);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await w.node.close();
  }
});

Deno.test("Wasm vault flash: profit is booked for depositors; an executor that keeps the money reverts everything (FlashNotRepaid); typed errors", async () => {
  const w = await world();
  try {
    const deployer = await w.node.newAccount();
    const admin = await w.node.newAccount();
    const { deployment: d } = await deployToNetwork({
      rpcUrl: w.node.rpcUrl,
      usdc: w.usdc,
      admin: admin.publicKey(),
      secret: deployer.secret(),
      config: { max_draw_per_keeper: 300n * USDC },
    });
    const gift = await deployFixture(w.node, "gift_executor", { extra: 7n * USDC });
    const keep = await deployFixture(w.node, "gift_executor", { extra: -1n });
    const vaultAdmin = await w.client(d.contracts.vault, admin);

    const keeper = await w.user(200n * USDC);
    const depositor = await w.user(1_000n * USDC);
    const registry = await w.client(d.contracts.registry, keeper);
    const vaultK = await w.client(d.contracts.vault, keeper);
    const vaultD = await w.client(d.contracts.vault, depositor);
    const flash = (executor: string, amount: bigint) =>
      vaultK.flash({
        keeper: keeper.publicKey(),
        executor,
        amount,
        data: emptyPlan(d.contracts.registry),
        response_time_ms: 9_999_999n,
      }, TX);

    expectErr(await flash(d.contracts.liquidator, 10n * USDC), "NotRegistered");
    await send(await registry.register({ operator: keeper.publicKey(), name: "k" }, TX));
    expectErr(
      await registry.register({ operator: keeper.publicKey(), name: "k" }, TX),
      "AlreadyRegistered",
    );
    expectErr(await flash(d.contracts.liquidator, 0n), "InvalidAmount");
    expectErr(await flash(d.contracts.liquidator, 10n * USDC), "InsufficientLiquidity");
    expectErr(
      await vaultD.deposit({ depositor: depositor.publicKey(), amount: 1000n }, TX),
      "ZeroShares",
    );
    await send(await vaultD.deposit({ depositor: depositor.publicKey(), amount: 500n * USDC }, TX));
    expectErr(await flash(d.contracts.liquidator, 301n * USDC), "DrawLimitExceeded");

    // Keeper-chosen executors are refused until the admin's listing of them is in force (a
    // queued change: 72 h).
    expectErr(await flash(gift, 100n * USDC), "ExecutorNotAllowed");
    const policy = read<Record<string, unknown>>(await vaultAdmin.get_flash_policy());
    await send(
      await vaultAdmin.set_flash_policy({
        policy: { ...policy, executors: [d.contracts.liquidator, gift, keep] },
      }, TX),
    );
    expectErr(await flash(gift, 100n * USDC), "ExecutorNotAllowed");
    await w.node.advanceTime(72 * 3600);

    // Profit: the executor returns 7 USDC more than it was lent.
    const profit = await send<bigint>(await flash(gift, 100n * USDC));
    assert.equal(profit, 7n * USDC);
    assert.equal(await w.balance(d.contracts.vault), 507n * USDC);
    const st = read<Record<string, bigint>>(await vaultD.get_state());
    assert.equal(st.total_usdc, 507n * USDC);
    assert.equal(st.total_profit, 7n * USDC);
    const info = read<Record<string, bigint>>(
      await registry.get_keeper({ operator: keeper.publicKey() }),
    );
    assert.equal(info.total_profit, 7n * USDC);
    assert.equal(info.avg_response_time_ms, 3_600_000n, "response time clamped to 1 h");
    // The profit unlocks over a day; then the shares are worth
    // floor(shares · 507 / (500 USDC)) with shares = 500 USDC − 1000.
    await w.node.advanceTime(86_400);
    const bal = read<Record<string, bigint>>(
      await vaultD.balance({ depositor: depositor.publicKey() }),
    );
    const sh = 500n * USDC - 1000n;
    assert.equal(bal.usdc_value, (sh * 507n * USDC) / (500n * USDC));

    // An executor that pays back one unit less: the vault refuses, nothing moves.
    expectErr(await flash(keep, 100n * USDC), "FlashNotRepaid");
    assert.equal(await w.balance(d.contracts.vault), 507n * USDC);

    // Registry callback from anyone but the vault; admin bounds; liquidator plan checks.
    expectErr(
      await registry.record_execution({
        caller: keeper.publicKey(),
        keeper: keeper.publicKey(),
        success: true,
        profit: 0n,
        response_time_ms: 1n,
      }, TX),
      "Unauthorized",
    );
    const registryAdmin = await w.client(d.contracts.registry, admin);
    expectErr(await registryAdmin.set_config({ min_stake: 0n }, TX), "InvalidConfig");
    await send(await registryAdmin.set_config({ min_stake: 150n * USDC }, TX));
    expectErr(await flash(gift, 10n * USDC), "StakeBelowMinimum");
    expectErr(
      await vaultAdmin.set_config({
        config: {
          deposit_cap: 1n,
          max_draw_per_keeper: 0n,
          min_fill_profit: 0n,
          policy_delay: 8n * 86400n,
          profit_unlock_secs: 0n,
          withdraw_cooldown: 7n * 86400n + 1n,
        },
      }, TX),
      "InvalidConfig",
    );
    expectErr(
      await vaultAdmin.set_registry({ registry: d.contracts.registry }, TX),
      "AlreadyInitialized",
    );
    const liq = await w.client(d.contracts.liquidator, keeper);
    expectErr(
      await liq.exec({
        keeper: keeper.publicKey(),
        vault: d.contracts.vault,
        usdc: w.usdc,
        amount: 1n,
        data: {
          allowance_until: 1_000_000,
          buys: [],
          min_ratio_bps: 0,
          pool: d.contracts.registry,
          requests: [],
          swaps: [{ amount_in: 1n, kind: 9, min_out: 0n, path: [w.usdc, w.usdc], router: w.usdc }],
        },
        policy: {
          executors: [],
          max_slippage_bps: 0,
          pools: [d.contracts.registry],
          routers: [w.usdc],
          tokens: [],
        },
      }, TX),
      "InvalidPlan",
    );
    expectErr(
      await registry.register({ operator: (await w.user()).publicKey(), name: "" }, TX),
      "InvalidName",
    );
  } finally {
    await w.node.close();
  }
});
