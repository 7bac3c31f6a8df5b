/**
 * `main.ts localnet` as a real child process: out file (mode 0600, ids, accounts), a working
 * RPC with the dev chain deployed, no secrets on stdout, clean stop on SIGTERM; `--help`; the
 * market scenario with two pools (`--pools`) and a short history (`--retention-ledgers`), and
 * the values of both flags it refuses.
 */
import assert from "node:assert/strict";
import { Asset, Contract, rpc, scValToNative, TransactionBuilder } from "@stellar/stellar-sdk";
import { DENO_CONFIG, NO_FETCH_FLAGS } from "@vigil/util/deno_child";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test("main.ts --help lists the commands and localnet options", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...NO_FETCH_FLAGS, "--config", DENO_CONFIG, MAIN, "--help"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0);
  const text = new TextDecoder().decode(out.stdout);
  for (
    const word of [
      "keeper",
      "localnet",
      "demo",
      "--port",
      "--ledger-ms",
      "--out",
      "--pools",
      "--retention-ledgers",
    ]
  ) {
    assert.ok(text.includes(word), `help mentions ${word}`);
  }
});

Deno.test("main.ts localnet: out file 0600, dev chain over RPC, no secrets on stdout, SIGTERM", async () => {
  const dir = await Deno.makeTempDir();
  const outFile = `${dir}/localnet.json`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...NO_FETCH_FLAGS,
      "--config",
      DENO_CONFIG,
      MAIN,
      "localnet",
      "--port",
      "0",
      "--ledger-ms",
      "200",
      "--out",
      outFile,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let stdout = "";
  const reader = (async () => {
    for await (const chunk of child.stdout) stdout += decoder.decode(chunk);
  })();
  const errReader = (async () => {
    let s = "";
    for await (const chunk of child.stderr) s += decoder.decode(chunk);
    return s;
  })();
  try {
    const deadline = Date.now() + 20_000;
    while (!stdout.includes("Ctrl-C") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(stdout.includes("Ctrl-C"), `node did not start: ${stdout}`);
    const stat = await Deno.stat(outFile);
    assert.equal(stat.mode! & 0o777, 0o600);
    const cfg = JSON.parse(await Deno.readTextFile(outFile));
    for (const name of ["usdc_issuer", "alice", "bob", "keeper1", "keeper2"]) {
      assert.match(cfg.accounts[name].public, /^G[A-Z2-7]{55}$/);
      assert.match(cfg.accounts[name].secret, /^S[A-Z2-7]{55}$/);
      assert.ok(!stdout.includes(cfg.accounts[name].secret), "secret printed on stdout");
    }
    const server = new rpc.Server(cfg.rpcUrl, { allowHttp: true });
    assert.equal((await server.getNetwork()).passphrase, cfg.networkPassphrase);
    const usdc = new Asset("USDC", cfg.accounts.usdc_issuer.public);
    assert.equal(cfg.contracts.usdc, usdc.contractId(cfg.networkPassphrase));
    assert.equal(cfg.contracts.xlm, Asset.native().contractId(cfg.networkPassphrase));
    const line = await server.getTrustline(cfg.accounts.alice.public, usdc);
    assert.ok(line.balance > 0n);
    const inst = await server.getContractInstance(cfg.contracts.usdc);
    assert.equal(inst.executable.type, "contractExecutableStellarAsset");
    // Ledgers close on the timer.
    const l1 = (await server.getLatestLedger()).sequence;
    await new Promise((r) => setTimeout(r, 700));
    const l2 = (await server.getLatestLedger()).sequence;
    assert.ok(l2 > l1, `ledgers advance on the timer (${l1} → ${l2})`);
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await reader;
    const stderr = await errReader;
    assert.equal(status.code, 0, stderr);
    assert.ok(stdout.includes("stopped"));
    await Deno.remove(dir, { recursive: true });
  }
});

// Refused before the node starts: the message names the flag, nothing is written.
Deno.test("main.ts localnet refuses bad --pools and --retention-ledgers values", async () => {
  const dir = await Deno.makeTempDir();
  const outFile = `${dir}/localnet.json`;
  try {
    const cases: [string[], RegExp][] = [
      [["--pools", "2"], /--pools needs --scenario market/],
      [["--scenario", "market", "--pools", "4"], /invalid --pools 4 \(an integer from 1 to 3\)/],
      [["--scenario", "market", "--pools", "0"], /invalid --pools 0/],
      [["--scenario", "market", "--pools", "1.5"], /invalid --pools 1\.5/],
      [["--retention-ledgers", "99"], /invalid --retention-ledgers 99 \(an integer from 100/],
      [["--retention-ledgers", "7d"], /invalid --retention-ledgers 7d/],
    ];
    for (const [flags, message] of cases) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          ...NO_FETCH_FLAGS,
          "--config",
          DENO_CONFIG,
          MAIN,
          "localnet",
          "--port",
          "0",
          "--out",
          outFile,
          ...flags,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 1, `${flags.join(" ")}: ${stderr}`);
      assert.match(stderr, message, flags.join(" "));
      await assert.rejects(Deno.stat(outFile), Deno.errors.NotFound, "no out file");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// The market scenario from the command line (issue 4): every protocol and token id lands in the
// out file, localnet_shock is served on the same endpoint, and SIGINT (Ctrl-C) stops it cleanly.
// With two pools (issue 24): both in the out file and in the vault's flash policy, each with its
// own borrowers, and the node keeps the history window it was given.
Deno.test("main.ts localnet --scenario market --pools 2 --retention-ledgers 500: ids, policy, shock, SIGINT", async () => {
  const dir = await Deno.makeTempDir();
  const outFile = `${dir}/localnet.json`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...NO_FETCH_FLAGS,
      "--config",
      DENO_CONFIG,
      MAIN,
      "localnet",
      "--scenario",
      "market",
      "--pools",
      "2",
      "--retention-ledgers",
      "500",
      "--port",
      "0",
      "--ledger-ms",
      "200",
      "--out",
      outFile,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let stdout = "";
  const reader = (async () => {
    for await (const chunk of child.stdout) stdout += decoder.decode(chunk);
  })();
  const errReader = (async () => {
    let s = "";
    for await (const chunk of child.stderr) s += decoder.decode(chunk);
    return s;
  })();
  try {
    const deadline = Date.now() + 30_000;
    while (!stdout.includes("Ctrl-C") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(stdout.includes("Ctrl-C"), `node did not start: ${stdout}`);
    assert.equal((await Deno.stat(outFile)).mode! & 0o777, 0o600);
    const cfg = JSON.parse(await Deno.readTextFile(outFile));
    const names = [
      "lending_pool",
      "lending_pool_2",
      "oracle",
      "primary_dex_router",
      "fallback_dex_router",
      "allocation_vault",
      "usdc",
      "xlm",
      "weth",
    ];
    for (const name of names) assert.match(cfg.contracts[name] ?? "", /^C[A-Z2-7]{55}$/, name);
    for (const a of Object.values(cfg.accounts) as { secret: string }[]) {
      assert.ok(!stdout.includes(a.secret), "secret printed on stdout");
    }
    const server = new rpc.Server(cfg.rpcUrl, { allowHttp: true });
    // The pool and the routers are live contracts, not just names in a file.
    for (
      const name of [
        "lending_pool",
        "lending_pool_2",
        "oracle",
        "primary_dex_router",
        "fallback_dex_router",
      ]
    ) {
      const inst = await server.getContractInstance(cfg.contracts[name]);
      assert.equal(inst.executable.type, "contractExecutableWasm", name);
    }
    assert.notEqual(cfg.contracts.lending_pool, cfg.contracts.lending_pool_2);
    assert.equal(cfg.contracts.lending_pool_3, undefined);
    // Each pool has its own borrowers, with XLM and WETH debts too; the second's are suffixed.
    for (const name of ["borrower_usdc_1", "borrower_usdc_1_p2", "borrower_xlm_2_p2"]) {
      assert.match(cfg.accounts[name]?.public ?? "", /^G[A-Z2-7]{55}$/, name);
    }
    // The vault's flash policy lists both pools.
    const tx = new TransactionBuilder(await server.getAccount(cfg.accounts.alice.public), {
      fee: "100",
      networkPassphrase: cfg.networkPassphrase,
    }).addOperation(new Contract(cfg.contracts.vault).call("get_flash_policy")).setTimeout(30)
      .build();
    const sim = await server.simulateTransaction(tx);
    assert.ok(rpc.Api.isSimulationSuccess(sim) && sim.result, JSON.stringify(sim));
    const policy = scValToNative(sim.result.retval) as { pools: string[] };
    assert.deepEqual(policy.pools, [cfg.contracts.lending_pool, cfg.contracts.lending_pool_2]);
    assert.equal((await server.getHealth()).ledgerRetentionWindow, 500);
    const res = await fetch(cfg.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "localnet_shock",
        params: { asset: cfg.contracts.xlm, bps: -500 },
      }),
    });
    const body = await res.json();
    assert.equal(body.result?.asset, cfg.contracts.xlm, JSON.stringify(body));
    assert.equal(BigInt(body.result.price), (BigInt(body.result.previous) * 9500n) / 10000n);
  } finally {
    child.kill("SIGINT");
    const status = await child.status;
    await reader;
    const stderr = await errReader;
    assert.equal(status.code, 0, stderr);
    assert.ok(stdout.includes("stopped"));
    await Deno.remove(dir, { recursive: true });
  }
});
