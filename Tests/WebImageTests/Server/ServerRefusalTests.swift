import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
@testable import WebImageServer

/// What a refused request tells the client: what was refused, in the server's words, never the
/// address a host name resolved to nor a library's error; the log gets those.
@Suite("Server: refusals")
struct ServerRefusalTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 200, height: 150)))

    @Test func aZeroWeightForWebPIsARefusal() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration { $0.autoWebP = true }) { server in
                let path = "/insecure/w:80/plain/http://127.0.0.1:\(origin.port)/photo.jpg"
                let refused = try await server.get(path, headers: [("Accept", "image/webp;q=0, image/*")])
                #expect(refused.status == 200)
                #expect(refused.header("Content-Type") == "image/jpeg")
                #expect(refused.header("Vary") == "Accept")
                let wanted = try await server.get(path, headers: [("Accept", "Image/WebP;q=0.9")])
                #expect(wanted.header("Content-Type") == "image/webp")
                // The refusal is answered from the cache the same way (the event-loop path).
                let again = try await server.get(path, headers: [("Accept", "image/webp;q=0")])
                #expect(again.header("Content-Type") == "image/jpeg")
            }
        }
    }

    @Test func aMethodNotServedIsAnswered405WithAllow() async throws {
        try await withImageServer(loopbackServerConfiguration()) { server in
            for method in [HTTPMethod.POST, .PUT, .DELETE, .OPTIONS] {
                let reply = try await server.get("/insecure/w:10/plain/http://a.test/a.jpg", method: method)
                #expect(reply.status == 405, "\(method)")
                #expect(reply.header("Allow") == "GET, HEAD", "\(method)")
                #expect(reply.error?.name == "method_not_allowed")
            }
            #expect(try await server.get("/health").header("Allow") == nil)
        }
    }

    @Test func aForbiddenSourceIsNamedButNotTheAddressItResolvedTo() async throws {
        let messages = RecordingLogHandler.Messages()
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            // Private sources refused: "localhost" resolves to loopback.
            try await withImageServer(logger: RecordingLogHandler.logger(messages)) { server in
                let source = "http://localhost:\(origin.port)/photo.jpg"
                let reply = try await server.get("/insecure/w:50/plain/\(source)")
                #expect(reply.status == 403)
                let error = try #require(reply.error)
                #expect(error.name == "source_forbidden")
                #expect(error.message == "The source \(source) is not on a public address; this server may not fetch it.")
                let body = String(decoding: reply.body, as: UTF8.self)
                #expect(!body.contains("127.0.0.1") && !body.contains("::1"), "\(body)")
                // The log says why: the name is a loopback name (refused before any lookup).
                await messages.wait(for: "loopback")
                #expect(messages.log.value.contains { $0.contains("source_forbidden") && $0.contains("detail=") })
                #expect(origin.requestCount("/photo.jpg") == 0)
            }
        }
    }

    @Test func anUnreachableSourceIsToldWithoutTheLibrarysError() async throws {
        let messages = RecordingLogHandler.Messages()
        // Bound but not listening for the whole test: connections are refused, and no other test's
        // server can take the port meanwhile.
        let (reserved, closed) = try RedisTestServer.refusingLoopbackPort()
        defer { close(reserved) }
        try await withImageServer(loopbackServerConfiguration(), logger: RecordingLogHandler.logger(messages)) { server in
            let source = "http://127.0.0.1:\(closed)/photo.jpg"
            let reply = try await server.get("/insecure/w:50/plain/\(source)")
            #expect(reply.status == 502)
            let error = try #require(reply.error)
            #expect(error.name == "source_unreachable")
            #expect(error.message == "The source \(source) could not be fetched.")
            // The library's own account (its error types) is in the log only.
            await messages.wait(for: "detail=")
            let logged = try #require(messages.log.value.first { $0.contains("source_unreachable") })
            #expect(logged.contains("detail="), "\(logged)")
        }
    }

    @Test func everyLibraryFailureOfTheFetchHasAFixedMessageAndKeepsItsDetailForTheLog() {
        let secret = "NIOConnectionError(dnsAError: nil, connectionErrors: [10.1.2.3:80])"
        let codes: [WebImageError.Code] = [.forbiddenAddress, .connectionFailed, .tlsFailure, .tooManyRedirects,
                                           .invalidDownloadResponse, .invalidDownloadOperation, .timedOut, .invalidURL,
                                           .invalidDownloadStatusCode, .cacheFailure]
        for code in codes {
            let error = ServerError(WebImageError(code, secret, httpStatus: 500), source: "http://a.test/a.jpg")
            let body = String(decoding: error.body, as: UTF8.self)
            #expect(!body.contains("10.1.2.3") && !body.contains("NIO"), "\(code): \(body)")
            #expect(error.detail == secret, "\(code)")
        }
        let failure = ServerError.internalError(CocoaError(.fileNoSuchFile))
        #expect(failure.message == "The server failed to make the result.")
        #expect(failure.detail?.isEmpty == false)
    }
}
