import Testing
@testable import WebImageServer

/// `Accept` read as media ranges with weights: a type is offered only when named with a weight
/// above 0.
@Suite("Server: the Accept header")
struct AcceptHeaderTests {
    @Test func aNamedTypeIsAcceptedAndAZeroWeightRefusesIt() {
        #expect(AcceptHeader("image/avif,image/webp,*/*;q=0.8").accepts("image/webp"))
        #expect(AcceptHeader("image/webp;q=0.5").accepts("image/webp"))
        #expect(!AcceptHeader("image/webp;q=0").accepts("image/webp"))
        #expect(!AcceptHeader("image/webp ; Q=0.000, image/png").accepts("image/webp"))
        // A refusal wins over another mention of the same type.
        #expect(!AcceptHeader("image/webp, image/webp;q=0").accepts("image/webp"))
        #expect(!AcceptHeader(nil).accepts("image/webp"))
    }

    @Test func namesCompareWithoutCaseAndOnlyWholeTypesMatch() {
        #expect(AcceptHeader("IMAGE/WebP;Level=1;q=1").accepts("image/webp"))
        #expect(AcceptHeader("  image/avif\t;\tq=0.9 ").accepts("image/avif"))
        // Wildcards and look-alikes are no promise to decode the format.
        #expect(!AcceptHeader("image/*, */*").accepts("image/webp"))
        #expect(!AcceptHeader("image/webpx, x-image/webp, image/webp-lossless").accepts("image/webp"))
        #expect(!AcceptHeader("text/html;note=\"image/webp\"").accepts("image/webp"))
    }

    @Test func aMalformedWeightIgnoresItsRange() {
        for weight in ["2", "1.5", "-1", "0.0001", "abc", "", "0.5x", "NaN", "1e0"] {
            #expect(!AcceptHeader("image/webp;q=\(weight)").accepts("image/webp"), "q=\(weight)")
        }
        #expect(AcceptHeader("image/webp;q=1.000").accepts("image/webp"))
        #expect(AcceptHeader("image/webp;q=0.001").accepts("image/webp"))
    }

    @Test func onlyTheFirstBytesAndRangesAreRead() {
        let padding = String(repeating: "text/plain,", count: AcceptHeader.maxRanges)
        #expect(!AcceptHeader(padding + "image/webp").accepts("image/webp"))
        #expect(AcceptHeader(padding + "image/webp").ranges.count == AcceptHeader.maxRanges)
        let long = "image/x-" + String(repeating: "a", count: AcceptHeader.maxLength) + ",image/webp"
        #expect(!AcceptHeader(long).accepts("image/webp"))
        #expect(AcceptHeader(String(repeating: ",", count: 100_000) + "image/webp").ranges.isEmpty)
    }
}
