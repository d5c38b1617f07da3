import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing
@testable import WebImage
@testable import WebImageServer

/// One response from the server under test.
struct ServerReply: Sendable {
    let status: Int
    let headers: [(String, String)]
    let body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The `error` object of a JSON error body.
    var error: (code: Int, name: String, message: String)? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let error = object["error"] as? [String: Any],
              let code = error["code"] as? Int, let name = error["name"] as? String,
              let message = error["message"] as? String else { return nil }
        return (code, name, message)
    }
}

/// A running ``ImageServer`` on a free loopback port and a client for it.
struct ServerHarness: Sendable {
    let server: ImageServer
    let port: Int
    let client: HTTPClient

    /// GETs `path` (sent as given: the server sees it undecoded).
    func get(_ path: String, headers: [(String, String)] = [], method: HTTPMethod = .GET) async throws -> ServerReply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(Int64(TestTimeout.seconds)))
        var body = Data()
        for try await chunk in response.body { body.append(contentsOf: chunk.readableBytesView) }
        return ServerReply(status: Int(response.status.code),
                           headers: response.headers.map { ($0.name, $0.value) }, body: body)
    }

    /// The image in `reply`'s body, decoded.
    func decode(_ reply: ServerReply) throws -> Image {
        try CodersManager().decode(reply.body, options: .default)
    }
}

/// Runs `body` against a server with `configuration` (on a free port), then shuts it down
/// gracefully and waits until it has stopped. The server logs to `logger` (default: nowhere).
func withImageServer<T: Sendable>(_ configuration: ServerConfiguration = ServerConfiguration(),
                                  logger: Logger = Logger(label: "test.serve") { _ in SwiftLogNoOpLogHandler() },
                                  _ body: @Sendable (ServerHarness) async throws -> T) async throws -> T {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    let server = try ImageServer(configuration: configuration, logger: logger)
    let listening = Watched<Int?>(nil)
    let application = server.makeApplication { port in listening.update { $0 = port } }
    let group = ServiceGroup(configuration: .init(services: [application], logger: Logger(label: "test.serve.group") { _ in
        SwiftLogNoOpLogHandler()
    }))
    // Enough connections for a test's whole burst (AsyncHTTPClient's default is 8 per host, and a
    // request waiting for one fails after the connect timeout on a loaded machine).
    var clientConfiguration = HTTPClient.Configuration(timeout: .init(connect: .seconds(Int64(TestTimeout.seconds))))
    clientConfiguration.connectionPool = .init(idleTimeout: .seconds(Int64(TestTimeout.seconds)), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        await listening.wait("the server to listen") { $0 != nil }
        let outcome: Result<T, any Error>
        do {
            let port = try #require(listening.value, "the server is not listening")
            outcome = .success(try await body(ServerHarness(server: server, port: port, client: client)))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        await server.pipeline.shutdown()
        return try outcome.get()
    }
}

/// A configuration for tests against the loopback origin: private sources allowed.
func loopbackServerConfiguration(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.allowPrivateSources = true
    configuration.sourceRetries = 0
    // A loaded parallel run can keep the cooperative pool busy longer than the defaults allow;
    // tests of these limits set their own.
    configuration.sourceTimeout = TestTimeout.download
    configuration.requestTimeout = TestTimeout.seconds
    configuration.readTimeout = 10 * SanitizerRun.slowdown
    configuration.keepAliveTimeout = 10 * SanitizerRun.slowdown
    adjust(&configuration)
    return configuration
}
