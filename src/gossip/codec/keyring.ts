/**
 * A keyring as memberlist keeps it (keyring.go): AES keys of 16, 24 or 32 bytes; the first is the primary key,
 * the only one that encrypts; decryption tries every key in order, so keys can be rotated without a flag day
 * (add the new key everywhere, make it primary everywhere, remove the old one). Immutable: changes return a new
 * keyring.
 */
import { CodecError } from './drop-reasons';

export const AES_KEY_SIZES: readonly number[] = [16, 24, 32];

function checkKey(key: Uint8Array): void {
  if (!AES_KEY_SIZES.includes(key.length)) {
    throw new CodecError('badKey', `key of ${key.length} bytes: must be 16, 24 or 32 (AES-128, AES-192, AES-256)`);
  }
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class Keyring {
  private constructor(readonly keys: readonly Uint8Array[]) {}

  /** The primary key first, then the others (duplicates dropped), as memberlist NewKeyring does. */
  static create(primary: Uint8Array, others: readonly Uint8Array[] = []): Keyring {
    const keys: Uint8Array[] = [];
    for (const k of [primary, ...others]) {
      checkKey(k);
      if (!keys.some((x) => same(x, k))) keys.push(k.slice());
    }
    return new Keyring(keys);
  }

  get primary(): Uint8Array {
    return this.keys[0] as Uint8Array;
  }

  /** Adds a key (not primary) if it is not there yet. */
  add(key: Uint8Array): Keyring {
    checkKey(key);
    return this.keys.some((x) => same(x, key)) ? this : new Keyring([...this.keys, key.slice()]);
  }

  /** Makes an installed key primary (memberlist Keyring.UseKey). */
  use(key: Uint8Array): Keyring {
    if (!this.keys.some((x) => same(x, key))) throw new CodecError('badKey', 'key is not in the keyring');
    return new Keyring([key.slice(), ...this.keys.filter((x) => !same(x, key))]);
  }

  /** Removes a key other than the primary (memberlist refuses to remove the primary key). */
  remove(key: Uint8Array): Keyring {
    if (same(this.primary, key)) throw new CodecError('badKey', 'the primary key cannot be removed');
    return new Keyring(this.keys.filter((x) => !same(x, key)));
  }
}
