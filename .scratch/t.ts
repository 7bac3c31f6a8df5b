import { Asset, Keypair, xdr } from "@stellar/stellar-sdk";
const a = new Asset("ABC", Keypair.random().publicKey());
const b = a.toXDRObject().toXDR();
const back = Asset.fromOperation(xdr.Asset.fromXDR(b));
console.log(JSON.stringify(back.getCode()), JSON.stringify(back.getCode().replace(/\0+$/, "")));
