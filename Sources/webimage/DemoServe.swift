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
            ("watermark", "/insecure/rs:fit:200:200/wm:0.9:soea:8:8/plain/\(source)", nil),
            ("Accept avif", "/insecure/rs:fit:200:200/plain/\(source)", "image/avif,image/webp,*/*"),
        ]
    }

    /// Whether the demo fails without this request's image: every one.
    static func isRequired(_ name: String) -> Bool { true }

    /// The watermark the demo server draws: "WEBIMAGE" in white on a translucent dark badge, as PNG.
    static func watermarkBadge() throws -> Data {
        let text = "WEBIMAGE", scale = 2, margin = 6
        let width = DemoFont.width(of: text, scale: scale) + 2 * margin
        let height = DemoFont.glyphHeight * scale + 2 * margin
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = 20; pixels[i + 1] = 24; pixels[i + 2] = 32; pixels[i + 3] = 170
        }
        DemoFont.draw(text, into: &pixels, width: width, atX: margin, y: margin, color: .white, scale: scale)
        // The glyphs opaque over the translucent badge.
        for i in stride(from: 0, to: pixels.count, by: 4) where pixels[i] == 255 { pixels[i + 3] = 255 }
        let badge = Bitmap(width: width, height: height, pixels: pixels)
        return try CodersManager.shared.encode(Image(bitmap: badge), as: .png, options: .default)
    }

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
        configuration.watermark = .data(try watermarkBadge())
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
