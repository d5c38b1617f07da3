/// HTTP field-name comparison: ASCII case-insensitive, as RFC 9110 defines field names (tokens
/// of ASCII letters, digits and symbols), without bridging to Foundation's Unicode comparison,
/// which costs a string conversion per header on every response.
enum HTTPHeaderName {
    /// True when `a` and `b` are the same field name: equal bytes, letters compared without case.
    /// Bytes outside ASCII letters (including every non-ASCII byte) must match exactly.
    static func matches(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            let lower = x | 0x20
            guard lower == y | 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return false }
        }
        return true
    }
}
