import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Connections that keep the server waiting are closed: one that sends nothing or leaves its
/// request unfinished after the read timeout, an idle kept-alive one after the keep-alive
/// timeout; a request being answered is never cut by either.
@Suite("Server: connection timeouts")
struct ServerConnectionTimeoutTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 200, height: 150)))

    /// Different timeouts, so a close shows which one ended the connection.
    private func configuration() -> ServerConfiguration {
        loopbackServerConfiguration {
            $0.readTimeout = 0.3
            $0.keepAliveTimeout = 2
        }
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheReadTimeout() async throws {
        let messages = RecordingLogHandler.Messages()
        try await withImageServer(configuration(), logger: RecordingLogHandler.logger(messages)) { server in
            let socket = try RawSocket(port: server.port)
            let ending = await socket.waitForClose()
            #expect(ending.closed)
            #expect(ending.received.isEmpty)
            #expect(ending.elapsed >= 0.25, "closed after \(ending.elapsed) s")
            await messages.wait(for: "connection closed reason=read_timeout")
        }
    }

    @Test func aHalfSentRequestHeadIsClosedWithoutAnAnswer() async throws {
        try await withImageServer(configuration()) { server in
            let socket = try RawSocket(port: server.port)
            try socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            let ending = await socket.waitForClose()
            #expect(ending.closed)
            #expect(ending.received.isEmpty, "\(ending.text)")
        }
    }

    @Test func aRequestWhoseBodyNeverArrivesWholeIsClosed() async throws {
        try await withImageServer(configuration()) { server in
            let socket = try RawSocket(port: server.port)
            try socket.send("POST /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc")
            let ending = await socket.waitForClose()
            #expect(ending.closed)
            // Maybe answered 405 first (the answer does not wait for the body); closed when the
            // rest of the body did not come.
            #expect(ending.text.isEmpty || ending.text.hasPrefix("HTTP/1.1 405"), "\(ending.text)")
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosedAfterTheKeepAliveTimeout() async throws {
        let messages = RecordingLogHandler.Messages()
        // A read timeout a loaded run can meet before the first head is read, still below the
        // keep-alive timeout (2 s); both ten times longer in an instrumented run.
        var configuration = configuration()
        configuration.readTimeout = 1.5 * SanitizerRun.slowdown
        configuration.keepAliveTimeout = 2 * SanitizerRun.slowdown
        try await withImageServer(configuration, logger: RecordingLogHandler.logger(messages)) { server in
            let socket = try RawSocket(port: server.port)
            try socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await socket.readResponse().status == 200)
            // Another request on the same connection, well within the keep-alive timeout.
            try socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await socket.readResponse().status == 200)
            let ending = await socket.waitForClose()
            #expect(ending.closed)
            #expect(ending.received.isEmpty)
            // The keep-alive timeout, not the read timeout, closed it: the log says
            // so. (The time seen here is not checked: a loaded run may read the answer late.)
            await messages.wait(for: "connection closed reason=keep_alive_timeout")
        }
    }

    @Test func aRequestBeingAnsweredOutlivesTheReadTimeout() async throws {
        try await withTestOrigin { origin in
            let gate = TestGate()
            var held = TestOriginRoute.data(photo, contentType: "image/jpeg")
            held.mode = .gated(100, gate)
            origin.setRoute("/held.jpg", held)
            // A read timeout a loaded parallel run cannot outlast between the connection's opening
            // and its request head being read (0.3 s can be: the request is then never made).
            var configuration = configuration()
            configuration.readTimeout = 2
            try await withImageServer(configuration) { server in
                let socket = try RawSocket(port: server.port)
                try socket.send("GET /insecure/w:50/plain/http://127.0.0.1:\(origin.port)/held.jpg HTTP/1.1\r\nHost: a\r\n\r\n")
                await origin.waitForRequest("/held.jpg")
                // A second connection, opened now and silent, is closed by its read timeout: by
                // then the first has waited for its answer longer than that.
                let witness = try RawSocket(port: server.port)
                #expect(await witness.waitForClose().closed)
                gate.open()
                #expect(try await socket.readResponse().status == 200)
            }
        }
    }

    @Test func outOfRangeTimeoutsAndLimitsAreRefusedWhenTheServerIsMade() async throws {
        for (read, keepAlive) in [(0.0, 10.0), (-1, 10), (10, .nan), (10, 3601), (.infinity, 10)] {
            var configuration = ServerConfiguration()
            configuration.readTimeout = read
            configuration.keepAliveTimeout = keepAlive
            #expect(throws: ConnectionSettingError.self) { try ImageServer(configuration: configuration) }
        }
        var configuration = ServerConfiguration()
        configuration.maxConnections = 0
        #expect(throws: ConnectionSettingError.self) { try ImageServer(configuration: configuration) }
        configuration.maxConnections = 1
        configuration.readTimeout = 3600
        let server = try ImageServer(configuration: configuration)
        await server.pipeline.shutdown()
    }
}

/// Past the connection limit a new connection is answered 503 and closed, and the server goes on.
@Suite("Server: connection limit")
struct ServerConnectionLimitTests {
    @Test func aConnectionPastTheLimitIsAnswered503AndClosed() async throws {
        let messages = RecordingLogHandler.Messages()
        let configuration = loopbackServerConfiguration { $0.maxConnections = 2 }
        try await withImageServer(configuration, logger: RecordingLogHandler.logger(messages)) { server in
            // Two connections held (each answered once, so each was accepted before the next).
            var held = try (0..<2).map { _ in try RawSocket(port: server.port) }
            for socket in held {
                try socket.send("GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try await socket.readResponse().status == 200)
            }
            let refused = try RawSocket(port: server.port)
            let ending = await refused.waitForClose()
            #expect(ending.closed)
            #expect(ending.text.hasPrefix("HTTP/1.1 503 "), "\(ending.text)")
            #expect(ending.text.contains("Retry-After: 1") && ending.text.contains("too_many_connections"))
            await messages.wait(for: "connection refused")
            // Once the held connections are closed, connections are served again.
            held.removeAll()
            #expect(try await healthAfterRefusals(port: server.port) == 200)
        }
    }
}

/// `/health` on a new connection, asked again while the server still answers 503 (it may not
/// yet have counted the connections just closed); the status of the last answer.
func healthAfterRefusals(port: Int, attempts: Int = 200) async throws -> Int {
    var status = 0
    for _ in 0..<attempts {
        let socket = try RawSocket(port: port)
        try socket.send("GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        status = try await socket.readResponse().status
        if status != 503 { return status }
    }
    return status
}
