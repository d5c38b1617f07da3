import Foundation
import Testing
@testable import WebImageCodecs
@testable import WebImageLoading

/// The retry strategy's arithmetic and the `Retry-After` reader, without a network.
@Suite("Retry strategy and Retry-After")
struct RetryStrategyTests {
    /// A fixed-sequence generator: the same jitter every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state
        }
    }

    @Test func exponentialBackoffGrowsAndIsCapped() {
        let strategy = RetryStrategy(maxRetries: 10, backoff: .exponential(base: 0.5, multiplier: 3), jitter: false,
                                     maxDelay: 10)
        #expect((1...5).map { strategy.delay(beforeRetry: $0) } == [0.5, 1.5, 4.5, 10, 10])
        let fixed = RetryStrategy(backoff: .fixed(2), jitter: false, maxDelay: 1)
        #expect(fixed.delay(beforeRetry: 3) == 1)
    }

    @Test func fullJitterStaysWithinZeroAndTheBackoff() {
        let strategy = RetryStrategy(maxRetries: 10, backoff: .exponential(base: 1), jitter: true, maxDelay: 6)
        var random = SeededGenerator(state: 42)
        var seen: [TimeInterval] = []
        for retry in 1...4 {
            for _ in 0..<50 { seen.append(strategy.delay(beforeRetry: retry, using: &random)) }
            let bound = min(pow(2, Double(retry - 1)), 6)
            #expect(seen.suffix(50).allSatisfy { $0 >= 0 && $0 <= bound })
        }
        #expect(Set(seen).count > 150, "the waits are spread, not one value")
    }

    @Test func retryAfterReplacesTheBackoffWithinTheCap() {
        let strategy = RetryStrategy(backoff: .fixed(1), jitter: true, maxDelay: 30)
        #expect(strategy.delay(beforeRetry: 1, retryAfter: 7) == 7, "no jitter on what the server asked")
        #expect(strategy.delay(beforeRetry: 1, retryAfter: 3600) == 30)
        #expect(strategy.delay(beforeRetry: 1, retryAfter: .infinity) <= 1, "a non-finite value is ignored")
    }

    @Test func whatIsRetried() {
        func status(_ code: Int) -> WebImageError { WebImageError(.invalidDownloadStatusCode, "", httpStatus: code) }
        for code in [408, 429, 500, 502, 503, 504] { #expect(RetryStrategy.isRetriable(status(code)), "\(code)") }
        for code in [400, 401, 403, 404, 410, 501, 505] { #expect(!RetryStrategy.isRetriable(status(code)), "\(code)") }
        #expect(RetryStrategy.isRetriable(WebImageError(.connectionFailed, "")))
        #expect(RetryStrategy.isRetriable(WebImageError(.timedOut, "")))
        for code in [WebImageError.Code.cancelled, .badImageData, .responseTooLarge, .tooManyRedirects, .tlsFailure,
                     .invalidDownloadContentType, .invalidURL, .forbiddenAddress] {
            #expect(!RetryStrategy.isRetriable(WebImageError(code, "")), "\(code)")
        }
    }

    @Test func retryAfterReadsSecondsAndEveryHTTPDateForm() throws {
        #expect(RetryAfter.seconds("120") == 120)
        #expect(RetryAfter.seconds(" 0 ") == 0)
        #expect(RetryAfter.seconds("99999999999999999999999") == TimeInterval(Int.max), "too long: the cap applies")
        let now = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == 60)
        #expect(RetryAfter.seconds("Sunday, 06-Nov-94 08:51:37 GMT", now: now) == 120)
        #expect(RetryAfter.seconds("Sun Nov  6 08:52:37 1994", now: now) == 180)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0, "a past date: now")
        for garbage in ["", "soon", "-3", "1.5", "12s", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            #expect(RetryAfter.seconds(garbage, now: now) == nil, "\(garbage)")
        }
    }
}
