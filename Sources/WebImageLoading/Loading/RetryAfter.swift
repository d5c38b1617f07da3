import WebImageCodecs
import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
enum RetryAfter {
    /// Seconds to wait from `now`, or nil for a value that is neither (garbage, a negative number,
    /// a fraction). A date in the past means 0.
    static func seconds(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) {
            // Digits only; a value too long for Int is "very long" and the cap applies.
            return TimeInterval(Int(trimmed) ?? Int.max)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
