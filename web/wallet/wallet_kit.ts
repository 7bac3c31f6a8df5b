/**
 * Browser wallets through `@creit.tech/stellar-wallets-kit` v2 with its default modules
 * (Freighter, xBull, Albedo, Lobstr, Rabet, Hana…). Loaded with a dynamic `import()` only
 * when the user connects or signs, so read-only pages never download it.
 *
 * @module
 */
import { StellarWalletsKit } from "@creit.tech/stellar-wallets-kit/sdk";
import { defaultModules } from "@creit.tech/stellar-wallets-kit/modules/utils";
import type { Networks } from "@creit.tech/stellar-wallets-kit/types";

let initedFor: string | null = null;

function init(passphrase: string, walletId?: string) {
  if (initedFor !== passphrase) {
    StellarWalletsKit.init({
      modules: defaultModules(),
      network: passphrase as Networks,
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
