import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Turns a ``TestOriginRoute`` into bytes on the wire for the test origin.
enum TestOriginResponder {
    /// The route after the request-dependent rules: Basic auth (401) and validators (304).
    static func effectiveRoute(_ route: TestOriginRoute, for request: TestOriginRequest) -> TestOriginRoute {
        if let auth = route.basicAuth {
            let expected = "Basic " + Data("\(auth.user):\(auth.password)".utf8).base64EncodedString()
            if request.header("Authorization") != expected {
                var challenge = TestOriginRoute.status(401)
                challenge.headers = [("WWW-Authenticate", "Basic realm=\"test\"")]
                return challenge
            }
        }
        let etagMatches = route.etag != nil && request.header("If-None-Match") == route.etag
        let dateMatches = route.lastModified != nil && request.header("If-Modified-Since") == route.lastModified
        if etagMatches || dateMatches {
            var notModified = TestOriginRoute(status: 304, contentType: nil)
            notModified.etag = route.etag
            notModified.lastModified = route.lastModified
            // The fields a 304 must repeat from the 200 it stands for (RFC 9110 §15.4.5).
            notModified.headers = route.headers.filter {
                ["cache-control", "expires", "vary", "content-location"].contains($0.0.lowercased())
            }
            return notModified
        }
        return route.acceptsRanges ? ranged(route, for: request) : route
    }

    /// A ranges-capable route's answer to `request`: the whole body, or the rest from a
    /// `Range: bytes=K-` whose `If-Range` still matches.
    private static func ranged(_ route: TestOriginRoute, for request: TestOriginRequest) -> TestOriginRoute {
        var route = route
        route.headers.append(("Accept-Ranges", "bytes"))
        guard route.status == 200, let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
              let start = Int(range.dropFirst(6).dropLast()) else { return route }
        if let ifRange = request.header("If-Range"), ifRange != route.etag, ifRange != route.lastModified {
            return route
        }
        let total = route.body.count
        guard start < total else {
            var unsatisfiable = TestOriginRoute.status(416)
            unsatisfiable.headers = [("Content-Range", "bytes */\(total)")]
            return unsatisfiable
        }
        route.status = 206
        route.headers.append(("Content-Range", "bytes \(start)-\(total - 1)/\(total)"))
        route.body = Array(route.body[start...])
        route.contentLength = nil
        return route
    }

    static func pieces(of body: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
        let step = max(1, size)
        return stride(from: 0, to: body.count, by: step).map { body[$0..<min($0 + step, body.count)] }
    }
}

/// One response of the test origin, written on its connection's event loop: each step runs there,
/// and the next is scheduled on the loop (a delay, a trickle's pause), chained to a write (a
/// generated body, paced by the socket) or to a gate opening.
///
/// `@unchecked Sendable`: its mutable state is only touched on the channel's event loop.
final class TestOriginResponse: @unchecked Sendable {
    private let connection: TestOriginConnection
    private let route: TestOriginRoute
    private let keepAlive: Bool
    private var ended = false

    private var channel: Channel { connection.channel }
    private var loop: EventLoop { connection.channel.eventLoop }

    init(connection: TestOriginConnection, route: TestOriginRoute, keepAlive: Bool) {
        self.connection = connection
        self.route = route
        self.keepAlive = keepAlive
    }

    /// Starts the response (on the event loop, where the request was read).
    func start() {
        // Whatever happens to the connection, the response ends once: abandoned if not sent.
        channel.closeFuture.whenComplete { _ in self.end(complete: false) }
        if route.delay > .zero {
            // The delay is the behaviour under test: a slow origin.
            loop.scheduleTask(in: .nanoseconds(route.delay.nanosecondCount)) { self.begin() }
        } else {
            begin()
        }
    }

    private func begin() {
        guard channel.isActive, !ended else { return }
        if route.closeWithoutResponse {
            end(complete: true)
            connection.close()
            return
        }
        var headers = HTTPHeaders()
        if let type = route.contentType { headers.add(name: "Content-Type", value: type) }
        if let etag = route.etag { headers.add(name: "ETag", value: etag) }
        if let date = route.lastModified { headers.add(name: "Last-Modified", value: date) }
        for header in route.headers { headers.add(name: header.name, value: header.value) }
        let hasBody = route.status != 304 && route.status != 204
        if hasBody {
            switch route.mode {
            case .chunked, .generatedChunked:
                headers.add(name: "Transfer-Encoding", value: "chunked")
            case .generated(let bytes, _):
                headers.add(name: "Content-Length", value: String(route.contentLength ?? bytes))
            default:
                headers.add(name: "Content-Length", value: String(route.contentLength ?? route.body.count))
            }
        }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        write(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: route.status),
                                     headers: headers)))
        guard hasBody else { return finish() }
        let body = route.body
        switch route.mode {
        case .whole:
            if !body.isEmpty { write(body[...]) }
            finish()
        case .chunked(let size):
            for piece in TestOriginResponder.pieces(of: body, size: size) { write(piece) }
            finish()
        case .trickle(let size, let interval):
            trickle(TestOriginResponder.pieces(of: body, size: size)[...], every: interval)
        case .stallAfter(let count):
            // Then nothing, until the client leaves (the response counts as abandoned).
            write(body.prefix(count))
        case .closeAfter(let count):
            end(complete: true)
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body.prefix(count)))))
                .whenComplete { _ in self.connection.close() }
        case .gated(let count, let gate):
            if count > 0 { write(body.prefix(count)) }
            after(gate) {
                if count < body.count { self.write(body.dropFirst(count)) }
                self.finish()
            }
        case .stepped(let steps):
            step(steps[...], sent: 0)
        case .generated(let bytes, let chunk), .generatedChunked(let bytes, let chunk):
            generate(prefix: body, upTo: bytes, chunk: max(1, chunk))
        }
    }

    /// Sends `pieces` one by one with `interval` between them (the behaviour under test: a slow origin).
    private func trickle(_ pieces: ArraySlice<ArraySlice<UInt8>>, every interval: Duration) {
        guard channel.isActive, !ended else { return }
        guard let piece = pieces.first else { return finish() }
        write(piece)
        loop.scheduleTask(in: .nanoseconds(interval.nanosecondCount)) {
            self.trickle(pieces.dropFirst(), every: interval)
        }
    }

    /// Sends the body up to each step, waiting for its gate, then the rest.
    private func step(_ steps: ArraySlice<BodyStep>, sent: Int) {
        guard channel.isActive, !ended else { return }
        let body = route.body
        guard let next = steps.first else {
            if sent < body.count { write(body[sent...]) }
            return finish()
        }
        let end = min(next.through, body.count)
        if end > sent { write(body[sent..<end]) }
        after(next.gate) { self.step(steps.dropFirst(), sent: max(sent, end)) }
    }

    /// Writes `prefix` then 0xA5 filler up to `total` bytes, one chunk per completed write, so the
    /// socket paces it and memory stays at one chunk; stops when the client leaves.
    private func generate(prefix: [UInt8], upTo total: Int, chunk: Int) {
        let filler = ByteBuffer(repeating: 0xA5, count: chunk)
        var sent = 0
        if !prefix.isEmpty {
            write(prefix.prefix(total))
            sent = min(prefix.count, total)
        }
        writeFiller(filler, sent: sent, total: total, chunk: chunk)
    }

    /// Writes the next filler chunk after `sent` bytes, and the one after it once that write completed.
    private func writeFiller(_ filler: ByteBuffer, sent: Int, total: Int, chunk: Int) {
        guard channel.isActive, !ended else { return }
        guard sent < total else { return finish() }
        let count = min(chunk, total - sent)
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(
            count == chunk ? filler : filler.getSlice(at: 0, length: count)!)))
            .whenComplete { result in
                if case .success = result { self.writeFiller(filler, sent: sent + count, total: total, chunk: chunk) }
            }
    }

    /// Runs `body` on the event loop once `gate` opens (never, if the client leaves first). A
    /// connection that closes first takes its waiting block off the gate, which may outlive it.
    private func after(_ gate: TestGate, _ body: @escaping @Sendable () -> Void) {
        let id = gate.whenOpen { [loop] in
            loop.execute {
                guard self.channel.isActive, !self.ended else { return }
                body()
            }
        }
        if let id { channel.closeFuture.whenComplete { _ in gate.forget(id) } }
    }

    private func write(_ bytes: some Collection<UInt8>) {
        write(.body(.byteBuffer(ByteBuffer(bytes: bytes))))
    }

    private func write(_ part: HTTPServerResponsePart) {
        channel.writeAndFlush(part, promise: nil)
    }

    /// The last write. The response stops counting as in flight just before it, so a client
    /// cannot see it end and send its next request before the count has dropped.
    private func finish() {
        end(complete: true)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
            if !self.keepAlive { self.connection.close() }
        }
    }

    private func end(complete: Bool) {
        loop.preconditionInEventLoop()
        guard !ended else { return }
        ended = true
        connection.responseEnded(complete: complete)
    }
}
