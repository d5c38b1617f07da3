import Foundation
import Hummingbird
import Logging
import WebImage
import WebImageServer

/// What the gallery needs to start.
public struct GalleryConfiguration: Sendable {
    /// Where the application listens (port 0: one the system picks).
    public var host = "127.0.0.1"
    public var port = 8080
    /// The folder of photos the gallery shows (JPEG, PNG, WebP, AVIF, HEIC, JPEG XL, GIF, SVG …).
    public var photos: URL
    /// The image server's result cache on disk; nil: results are kept in memory only.
    public var cacheDirectory: URL?

    public init(photos: URL) {
        self.photos = photos
    }
}

/// The gallery application: its own routes (`/`, the page; `/api/photos`, the list as JSON) and
/// the image server's under `/images`, which reads the photos as `local:///NAME` sources and
/// accepts only URLs signed with this process's key.
public enum GalleryApplication {
    /// Where the image server's routes are mounted.
    public static let imagesPrefix = "/images"

    /// The application, ready to run (`try await application.runService()`).
    public static func make(_ configuration: GalleryConfiguration,
                            logger: Logger = Logger(label: "gallery")) throws -> some ApplicationProtocol {
        let key = randomHex(), salt = randomHex()
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.keys = [key]
        serverConfiguration.salts = [salt]
        serverConfiguration.localFilesystemRoot = configuration.photos
        serverConfiguration.cacheDirectory = configuration.cacheDirectory
        let server = try ImageServer(configuration: serverConfiguration, logger: logger)
        let gallery = Gallery(folder: configuration.photos, signer: try ImageServerSigner(key: key, salt: salt),
                              prefix: imagesPrefix)

        let router = Router()
        router.add(middleware: MountedImageServer<BasicRequestContext>(server: server, prefix: imagesPrefix))
        router.get("/") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: try gallery.page())))
        }
        router.get("/api/photos") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try gallery.json())))
        }
        return Application(router: router,
                           configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
                           services: [ImageServerService(server: server)],
                           logger: logger)
    }

    /// 32 random bytes in hex: a signing key or salt that lives as long as the process.
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
