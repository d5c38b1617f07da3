import Synchronization

/// A request's id, for its log lines and its `X-Request-ID` response header: the client's own
/// `X-Request-ID` when it is a sane token (so a proxy's id follows the request), else a new one
/// unique across processes (a random per-process prefix and a counter).
enum RequestID {
    private static let prefix: String = {
        let value = UInt32.random(in: 0...UInt32.max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }()

    private static let counter = Atomic<UInt64>(0)

    /// `incoming` when it is 1–128 letters, digits, `-`, `_`, `.` or `:`, else a new id.
    static func make(incoming: String?) -> String {
        if let incoming, isSane(incoming) { return incoming }
        let number = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(number, radix: 36)
    }

    static func isSane(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x3A
        }
    }
}
