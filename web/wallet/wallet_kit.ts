/**
 * Browser wallets through `@creit.tech/stellar-wallets-kit` v2 with its default modules
 * (Freighter, xBull, Albedo, Lobstr, Rabet, Hana…). Loaded with a dynamic `import()` only
 * when the user connects or signs, so read-only pages never download it.
 *
 * The picker wears the site's dark colours, and its wallet icons are drawn here (a letter on a
 * tile, as a data: URL) instead of the kit's PNGs on a third-party host: the picker then looks
 * the same offline and on a local network, and the page makes no request elsewhere.
 *
 * @module
 */
import { StellarWalletsKit } from "@creit.tech/stellar-wallets-kit/sdk";
import { defaultModules } from "@creit.tech/stellar-wallets-kit/modules/utils";
import {
  type ModuleInterface,
  type Networks,
  SwkAppDarkTheme,
  type SwkAppTheme,
} from "@creit.tech/stellar-wallets-kit/types";

/** The kit's dark theme in the site's colours (web/static/styles.css). */
export const KIT_THEME: SwkAppTheme = {
  ...SwkAppDarkTheme,
  "background": "#11172b",
  "background-secondary": "#151c33",
  "foreground-strong": "#e7ebf6",
  "foreground": "#c9d1e6",
  "foreground-secondary": "#9aa5c4",
  "primary": "#3dd6b5",
  "primary-foreground": "#0b1020",
  "border": "#26304f",
  "font-family":
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
};

/** A wallet's icon drawn locally: its initial on a tile, as an SVG data: URL. */
export function localIcon(name: string): string {
  const letter = (name.trim()[0] ?? "?").toUpperCase().replace(/[^A-Z0-9]/, "?");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40">` +
    `<rect width="40" height="40" rx="10" fill="#1c2542"/>` +
    `<text x="20" y="26" font-family="system-ui,sans-serif" font-size="18" font-weight="700" ` +
    `fill="#3dd6b5" text-anchor="middle">${letter}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** The kit's default modules with their icons drawn locally. */
function modules(): ModuleInterface[] {
  const mods = defaultModules();
  for (const m of mods) {
    (m as { productIcon: string }).productIcon = localIcon(m.productName);
  }
  return mods;
}

let initedFor: string | null = null;

function init(passphrase: string, walletId?: string) {
  if (initedFor !== passphrase) {
    StellarWalletsKit.init({
      modules: modules(),
      network: passphrase as Networks,
      theme: KIT_THEME,
      authModal: { showInstallLabel: true },
    });
    initedFor = passphrase;
  }
  if (walletId) StellarWalletsKit.setWallet(walletId);
}

/** Opens the kit's wallet picker; resolves with the chosen wallet and its address. */
export async function connect(
  passphrase: string,
): Promise<{ address: string; walletId: string; walletName: string }> {
  init(passphrase);
  const { address } = await StellarWalletsKit.authModal();
  const mod = StellarWalletsKit.selectedModule;
  return { address, walletId: mod.productId, walletName: mod.productName };
}

/** Signs a transaction envelope with the previously chosen wallet. */
export async function signTransaction(
  walletId: string,
  xdr: string,
  opts: { networkPassphrase: string; address: string },
): Promise<{ signedTxXdr: string }> {
  init(opts.networkPassphrase, walletId);
  const r = await StellarWalletsKit.signTransaction(xdr, opts);
  return { signedTxXdr: r.signedTxXdr };
}

/** Forgets the kit's connection. */
export async function disconnect(): Promise<void> {
  if (initedFor) await StellarWalletsKit.disconnect().catch(() => {});
}
