import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// `/info` answers kept in the memory result cache, as results are: a repeat is answered from
/// memory without reading the source again, other options are another answer, a purge drops the
/// answers with the source's results, no cache keeps none; `/metrics` counts them by tier.
@Suite("Server: /info caching")
struct ServerInfoCacheTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    let signer = try! URLSigner(keys: [Self.key], salts: [Self.salt])

    func png(width: Int, height: Int) throws -> [UInt8] {
        Array(try CodersManager.shared.encode(Image(bitmap: TestBitmaps.gradient(width: width, height: height)),
                                              as: .png, options: .default))
    }

    func width(_ reply: ServerReply) throws -> Int? {
        (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["width"] as? Int
    }

    @Test func aRepeatIsAnsweredFromMemoryAndCounted() async throws {
        let picture = try png(width: 60, height: 40)
        try await withTestOrigin { origin in
            origin.setRoute("/i.png", .data(picture, contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let path = "/info/insecure/bh:3:3/plain/http://127.0.0.1:\(origin.port)/i.png"
                let first = try await server.get(path)
                #expect(first.status == 200)
                let again = try await server.get(path)
                #expect(again.status == 200 && again.body == first.body)
                #expect(again.header("Content-Type") == "application/json")
                #expect(server.server.metrics.infoByTier == ["made": 1, "memory": 1])
                #expect(origin.requestCount("/i.png") == 1)
                // Another option set (a ThumbHash too) is another answer.
                let thumb = try await server.get("/info/insecure/bh:3:3/th:1/plain/http://127.0.0.1:\(origin.port)/i.png")
                #expect(thumb.status == 200 && thumb.body != first.body)
                #expect(server.server.metrics.infoByTier == ["made": 2, "memory": 1])
                // An image result of the source is not an info answer, nor the other way round.
                #expect(try await server.get("/insecure/plain/http://127.0.0.1:\(origin.port)/i.png@png").status == 200)
                #expect(server.server.metrics.resultsByTier["memory"] == 0)

                let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
                #expect(metrics.contains(#"webimage_serve_info_answers_total{tier="memory"} 1"#))
                #expect(metrics.contains(#"webimage_serve_info_answers_total{tier="made"} 2"#))
            }
        }
    }

    @Test func withoutAResultCacheEveryAnswerIsMade() async throws {
        let picture = try png(width: 60, height: 40)
        try await withTestOrigin { origin in
            origin.setRoute("/i.png", .data(picture, contentType: "image/png"))
            let path = "/info/insecure/plain/http://127.0.0.1:\(origin.port)/i.png"
            let configurations = [loopbackServerConfiguration { $0.noCache = true },
                                  loopbackServerConfiguration { $0.resultMemoryBytes = 0 }]
            for configuration in configurations {
                let statuses = try await withImageServer(configuration) { server -> [Int] in
                    let first = try await server.get(path)
                    let second = try await server.get(path)
                    #expect(server.server.metrics.infoByTier == ["made": 2, "memory": 0])
                    return [first.status, second.status]
                }
                #expect(statuses == [200, 200])
            }
        }
    }

    /// A purge drops the source's info answers with its results: the next answer describes the
    /// origin's new image.
    @Test func aPurgeDropsTheAnswers() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/p.png", .data(try png(width: 60, height: 40), contentType: "image/png"))
            let configuration = loopbackServerConfiguration { $0.keys = [Self.key]; $0.salts = [Self.salt] }
            try await withImageServer(configuration) { server in
                let source = "http://127.0.0.1:\(origin.port)/p.png"
                let path = "/info" + signer.signedPath("/plain/\(source)")
                #expect(try width(try await server.get(path)) == 60)
                #expect(try width(try await server.get(path)) == 60)
                #expect(server.server.metrics.infoByTier["memory"] == 1)
                origin.setRoute("/p.png", .data(try png(width: 90, height: 40), contentType: "image/png"))
                #expect(try await server.get("/purge" + signer.signedPath("/plain/\(source)"), method: .POST).status == 200)
                #expect(try width(try await server.get(path)) == 90)
                #expect(server.server.metrics.infoByTier == ["made": 2, "memory": 1])
            }
        }
    }
}
