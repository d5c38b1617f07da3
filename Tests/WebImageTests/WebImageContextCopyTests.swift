import Foundation
import Testing
@testable import WebImageLoading
import WebImageCodecs

/// A context is copied on write: a copy changed in one field keeps every other field, and the
/// original is left as it was.
@Suite("WebImageContext copy on write")
struct WebImageContextCopyTests {
    @Test func aChangedCopyKeepsTheOtherFields() {
        var original = WebImageContext()
        original.errorBodyLimit = 4096
        original.maximumResponseSize = 1 << 20
        original.placeholderHash = .blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj", pixelSize: PixelSize(width: 8, height: 6))
        var copy = original
        copy.setImageOperationKey = "other"
        #expect(copy.errorBodyLimit == 4096)
        #expect(copy.maximumResponseSize == 1 << 20)
        #expect(copy.placeholderHash == original.placeholderHash)
        #expect(original.setImageOperationKey == nil)
        copy.placeholderHash = nil
        #expect(original.placeholderHash != nil)
    }
}
