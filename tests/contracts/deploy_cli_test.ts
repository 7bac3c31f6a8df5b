/**
 * `main.ts deploy` failure paths, each one clear message and a non-zero exit, run as a child
 * process the way an operator runs it: missing or malformed DEPLOYER_SECRET, unreachable RPC,
 * unfunded deployer, a `--usdc` that is not a token contract, an out file from another network.
 * The secret never appears in the output. (The success path, which needs the node's Wasm
 * execution, is in deploy_wasm_test.ts.)
 */
import { childEnv, denoRunArgs } from "@vigil/util/deno_child";
import assert from "node:assert/strict";
import { Asset, Keypair } from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function deploy(
  args: string[],
  opts: { secret?: string; dotenv?: string; files?: Record<string, string> } = {},
): Promise<{ code: number; out: string; err: string }> {
  const dir = await Deno.makeTempDir();
  try {
    if (opts.dotenv !== undefined) await Deno.writeTextFile(`${dir}/.env`, opts.dotenv);
    for (const [f, text] of Object.entries(opts.files ?? {})) {
      await Deno.writeTextFile(`${dir}/${f}`, text);
    }
    const env: Record<string, string> = { NO_COLOR: "1" };
    if (opts.secret !== undefined) env.DEPLOYER_SECRET = opts.secret;
    const r = await new Deno.Command(Deno.execPath(), {
      args: denoRunArgs(MAIN, ["deploy", ...args]),
      cwd: dir,
      env: childEnv(env),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: r.code,
      out: new TextDecoder().decode(r.stdout),
      err: new TextDecoder().decode(r.stderr),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Exactly one `deploy: …` error line matching `re`, exit 1, and no secret anywhere. */
function assertOneError(
  r: { code: number; out: string; err: string },
  re: RegExp,
  secret?: string,
): void {
  assert.equal(r.code, 1, `exit code (stderr: ${r.err})`);
  const lines = r.err.trim().split("\n").filter((l) => l.trim() !== "");
  assert.equal(lines.length, 1, `one message, got: ${r.err}`);
  assert.match(lines[0], /^deploy: /);
  assert.match(lines[0], re);
  if (secret) assert.ok(!(r.out + r.err).includes(secret), "the secret was printed");
}

Deno.test("deploy: missing, malformed and .env DEPLOYER_SECRET", async () => {
  const usdc = "CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA";
  assertOneError(
    await deploy(["--rpc-url", "http://127.0.0.1:9/rpc", "--usdc", usdc]),
    /DEPLOYER_SECRET is not set/,
  );
  const bad = "SNOTASECRET" + "A".repeat(45);
  assertOneError(
    await deploy(["--rpc-url", "http://127.0.0.1:9/rpc", "--usdc", usdc], { secret: bad }),
    /DEPLOYER_SECRET is malformed/,
    bad,
  );
  // A well-formed secret from .env gets past the key check (and then fails on the RPC).
  const kp = Keypair.random();
  assertOneError(
    await deploy(["--rpc-url", "http://127.0.0.1:9/rpc", "--usdc", usdc], {
      dotenv: `DEPLOYER_SECRET=${kp.secret()}\n`,
    }),
    /cannot reach the RPC at http:\/\/127\.0\.0\.1:9\/rpc/,
    kp.secret(),
  );
});

Deno.test("deploy: unfunded deployer, non-token --usdc, out file of another network", async () => {
  await using node = await startTestNode({ ledgerMs: 100 });
  const rpcUrl = node.rpcUrl;
  const issuer = await node.newAccount();
  const usdc = await node.deployAsset(new Asset("USDC", issuer.publicKey()));

  const unfunded = Keypair.random();
  assertOneError(
    await deploy(["--rpc-url", rpcUrl, "--usdc", usdc], { secret: unfunded.secret() }),
    new RegExp(`deployer ${unfunded.publicKey()} is not funded`),
    unfunded.secret(),
  );

  const deployer = await node.newAccount();
  const notToken = "CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA";
  assertOneError(
    await deploy(["--rpc-url", rpcUrl, "--usdc", notToken], { secret: deployer.secret() }),
    new RegExp(`--usdc ${notToken} is not a token contract`),
    deployer.secret(),
  );
  assertOneError(
    await deploy(["--rpc-url", rpcUrl, "--usdc", "GABC"], { secret: deployer.secret() }),
    /--usdc GABC is not a contract id/,
  );

  const other = JSON.stringify({ network_passphrase: "Test SDF Network ; September 2015" });
  assertOneError(
    await deploy(["--rpc-url", rpcUrl, "--usdc", usdc, "--out", "d.json"], {
      secret: deployer.secret(),
      files: { "d.json": other },
    }),
    /d\.json is from network "Test SDF Network ; September 2015", but .* is "/,
    deployer.secret(),
  );

  // Out-of-bounds configuration is refused before anything is sent.
  assertOneError(
    await deploy(["--rpc-url", rpcUrl, "--usdc", usdc, "--withdraw-cooldown", "604801"], {
      secret: deployer.secret(),
    }),
    /--withdraw-cooldown 604801 is outside the contracts' bounds \[0 s, 604800 s\]/,
  );
});
