import Foundation
import NIOCore
import Testing
@testable import WebImageServer

/// The server's result cache: an entry found under aliases counts its bytes once and leaves with
/// all its names.
@Suite("Server: result memory cache")
struct ResultMemoryCacheTests {
    static func result(_ bytes: Int) -> ServedImage {
        ServedImage(body: ByteBuffer(repeating: 7, count: bytes), format: .jpeg, etag: "\"e\"", filenameStem: "x",
                    returnAttachment: false, expires: nil, negotiated: false)
    }

    @Test func aliasesShareTheEntryAndItsCost() {
        let cache = ResultMemoryCache(costLimit: 1000)
        cache.set(Self.result(200), for: "a")
        cache.addAlias("target /a", for: "a")
        cache.addAlias("target /a?again", for: "a")
        #expect(cache.bytes == 200)
        #expect(cache.get("target /a")?.body.readableBytes == 200)
        cache.addAlias("target /b", for: "missing")
        #expect(cache.get("target /b") == nil)
    }

    @Test func evictionRemovesEveryNameOfTheOldest() {
        let cache = ResultMemoryCache(costLimit: 1000)
        cache.set(Self.result(250), for: "a")
        cache.addAlias("target /a", for: "a")
        for key in ["b", "c", "d"] { cache.set(Self.result(250), for: key) }
        #expect(cache.bytes == 1000)
        cache.set(Self.result(250), for: "e")
        #expect(cache.bytes == 1000)
        #expect(cache.get("a") == nil)
        #expect(cache.get("target /a") == nil)
        #expect(cache.get("e") != nil)
    }
}
