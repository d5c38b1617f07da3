import Crypto
import WebImage

/// Signs and checks imgproxy URL signatures: base64url (no padding) of HMAC-SHA256(key, salt ‖ path),
/// truncated to ``signatureSize`` bytes. Several key/salt pairs may be configured so keys can be
/// rotated: the first signs, all of them are accepted.
public struct URLSigner: Sendable {
    /// Bytes of the HMAC kept in a signature (1–32).
    public let signatureSize: Int
    private let pairs: [(key: [UInt8], salt: [UInt8])]

    /// A signer from hex-encoded keys and salts, pair by pair, as `IMGPROXY_KEY` and `IMGPROXY_SALT`
    /// give them. Throws when the counts differ, there is no pair, a value is not hex, a key is
    /// empty, or `signatureSize` is outside 1...32.
    public init(keys: [String], salts: [String], signatureSize: Int = 32) throws(URLConfigurationError) {
        guard keys.count == salts.count else {
            throw URLConfigurationError("Keys and salts come in pairs: \(keys.count) keys, \(salts.count) salts.")
        }
        var rawKeys: [[UInt8]] = [], rawSalts: [[UInt8]] = []
        for (index, (key, salt)) in zip(keys, salts).enumerated() {
            guard let keyBytes = HexDigit.bytes(key) else {
                throw URLConfigurationError("Key \(index + 1) is not hex: an even number of 0-9 a-f digits.")
            }
            guard let saltBytes = HexDigit.bytes(salt) else {
                throw URLConfigurationError("Salt \(index + 1) is not hex: an even number of 0-9 a-f digits.")
            }
            rawKeys.append(keyBytes)
            rawSalts.append(saltBytes)
        }
        try self.init(rawKeys: rawKeys, rawSalts: rawSalts, signatureSize: signatureSize)
    }

    /// A signer from keys and salts given as bytes (not hex), pair by pair.
    public init(rawKeys: [[UInt8]], rawSalts: [[UInt8]], signatureSize: Int = 32) throws(URLConfigurationError) {
        guard rawKeys.count == rawSalts.count else {
            throw URLConfigurationError("Keys and salts come in pairs: \(rawKeys.count) keys, \(rawSalts.count) salts.")
        }
        guard !rawKeys.isEmpty else { throw URLConfigurationError("A signer needs at least one key and salt.") }
        if let empty = rawKeys.firstIndex(where: \.isEmpty) {
            throw URLConfigurationError("Key \(empty + 1) is empty.")
        }
        guard (1...32).contains(signatureSize) else {
            throw URLConfigurationError("The signature size is \(signatureSize) bytes; it must be 1–32.")
        }
        self.signatureSize = signatureSize
        pairs = zip(rawKeys, rawSalts).map { (key: $0, salt: $1) }
    }

    /// How many key/salt pairs are accepted.
    public var pairCount: Int { pairs.count }

    /// The signature of `path` (everything after the signature segment, from its leading `/`, as
    /// sent), made with the first pair.
    public func signature(for path: some StringProtocol) -> String {
        Base64URL.encode(mac(path, pair: 0).prefix(signatureSize))
    }

    /// `path` signed: `/SIGNATURE` + `path`, ready to append to the server's address.
    /// `path` starts with `/`, e.g. `/rs:fit:300:300/plain/https://example.com/a.jpg`.
    public func signedPath(_ path: String) -> String {
        "/" + signature(for: path) + path
    }

    /// Whether `signature` signs `path` under any configured pair. The bytes are compared in
    /// constant time; a signature with `=` padding or of the wrong length is invalid.
    public func isValid(signature: some StringProtocol, for path: some StringProtocol) -> Bool {
        guard let given = Base64URL.decode(signature), given.count == signatureSize else { return false }
        var matched = false
        for index in pairs.indices {
            let expected = mac(path, pair: index)
            var difference: UInt8 = 0
            for offset in 0..<signatureSize { difference |= expected[offset] ^ given[offset] }
            matched = matched || difference == 0
        }
        return matched
    }

    private func mac(_ path: some StringProtocol, pair index: Int) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: pairs[index].key))
        hmac.update(data: pairs[index].salt)
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }
}
