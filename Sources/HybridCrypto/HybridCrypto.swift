import HybridBase
import HybridPackages

// HybridCrypto implements HybridCore's `Signer`, `SignatureVerifier`, `DigestFactory` and
// `BlobCompressor` with libsodium and zlib, so HybridCore stays Foundation-only. Apple builds
// can plug CryptoKit into the same protocols: the key files (`Ed25519KeyFiles`) hold exactly
// CryptoKit's `Curve25519.Signing` raw representations.
