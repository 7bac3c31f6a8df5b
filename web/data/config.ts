/**
 * The frontend's public configuration: what the server renders into every page
 * (`<script id="vigil-config" type="application/json">`) and the islands read. It holds
 * addresses and URLs only — never a key.
 *
 * @module
 */

/** Passphrase of a standalone (local / quickstart "local") network. */
export const STANDALONE_PASSPHRASE = "Standalone Network ; February 2017";
/** Passphrase of the public test network. */
export const TESTNET_PASSPHRASE = "Test SDF Network ; September 2015";
/** Passphrase of the public network (mainnet). */
export const MAINNET_PASSPHRASE = "Public Global Stellar Network ; September 2015";

/** Which network the frontend talks to. */
export type NetworkName = "local" | "testnet" | "mainnet" | "custom";

/** A development account the local-only dev wallet can sign for (public data only). */
export interface DevAccount {
  name: string;
  address: string;
}

/** Configuration visible to the browser. */
export interface PublicConfig {
  network: {
    name: NetworkName;
    passphrase: string;
    rpcUrl: string;
    /** True only for a standalone network served from a loopback RPC URL. */
    local: boolean;
  };
  /** Vault contract (C…), or null when not configured. */
  vault: string | null;
  /** Registry contract (C…), or null when not configured. */
  registry: string | null;
  /** Base URL of the keeper API; "" means the same origin as the page. */
  apiUrl: string;
  /** Transaction explorer URL prefix (hash appended), null where none exists (local). */
  explorerTx: string | null;
  /** The development wallet's accounts; null unless the network is local and it is enabled. */
  devWallet: { accounts: DevAccount[] } | null;
}

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" ||
    /^127(\.\d{1,3}){3}$/.test(h);
}

/** Classifies a network by passphrase and RPC URL. */
export function networkOf(passphrase: string, rpcUrl: string): PublicConfig["network"] {
  let host = "";
  try {
    host = new URL(rpcUrl).hostname;
  } catch {
    host = "";
  }
  const standalone = passphrase === STANDALONE_PASSPHRASE;
  const name: NetworkName = standalone
    ? "local"
    : passphrase === TESTNET_PASSPHRASE
    ? "testnet"
    : passphrase === MAINNET_PASSPHRASE
    ? "mainnet"
    : "custom";
  return { name, passphrase, rpcUrl, local: standalone && isLoopbackHost(host) };
}

/** Explorer prefix for transaction links, by network. */
export function explorerFor(name: NetworkName): string | null {
  if (name === "testnet") return "https://stellar.expert/explorer/testnet/tx/";
  if (name === "mainnet") return "https://stellar.expert/explorer/public/tx/";
  return null;
}

/** Reads the page's public config (browser only). */
export function readPageConfig(): PublicConfig {
  const el = globalThis.document?.getElementById("vigil-config");
  if (!el?.textContent) throw new Error("page config missing");
  return JSON.parse(el.textContent) as PublicConfig;
}
