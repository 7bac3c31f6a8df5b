import { Address, Keypair, StrKey } from "@stellar/stellar-sdk";
const g = Keypair.random();
const m = StrKey.encodeMed25519PublicKey(Uint8Array.from([...g.rawPublicKey(), 0,0,0,0,0,0,0,42]) as any);
const a: any = Address.fromString(m).toScAddress();
console.log(a.type, a, Object.keys(a.muxedAccount ?? {}));
