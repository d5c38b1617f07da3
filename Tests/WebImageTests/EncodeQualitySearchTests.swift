import Foundation
import Testing
@testable import WebImageCodecs

/// The quality search behind `maxFileSize` and the server's `max_bytes`, over a fake encoder
/// whose output grows with the quality.
@Suite("EncodeQualitySearch")
struct EncodeQualitySearchTests {
    /// An encoder writing `10 × quality + 100` bytes, counting its calls.
    final class FakeEncoder: @unchecked Sendable {
        var calls: [Int] = []
        func encode(_ quality: Int) -> Data {
            calls.append(quality)
            return Data(count: 10 * quality + 100)
        }
    }

    @Test func theHighestFittingQualityInTheRangeIsFound() {
        for budget in [0, 150, 200, 555, 899, 900, 901, 2000] {
            let encoder = FakeEncoder()
            let found = EncodeQualitySearch.highestFitting(maxBytes: budget, qualities: 10...80, encode: encoder.encode)
            let fitting = (10...80).filter { 10 * $0 + 100 <= budget }.max()
            #expect(found.quality == fitting ?? 10, "budget \(budget)")
            #expect(found.data.count == 10 * found.quality + 100)
            // The top first, then a binary search over 70 qualities: at most 1 + 7 encodes.
            #expect(encoder.calls.first == 80)
            #expect(encoder.calls.count <= 8, "budget \(budget): \(encoder.calls)")
        }
    }

    /// A range of one quality is one encode, fitting or not.
    @Test func aSingleQualityIsOneEncode() {
        let encoder = FakeEncoder()
        let found = EncodeQualitySearch.highestFitting(maxBytes: 1, qualities: 5...5, encode: encoder.encode)
        #expect(found.quality == 5 && encoder.calls == [5])
    }
}
