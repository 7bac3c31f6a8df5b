/**
 * Web configuration from the environment.
 *
 * | Variable | Default |
 * |---|---|
 * | NEXT_PUBLIC_VAULT_CONTRACT | the keeper's VAULT_CONTRACT |
 * | NEXT_PUBLIC_REGISTRY_CONTRACT | the keeper's REGISTRY_CONTRACT |
 * | NEXT_PUBLIC_API_URL | the keeper's own API (same origin as the pages) |
 * | NEXT_PUBLIC_RPC_URL | SOROBAN_RPC without userinfo and query (what the browser talks to) |
 * | SOROBAN_RPC / NETWORK_PASSPHRASE | shared with the keeper (public testnet) |
 * | WEB_DEV_ACCOUNTS_FILE | unset; a `localnet.json` whose accounts the local-only dev wallet signs for |
 *
 * @module
 */
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import {
  type DevAccount,
  explorerFor,
  isLoopbackHost,
  networkOf,
  type PublicConfig,
  TESTNET_PASSPHRASE,
} from "./data/config.ts";
import { publicUrl, redactUrl } from "@vigil/util/url_redact";

/** Environment variables the web configuration reads besides the keeper's own. */
export const WEB_VARIABLES = [
  "NEXT_PUBLIC_VAULT_CONTRACT",
  "NEXT_PUBLIC_REGISTRY_CONTRACT",
  "NEXT_PUBLIC_API_URL",
  "NEXT_PUBLIC_RPC_URL",
  "WEB_DEV_ACCOUNTS_FILE",
] as const;

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
  /**
   * The RPC the server reads the chain through: SOROBAN_RPC as configured, credentials
   * included. Never rendered; the pages get `public.network.rpcUrl`.
   */
  rpcUrl: string;
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
  /** The RPC URL given to browsers (default: NEXT_PUBLIC_RPC_URL, else `rpcUrl` stripped). */
  publicRpcUrl?: string | null;
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
  let u: URL;
  try {
    u = new URL(s);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
  } catch {
    throw new WebConfigError("invalid NEXT_PUBLIC_API_URL: not an http(s) URL");
  }
  if (u.username !== "" || u.password !== "") {
    throw new WebConfigError(
      "invalid NEXT_PUBLIC_API_URL: it is given to every browser, so it must not carry user:password@",
    );
  }
  return s;
}

/** NEXT_PUBLIC_RPC_URL: an http(s) URL a browser can use, so no userinfo. */
function publicRpcOf(v: string | null | undefined): string | null {
  const s = (v ?? "").trim();
  if (s === "") return null;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new WebConfigError("invalid NEXT_PUBLIC_RPC_URL: not an http(s) URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new WebConfigError("invalid NEXT_PUBLIC_RPC_URL: not an http(s) URL");
  }
  if (u.username !== "" || u.password !== "") {
    throw new WebConfigError(
      "invalid NEXT_PUBLIC_RPC_URL: it is given to every browser, so it must not carry user:password@",
    );
  }
  return s;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

/**
 * Reads the depositor dev accounts of a `localnet.json` file
 * (`{accounts: {name: {public, secret}}, depositors: [name, …]}`): only the accounts its
 * `depositors` list names, so the development wallet never holds a keeper's key (keeper1,
 * keeper2 …), the USDC issuer's or the market admin's. A file without the list gives none.
 * Only called when the network is local.
 */
export function readDevAccountsFile(path: string): { name: string; secret: string }[] {
  const json = JSON.parse(Deno.readTextFileSync(path));
  const depositors = new Set(
    Array.isArray(json.depositors)
      ? json.depositors.filter((n: unknown): n is string => typeof n === "string")
      : [],
  );
  const out: { name: string; secret: string }[] = [];
  for (const [name, acc] of Object.entries(json.accounts ?? {})) {
    const secret = (acc as { secret?: unknown }).secret;
    if (depositors.has(name) && typeof secret === "string") out.push({ name, secret });
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
  // Browsers get a URL without the operator's credentials: NEXT_PUBLIC_RPC_URL, or SOROBAN_RPC
  // without userinfo and query (which then may not work from a browser: say so).
  let browserRpc = publicRpcOf(
    input.publicRpcUrl !== undefined ? input.publicRpcUrl : env.NEXT_PUBLIC_RPC_URL,
  );
  if (browserRpc === null) {
    browserRpc = publicUrl(rpcUrl);
    if (browserRpc !== rpcUrl.replace(/#.*$/, "")) {
      warn(
        `web: SOROBAN_RPC carries credentials; the pages get ${
          redactUrl(browserRpc)
        } — set NEXT_PUBLIC_RPC_URL to an endpoint browsers may use`,
      );
    }
  }
  const network = networkOf(passphrase, browserRpc);
  // "Local" needs both the browser's and the server's RPC on this machine.
  network.local = network.local && isLoopbackHost(hostOf(rpcUrl));

  let accounts = input.devAccounts;
  if (!accounts && env.WEB_DEV_ACCOUNTS_FILE && network.local) {
    accounts = readDevAccountsFile(env.WEB_DEV_ACCOUNTS_FILE);
    if (accounts.length === 0) {
      warn(
        "web: development wallet disabled: WEB_DEV_ACCOUNTS_FILE lists no depositor accounts",
      );
    }
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
    rpcUrl,
    devSigners,
  };
}
