/**
 * `main.ts deploy`'s flash-policy flags, run as a child process the way an operator runs them:
 * `--pool` and `--router` (repeatable) and `--max-slippage-bps` reach the vault's constructor
 * (read back with `get_flash_policy`), the out file records the policy, a second run verifies and
 * changes nothing, a run with another policy fails verification, a run without policy flags after
 * the admin changed the policy does not compare it; bad values are one message and exit 1 before
 * anything is sent. In-process: the default policy (the liquidator as the only
 * executor, no pool, no router, 300 bps).
 */
import assert from "node:assert/strict";
import { Asset, Keypair, StrKey } from "@stellar/stellar-sdk";
import { childEnv, denoRunArgs } from "../../lib/deno_child.ts";
import { startTestNode } from "../helpers/localnet.ts";
import { type Deployment, deployToNetwork } from "../../contracts/deploy_net.ts";

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

Deno.test("deploy: a bad --pool, --router or --max-slippage-bps is one message, exit 1, nothing sent", async () => {
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
      await deploy([...base, "--max-slippage-bps", "10001"], secret, dir),
      /--max-slippage-bps 10001 is not an integer in \[0, 10000\]/,
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

Deno.test("deploy --pool/--router/--max-slippage-bps: the vault's flash policy, recorded and verified", async () => {
  await using node = await startTestNode({ ledgerMs: 50 });
  const dir = await Deno.makeTempDir();
  try {
    const issuer = await node.newAccount();
    const usdc = await node.deployAsset(new Asset("USDC", issuer.publicKey()));
    const deployer = await node.newAccount();
    const pools = [contractId(), contractId()];
    const router = contractId();
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
      "--max-slippage-bps",
      "250",
    ];
    const first = await deploy(flags, deployer.secret(), dir);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /deploy: deployed on/);
    assert.match(first.out, /flash policy: executor C[A-Z2-7]{55}; pools .*; max slippage 250 bps/);
    const d = JSON.parse(await Deno.readTextFile(`${dir}/d.json`)) as Deployment;
    const want = {
      executors: [d.contracts.liquidator],
      max_slippage_bps: 250,
      pools,
      routers: [router],
    };
    assert.deepEqual(d.policy, want);
    // What the chain holds, read as a client would.
    assert.deepEqual(await node.view(d.contracts.vault, "get_flash_policy", []), want);

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

    // The admin changes the policy later: a re-run without policy flags does not compare it (it
    // is the admin's) and changes nothing; one with the old flags names the difference.
    await node.invoke(d.contracts.vault, "set_flash_policy", {
      policy: { ...want, pools: [pools[0]] },
    }, { source: deployer.publicKey() });
    const plain = await deploy(flags.slice(0, 6), deployer.secret(), dir);
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

Deno.test("deployToNetwork without a policy: the liquidator is the only executor, no pool, no router, 300 bps", async () => {
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
  };
  assert.deepEqual(d.policy, want);
  assert.deepEqual(await node.view(d.contracts.vault, "get_flash_policy", []), want);
});
