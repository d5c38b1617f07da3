import Foundation
import Testing
@testable import WebImageServer

/// The on-disk index of which results each source made: keys recorded once each, up to the cap,
/// taken (and forgotten) together.
@Suite("Server: result index")
struct ResultIndexTests {
    @Test func keysAreRecordedOnceUpToTheCapAndTakenTogether() throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        let index = ResultIndex(directory: sandbox.root, maxKeysPerSource: 4)
        index.record("w:50|png|r|v1", madeFrom: "http://a/x.jpg")
        index.record("w:80|png|r|v1", madeFrom: "http://a/x.jpg")
        index.record("w:50|png|r|v1", madeFrom: "http://a/x.jpg")
        index.record("w:50|png|r|v1", madeFrom: "http://a/y.jpg")
        // A second index on the same directory (another process) reads the same entries.
        let other = ResultIndex(directory: sandbox.root, maxKeysPerSource: 4)
        #expect(other.take(madeFrom: "http://a/x.jpg") == ["w:50|png|r|v1", "w:80|png|r|v1"])
        #expect(index.take(madeFrom: "http://a/x.jpg") == [], "taken means forgotten")
        #expect(index.take(madeFrom: "http://a/y.jpg") == ["w:50|png|r|v1"])

        for width in 1...10 { index.record("w:\(width)", madeFrom: "http://a/z.jpg") }
        #expect(index.take(madeFrom: "http://a/z.jpg") == ["w:1", "w:2", "w:3", "w:4"], "past the cap, not recorded")
    }
}
