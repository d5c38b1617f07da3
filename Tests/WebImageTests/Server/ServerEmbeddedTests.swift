import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing
@testable import WebImage
@testable import WebImageServer

/// ``ImageServer/response(to:)``: the image server's routes mounted under `/images` in a host
/// application of its own (Hummingbird here, with a route of its own beside them), over real
/// HTTP on loopback, with sources from the loopback origin.
@Suite("Server: embedded in a host application")
struct ServerEmbeddedTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    @Test func mountedRoutesAnswerBesideTheHostsOwn() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withEmbeddingHost(loopbackServerConfiguration()) { host in
                let source = "http://127.0.0.1:\(origin.port)/photo.jpg"
                let own = try await host.get("/hello")
                #expect(own.status == 200)
                #expect(String(decoding: own.body, as: UTF8.self) == "host")

                let fit = try await host.get("/images/insecure/rs:fit:200:200/plain/\(source)")
                #expect(fit.status == 200)
                #expect(fit.header("Content-Type") == "image/jpeg")
                #expect(fit.header("X-Request-ID") != nil)
                #expect(try host.decode(fit).pixelSize == PixelSize(width: 200, height: 150))

                let head = try await host.get("/images/insecure/rs:fit:200:200/plain/\(source)", method: .HEAD)
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
                #expect(head.header("Content-Length") == fit.header("Content-Length"))

                let etag = try #require(fit.header("ETag"))
                let again = try await host.get("/images/insecure/rs:fit:200:200/plain/\(source)",
                                               headers: [("If-None-Match", etag)])
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
                #expect(origin.requestCount("/photo.jpg") == 1, "the result came from the server's result cache")

                let health = try await host.get("/images/health")
                #expect(health.status == 200)
                #expect(health.header("Content-Type") == "application/json")
            }
        }
    }

    @Test func theServersChecksHoldOnTheMountedPath() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let key = String(repeating: "ab", count: 16)
            try await withEmbeddingHost(loopbackServerConfiguration {
                $0.keys = [key]
                $0.salts = [key]
                $0.maxURLLength = 200
            }) { host in
                let source = "http://127.0.0.1:\(origin.port)/photo.jpg"
                let unsigned = try await host.get("/images/insecure/rs:fit:50:50/plain/\(source)")
                #expect(unsigned.status == 403)
                #expect(unsigned.error?.name == "invalid_signature")

                let long = "/images/insecure/rs:fit:50:50/plain/\(source)?" + String(repeating: "a", count: 200)
                let tooLong = try await host.get(long)
                #expect(tooLong.status == 414)
                #expect(tooLong.error?.name == "url_too_long")

                let post = try await host.get("/images/insecure/rs:fit:50:50/plain/\(source)", method: .PUT)
                #expect(post.status == 405)
                #expect(post.header("Allow") == "GET, HEAD")

                let signer = try URLSigner(keys: [key], salts: [key])
                let signed = try await host.get("/images" + signer.signedPath("/rs:fill:64:64/plain/\(source)@png"))
                #expect(signed.status == 200)
                let image = try host.decode(signed)
                #expect(image.format == .png)
                #expect(image.pixelSize == PixelSize(width: 64, height: 64))
            }
        }
    }

    @Test func afterShutdownImageRequestsAreRefused() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withEmbeddingHost(loopbackServerConfiguration()) { host in
                await host.server.shutdown()
                let reply = try await host.get("/images/insecure/rs:fit:50:50/plain/http://127.0.0.1:\(origin.port)/photo.jpg")
                #expect(reply.status == 503)
                #expect(reply.error?.name == "shutting_down")
                #expect(origin.requestCount("/photo.jpg") == 0)
            }
        }
    }
}

/// Hands requests under `prefix` to the image server, with the prefix taken off their target;
/// passes every other request on.
private struct MountedImageServer<Context: RequestContext>: RouterMiddleware {
    let server: ImageServer
    let prefix: String

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let path = request.head.path, path.hasPrefix(prefix + "/") else {
            return try await next(request, context)
        }
        var head = request.head
        head.path = String(path.dropFirst(prefix.count))
        let answer = await server.response(to: head)
        return Response(status: answer.status, headers: answer.headers,
                        body: answer.body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }
}

/// A host application on a free loopback port and a client for it.
private struct EmbeddingHost: Sendable {
    let server: ImageServer
    let port: Int
    let client: HTTPClient

    func get(_ path: String, headers: [(String, String)] = [], method: HTTPMethod = .GET) async throws -> ServerReply {
        try await ServerHarness(server: server, port: port, client: client).get(path, headers: headers, method: method)
    }

    func decode(_ reply: ServerReply) throws -> Image {
        try CodersManager().decode(reply.body, options: .default)
    }
}

/// Runs `body` against a Hummingbird application that answers `GET /hello` itself and mounts an
/// ``ImageServer`` with `configuration` under `/images`; then stops both.
private func withEmbeddingHost(_ configuration: ServerConfiguration,
                               _ body: @Sendable (EmbeddingHost) async throws -> Void) async throws {
    let quiet = Logger(label: "test.embedded") { _ in SwiftLogNoOpLogHandler() }
    let server = try ImageServer(configuration: configuration, logger: quiet)
    let router = Router()
    router.add(middleware: MountedImageServer<BasicRequestContext>(server: server, prefix: "/images"))
    router.get("/hello") { _, _ in "host" }
    let listening = Watched<Int?>(nil)
    let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { channel in
                                      listening.update { $0 = channel.localAddress?.port }
                                  }, logger: quiet)
    let group = ServiceGroup(configuration: .init(services: [application], logger: quiet))
    let client = HTTPClient(eventLoopGroupProvider: .singleton,
                            configuration: .init(timeout: .init(connect: .seconds(Int64(TestTimeout.seconds)))))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        await listening.wait("the host to listen") { $0 != nil }
        let outcome: Result<Void, any Error>
        do {
            let port = try #require(listening.value, "the host is not listening")
            outcome = .success(try await body(EmbeddingHost(server: server, port: port, client: client)))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        await server.shutdown()
        try outcome.get()
    }
}
