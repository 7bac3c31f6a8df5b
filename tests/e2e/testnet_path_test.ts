/**
 * The keeper operator's testnet path of `docs/testnet.md`, walked against a bare local node: the
 * page's own commands (steps 1–7, read from the page) with the testnet settings swapped for the
 * node's — its RPC URL, passphrase and friendbot, a USDC issued on the node in place of Circle's
 * (the faucet step is a payment from that issuer) — and each step's output checked. A change to
 * the page's commands that breaks the walk fails here.
 */
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  BASE_FEE,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import { childEnv } from "@vigil/util/deno_child";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { poll, simulateRead, startMainKeeper } from "@vigil/testing/keeper/live_keeper";

const ROOT = new URL("../../", import.meta.url).pathname;
const DOC = new URL("docs/testnet.md", new URL("../../", import.meta.url));

/** The testnet values the page uses. */
const TESTNET = {
  rpc: "https://soroban-testnet.stellar.org",
  friendbot: "https://friendbot.stellar.org",
  passphrase: Networks.TESTNET,
  usdcIssuer: "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5",
  usdcSac: "CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA",
  xlmSac: "CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC",
};

/** Lines of step 0 that set up the clone; the test runs inside this one instead. */
const SETUP = [
  "git clone <this repository> vigil && cd vigil",
  "npm ci",
  "export DENO=$PWD/tools/deno/node_modules/@deno/linux-x64-glibc/deno",
];
/** Step 7: run by the test as a child it can stop. */
const RUN_KEEPER = "$DENO task keeper";
/** How the page runs the program from the clone's root; the test runs it from elsewhere. */
const MAIN = "$DENO run -A --cached-only --frozen main.ts";

/** The `sh` blocks of the operator's section, in order. */
function operatorBlocks(doc: string): string[] {
  const start = doc.indexOf("## For a keeper operator");
  assert.ok(start >= 0, "docs/testnet.md: no operator section");
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** The page's commands as one script for this machine and this node. */
function localScript(blocks: string[], node: TestNode, usdc: string, xlm: string, issuer: string) {
  const lines = blocks.join("").split("\n");
  for (const s of [...SETUP, RUN_KEEPER]) assert.ok(lines.includes(s), `the page has: ${s}`);
  const script = lines.filter((l) => !SETUP.includes(l) && l !== RUN_KEEPER).join("\n");
  assert.ok(script.includes(`${MAIN} trustline`) && script.includes(`${MAIN} deploy`));
  return script
    .replaceAll(
      MAIN,
      '"$DENO" run -A --cached-only --frozen --config "$ROOT/deno.json" "$ROOT/main.ts"',
    )
    .replaceAll(TESTNET.rpc, node.rpcUrl)
    .replaceAll(TESTNET.friendbot, node.friendbotUrl)
    .replaceAll(TESTNET.passphrase, node.networkPassphrase)
    .replaceAll(TESTNET.usdcIssuer, issuer)
    .replaceAll(TESTNET.usdcSac, usdc)
    .replaceAll(TESTNET.xlmSac, xlm);
}

/**
 * Put before the page's commands: a machine without curl (a minimal CI image) fetches the
 * friendbot URL with Deno instead; the page's `curl -sS URL` lines run unchanged.
 */
const CURL_FALLBACK = `command -v curl >/dev/null || curl() {
  FETCH_URL="\${@: -1}" "$DENO" eval 'const r = await fetch(Deno.env.get("FETCH_URL")); await Deno.stdout.write(new Uint8Array(await r.arrayBuffer()))'
}
`;

/** `KEY=value` lines of a `.env` (no quoting: the page writes none). */
function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const i = line.indexOf("=");
    if (i > 0 && !line.startsWith("#")) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/** Runs `main.ts trustline` in `cwd` (with its `.env`): exit code and output. */
async function trustlineAgain(cwd: string, asset: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--cached-only",
      "--frozen",
      "--config",
      `${ROOT}deno.json`,
      `${ROOT}main.ts`,
      "trustline",
      "--asset",
      asset,
    ],
    cwd,
    env: childEnv(),
    clearEnv: true,
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test({
  name: "docs/testnet.md: the keeper operator's commands work against the local node",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const doc = await Deno.readTextFile(DOC);
    await using node = await startTestNode({ ledgerMs: 200 });
    const issuer = await node.newAccount();
    const usdcAsset = new Asset("USDC", issuer.publicKey());
    const usdc = await node.deployAsset(usdcAsset);
    const xlm = await node.deployAsset(Asset.native());
    const cwd = await Deno.makeTempDir({ prefix: "vigil-testnet-path-" });
    try {
      // Steps 1–6, as the page writes them.
      const script = localScript(operatorBlocks(doc), node, usdc, xlm, issuer.publicKey());
      const run = await new Deno.Command("bash", {
        args: ["-euo", "pipefail", "-c", CURL_FALLBACK + script],
        cwd,
        env: childEnv({ DENO: Deno.execPath(), ROOT }),
        clearEnv: true,
      }).output();
      const dec = new TextDecoder();
      const out = dec.decode(run.stdout);
      const err = dec.decode(run.stderr);
      assert.equal(run.code, 0, `the page's commands failed:\n${out}\n${err}`);

      // 1. A key: the public key is printed, the secret only written to .env (mode 0600).
      const keeper = out.match(/^keeper account: (G[A-Z2-7]{55})$/m)?.[1];
      assert.ok(keeper, out);
      const env = parseDotenv(await Deno.readTextFile(`${cwd}/.env`));
      assert.equal(Keypair.fromSecret(env.KEEPER_SECRET).publicKey(), keeper);
      assert.equal((await Deno.stat(`${cwd}/.env`)).mode! & 0o777, 0o600);
      assert.ok(!out.includes(env.KEEPER_SECRET) && !err.includes(env.KEEPER_SECRET));
      assert.ok(!out.includes(env.DEPLOYER_SECRET) && !err.includes(env.DEPLOYER_SECRET));

      // 2. friendbot funded both accounts.
      assert.equal(out.match(/"successful":\s*true/g)?.length, 2, out);

      // 3. The trustline, and the SAC id the keeper needs.
      const asset = `USDC:${issuer.publicKey()}`;
      assert.match(
        out,
        new RegExp(`^trustline: ${asset} trusted by ${keeper} \\(tx [0-9a-f]{64}`, "m"),
      );
      assert.match(out, new RegExp(`^trustline: USDC_CONTRACT=${usdc} `, "m"));
      const again = await trustlineAgain(cwd, asset);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /already trusted by .*: nothing sent/);
      // Skipping step 2 is one clear line naming the fix.
      const unfunded = Keypair.random();
      const other = `${cwd}/unfunded`;
      await Deno.mkdir(other);
      await Deno.writeTextFile(
        `${other}/.env`,
        `KEEPER_SECRET=${unfunded.secret()}\nSOROBAN_RPC=${node.rpcUrl}\n` +
          `NETWORK_PASSPHRASE=${node.networkPassphrase}\n`,
        { mode: 0o600 },
      );
      const skipped = await trustlineAgain(other, asset);
      assert.equal(skipped.code, 1);
      assert.equal(
        skipped.stderr.trim(),
        `trustline: account ${unfunded.publicKey()} does not exist on "${node.networkPassphrase}": ` +
          `fund it first (testnet: curl "https://friendbot.stellar.org/?addr=${unfunded.publicKey()}")`,
      );

      // 5. Vigil deployed by the page's deploy command.
      assert.match(out, /^deploy: deployed on "Standalone Network ; February 2017"$/m);
      const deployment = JSON.parse(await Deno.readTextFile(`${cwd}/deployment.json`));
      assert.equal(deployment.usdc, usdc);
      assert.equal(deployment.config.min_stake, "100000000");

      // 6. The .env the page ends with: the deployment's ids and the node's network.
      assert.equal(env.VAULT_CONTRACT, deployment.contracts.vault);
      assert.equal(env.REGISTRY_CONTRACT, deployment.contracts.registry);
      assert.equal(env.LIQUIDATOR_CONTRACT, deployment.contracts.liquidator);
      assert.equal(env.SOROBAN_RPC, node.rpcUrl);
      assert.equal(env.NETWORK_PASSPHRASE, node.networkPassphrase);
      assert.equal(env.USDC_CONTRACT, usdc);
      assert.deepEqual(deployment.policy.pools, [env.LENDING_POOLS]);

      // 4. The faucet: 200 USDC from the issuer, as Circle's faucet would pay it.
      const source = await node.server.getAccount(issuer.publicKey());
      const pay = new TransactionBuilder(source, {
        fee: BASE_FEE,
        networkPassphrase: node.networkPassphrase,
      }).addOperation(
        Operation.payment({ destination: keeper, asset: usdcAsset, amount: "200" }),
      ).setTimeout(60).build();
      pay.sign(issuer);
      const sent = await node.server.sendTransaction(pay);
      assert.equal((await node.confirm(sent.hash)).status, "SUCCESS");

      // 7. The keeper with the page's .env (the deployer's key moved out, as the page says; a
      // free port instead of 8080).
      const { DEPLOYER_SECRET: _, ...keeperEnv } = env;
      const live = await startMainKeeper({}, 60_000, { dotenv: { ...keeperEnv, API_PORT: "0" } });
      try {
        await poll(
          () => live.stderr().includes('"msg":"registered in the keeper registry"'),
          30_000,
          "registration",
        );
        const net = { rpcUrl: node.rpcUrl, passphrase: node.networkPassphrase, source: keeper };
        const stake = await simulateRead<bigint>(net, usdc, "balance", [
          new Address(keeper).toScVal(),
        ]);
        assert.equal(stake, 190n * 10_000_000n, "the stake (10 USDC) was pulled");
        const res = await fetch(`${live.url}/api/state`);
        assert.equal(res.status, 200);
        const state = await res.json();
        assert.ok(JSON.stringify(state).includes(keeper), "the keeper is listed");
        // The node has no Blend pool at testnet's id (as after a testnet reset): the keeper says
        // so, naming the pool, and keeps running.
        await poll(
          () => live.stderr().includes(`lending pool ${env.LENDING_POOLS} not found`),
          20_000,
          "the missing pool's warning",
        );
      } finally {
        const stopped = await live.stop();
        assert.equal(stopped.code, 0, stopped.stderr.slice(-2000));
      }
    } finally {
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
