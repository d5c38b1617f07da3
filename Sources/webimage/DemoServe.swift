import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import WebImage
import WebImageServer

/// `webimage serve` inside the demo: the image server on a loopback port, its sources on the demo
/// origin, asked over HTTP for a fit, a smart-crop fill, a watermark and an AVIF chosen by
/// `Accept`; each answer decoded into a tile.
enum DemoServe {
    /// One request to the server and what came back.
    struct Result {
        let name: String
        let path: String
        let status: Int
        let contentType: String
        let image: Image?
        /// Whether the format was left to the `Accept` header.
        let accept: Bool

        /// The table row: what was asked, the status, the type and size of the answer.
        var row: [String] {
            [name, String(status), contentType, image.map { "\($0.width)x\($0.height)" } ?? "-"]
        }
    }

    /// The requests, for `source` (a photo on the demo origin): a name, the path, and the
    /// `Accept` header sent.
    static func requests(source: String) -> [(name: String, path: String, accept: String?)] {
        [
            ("fit 200x200", "/insecure/rs:fit:200:200/plain/\(source)", nil),
            ("fill 160 g:sm", "/insecure/rs:fill:160:160/g:sm/plain/\(source)@png", nil),
            ("watermark", "/insecure/rs:fit:200:200/wm:0.6:soea:8:8:0.3/plain/\(source)", nil),
            ("Accept avif", "/insecure/rs:fit:200:200/plain/\(source)", "image/avif,image/webp,*/*"),
        ]
    }

    /// Whether the demo fails without this request's image: every one but the watermark, an
    /// option the server may not offer (it answers 400 for options it does not implement).
    static func isRequired(_ name: String) -> Bool { name != "watermark" }

    /// Starts the server on 127.0.0.1 (a free port) with its caches in `cacheDirectory`, makes
    /// ``requests(source:)``, stops it.
    static func run(source: String, cacheDirectory: URL) async throws -> [Result] {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.allowPrivateSources = true
        configuration.autoAVIF = true
        configuration.sourceRetries = 0
        configuration.cacheDirectory = cacheDirectory
        let server = try ImageServer(configuration: configuration,
                                     logger: Logger(label: "webimage.demo.serve") { _ in SwiftLogNoOpLogHandler() })
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let running = Task { try await server.run(onRunning: { port in listening.yield(port) }) }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        var results: [Result] = []
        for request in requests(source: source) {
            results.append(try await fetch(request, port: port))
        }
        running.cancel()
        _ = await running.result
        return results
    }

    private static func fetch(_ request: (name: String, path: String, accept: String?), port: Int) async throws -> Result {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(request.path)")
        if let accept = request.accept { http.headers.add(name: "Accept", value: accept) }
        let response = try await HTTPClient.shared.execute(http, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        let status = Int(response.status.code)
        let image = status == 200 ? try? CodersManager.shared.decode(Data(body.readableBytesView), options: .default) : nil
        return Result(name: request.name, path: request.path, status: status,
                      contentType: response.headers.first(name: "Content-Type") ?? "-", image: image,
                      accept: request.accept != nil)
    }
}
