import Foundation
import Synchronization
import Vapor
import WebImage

/// The avatar store for the tests: a second Vapor application on a loopback port that serves
/// `/alice` (a 200×150 PNG) and `/bob` (a 300×400 JPEG), 404 for anyone else, and counts requests.
final class AvatarOrigin: Sendable {
    let app: Application
    let port: Int
    private let counts: RequestCounts

    private init(app: Application, port: Int, counts: RequestCounts) {
        self.app = app
        self.port = port
        self.counts = counts
    }

    /// `http://127.0.0.1:PORT/`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// How many requests `path` got.
    func requests(_ path: String) -> Int { counts.paths.withLock { $0[path, default: 0] } }

    static func start() async throws -> AvatarOrigin {
        let app = try await Application.make(.testing)
        let counts = RequestCounts()
        let files: [String: (Data, String)] = [
            "alice": (try picture(width: 200, height: 150, as: .png), "image/png"),
            "bob": (try picture(width: 300, height: 400, as: .jpeg), "image/jpeg"),
        ]
        app.get(":name") { request -> Response in
            let name = request.parameters.get("name") ?? ""
            counts.paths.withLock { $0["/" + name, default: 0] += 1 }
            guard let (data, type) = files[name] else { return Response(status: .notFound) }
            var headers = HTTPHeaders()
            headers.add(name: .contentType, value: type)
            return Response(status: .ok, headers: headers, body: .init(data: data))
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        guard let port = app.http.server.shared.localAddress?.port else {
            await app.server.shutdown()
            try await app.asyncShutdown()
            throw Abort(.internalServerError, reason: "the origin has no port")
        }
        return AvatarOrigin(app: app, port: port, counts: counts)
    }

    func stop() async throws {
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    /// A gradient picture encoded by the library.
    static func picture(width: Int, height: Int, as format: ImageFormat) throws -> Data {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 255 / width); pixels[i + 1] = UInt8(y * 255 / height); pixels[i + 2] = 128
            }
        }
        return try CodersManager.shared.encode(Image(bitmap: Bitmap(width: width, height: height, pixels: pixels)),
                                               as: format, options: EncodeOptions(compressionQuality: 0.9))
    }
}

/// Requests by path, shared with the origin's route.
final class RequestCounts: Sendable {
    let paths = Mutex<[String: Int]>([:])
}
