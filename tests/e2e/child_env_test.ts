/**
 * The environment of Deno child processes (util/deno_child.ts): a real child started as the demo
 * and the island bundler start theirs sees the certificate, proxy and cache variables, and none
 * of the parent's configuration or secrets; the allow-list itself names no secret-bearing
 * variable.
 */
import assert from "node:assert/strict";
import { childEnv, denoRunArgs, NO_FETCH_FLAGS, SAFE_ENV_VARS } from "@vigil/util/deno_child";

/** Variables of this program (or of an operator's shell) that carry secrets or configuration. */
const PARENT_ONLY: Record<string, string> = {
  KEEPER_SECRET: "SDUMMYSECRETSEEDNOTREAL",
  DEPLOYER_SECRET: "SDUMMYDEPLOYERSEEDNOTREAL",
  SOROBAN_RPC: "http://u:p@rpc.example/rpc?apikey=k3y",
  HORIZON_URL: "http://u:p@horizon.example/?key=k3y",
  NEXT_PUBLIC_RPC_URL: "https://rpc.example/",
  WEB_DEV_ACCOUNTS_FILE: "/tmp/localnet.json",
  AWS_SECRET_ACCESS_KEY: "aws",
  GITHUB_TOKEN: "ghp_x",
  NPM_TOKEN: "npm_x",
  NODE_AUTH_TOKEN: "npm_y",
  DENO_AUTH_TOKENS: "tok@registry.example",
};

/** What an operator's TLS/proxy setup puts in the environment. */
const NETWORK: Record<string, string> = {
  SSL_CERT_FILE: "/etc/ssl/corp-ca.pem",
  DENO_CERT: "/etc/ssl/corp-ca.pem",
  HTTPS_PROXY: "http://127.0.0.1:3128",
  https_proxy: "http://127.0.0.1:3128",
  NO_PROXY: "127.0.0.1,localhost",
  DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
};

Deno.test("child env: the allow-list names no secret-bearing variable", () => {
  for (const k of SAFE_ENV_VARS) {
    assert.doesNotMatch(k, /SECRET|TOKEN|PASS|AUTH|KEY|RPC|HORIZON|NEXT_PUBLIC|ACCOUNTS/i, k);
  }
  assert.deepEqual(NO_FETCH_FLAGS, ["--cached-only", "--frozen"]);
});

Deno.test("child env: a real child gets the network variables and none of the parent's own", async () => {
  const from = { ...Deno.env.toObject(), ...PARENT_ONLY, ...NETWORK };
  if (!NETWORK.DENO_DIR) delete from.DENO_DIR;
  const dir = await Deno.makeTempDir({ prefix: "vigil-child-env-" });
  try {
    const script = `${dir}/env.ts`;
    await Deno.writeTextFile(script, "console.log(JSON.stringify(Deno.env.toObject()));\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: denoRunArgs(script),
      clearEnv: true,
      env: childEnv({ EXTRA_GIVEN: "1" }, from),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const seen = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, string>;
    for (const k of Object.keys(PARENT_ONLY)) assert.equal(seen[k], undefined, `${k} reached it`);
    for (const [k, v] of Object.entries(NETWORK)) {
      if (v) assert.equal(seen[k], v, `${k} passed through`);
    }
    assert.equal(seen.EXTRA_GIVEN, "1", "what the caller passes explicitly reaches it");
    for (const k of Object.keys(seen)) {
      assert.ok(SAFE_ENV_VARS.includes(k) || k === "EXTRA_GIVEN", `unexpected ${k}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
