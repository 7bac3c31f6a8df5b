/**
 * The frontend's configuration rule: `NEXT_PUBLIC_VAULT_CONTRACT`, `NEXT_PUBLIC_REGISTRY_CONTRACT`
 * and `NEXT_PUBLIC_API_URL` (one keeper API at a time) choose what the pages show; unset (or
 * blank), the keeper's own contracts and API. Invalid values are errors that name the variable;
 * the development wallet's account file is only read on a local network.
 */
import assert from "node:assert/strict";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { resolveWebConfig, WebConfigError } from "./config.ts";
import { STANDALONE_PASSPHRASE, TESTNET_PASSPHRASE } from "./data/config.ts";

const contract = (n: number) => StrKey.encodeContract(new Uint8Array(32).fill(n));
const OWN = { vault: contract(1), registry: contract(2) };
const LOCAL = { rpcUrl: "http://127.0.0.1:8000/rpc", networkPassphrase: STANDALONE_PASSPHRASE };

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

Deno.test("web config: unset or blank NEXT_PUBLIC_* fall back to the keeper's own", () => {
  for (
    const env of [
      {},
      {
        NEXT_PUBLIC_VAULT_CONTRACT: " ",
        NEXT_PUBLIC_REGISTRY_CONTRACT: "",
        NEXT_PUBLIC_API_URL: "",
      },
    ]
  ) {
    const c = resolveWebConfig({ defaults: OWN }, env).public;
    assert.equal(c.vault, OWN.vault);
    assert.equal(c.registry, OWN.registry);
    assert.equal(c.apiUrl, "", "the keeper's own API (same origin)");
  }
  // Without a keeper (the web app alone), the keeper variables of the same environment.
  const alone = resolveWebConfig({}, {
    VAULT_CONTRACT: contract(5),
    REGISTRY_CONTRACT: contract(6),
  });
  assert.equal(alone.public.vault, contract(5));
  assert.equal(alone.public.registry, contract(6));
  // Nothing at all: no contract rather than an invented one.
  assert.equal(resolveWebConfig({}, {}).public.vault, null);
});

Deno.test("web config: NEXT_PUBLIC_* win over the keeper's own; one API URL, no trailing slash", () => {
  const c = resolveWebConfig({ defaults: OWN }, {
    NEXT_PUBLIC_VAULT_CONTRACT: contract(7),
    NEXT_PUBLIC_REGISTRY_CONTRACT: ` ${contract(8)} `,
    NEXT_PUBLIC_API_URL: "https://keeper.example.org/",
    VAULT_CONTRACT: contract(9),
  }).public;
  assert.equal(c.vault, contract(7));
  assert.equal(c.registry, contract(8));
  assert.equal(c.apiUrl, "https://keeper.example.org");
});

Deno.test("web config: invalid values are errors naming the variable", () => {
  const bad = (env: Record<string, string>) =>
    thrown(() => resolveWebConfig({ defaults: OWN }, env));
  const v = bad({ NEXT_PUBLIC_VAULT_CONTRACT: Keypair.random().publicKey() });
  assert.ok(v instanceof WebConfigError);
  assert.match(v.message, /^invalid NEXT_PUBLIC_VAULT_CONTRACT: /);
  assert.match(
    bad({ NEXT_PUBLIC_REGISTRY_CONTRACT: "C123" }).message,
    /NEXT_PUBLIC_REGISTRY_CONTRACT/,
  );
  assert.match(bad({ NEXT_PUBLIC_API_URL: "ftp://x" }).message, /^invalid NEXT_PUBLIC_API_URL/);
  assert.match(bad({ NEXT_PUBLIC_API_URL: "not a url" }).message, /^invalid NEXT_PUBLIC_API_URL/);
});

Deno.test("web config: WEB_DEV_ACCOUNTS_FILE only on a local network, depositors only", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vigil-webcfg-" });
  try {
    const kp: Record<string, Keypair> = {};
    for (const n of ["alice", "keeper1", "usdc_issuer"]) kp[n] = Keypair.random();
    const accounts = Object.fromEntries(
      Object.entries(kp).map(([n, k]) => [n, { public: k.publicKey(), secret: k.secret() }]),
    );
    const file = `${dir}/localnet.json`;
    await Deno.writeTextFile(file, JSON.stringify({ accounts, depositors: ["alice"] }));
    const local = resolveWebConfig({ defaults: OWN, ...LOCAL }, { WEB_DEV_ACCOUNTS_FILE: file });
    // Only the listed depositor: never the keeper's or the issuer's key.
    assert.deepEqual(local.public.devWallet, {
      accounts: [{ name: "alice", address: kp.alice.publicKey() }],
    });
    assert.deepEqual(local.devSigners.map((s) => s.name), ["alice"]);
    // The page-facing config never carries the secret.
    assert.ok(!JSON.stringify(local.public).includes(kp.alice.secret()));
    // A file without a depositors list offers nothing (and says why).
    await Deno.writeTextFile(file, JSON.stringify({ accounts }));
    const warnings: string[] = [];
    const none = resolveWebConfig(
      { defaults: OWN, ...LOCAL },
      { WEB_DEV_ACCOUNTS_FILE: file },
      (m) => warnings.push(m),
    );
    assert.equal(none.public.devWallet, null);
    assert.match(warnings.join("\n"), /no depositor accounts/);
    // On testnet the file is not even read (a missing file is no error) and no wallet is offered.
    const testnet = resolveWebConfig(
      { defaults: OWN, rpcUrl: "http://127.0.0.1:8000/rpc", networkPassphrase: TESTNET_PASSPHRASE },
      { WEB_DEV_ACCOUNTS_FILE: `${dir}/missing.json` },
    );
    assert.equal(testnet.public.devWallet, null);
    assert.deepEqual(testnet.devSigners, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("web config: browsers get an RPC URL without the operator's credentials", () => {
  const secretRpc = "https://user:pa55word@rpc.example.com/soroban?apikey=k3y-0123456789";
  const warnings: string[] = [];
  const c = resolveWebConfig({ defaults: OWN, rpcUrl: secretRpc }, {}, (m) => warnings.push(m));
  // The server keeps the full URL for its own reads; the page config has neither part.
  assert.equal(c.rpcUrl, secretRpc);
  assert.equal(c.public.network.rpcUrl, "https://rpc.example.com/soroban");
  const all = JSON.stringify(c.public) + warnings.join("\n");
  assert.ok(!all.includes("pa55word") && !all.includes("k3y-0123456789"), all);
  assert.match(warnings.join(), /NEXT_PUBLIC_RPC_URL/);
  // NEXT_PUBLIC_RPC_URL chooses the browsers' endpoint.
  const p = resolveWebConfig({ defaults: OWN, rpcUrl: secretRpc }, {
    NEXT_PUBLIC_RPC_URL: "https://public-rpc.example.org/",
  });
  assert.equal(p.public.network.rpcUrl, "https://public-rpc.example.org/");
  assert.equal(p.rpcUrl, secretRpc);
  // A credential in a URL meant for every browser is refused, naming the variable.
  assert.match(
    thrown(() =>
      resolveWebConfig({ defaults: OWN }, { NEXT_PUBLIC_RPC_URL: "https://u:p@rpc.example.org" })
    ).message,
    /^invalid NEXT_PUBLIC_RPC_URL: .*user:password/,
  );
  assert.match(
    thrown(() =>
      resolveWebConfig({ defaults: OWN }, { NEXT_PUBLIC_API_URL: "http://u:p@k.example" })
    )
      .message,
    /^invalid NEXT_PUBLIC_API_URL/,
  );
  // Local only when both the server's and the browsers' RPC are on this machine.
  const split = resolveWebConfig({ defaults: OWN, ...LOCAL }, {
    NEXT_PUBLIC_RPC_URL: "https://rpc.example.org",
  });
  assert.equal(split.public.network.local, false);
  assert.equal(resolveWebConfig({ defaults: OWN, ...LOCAL }, {}).public.network.local, true);
});
