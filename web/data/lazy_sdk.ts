/**
 * The islands' chain access, loaded on first use: the Stellar SDK (behind `web/data/contract_reads.ts` and
 * `soroban/client.ts`) is fetched only once a wallet is connected or a write starts, so a page's
 * up-front JavaScript stays small. Only types are imported statically here.
 *
 * @module
 */
import type { PublicConfig } from "./config.ts";
import type { ChainReader } from "./contract_reads.ts";
import type { NetworkInfo, TxSigner, WriteResult, WriteStage } from "@vigil/soroban/client";

/** The RPC endpoint and passphrase of the page's network. */
export function networkInfo(config: PublicConfig): NetworkInfo {
  return { rpcUrl: config.network.rpcUrl, passphrase: config.network.passphrase };
}

let readerP: Promise<ChainReader> | null = null;

/** The page's chain reader (one per page, created on first use). */
export function loadChainReader(config: PublicConfig): Promise<ChainReader> {
  readerP ??= import("./contract_reads.ts").then((m) =>
    new m.ChainReader(networkInfo(config), config.vault, config.registry)
  );
  return readerP;
}

/**
 * A contract write for `useWrite().run`: builds, simulates, has `signer` sign and submits
 * `contractId.fn(args)`, reporting each stage.
 */
export function contractWrite<T>(
  config: PublicConfig,
  contractId: string,
  fn: string,
  args: unknown[],
  signer: TxSigner,
): (onStage: (stage: WriteStage, info?: { hash?: string }) => void) => Promise<WriteResult<T>> {
  return async (onStage) =>
    (await import("@vigil/soroban/client")).writeCall<T>(
      networkInfo(config),
      contractId,
      fn,
      args,
      signer,
      { onStage },
    );
}
