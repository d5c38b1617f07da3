import Foundation
import NIOCore
import NIOHTTP1

/// Turns a ``TestOriginRoute`` into bytes on the wire for the test origin.
enum TestOriginResponder {
    struct ConnectionGone: Error {}

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
            return notModified
        }
        return route
    }

    /// Writes `route`; returns false when the connection must close afterwards.
    static func send(_ route: TestOriginRoute,
                     outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
                     channel: Channel, keepAlive: Bool) async throws -> Bool {
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
        let status = HTTPResponseStatus(statusCode: route.status)
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        guard hasBody else {
            try await outbound.write(.end(nil))
            return keepAlive
        }
        let body = route.body
        switch route.mode {
        case .whole:
            if !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        case .chunked(let size):
            for piece in pieces(of: body, size: size) {
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: piece))))
            }
        case .trickle(let size, let interval):
            for piece in pieces(of: body, size: size) {
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: piece))))
                try await Task.sleep(for: interval)
            }
        case .stallAfter(let count):
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(count)))))
            try? await channel.closeFuture.get()
            throw ConnectionGone()
        case .closeAfter(let count):
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(count)))))
            return false
        case .gated(let count, let gate):
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(count)))))
            while !gate.opened {
                guard channel.isActive else { throw ConnectionGone() }
                try await Task.sleep(for: .milliseconds(5))
            }
            if count < body.count { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body.dropFirst(count))))) }
        case .generated(let bytes, let chunk), .generatedChunked(let bytes, let chunk):
            try await sendGenerated(body, upTo: bytes, chunk: chunk, outbound: outbound)
        }
        try await outbound.write(.end(nil))
        return keepAlive
    }

    /// Writes `prefix` then 0xA5 filler up to `total` bytes, one `chunk` at a time; each write waits
    /// for the channel to drain (back-pressure), so memory stays at one chunk.
    private static func sendGenerated(_ prefix: [UInt8], upTo total: Int, chunk: Int,
                                      outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        let step = max(1, chunk)
        let filler = ByteBuffer(repeating: 0xA5, count: step)
        var sent = 0
        if !prefix.isEmpty {
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: prefix.prefix(total)))))
            sent = min(prefix.count, total)
        }
        while sent < total {
            try Task.checkCancellation()
            let count = min(step, total - sent)
            try await outbound.write(.body(.byteBuffer(count == step ? filler : filler.getSlice(at: 0, length: count)!)))
            sent += count
        }
    }

    private static func pieces(of body: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
        let step = max(1, size)
        return stride(from: 0, to: body.count, by: step).map { body[$0..<min($0 + step, body.count)] }
    }
}
