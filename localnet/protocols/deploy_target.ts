/**
 * What the deploy helper of the TypeScript allocation-vault stand-in
 * (`localnet/protocols/allocation_vault/deploy.ts`) needs from a node: the in-process Localnet API
 * (`localnet/mod.ts` fits structurally, and so does a test's fake host). The DEX is Wasm (its
 * deploy helper takes `DexHost` from `localnet/protocols/dex/deploy.ts`).
 *
 * @module
 */
import type { ContractModule } from "../../contracts/sdk.ts";

/** Deploys TS contract modules and invokes them (auth mocked, as the local node's API does). */
export interface DeployTarget {
  deployContract(
    module: ContractModule,
    args?: Record<string, unknown>,
    opts?: { salt?: Uint8Array },
  ): Promise<string>;
  invoke<R = unknown>(
    contractId: string,
    fn: string,
    args?: Record<string, unknown> | unknown[],
    opts?: { source?: string },
  ): Promise<R>;
}
