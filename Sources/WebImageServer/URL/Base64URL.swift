import WebImage

/// The URL-safe base64 alphabet (`-` and `_`) without padding, as imgproxy signs and encodes
/// source URLs: a signature is written this way, and base64 sources and file names are read this way.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// `bytes` encoded, with no `=` padding (as the library's URL builder writes them).
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        ImageServerBase64.encode(bytes)
    }

    /// The bytes `text` encodes, or nil when it holds a character outside the alphabet (`=`
    /// included: strip padding first where it is allowed) or has an impossible length. As Go's
    /// `RawURLEncoding`, the unused low bits of the last character are not checked.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in utf8 {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return out
    }
}
