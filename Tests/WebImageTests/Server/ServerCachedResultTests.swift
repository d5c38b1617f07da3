import Dispatch
import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import WebImage
@testable import WebImageServer

/// Result-cache hits answered on the event loop (`CachedResultHandler`): the same answer as the
/// async handler gives, and responses in the order of their requests on a connection.
@Suite("Server: cache hits on the event loop")
struct ServerCachedResultTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    @Test func aHitCarriesTheHeadersAndBytesOfTheResultAsMade() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            // A still clock: the max-age counts down with the source's freshness.
            try await withImageServer(loopbackServerConfiguration { $0.now = { 1_800_000_000 } }) { server in
                let path = "/insecure/w:120/plain/http://127.0.0.1:\(origin.port)/photo.jpg@webp"
                var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
                #expect(server.server.cachedAnswer(to: request) == nil, "nothing is cached yet")
                let made = try await server.get(path)
                let hit = try await server.get(path, headers: [("X-Request-ID", "hit-1")])
                #expect(made.status == 200 && hit.status == 200)
                #expect(hit.body == made.body)
                let names: Set<String> = ["ETag", "X-Content-Type-Options", "Cache-Control", "Content-Type",
                                          "Content-Length", "Content-Disposition"]
                for name in names { #expect(hit.header(name) == made.header(name), "\(name)") }
                #expect(hit.header("X-Request-ID") == "hit-1")
                #expect(hit.header("Server") == "webimage" && made.header("Server") == "webimage")
                #expect(hit.header("Date")?.hasSuffix(" GMT") == true)
                // The hit is one the handler answers; HEAD and other methods are not.
                #expect(server.server.cachedAnswer(to: request)?.body?.readableBytes == made.body.count)
                request.method = .head
                #expect(server.server.cachedAnswer(to: request) == nil)
                #expect(origin.requestCount("/photo.jpg") == 1)
            }
        }
    }

    @Test func theHitHandlerSitsAfterTheConnectionStateHandlerAndAnswersThere() throws {
        let channel = EmbeddedChannel()
        let http1 = HTTP1Channel(responder: { _, _, _ in }, configuration: .init(idleTimeout: .seconds(75)))
        let answer = CachedAnswer(head: HTTPResponse(status: .ok, headerFields: [.contentLength: "3"]),
                                  body: ByteBuffer(string: "hit"))
        let setup = CachedResultChannel(http1: http1, answer: { head in head.path == "/cached" ? answer : nil },
                                        departures: ClientDepartures())
        _ = try setup.setup(channel: channel, logger: Logger(label: "test")).wait()
        // The connection-state handler (idle timeout, graceful close) must see every request.
        let lines = channel.pipeline.debugDescription.split(separator: "\n")
        let state = try #require(lines.firstIndex { $0.contains("HTTPConnectionStateHandler") })
        let hits = try #require(lines.firstIndex { $0.contains("CachedResultHandler") })
        #expect(state < hits)
        // The departure watcher sees the connection's input end before anything else does.
        let departure = try #require(lines.firstIndex { $0.contains("ClientDepartureHandler") })
        #expect(departure < state)
        try channel.writeInbound(ByteBuffer(string: "GET /cached HTTP/1.1\r\nHost: a\r\n\r\n"))
        var reply = ""
        while let part = try channel.readOutbound(as: ByteBuffer.self) { reply += String(buffer: part) }
        #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(reply.hasSuffix("\r\n\r\nhit"))
        _ = try? channel.finish()
    }

    @Test func aHitPipelinedBehindARequestBeingMadeIsAnsweredAfterIt() async throws {
        try await withTestOrigin { origin in
            let gate = TestGate()
            var held = TestOriginRoute.data(photo, contentType: "image/jpeg")
            held.mode = .gated(100, gate)
            origin.setRoute("/held.jpg", held)
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let cached = "/insecure/w:50/plain/http://127.0.0.1:\(origin.port)/photo.jpg@png"
                #expect(try await server.get(cached).status == 200)
                let slow = "/insecure/w:60/plain/http://127.0.0.1:\(origin.port)/held.jpg@jpg"
                let exchange = Task {
                    try await RawHTTPConnection.exchange(port: server.port, paths: [slow, cached])
                }
                await origin.waitForRequest("/held.jpg")
                gate.open()
                let replies = try await exchange.value
                #expect(replies.map(\.contentType) == ["image/jpeg", "image/png"])
                #expect(replies.map(\.status) == [200, 200])
            }
        }
    }
}

/// Two or more requests written at once on one connection (HTTP pipelining), read back in order.
enum RawHTTPConnection {
    struct Reply: Sendable {
        let status: Int
        let contentType: String?
    }

    static func exchange(port: Int, paths: [String]) async throws -> [Reply] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port: port, paths: paths) })
            }
        }
    }

    private static func blockingExchange(port: Int, paths: [String]) throws -> [Reply] {
        let connection = try RawSocket(port: port)
        let requests = paths.map { "GET \($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined()
        try connection.send(requests)
        var received: [UInt8] = []
        var replies: [Reply] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while replies.count < paths.count {
            if let (reply, used) = parse(received) {
                replies.append(reply)
                received.removeFirst(used)
                continue
            }
            let count = read(connection.fd, &buffer, buffer.count)
            guard count > 0 else { throw RawHTTPError.io("the connection closed after \(replies.count) replies") }
            received.append(contentsOf: buffer[0..<count])
        }
        return replies
    }

    /// One whole response at the front of `bytes` and its length, if it has arrived.
    private static func parse(_ bytes: [UInt8]) -> (Reply, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4,
              let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let head = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(fields["content-length"] ?? "0") ?? 0
        let total = end + 4 + length
        guard bytes.count >= total else { return nil }
        return (Reply(status: status, contentType: fields["content-type"]), total)
    }
}

enum RawHTTPError: Error {
    case io(String)
}
