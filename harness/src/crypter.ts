/**
 * The passphrase secrets manager, shaped like Pulumi's so checkpoints look like real ones: AES-256-GCM with a
 * key derived from a passphrase and a salt stored in the checkpoint.
 */
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from "node:crypto";

/** Passphrase used by every harness stack unless one is given. */
export const TEST_PASSPHRASE = "pulumi-gamehost-harness-passphrase";

// pkg/secrets/passphrase/manager.go uses 1,000,000 PBKDF2 rounds; a test fixture derives a key on every
// run, so it uses fewer. The checkpoint format is unaffected.
const PBKDF2_ROUNDS = 10_000;
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** `sdk/go/common/resource/config/crypt.go: symmetricCrypter` — `v1:<nonce>:<ciphertext+tag>` strings. */
export class Crypter {
  private constructor(
    private readonly key: Buffer,
    /** `secrets_providers.state.salt` in Pulumi's format: `v1:<salt>:<encrypted "pulumi">`. */
    readonly saltState: string,
  ) {}

  /** `pkg/secrets/passphrase/manager.go: NewPassphraseSecretsManager` — a fresh salt. */
  static create(passphrase: string): Crypter {
    const salt = randomBytes(8);
    const key = pbkdf2Sync(passphrase, salt, PBKDF2_ROUNDS, KEY_BYTES, "sha256");
    const probe = new Crypter(key, "");
    return new Crypter(key, `v1:${salt.toString("base64")}:${probe.encrypt("pulumi")}`);
  }

  /** `pkg/secrets/passphrase/manager.go: symmetricCrypterFromPhraseAndState` — checks the passphrase. */
  static fromState(passphrase: string, saltState: string): Crypter {
    const parts = saltState.split(":");
    if (parts.length !== 5 || parts[0] !== "v1") {
      throw new Error(`checkpoint secrets state is malformed: ${JSON.stringify(saltState)}`);
    }
    const salt = Buffer.from(parts[1] ?? "", "base64");
    const key = pbkdf2Sync(passphrase, salt, PBKDF2_ROUNDS, KEY_BYTES, "sha256");
    const crypter = new Crypter(key, saltState);
    let probe: string;
    try {
      probe = crypter.decrypt(parts.slice(2).join(":"));
    } catch {
      probe = "";
    }
    if (probe !== "pulumi") throw new Error("incorrect passphrase for this checkpoint");
    return crypter;
  }

  /** `symmetricCrypter.EncryptValue` (`encryptAES256GCGM`). */
  encrypt(plaintext: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
  }

  /** `symmetricCrypter.DecryptValue` (`decryptAES256GCM`). */
  decrypt(value: string): string {
    const [version, nonceText, sealedText] = value.split(":");
    if (version !== "v1" || nonceText === undefined || sealedText === undefined) {
      throw new Error("bad ciphertext: expected v1:<nonce>:<ciphertext>");
    }
    const sealed = Buffer.from(sealedText, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonceText, "base64"));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  }
}
