/**
 * `main.ts localnet` as a real child process: out file (mode 0600, ids, accounts), a working
 * RPC with the dev chain deployed, no secrets on stdout, clean stop on SIGTERM; `--help`.
 */
import assert from "node:assert/strict";
import { Asset, rpc } from "@stellar/stellar-sdk";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test("main.ts --help lists the commands and localnet options", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--help"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0);
  const text = new TextDecoder().decode(out.stdout);
  for (const word of ["keeper", "localnet", "demo", "--port", "--ledger-ms", "--out"]) {
    assert.ok(text.includes(word), `help mentions ${word}`);
  }
});

Deno.test("main.ts localnet: out file 0600, dev chain over RPC, no secrets on stdout, SIGTERM", async () => {
  const dir = await Deno.makeTempDir();
  const outFile = `${dir}/localnet.json`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "localnet", "--port", "0", "--ledger-ms", "200", "--out", outFile],
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
