/**
 * `main.ts deploy`'s flash-policy and issue-20 config flags, run as a child process the way an
 * operator runs them: `--pool`, `--router` and `--token` (repeatable) and `--max-slippage-bps`
 * reach the vault's constructor (read back with `get_flash_policy`), `--min-fill-profit`,
 * `--policy-delay` and `--profit-unlock-secs` its config (`get_config`), the out file records
 * both, a second run verifies and changes nothing, a run with another policy fails
 * verification, a run without policy flags after the admin changed the policy does not compare
 * it; bad values are one message and exit 1 before anything is sent. In-process: the default
 * policy (the liquidator as the only executor, no pool, router or hop token, 300 bps).
 */
import assert from "node:assert/strict";
import { Asset, Keypair, StrKey } from "@stellar/stellar-sdk";
import { childEnv, denoRunArgs } from "@vigil/util/deno_child";
import { startTestNode } from "@vigil/testing/localnet";
import { type Deployment, deployToNetwork } from "@vigil/contracts/deploy/net";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

const contractId = () =>
  StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as Buffer);

async function deploy(
  args: string[],
  secret: string,
  dir: string,
): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: denoRunArgs(MAIN, ["deploy", ...args]),
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

/** Exactly one `deploy: …` error line matching `re`, exit 1, no secret printed. */
function assertOneError(r: { code: number; out: string; err: string }, re: RegExp, secret: string) {
  assert.equal(r.code, 1, `exit code (stderr: ${r.err})`);
  const lines = r.err.trim().split("\n").filter((l) => l.trim() !== "");
  assert.equal(lines.length, 1, `one message, got: ${r.err}`);
  assert.match(lines[0], /^deploy: /);
  assert.match(lines[0], re);
  assert.ok(!(r.out + r.err).includes(secret), "the secret was printed");
}

Deno.test("deploy: a bad policy or config flag is one message, exit 1, nothing sent", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const secret = Keypair.random().secret();
    // An RPC nobody listens on: each failure must come before the network is reached.
    const base = ["--rpc-url", "http://127.0.0.1:9/rpc", "--usdc", contractId()];
    const g = Keypair.random().publicKey();
    assertOneError(
      await deploy([...base, "--pool", contractId(), "--pool", g], secret, dir),
      new RegExp(`--pool ${g} is not a contract id`),
      secret,
    );
    assertOneError(
      await deploy([...base, "--router", "Cnope"], secret, dir),
      /--router Cnope is not a contract id/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--max-slippage-bps", "1001"], secret, dir),
      /--max-slippage-bps 1001 is not an integer in \[0, 1000\] \(the vault's bound: 10 %\)/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--token", contractId(), "--token", g], secret, dir),
      new RegExp(`--token ${g} is not a contract id`),
      secret,
    );
    const tokens = Array.from({ length: 17 }, () => ["--token", contractId()]).flat();
    assertOneError(
      await deploy([...base, ...tokens], secret, dir),
      /at most 16 --token entries \(got 17\)/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--min-fill-profit=-1"], secret, dir),
      /--min-fill-profit -1 is not a USDC amount/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--min-fill-profit", "1000000000000"], secret, dir),
      /--min-fill-profit 1000000000000 is outside the contracts' bounds \[0 USDC, 922337203685 USDC\]/,
      secret,
    );
    // Depositors must be able to leave before a queued change applies: cooldown + 1 h at least.
    assertOneError(
      await deploy([...base, "--policy-delay", "7199"], secret, dir),
      /--policy-delay 7199 is outside \[7200, 2592000\]: at least the withdraw cooldown \(3600 s\) \+ 3600 s/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--withdraw-cooldown", "600", "--policy-delay", "4199"], secret, dir),
      /--policy-delay 4199 is outside \[4200, 2592000\]/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--policy-delay", "2592001"], secret, dir),
      /--policy-delay 2592001 is outside \[7200, 2592000\]/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--policy-delay", "3d"], secret, dir),
      /--policy-delay 3d is not a whole number of seconds/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--withdraw-cooldown", "300000"], secret, dir),
      /--withdraw-cooldown 300000 needs --policy-delay of at least 303600 \(the default 259200 is shorter\)/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--profit-unlock-secs", "2592001"], secret, dir),
      /--profit-unlock-secs 2592001 is outside the contracts' bounds \[0 s, 2592000 s\]/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--profit-unlock-secs", "1.5"], secret, dir),
      /--profit-unlock-secs 1\.5 is not a whole number of seconds/,
      secret,
    );
    assertOneError(
      await deploy([...base, "--max-slippage-bps", "2.5"], secret, dir),
      /--max-slippage-bps 2\.5 is not an integer/,
      secret,
    );
    const many = Array.from({ length: 17 }, () => ["--router", contractId()]).flat();
    assertOneError(
      await deploy([...base, ...many], secret, dir),
      /at most 16 --router entries \(got 17\)/,
      secret,
    );
    // Nothing was written.
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deploy --pool/--router/--token/--max-slippage-bps and the issue-20 config flags: recorded and verified", async () => {
  await using node = await startTestNode({ ledgerMs: 50 });
  const dir = await Deno.makeTempDir();
  try {
    const issuer = await node.newAccount();
    const usdc = await node.deployAsset(new Asset("USDC", issuer.publicKey()));
    const deployer = await node.newAccount();
    const pools = [contractId(), contractId()];
    const router = contractId();
    const tokens = [contractId(), contractId()];
    const flags = [
      "--rpc-url",
      node.rpcUrl,
      "--usdc",
      usdc,
      "--out",
      "d.json",
      "--pool",
      pools[0],
      "--pool",
      pools[1],
      "--router",
      router,
      "--token",
      tokens[0],
      "--token",
      tokens[1],
      "--max-slippage-bps",
      "250",
      "--min-fill-profit",
      "0.5",
      "--policy-delay",
      "7200",
      "--profit-unlock-secs",
      "600",
    ];
    const first = await deploy(flags, deployer.secret(), dir);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /deploy: deployed on/);
    assert.match(
      first.out,
      new RegExp(
        `flash policy: executor C[A-Z2-7]{55}; pools .*; hop tokens ${
          tokens.join(",")
        }; max slippage 250 bps`,
      ),
    );
    assert.match(
      first.out,
      /profit unlocks over 600 s; queued admin changes wait 7200 s; fills count from 5000000 units/,
    );
    const d = JSON.parse(await Deno.readTextFile(`${dir}/d.json`)) as Deployment;
    const want = {
      executors: [d.contracts.liquidator],
      max_slippage_bps: 250,
      pools,
      routers: [router],
      tokens,
    };
    assert.deepEqual(d.policy, want);
    assert.deepEqual(
      [d.config.min_fill_profit, d.config.policy_delay, d.config.profit_unlock_secs],
      ["5000000", "7200", "600"],
    );
    // What the chain holds, read as a client would.
    assert.deepEqual(await node.view(d.contracts.vault, "get_flash_policy", []), want);
    const cfg = await node.view<Record<string, bigint>>(d.contracts.vault, "get_config", []);
    assert.deepEqual(
      [cfg.min_fill_profit, cfg.policy_delay, cfg.profit_unlock_secs],
      [5_000_000n, 7200n, 600n],
    );

    // Same flags again: verified, nothing changed.
    const second = await deploy(flags, deployer.secret(), dir);
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /verified, nothing changed/);

    // Another policy against the same deployment: the verification names the difference.
    const other = await deploy(
      flags.map((f) => (f === pools[1] ? contractId() : f)),
      deployer.secret(),
      dir,
    );
    assertOneError(
      other,
      /verification failed: vault flash policy pools is .*set_flash_policy/,
      deployer.secret(),
    );
    const text = await Deno.readTextFile(`${dir}/d.json`);
    assert.deepEqual(JSON.parse(text).policy, want);

    // The admin changes the policy later (dropping a pool only restricts it: in force at once):
    // a re-run without policy flags does not compare it (it is the admin's) and changes
    // nothing; one with the old flags names the difference.
    await node.invoke(d.contracts.vault, "set_flash_policy", {
      policy: { ...want, pools: [pools[0]] },
    }, { source: deployer.publicKey() });
    const plain = await deploy([...flags.slice(0, 6), ...flags.slice(-6)], deployer.secret(), dir);
    assert.equal(plain.code, 0, plain.err);
    assert.match(plain.out, /flash policy not compared/);
    assert.match(plain.out, /verified, nothing changed/);
    assert.equal(await Deno.readTextFile(`${dir}/d.json`), text);
    assertOneError(
      await deploy(flags, deployer.secret(), dir),
      /verification failed: vault flash policy pools is \[".*"\], expected \[".*",".*"\]/,
      deployer.secret(),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deployToNetwork without a policy: the liquidator is the only executor, no pool, router or hop token, 300 bps", async () => {
  await using node = await startTestNode({ ledgerMs: 50 });
  const issuer = await node.newAccount();
  const usdc = await node.deployAsset(new Asset("USDC", issuer.publicKey()));
  const deployer = await node.newAccount();
  const { deployment: d } = await deployToNetwork({
    rpcUrl: node.rpcUrl,
    usdc,
    secret: deployer.secret(),
  });
  const want = {
    executors: [d.contracts.liquidator],
    max_slippage_bps: 300,
    pools: [],
    routers: [],
    tokens: [],
  };
  assert.deepEqual(d.policy, want);
  assert.deepEqual(await node.view(d.contracts.vault, "get_flash_policy", []), want);
});
