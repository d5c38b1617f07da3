import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageLoading

/// `max_src_file_size` / `msfs` (signed URLs only): the download stops at the limit with 413,
/// whether the origin declares a length or not, and the option only tightens `--max-src-bytes`.
@Suite("Server: max_src_file_size")
struct ServerSourceSizeTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 40, height: 30)))

    private func signed(_ path: String) throws -> String {
        "/" + (try URLSigner(keys: [Self.key], salts: [Self.salt])).signature(for: path) + path
    }

    private func configuration(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        loopbackServerConfiguration {
            $0.keys = [Self.key]
            $0.salts = [Self.salt]
            adjust(&$0)
        }
    }

    /// 20 MB, more than the loopback socket buffers hold, so the origin finishes only if the
    /// server reads it all.
    @Test(arguments: [false, true])
    func theDownloadStopsAtTheLimit(chunked: Bool) async throws {
        try await withTestOrigin { origin in
            let size = 20_000_000, chunk = 64 * 1024
            origin.setRoute("/big.jpg", .data(photo, contentType: "image/jpeg",
                                              mode: chunked ? .generatedChunked(bytes: size, chunk: chunk)
                                                  : .generated(bytes: size, chunk: chunk)))
            try await withImageServer(configuration()) { server in
                let reply = try await server.get(try signed("/msfs:100000/w:20/plain/http://127.0.0.1:\(origin.port)/big.jpg"))
                #expect(reply.status == 413)
                #expect(reply.error?.name == "source_too_large")
                #expect(reply.error?.message.contains("100000") == true, "\(String(describing: reply.error))")
                await origin.wait("the body to be abandoned") { $0.abortedResponses == 1 }
                #expect(origin.stats.completedResponses == 0)
            }
        }
    }

    @Test func aSourceWithinTheLimitIsServedAndZeroSetsNoLimit() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg", mode: .chunked(256)))
            try await withImageServer(configuration()) { server in
                let source = "http://127.0.0.1:\(origin.port)/photo.jpg"
                let within = try await server.get(try signed("/msfs:\(photo.count)/w:20/plain/\(source)"))
                #expect(within.status == 200)
                let unlimited = try await server.get(try signed("/msfs:0/w:10/plain/\(source)"))
                #expect(unlimited.status == 200)
            }
        }
    }

    @Test func theOptionNeverLoosensTheServersLimit() async throws {
        try await withTestOrigin { origin in
            let size = 200_000
            origin.setRoute("/big.jpg", .data(photo, contentType: "image/jpeg", mode: .generated(bytes: size, chunk: 8192)))
            try await withImageServer(configuration { $0.maxSourceBytes = 50_000 }) { server in
                let reply = try await server.get(try signed("/msfs:100000000/w:20/plain/http://127.0.0.1:\(origin.port)/big.jpg"))
                #expect(reply.status == 413)
                #expect(reply.error?.message.contains("50000") == true, "\(String(describing: reply.error))")
            }
        }
    }

    /// A source in the source cache from a request without the option is refused to one whose
    /// limit it passes; the origin's second answer (a 500) shows no second download was made.
    @Test func aCachedSourceOverTheLimitIsRefused() async throws {
        try await withTestOrigin { origin in
            origin.setRoutes("/photo.jpg", [.data(photo, contentType: "image/jpeg"), .status(500)])
            try await withImageServer(configuration()) { server in
                let source = "http://127.0.0.1:\(origin.port)/photo.jpg"
                let first = try await server.get(try signed("/w:20/plain/\(source)"))
                #expect(first.status == 200)
                let reply = try await server.get(try signed("/msfs:100/w:10/plain/\(source)"))
                #expect(reply.status == 413)
                #expect(reply.error?.message.contains("max_src_file_size") == true, "\(String(describing: reply.error))")
                #expect(origin.requestCount("/photo.jpg") == 1)
            }
        }
    }
}
