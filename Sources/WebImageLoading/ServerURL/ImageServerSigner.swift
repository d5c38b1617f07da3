import Crypto
import WebImageCodecs

/// Signs image-server paths as imgproxy (and `webimage serve`) checks them: base64url without
/// padding of HMAC-SHA256(key, salt ‖ path), truncated to ``signatureSize`` bytes.
public struct ImageServerSigner: Sendable, Hashable {
    /// Bytes of the MAC kept (1–32; the server must be configured with the same size).
    public let signatureSize: Int
    private let key: [UInt8]
    private let salt: [UInt8]

    /// A signer from a hex-encoded key and salt, as `IMGPROXY_KEY` / `IMGPROXY_SALT` (and
    /// `webimage serve --key/--salt`) take them. Throws ``WebImageError/Code/invalidURL`` when either
    /// is not an even run of hex digits, the key is empty, or `signatureSize` is outside 1...32.
    public init(key: String, salt: String, signatureSize: Int = 32) throws {
        guard let keyBytes = HexDigit.bytes(key) else {
            throw WebImageError(.invalidURL, "The signing key is not hex: an even number of 0-9 a-f digits.")
        }
        guard let saltBytes = HexDigit.bytes(salt) else {
            throw WebImageError(.invalidURL, "The signing salt is not hex: an even number of 0-9 a-f digits.")
        }
        try self.init(rawKey: keyBytes, rawSalt: saltBytes, signatureSize: signatureSize)
    }

    /// A signer from a key and salt given as bytes (not hex).
    public init(rawKey: [UInt8], rawSalt: [UInt8], signatureSize: Int = 32) throws {
        guard !rawKey.isEmpty else { throw WebImageError(.invalidURL, "The signing key is empty.") }
        guard (1...32).contains(signatureSize) else {
            throw WebImageError(.invalidURL, "The signature size is \(signatureSize) bytes; it must be 1–32.")
        }
        self.key = rawKey
        self.salt = rawSalt
        self.signatureSize = signatureSize
    }

    /// The signature of `path`: everything after the signature segment, from its leading `/`,
    /// exactly as it will be sent.
    public func signature(for path: String) -> String {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        hmac.update(data: salt)
        hmac.update(data: Array(path.utf8))
        return ImageServerBase64.encode(Array(hmac.finalize()).prefix(signatureSize))
    }
}
