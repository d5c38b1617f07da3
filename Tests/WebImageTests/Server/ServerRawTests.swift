import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageCodecs

/// `raw`: the source's bytes as they are, over real HTTP from the loopback origin, with the source
/// limits imgproxy keeps for it (bytes, not resolution) and the usual headers.
@Suite("Server: raw")
struct ServerRawTests {
    static let jpeg = Array(try! CodersManager().encode(Image(bitmap: TestBitmaps.quadrants(width: 80, height: 60)),
                                                        as: .jpeg, options: .default))

    private func withSource(_ adjust: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
                            _ body: @escaping @Sendable (ServerHarness, TestOrigin, _ source: String) async throws -> Void)
        async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/q.jpg", .data(Self.jpeg, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration(adjust)) { server in
                try await body(server, origin, "plain/http://127.0.0.1:\(origin.port)/q.jpg")
            }
        }
    }

    /// The bytes as fetched, with the source's content type, a validator and a max-age; the other
    /// options and the extension change nothing.
    @Test func rawAnswersTheSourceBytes() async throws {
        try await withSource { server, _, source in
            for path in ["/insecure/raw:1/\(source)", "/insecure/raw:t/rs:fit:10:10/wm:1/\(source)@png",
                         "/insecure/raw:true/f:webp/q:5/\(source)"] {
                let reply = try await server.get(path, headers: [("Accept", "image/avif,image/webp,*/*")])
                #expect(reply.status == 200, "\(path): \(reply.status)")
                #expect(Array(reply.body) == Self.jpeg, "\(path)")
                #expect(reply.header("Content-Type") == "image/jpeg", "\(path)")
                #expect(reply.header("ETag") != nil, "\(path)")
                #expect(reply.header("Cache-Control")?.contains("max-age=") == true, "\(path)")
                #expect(reply.header("Content-Disposition")?.contains("q.jpg") == true, "\(path): \(reply.header("Content-Disposition") ?? "")")
            }
            // The same URL without raw is processed: another answer.
            let processed = try await server.get("/insecure/rs:fit:10:10/\(source)")
            #expect(processed.status == 200 && Array(processed.body) != Self.jpeg)
            // A conditional request with the validator is a 304.
            let first = try await server.get("/insecure/raw:1/\(source)")
            let etag = try #require(first.header("ETag"))
            let again = try await server.get("/insecure/raw:1/\(source)", headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            // The file name and attachment options still apply.
            let named = try await server.get("/insecure/raw:1/fn:photo/att:1/\(source)")
            #expect(named.header("Content-Disposition")?.hasPrefix("attachment") == true)
            #expect(named.header("Content-Disposition")?.contains("photo.jpg") == true)
        }
    }

    /// `--max-src-bytes` still holds (413); the resolution limit does not apply (imgproxy checks
    /// none for raw) while processing the same source is refused.
    @Test func rawKeepsTheByteLimitOnly() async throws {
        try await withSource({ $0.maxSourceResolution = 100 }) { server, _, source in
            let raw = try await server.get("/insecure/raw:1/\(source)")
            #expect(raw.status == 200 && Array(raw.body) == Self.jpeg)
            let processed = try await server.get("/insecure/\(source)")
            #expect(processed.status == 422, "\(processed.status)")
        }
        try await withSource({ $0.maxSourceBytes = 100 }) { server, _, source in
            let raw = try await server.get("/insecure/raw:1/\(source)")
            #expect(raw.status == 413 && raw.error?.name == "source_too_large", "\(raw.status)")
        }
    }

    /// A raw SVG is its own bytes as `image/svg+xml`, with a policy that runs none of its scripts.
    @Test func rawSVGRunsNothing() async throws {
        let svg = Array(SVGCoderTests.halves)
        try await withSource { server, origin, _ in
            origin.setRoute("/logo.svg", .data(svg, contentType: "image/svg+xml"))
            let reply = try await server.get("/insecure/raw:1/plain/http://127.0.0.1:\(origin.port)/logo.svg")
            #expect(reply.status == 200 && Array(reply.body) == svg)
            #expect(reply.header("Content-Type") == "image/svg+xml")
            let policy = try #require(reply.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'") && policy.contains("sandbox"))
            // A raster answer needs none.
            let raw = try await server.get("/insecure/raw:1/plain/http://127.0.0.1:\(origin.port)/q.jpg")
            #expect(raw.status == 200 && raw.header("Content-Security-Policy") == nil)
        }
    }

    /// A source that is not an image this server reads is refused, raw or not.
    @Test func rawRefusesWhatIsNotAnImage() async throws {
        try await withSource { server, origin, _ in
            origin.setRoute("/page.html", .data(Array("<html><script>alert(1)</script></html>".utf8), contentType: "text/html"))
            let reply = try await server.get("/insecure/raw:1/plain/http://127.0.0.1:\(origin.port)/page.html")
            #expect(reply.status == 422, "\(reply.status)")
            #expect(reply.header("Content-Type")?.hasPrefix("text/html") != true)
        }
    }
}
