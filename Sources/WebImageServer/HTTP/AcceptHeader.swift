/// A request's `Accept` header read as media ranges with their weights (RFC 9110 §12.5.1), for
/// picking an output format from it.
///
/// A format is offered only when the header names its media type itself with a weight above 0:
/// `image/*` and `*/*` are not taken as a promise to decode WebP or AVIF (old browsers send them),
/// and `image/webp;q=0` is a refusal. Type, subtype and parameter names compare without regard to
/// case. Only the first ``maxLength`` bytes and ``maxRanges`` ranges are read, so a huge header
/// costs no more than a normal one.
struct AcceptHeader: Sendable {
    /// Bytes of the header read; the rest is ignored.
    static let maxLength = 4096
    /// Media ranges read; later ones are ignored.
    static let maxRanges = 64

    /// The media ranges read, lowercased, with their weights (0–1).
    let ranges: [(type: String, weight: Double)]

    /// The ranges of `value` (none for nil).
    init(_ value: String?) {
        guard let value else {
            ranges = []
            return
        }
        var ranges: [(type: String, weight: Double)] = []
        for element in value.utf8.prefix(Self.maxLength).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            guard ranges.count < Self.maxRanges else { break }
            if let range = Self.range(String(decoding: element, as: UTF8.self)[...]) { ranges.append(range) }
        }
        self.ranges = ranges
    }

    /// Whether `mediaType` (lowercase, as `image/webp`) is named with a weight above 0 and never
    /// with weight 0.
    func accepts(_ mediaType: String) -> Bool {
        var named = false
        for range in ranges where range.type == mediaType {
            if range.weight <= 0 { return false }
            named = true
        }
        return named
    }

    /// One element, `type/subtype *( ; name=value )`; nil when it is no media range or its weight
    /// is malformed.
    private static func range(_ element: Substring) -> (type: String, weight: Double)? {
        let parts = element.split(separator: ";", omittingEmptySubsequences: false)
        let type = parts[0].trimmingWhitespace.lowercased()
        let halves = type.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty,
              type.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        var weight = 1.0
        for parameter in parts.dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            guard parameter[..<equals].trimmingWhitespace.lowercased() == "q" else { continue }
            guard let parsed = qvalue(parameter[parameter.index(after: equals)...].trimmingWhitespace) else { return nil }
            weight = parsed
        }
        return (type, weight)
    }

    /// A weight: `0`, `1`, or either with up to three decimals (`0.8`, `1.000`).
    private static func qvalue(_ text: Substring) -> Double? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        guard bytes.count > 1 else { return first == UInt8(ascii: "1") ? 1 : 0 }
        let decimals = bytes.dropFirst(2)
        guard bytes[1] == UInt8(ascii: "."), decimals.count <= 3,
              decimals.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let value = Double(String(decoding: bytes, as: UTF8.self)) ?? 0
        return value <= 1 ? value : nil
    }
}

private extension Substring {
    /// Without the spaces and tabs at either end.
    var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}
