import Foundation
import NIOCore
import Testing
@testable import WebImageServer

/// The server's result cache: an entry found under aliases counts its body once and each name's
/// bytes, keeps a bounded number of aliases, and leaves with all its names.
@Suite("Server: result memory cache")
struct ResultMemoryCacheTests {
    static func result(_ bytes: Int) -> ServedImage {
        ServedImage(body: ByteBuffer(repeating: 7, count: bytes), format: .jpeg, etag: "\"e\"", filenameStem: "x",
                    returnAttachment: false, expires: nil, negotiated: false)
    }

    static func cost(_ keys: String...) -> Int { keys.map(ResultMemoryCache.keyCost).reduce(0, +) }

    @Test func aliasesShareTheEntryAndCountTheirKeys() {
        let cache = ResultMemoryCache(costLimit: 4000)
        cache.set(Self.result(200), for: "a")
        cache.addAlias("target /a", for: "a")
        cache.addAlias("target /a?again", for: "a")
        #expect(cache.bytes == 200 + Self.cost("a", "target /a", "target /a?again"))
        #expect(cache.get("target /a")?.body.readableBytes == 200)
        cache.addAlias("target /b", for: "missing")
        #expect(cache.get("target /b") == nil)
    }

    @Test func evictionRemovesEveryNameOfTheOldest() {
        let entry = 250 - Self.cost("a")
        let cache = ResultMemoryCache(costLimit: 1000 + Self.cost("target /a"))
        cache.set(Self.result(entry), for: "a")
        cache.addAlias("target /a", for: "a")
        for key in ["b", "c", "d"] { cache.set(Self.result(entry), for: key) }
        #expect(cache.bytes == 1000 + Self.cost("target /a"))
        cache.set(Self.result(entry), for: "e")
        #expect(cache.bytes == 1000)
        #expect(cache.get("a") == nil)
        #expect(cache.get("target /a") == nil)
        #expect(cache.get("e") != nil)
    }

    @Test func anEntryKeepsItsNewestAliasesOnly() {
        let cache = ResultMemoryCache(costLimit: 1 << 20)
        cache.set(Self.result(100), for: "a")
        for index in 0..<100 { cache.addAlias("target /a?\(index)", for: "a") }
        let keys = cache.keys(of: "a")
        #expect(keys.count == 1 + ResultMemoryCache.maxAliases)
        #expect(keys.last == "target /a?99")
        #expect(cache.get("target /a?0") == nil)
        #expect(cache.get("target /a?99") != nil)
        let aliasCost = keys.dropFirst().map(ResultMemoryCache.keyCost).reduce(0, +)
        #expect(cache.bytes == 100 + Self.cost("a") + aliasCost)
    }

    @Test func aliasesCannotGrowTheCachePastItsLimit() {
        let cache = ResultMemoryCache(costLimit: 4000)
        for entry in 0..<10 {
            cache.set(Self.result(300), for: "r\(entry)")
            for index in 0..<50 { cache.addAlias("target /r\(entry)/" + String(repeating: "x", count: 200) + "\(index)", for: "r\(entry)") }
            #expect(cache.bytes <= 4000)
        }
    }

    @Test func anAliasNeverTakesOverAResultKey() {
        let cache = ResultMemoryCache(costLimit: 10_000)
        cache.set(Self.result(100), for: "a")
        cache.set(Self.result(200), for: "b")
        cache.addAlias("b", for: "a")
        #expect(cache.get("b")?.body.readableBytes == 200)
        cache.addAlias("shared", for: "a")
        cache.addAlias("shared", for: "b")
        #expect(cache.get("shared")?.body.readableBytes == 200)
        #expect(cache.keys(of: "a") == ["a"])
    }
}
