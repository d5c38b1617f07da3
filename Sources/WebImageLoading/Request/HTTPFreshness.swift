import WebImageCodecs
import Foundation

/// How long a response may be used without asking the server again (RFC 9111), read from its
/// `Cache-Control`, `Expires`, `Date` and `Age` headers and stored beside the validators.
///
/// Only the directives a private cache acts on are kept: `max-age`, `no-cache`, `no-store`,
/// `must-revalidate` and `stale-while-revalidate`. A `max-age` that is not a non-negative whole
/// number (`max-age=-1`, `max-age=soon`) and an `Expires` that is not a date count as already
/// expired. Without `max-age` or `Expires` a response is stale at once: there is no heuristic
/// freshness from `Last-Modified`.
public struct HTTPFreshness: Sendable, Hashable, Codable {
    /// `max-age` in seconds (0 for an invalid value).
    public var maxAge: TimeInterval?
    /// `no-cache`: stored, but revalidated before every use.
    public var noCache = false
    /// `no-store`: not to be written to disk.
    public var noStore = false
    /// `must-revalidate`: never used stale, not even within `stale-while-revalidate`.
    public var mustRevalidate = false
    /// `stale-while-revalidate` in seconds: how long past its lifetime the response may be served
    /// while it is revalidated in the background.
    public var staleWhileRevalidate: TimeInterval?
    /// `Expires`; a value that is not a date is the distant past.
    public var expires: Date?
    /// The server's `Date`.
    public var date: Date?
    /// `Age` in seconds: how long the response had already been cached upstream.
    public var age: TimeInterval?
    /// When the response arrived, on the clock freshness is later judged by.
    public var receivedAt: Date

    /// Whether the response's freshness can be used now, soon, or not at all.
    public enum Verdict: Sendable, Equatable {
        /// Within its lifetime: use it without a request.
        case fresh
        /// Past its lifetime but within `stale-while-revalidate`: use it, and revalidate in the background.
        case staleWhileRevalidate
        /// Revalidate before use.
        case stale
    }

    /// The freshness `headers` describe, for a response received at `receivedAt`. Nil when the
    /// response has neither `Cache-Control` nor `Expires`, so there is nothing to keep.
    public init?(headers: [HTTPHeaderField], receivedAt: Date) {
        let controls = headers.filter { HTTPHeaderName.matches($0.name, "Cache-Control") }
        let expiresValue = headers[header: "Expires"]
        guard !controls.isEmpty || expiresValue != nil else { return nil }
        self.receivedAt = receivedAt
        for directive in controls.flatMap({ $0.value.split(separator: ",") }) {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = parts.count > 1 ? Self.seconds(parts[1]) : nil
            switch name {
            case "max-age": maxAge = value ?? 0
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "must-revalidate": mustRevalidate = true
            case "stale-while-revalidate": staleWhileRevalidate = value
            default: break
            }
        }
        if let expiresValue { expires = HTTPDate.parse(expiresValue) ?? .distantPast }
        date = headers[header: "Date"].flatMap(HTTPDate.parse)
        age = headers[header: "Age"].flatMap { Self.seconds(Substring($0)) }
    }

    /// Seconds the response stays fresh from its generation at the origin.
    public var lifetime: TimeInterval {
        if noCache { return 0 }
        if let maxAge { return maxAge }
        if let expires { return max(0, expires.timeIntervalSince(date ?? receivedAt)) }
        return 0
    }

    /// The response's age at `now`: its age when it arrived (the `Age` header, or the gap between
    /// the server's `Date` and its arrival, whichever is larger) plus the time since.
    public func currentAge(at now: Date) -> TimeInterval {
        let apparent = max(0, date.map { receivedAt.timeIntervalSince($0) } ?? 0)
        return max(apparent, age ?? 0) + max(0, now.timeIntervalSince(receivedAt))
    }

    /// Whether the response may be used at `now`.
    public func verdict(at now: Date) -> Verdict {
        let age = currentAge(at: now)
        let lifetime = lifetime
        if age < lifetime { return .fresh }
        if !mustRevalidate, !noCache, let window = staleWhileRevalidate, age < lifetime + window {
            return .staleWhileRevalidate
        }
        return .stale
    }

    /// This freshness renewed by a 304 answered at `receivedAt`: the 304's own `Cache-Control` or
    /// `Expires` when it sent them, else the stored directives, counted from the 304.
    public func renewed(by headers: [HTTPHeaderField], receivedAt: Date) -> HTTPFreshness {
        if let sent = HTTPFreshness(headers: headers, receivedAt: receivedAt) { return sent }
        var renewed = self
        renewed.receivedAt = receivedAt
        renewed.date = headers[header: "Date"].flatMap(HTTPDate.parse)
        renewed.age = headers[header: "Age"].flatMap { Self.seconds(Substring($0)) }
        if let expires, let date {
            // Keep the stored lifetime rather than an Expires in the past of the new Date.
            renewed.expires = receivedAt.addingTimeInterval(max(0, expires.timeIntervalSince(date)))
            renewed.date = nil
        }
        return renewed
    }

    /// A delta-seconds value (digits only, quotes allowed), or nil.
    private static func seconds(_ text: Substring) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return TimeInterval(Int(trimmed) ?? Int.max)
    }
}
