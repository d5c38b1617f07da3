import Foundation
import Testing
@testable import WebImageLoading

/// Reading freshness from response headers, and judging it (RFC 9111's arithmetic, simplified
/// for a private cache).
@Suite("HTTP freshness")
struct HTTPFreshnessTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private func freshness(_ headers: [(String, String)], at date: Date? = nil) -> HTTPFreshness? {
        HTTPFreshness(headers: headers.map { HTTPHeaderField(name: $0.0, value: $0.1) }, receivedAt: date ?? t0)
    }

    private func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test func directivesAreRead() throws {
        let f = try #require(freshness([("Cache-Control", "public, MAX-AGE=60, stale-while-revalidate=30"),
                                        ("cache-control", "must-revalidate")]))
        #expect(f.maxAge == 60 && f.staleWhileRevalidate == 30 && f.mustRevalidate && !f.noCache && !f.noStore)
        #expect(freshness([("Cache-Control", "no-store, no-cache=\"set-cookie\"")])?.noStore == true)
        #expect(freshness([("Cache-Control", "no-cache=\"set-cookie\"")])?.noCache == true)
        #expect(freshness([("ETag", "\"x\"")]) == nil, "nothing about freshness: nothing to keep")
    }

    @Test func verdictsOverTime() throws {
        let f = try #require(freshness([("Cache-Control", "max-age=2, stale-while-revalidate=10")]))
        #expect(f.verdict(at: t0) == .fresh)
        #expect(f.verdict(at: t0 + 1.9) == .fresh)
        #expect(f.verdict(at: t0 + 2) == .staleWhileRevalidate)
        #expect(f.verdict(at: t0 + 11.9) == .staleWhileRevalidate)
        #expect(f.verdict(at: t0 + 12) == .stale)
    }

    @Test func garbageAndNegativeMaxAgeAreStale() {
        for value in ["max-age=-1", "max-age=soon", "max-age=", "max-age=1.5"] {
            #expect(freshness([("Cache-Control", value)])?.verdict(at: t0) == .stale, "\(value)")
        }
        #expect(freshness([("Expires", "0")])?.verdict(at: t0) == .stale, "an Expires that is no date")
    }

    @Test func expiresCountsFromTheServersDateAndAgeAddsToTheAge() throws {
        // The server's clock is an hour behind ours: Expires − Date is what counts.
        let serverNow = t0 - 3600
        let expires = try #require(freshness([("Date", httpDate(serverNow)), ("Expires", httpDate(serverNow + 60))]))
        #expect(expires.lifetime == 60)
        // An hour-old Date means the response arrived already an hour old.
        #expect(expires.verdict(at: t0) == .stale)
        let aged = try #require(freshness([("Cache-Control", "max-age=100"), ("Age", "90")]))
        #expect(aged.verdict(at: t0 + 5) == .fresh)
        #expect(aged.verdict(at: t0 + 10) == .stale)
    }

    @Test func a304RenewsTheStoredFreshness() throws {
        let stored = try #require(freshness([("Cache-Control", "max-age=60")]))
        let renewed = stored.renewed(by: [], receivedAt: t0 + 120)
        #expect(renewed.maxAge == 60 && renewed.verdict(at: t0 + 150) == .fresh)
        let replaced = stored.renewed(by: [HTTPHeaderField(name: "Cache-Control", value: "max-age=5")], receivedAt: t0 + 120)
        #expect(replaced.maxAge == 5)
        let withExpires = try #require(freshness([("Date", httpDate(t0)), ("Expires", httpDate(t0 + 60))]))
        #expect(withExpires.renewed(by: [], receivedAt: t0 + 600).verdict(at: t0 + 630) == .fresh)
    }

    @Test func validatorsStoredBeforeFreshnessExistedStillDecode() throws {
        let old = Data(#"{"etag":"\"v1\""}"#.utf8)
        let decoded = try JSONDecoder().decode(HTTPValidators.self, from: old)
        #expect(decoded.etag == "\"v1\"" && decoded.freshness == nil)
    }
}
