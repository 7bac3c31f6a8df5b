/**
 * Web configuration from the environment.
 *
 * | Variable | Default |
 * |---|---|
 * | NEXT_PUBLIC_VAULT_CONTRACT | the keeper's VAULT_CONTRACT |
 * | NEXT_PUBLIC_REGISTRY_CONTRACT | the keeper's REGISTRY_CONTRACT |
 * | NEXT_PUBLIC_API_URL | the keeper's own API (same origin as the pages) |
 * | SOROBAN_RPC / NETWORK_PASSPHRASE | shared with the keeper (public testnet) |
 * | WEB_DEV_ACCOUNTS_FILE | unset; a `localnet.json` whose accounts the local-only dev wallet signs for |
 *
 * @module
 */
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import {
  type DevAccount,
  explorerFor,
  networkOf,
  type PublicConfig,
  TESTNET_PASSPHRASE,
} from "../lib/config.ts";

/** Public testnet RPC endpoint (the keeper's default too). */
export const DEFAULT_RPC = "https://soroban-testnet.stellar.org";

/** Thrown for an invalid web setting; the message names the variable. */
export class WebConfigError extends Error {
  override name = "WebConfigError";
}

/** A dev account with its secret: server side only, never serialized to a page. */
export interface DevSigner {
  name: string;
  keypair: Keypair;
}

/** Server-side web configuration. */
export interface WebConfig {
  public: PublicConfig;
  /** Dev wallet signers (local network only; empty otherwise). */
  devSigners: DevSigner[];
}

/**
 * Options. `vault`/`registry`/`apiUrl` override everything (tests); `defaults` are the
 * keeper's own contracts, used when NEXT_PUBLIC_* is unset.
 */
export interface WebConfigInput {
  vault?: string | null;
  registry?: string | null;
  apiUrl?: string | null;
  /** The keeper's own contracts: the defaults of NEXT_PUBLIC_VAULT/REGISTRY_CONTRACT. */
  defaults?: { vault?: string | null; registry?: string | null };
  rpcUrl?: string;
  networkPassphrase?: string;
  /** Dev accounts (name + secret). Ignored — with a warning — unless the network is local. */
  devAccounts?: { name: string; secret: string }[];
}

function nonBlank(v: string | undefined): boolean {
  return v !== undefined && v.trim() !== "";
}

function contractOrNull(v: string | null | undefined, key: string): string | null {
  const s = (v ?? "").trim();
  if (s === "") return null;
  if (!StrKey.isValidContract(s)) {
    throw new WebConfigError(`invalid ${key}: not a contract address`);
  }
  return s;
}

function apiUrlOf(v: string | null | undefined): string {
  const s = (v ?? "").trim().replace(/\/+$/, "");
  if (s === "") return "";
  try {
    const u = new URL(s);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
  } catch {
    throw new WebConfigError("invalid NEXT_PUBLIC_API_URL: not an http(s) URL");
  }
  return s;
}

/**
 * Reads the dev accounts of a `localnet.json` file (`{accounts: {name: {public, secret}}}`).
 * Only called when the network is local.
 */
export function readDevAccountsFile(path: string): { name: string; secret: string }[] {
  const json = JSON.parse(Deno.readTextFileSync(path));
  const out: { name: string; secret: string }[] = [];
  for (const [name, acc] of Object.entries(json.accounts ?? {})) {
    const secret = (acc as { secret?: unknown }).secret;
    if (typeof secret === "string") out.push({ name, secret });
  }
  return out;
}

/**
 * Builds the web config from options, falling back to the environment. The dev wallet is
 * enabled only when the network passphrase is the standalone one AND the RPC URL is on a
 * loopback host; anywhere else dev accounts are dropped and never reach a page.
 */
export function resolveWebConfig(
  input: WebConfigInput = {},
  env: Record<string, string | undefined> = Deno.env.toObject(),
  warn: (msg: string) => void = (m) => console.warn(m),
): WebConfig {
  const pick = (
    explicit: string | null | undefined,
    pub: string,
    own: string | null | undefined,
    envOwn: string,
  ) =>
    explicit !== undefined
      ? { v: explicit, key: "option" }
      : nonBlank(env[pub])
      ? { v: env[pub], key: pub }
      : own
      ? { v: own, key: "keeper config" }
      : { v: env[envOwn], key: envOwn };
  const v = pick(
    input.vault,
    "NEXT_PUBLIC_VAULT_CONTRACT",
    input.defaults?.vault,
    "VAULT_CONTRACT",
  );
  const r = pick(
    input.registry,
    "NEXT_PUBLIC_REGISTRY_CONTRACT",
    input.defaults?.registry,
    "REGISTRY_CONTRACT",
  );
  const vault = contractOrNull(v.v, v.key);
  const registry = contractOrNull(r.v, r.key);
  const apiUrl = apiUrlOf(input.apiUrl !== undefined ? input.apiUrl : env.NEXT_PUBLIC_API_URL);
  const rpcUrl = (input.rpcUrl ?? env.SOROBAN_RPC ?? "").trim() || DEFAULT_RPC;
  const passphrase = (input.networkPassphrase ?? env.NETWORK_PASSPHRASE ?? "").trim() ||
    TESTNET_PASSPHRASE;
  const network = networkOf(passphrase, rpcUrl);

  let accounts = input.devAccounts;
  if (!accounts && env.WEB_DEV_ACCOUNTS_FILE && network.local) {
    accounts = readDevAccountsFile(env.WEB_DEV_ACCOUNTS_FILE);
  }
  const devSigners: DevSigner[] = [];
  if (accounts && accounts.length > 0) {
    if (!network.local) {
      warn("web: development wallet disabled: the network is not a local standalone network");
    } else {
      for (const a of accounts) {
        try {
          devSigners.push({ name: a.name, keypair: Keypair.fromSecret(a.secret) });
        } catch {
          throw new WebConfigError(`invalid dev account ${a.name}: bad secret`);
        }
      }
    }
  }
  const devWallet = devSigners.length > 0
    ? {
      accounts: devSigners.map((s): DevAccount => ({
        name: s.name,
        address: s.keypair.publicKey(),
      })),
    }
    : null;
  return {
    public: {
      network,
      vault,
      registry,
      apiUrl,
      explorerTx: explorerFor(network.name),
      devWallet,
    },
    devSigners,
  };
}
