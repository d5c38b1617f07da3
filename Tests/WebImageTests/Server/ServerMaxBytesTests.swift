import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// `max_bytes` end to end: a 160×160 noise PNG (hard to compress) served from the loopback
/// origin; results are measured and decoded.
@Suite("Server: max_bytes")
struct ServerMaxBytesTests {
    static let noise: [UInt8] = {
        var state: UInt32 = 12345
        let pixels = (0..<160 * 160 * 4).map { index -> UInt8 in
            if index & 3 == 3 { return 255 }
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        return Array(try! CodersManager().encode(Image(bitmap: Bitmap(width: 160, height: 160, pixels: pixels)),
                                                 as: .png, options: .default))
    }()

    private func withNoise(_ body: @escaping @Sendable (ServerHarness, _ source: String) async throws -> Void) async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/n.png", .data(Self.noise, contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                try await body(server, "plain/http://127.0.0.1:\(origin.port)/n.png")
            }
        }
    }

    private func body(_ server: ServerHarness, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Data {
        let reply = try await server.get(path)
        try #require(reply.status == 200, "\(path): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))",
                     sourceLocation: sourceLocation)
        return reply.body
    }

    /// A budget between the sizes at quality 10 and the default quality is met, at the highest
    /// quality that meets it: the result is one of the qualities' own encodings, and the next
    /// quality up is over the budget.
    @Test func lossyResultsFitTheBudget() async throws {
        try await withNoise { server, source in
            for format in ["jpg", "webp", "avif"] {
                let full = try await body(server, "/insecure/\(source)@\(format)")
                let lowest = try await body(server, "/insecure/q:10/\(source)@\(format)")
                let budget = (full.count + lowest.count) / 2
                let fitted = try await body(server, "/insecure/mb:\(budget)/\(source)@\(format)")
                #expect(fitted.count <= budget, "\(format): \(fitted.count) > \(budget)")
                #expect(fitted.count > lowest.count, "\(format)")
                let image = try server.decode(ServerReply(status: 200, headers: [], body: fitted))
                #expect(image.pixelSize == PixelSize(width: 160, height: 160))
                // A budget the first encode meets changes nothing.
                let roomy = try await body(server, "/insecure/max_bytes:\(full.count)/\(source)@\(format)")
                #expect(roomy == full, "\(format)")
            }
        }
    }

    /// A budget not even quality 10 meets is answered (200) with the quality-10 encoding, as
    /// imgproxy stops lowering there; a requested quality below 10 is the only one tried.
    @Test func aTooSmallBudgetServesTheLowestQuality() async throws {
        try await withNoise { server, source in
            let lowest = try await body(server, "/insecure/q:10/\(source)@jpg")
            let tooSmall = try await body(server, "/insecure/mb:100/\(source)@jpg")
            #expect(tooSmall == lowest)
            let five = try await body(server, "/insecure/q:5/\(source)@jpg")
            #expect(try await body(server, "/insecure/q:5/mb:100/\(source)@jpg") == five)
        }
    }

    /// Formats without a quality are encoded once, whatever their size, as in imgproxy.
    @Test func losslessFormatsIgnoreTheBudget() async throws {
        try await withNoise { server, source in
            let png = try await body(server, "/insecure/\(source)@png")
            #expect(try await body(server, "/insecure/mb:100/\(source)@png") == png)
            #expect(png.count > 100)
        }
    }

    @Test func badBudgetsAreA400() async throws {
        try await withNoise { server, source in
            for bad in ["mb:-1", "mb:abc", "mb:1e9", "mb:99999999999999999999", "mb:1:2"] {
                let reply = try await server.get("/insecure/\(bad)/\(source)@jpg")
                #expect(reply.status == 400, "\(bad)")
                #expect(reply.error?.name == "invalid_argument", "\(bad)")
            }
        }
    }
}
