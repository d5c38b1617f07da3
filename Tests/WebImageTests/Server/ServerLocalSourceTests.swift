import Foundation
import Glibc
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageLoading

/// `local:///path` sources under `--local-filesystem-root`, over real HTTP to the server: served
/// from real files, refused in every spelling of a way out of the root, off without a root.
@Suite("Server: local:// sources")
struct ServerLocalSourceTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    let photo = try! JPEGFixtures.encode(TestBitmaps.gradient(width: 40, height: 30))

    /// `ROOT/photos/a.jpg`, `OUTSIDE/secret.jpg` beside the root, a link out of the root and a FIFO.
    struct Tree {
        let base: URL
        let root: URL
        let outside: URL

        init(photo: Data) throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("serve-local-\(UUID().uuidString)")
            root = base.appendingPathComponent("root")
            outside = base.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try photo.write(to: root.appendingPathComponent("photos/a.jpg"))
            try photo.write(to: outside.appendingPathComponent("secret.jpg"))
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("escape.jpg").path,
                                                       withDestinationPath: outside.appendingPathComponent("secret.jpg").path)
            guard mkfifo(root.appendingPathComponent("pipe.jpg").path, 0o644) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }

        func remove() { try? FileManager.default.removeItem(at: base) }
    }

    private func configuration(_ tree: Tree, _ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.localFilesystemRoot = tree.root
        adjust(&configuration)
        return configuration
    }

    @Test func aLocalFileIsServedInBothSourceForms() async throws {
        let tree = try Tree(photo: photo)
        defer { tree.remove() }
        try await withImageServer(configuration(tree)) { server in
            let plain = try await server.get("/insecure/w:20/plain/local:///photos/a.jpg@png")
            #expect(plain.status == 200)
            #expect(plain.header("Content-Type") == "image/png")
            #expect(try server.decode(plain).pixelSize == PixelSize(width: 20, height: 15))
            // A proxy's `local:/photos` (slashes merged) is repaired, as imgproxy does.
            let merged = try await server.get("/insecure/w:10/plain/local:/photos/a.jpg")
            #expect(merged.status == 200)
            let encoded = Base64URL.encode(Array("local:///photos/a.jpg".utf8))
            let base64 = try await server.get("/insecure/w:30/\(encoded).jpg")
            #expect(base64.status == 200)
            #expect(try server.decode(base64).pixelSize.width == 30)
        }
    }

    @Test func withoutARootLocalSourcesAre403() async throws {
        let tree = try Tree(photo: photo)
        defer { tree.remove() }
        try await withImageServer(ServerConfiguration()) { server in
            let reply = try await server.get("/insecure/w:20/plain/local:///photos/a.jpg")
            #expect(reply.status == 403)
            #expect(reply.error?.name == "source_not_allowed")
            #expect(reply.error?.message.contains("--local-filesystem-root") == true)
        }
    }

    /// The plain source is percent-decoded once by the server and once more as a local path, so
    /// both `%2e%2e` and `%252e%252e` spell `..`; a link out of the root is refused when read.
    @Test func everyWayOutOfTheRootIs403() async throws {
        let tree = try Tree(photo: photo)
        defer { tree.remove() }
        try await withImageServer(configuration(tree)) { server in
            for source in ["local:///%2e%2e/outside/secret.jpg", "local:///photos/%252e%252e/%252e%252e/outside/secret.jpg",
                           "local:///photos%252F..%252F..%252Foutside%252Fsecret.jpg", "local:///escape.jpg"] {
                let reply = try await server.get("/insecure/w:20/plain/\(source)")
                #expect(reply.status == 403, "\(source)")
                #expect(reply.error?.name == "source_not_allowed", "\(source)")
            }
            let encoded = Base64URL.encode(Array("local:///photos/../../outside/secret.jpg".utf8))
            #expect(try await server.get("/insecure/w:20/\(encoded).jpg").status == 403)
            // An absolute path names a file under the root, not the one it names elsewhere.
            let absolute = try await server.get("/insecure/w:20/plain/local://\(tree.outside.path)/secret.jpg")
            #expect(absolute.status == 404)
            #expect(absolute.error?.name == "source_not_found")
        }
        // `..` sent as it is, byte for byte (no client library to normalise the path).
        try await withImageServer(configuration(tree)) { server in
            let socket = try RawSocket(port: server.port)
            try socket.send("GET /insecure/w:20/plain/local:///photos/../../outside/secret.jpg HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await socket.readResponse().status == 403)
        }
    }

    @Test func missingFilesDirectoriesAndFIFOsAre404() async throws {
        let tree = try Tree(photo: photo)
        defer { tree.remove() }
        try await withImageServer(configuration(tree)) { server in
            for source in ["local:///photos/none.jpg", "local:///photos", "local:///pipe.jpg"] {
                let reply = try await server.get("/insecure/w:20/plain/\(source)")
                #expect(reply.status == 404, "\(source)")
                #expect(reply.error?.name == "source_not_found", "\(source)")
                #expect(reply.error?.message.contains("HTTP") == false, "\(source)")
            }
            #expect(try await server.get("/health").status == 200)
        }
    }

    /// `--max-src-bytes` and a signed URL's `msfs` bound a local file as they bound a download.
    @Test func theSourceSizeLimitsApply() async throws {
        let tree = try Tree(photo: photo)
        defer { tree.remove() }
        let small = configuration(tree) { $0.maxSourceBytes = self.photo.count - 1 }
        try await withImageServer(small) { server in
            let reply = try await server.get("/insecure/w:20/plain/local:///photos/a.jpg")
            #expect(reply.status == 413)
            #expect(reply.error?.name == "source_too_large")
        }
        let signed = configuration(tree) {
            $0.keys = [Self.key]
            $0.salts = [Self.salt]
        }
        let signer = try URLSigner(keys: [Self.key], salts: [Self.salt])
        try await withImageServer(signed) { server in
            let tight = "/msfs:\(photo.count - 1)/w:20/plain/local:///photos/a.jpg"
            let refused = try await server.get("/" + signer.signature(for: tight) + tight)
            #expect(refused.status == 413)
            let enough = "/msfs:\(photo.count)/w:20/plain/local:///photos/a.jpg"
            let served = try await server.get("/" + signer.signature(for: enough) + enough)
            #expect(served.status == 200)
        }
    }

    @Test func aRootThatIsNotADirectoryIsAStartUpError() throws {
        let tree = try Tree(photo: photo)
        defer { tree.remove() }
        var configuration = ServerConfiguration()
        configuration.localFilesystemRoot = tree.root.appendingPathComponent("photos/a.jpg")
        #expect(throws: URLConfigurationError.self) { try ImageServer(configuration: configuration) }
    }
}
