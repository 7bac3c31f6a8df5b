/**
 * Test harness: a fresh in-process local node on a free port, plus helpers (funded keypairs,
 * an `rpc.Server`, `contract.Client` factories). Every suite gets its own chain in well under
 * a second; `close()` (or `await using`) leaves nothing running.
 *
 * ```ts
 * await using node = await startTestNode();
 * const alice = await node.newAccount();
 * const client = await node.clientFor(contractId, alice);
 * ```
 *
 * @module
 */
import { contract, Keypair, rpc } from "@stellar/stellar-sdk";
import { type Localnet, type LocalnetOptions, startLocalnet } from "@vigil/localnet/node";

/** A test node. */
export interface TestNode extends Localnet, AsyncDisposable {
  /** An SDK RPC client for the node. */
  readonly server: rpc.Server;
  /** A new keypair whose account is created with `xlm` XLM (default 10,000), directly. */
  newAccount(xlm?: bigint): Promise<Keypair>;
  /**
   * A `contract.Client` for a deployed contract (spec fetched over RPC, as dapps do), signing
   * as `signer` with `basicNodeSigner` when given.
   */
  clientFor<T = contract.Client>(contractId: string, signer?: Keypair): Promise<T>;
  /**
   * Polls getTransaction (every 25 ms, up to 20 s) until the transaction is no longer
   * NOT_FOUND: sendTransaction only queues it; it lands when the next ledger closes.
   */
  confirm(hash: string): Promise<rpc.Api.GetTransactionResponse>;
  /** Options for `contract.Client` (rpcUrl, passphrase, signer) as a plain object. */
  clientOptions(contractId: string, signer?: Keypair): contract.ClientOptions;
}

/**
 * Starts a node for a test: free port, no ledger timer unless `ledgerMs` is given (a ledger
 * then closes `autoCloseMs`, default 100 ms, after a transaction is queued).
 */
export async function startTestNode(
  opts: Omit<LocalnetOptions, "port"> = {},
): Promise<TestNode> {
  const net = await startLocalnet({
    ...opts,
    port: 0,
    ledgerMs: opts.ledgerMs ?? 0,
  });
  const server = new rpc.Server(net.rpcUrl, { allowHttp: true });
  const clientOptions = (contractId: string, signer?: Keypair): contract.ClientOptions => ({
    contractId,
    networkPassphrase: net.networkPassphrase,
    rpcUrl: net.rpcUrl,
    allowHttp: true,
    ...(signer
      ? {
        publicKey: signer.publicKey(),
        ...contract.basicNodeSigner(signer, net.networkPassphrase),
      }
      : {}),
  });
  const node: TestNode = Object.assign(Object.create(null), net, {
    server,
    async newAccount(xlm?: bigint) {
      const kp = Keypair.random();
      await net.fund(kp.publicKey(), xlm);
      return kp;
    },
    clientFor<T>(contractId: string, signer?: Keypair): Promise<T> {
      return contract.Client.from(clientOptions(contractId, signer)) as Promise<T>;
    },
    clientOptions,
    async confirm(hash: string) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const got = await server.getTransaction(hash);
        if (got.status !== "NOT_FOUND" || Date.now() > deadline) return got;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    [Symbol.asyncDispose]: () => net.close(),
  });
  return node;
}
