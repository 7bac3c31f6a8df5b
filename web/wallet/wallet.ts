/**
 * The connected wallet, shared by every island on a page (a Preact signal) and remembered
 * across pages (localStorage `vigil.wallet`: kind, wallet id and address — never a key).
 *
 * Two kinds:
 * - "kit": a browser wallet through stellar-wallets-kit (`web/wallet/wallet_kit.ts`, loaded lazily).
 * - "dev": the development wallet, offered only when the page config enables it (a local
 *   standalone network). It asks this web server to sign (`POST /_dev/wallet/sign`); the
 *   dev keys stay on the server and the endpoint does not exist on other networks.
 *
 * @module
 */
import { signal } from "@preact/signals";
import type { PublicConfig } from "../data/config.ts";
import type { TxSigner } from "@vigil/soroban/client";

/** The connected wallet. */
export interface WalletInfo {
  kind: "kit" | "dev";
  /** Kit product id ("freighter", …) or the dev account name. */
  id: string;
  /** Display name ("Freighter", "Development wallet · alice"). */
  label: string;
  address: string;
}

const KEY = "vigil.wallet";

/** The current wallet (null = not connected). */
export const wallet = signal<WalletInfo | null>(null);

/** Restores the wallet remembered for this network, if it is still valid here. */
export function restoreWallet(config: PublicConfig): WalletInfo | null {
  let info: WalletInfo | null = null;
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    const saved = raw ? JSON.parse(raw) as WalletInfo & { network?: string } : null;
    if (saved && saved.network === config.network.passphrase && saved.address) {
      if (saved.kind === "kit") info = saved;
      if (
        saved.kind === "dev" &&
        config.devWallet?.accounts.some((a) => a.address === saved.address)
      ) info = saved;
    }
  } catch {
    info = null;
  }
  if (wallet.peek()?.address !== info?.address) wallet.value = info;
  return info;
}

/** Sets (or clears) the connected wallet and remembers it. */
export function setWallet(info: WalletInfo | null, config: PublicConfig) {
  wallet.value = info;
  try {
    if (info) {
      globalThis.localStorage?.setItem(
        KEY,
        JSON.stringify({ ...info, network: config.network.passphrase }),
      );
    } else globalThis.localStorage?.removeItem(KEY);
  } catch { /* storage unavailable: session only */ }
}

/** Connects a browser wallet through the kit's picker. */
export async function connectKit(config: PublicConfig): Promise<WalletInfo> {
  const kit = await import("./wallet_kit.ts");
  const r = await kit.connect(config.network.passphrase);
  const info: WalletInfo = { kind: "kit", id: r.walletId, label: r.walletName, address: r.address };
  setWallet(info, config);
  return info;
}

/** Connects the development wallet for one dev account (local network only). */
export function connectDev(config: PublicConfig, name: string): WalletInfo {
  const acc = config.devWallet?.accounts.find((a) => a.name === name);
  if (!config.network.local || !acc) throw new Error("development wallet not available");
  const info: WalletInfo = {
    kind: "dev",
    id: acc.name,
    label: `Development wallet · ${acc.name}`,
    address: acc.address,
  };
  setWallet(info, config);
  return info;
}

/** Disconnects. */
export async function disconnect(config: PublicConfig) {
  const w = wallet.peek();
  setWallet(null, config);
  if (w?.kind === "kit") {
    const kit = await import("./wallet_kit.ts");
    await kit.disconnect();
  }
}

/** A signer for the connected wallet. */
export function signerFor(info: WalletInfo): TxSigner {
  if (info.kind === "dev") {
    return {
      address: info.address,
      async signTransaction(xdr, opts) {
        const res = await fetch("/_dev/wallet/sign", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            address: opts.address,
            xdr,
            networkPassphrase: opts.networkPassphrase,
          }),
        });
        const body = await res.json().catch(() => ({}));
        if (!res.ok) throw new Error(`development wallet refused: ${body.error ?? res.status}`);
        return { signedTxXdr: String(body.signedTxXdr) };
      },
    };
  }
  return {
    address: info.address,
    async signTransaction(xdr, opts) {
      const kit = await import("./wallet_kit.ts");
      return await kit.signTransaction(info.id, xdr, opts);
    },
  };
}
