import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageLoading

/// Sources the socket layer would trap on never reach it: a stranger's URL gets a clear status
/// and the server goes on serving.
@Suite("Server: source URL checks")
struct ServerSourceCheckTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 40, height: 30)))

    @Test(arguments: [true, false])
    func aSourceWithAnInvalidPortIs400AndTheServerGoesOn(allowPrivate: Bool) async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration { $0.allowPrivateSources = allowPrivate }
            try await withImageServer(configuration) { server in
                for port in ["99999", "70000", "0", "2147483648"] {
                    let reply = try await server.get("/insecure/plain/http%3A%2F%2F127.0.0.1%3A\(port)%2Fx.jpg")
                    #expect(reply.status == 400, "port \(port)")
                    #expect(reply.error?.name == "invalid_source")
                    #expect(reply.error?.message.contains("port \(port)") == true, "\(String(describing: reply.error))")
                }
                let bad = try await server.get("/insecure/plain/http%3A%2F%2F999.1.1.1%2Fx.jpg")
                #expect(bad.status == 400 && bad.error?.name == "invalid_source")
                let health = try await server.get("/health")
                #expect(health.status == 200)
                let served = try await server.get("/insecure/w:20/plain/http://127.0.0.1:\(origin.port)/photo.jpg")
                #expect(served.status == (allowPrivate ? 200 : 403))
            }
        }
    }

    @Test func aRedirectToAnInvalidPortIs502() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/hop.jpg", .redirect(to: "http://127.0.0.1:70000/"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let reply = try await server.get("/insecure/plain/http://127.0.0.1:\(origin.port)/hop.jpg")
                #expect(reply.status == 502)
                #expect(reply.error?.name == "source_unreachable")
                // What the origin redirected to is in the log's detail, not the client's message.
                #expect(reply.error?.message.contains("70000") == false, "\(String(describing: reply.error))")
                let health = try await server.get("/health")
                #expect(health.status == 200)
            }
        }
    }

    /// `--allow-source` compares URL parts: a source whose text starts with an allowed prefix but
    /// names another path, or escapes it with a dot segment, is refused before any fetch; so is a
    /// redirect out of the list.
    @Test func theAllowListComparesPartsNotText() async throws {
        try await withTestOrigin { origin in
            for path in ["/ok/photo.jpg", "/ok-private/photo.jpg", "/private/photo.jpg"] {
                origin.setRoute(path, .data(photo, contentType: "image/jpeg"))
            }
            origin.setRoute("/ok/hop.jpg", .redirect(to: "/private/photo.jpg"))
            let base = "http://127.0.0.1:\(origin.port)"
            let configuration = loopbackServerConfiguration { $0.allowedSources = [base + "/ok"] }
            try await withImageServer(configuration) { server in
                let allowed = try await server.get("/insecure/w:20/plain/\(base)/ok/photo.jpg")
                #expect(allowed.status == 200)
                for source in ["\(base)/ok-private/photo.jpg", "\(base)/ok/../private/photo.jpg"] {
                    let reply = try await server.get("/insecure/w:20/plain/\(source)")
                    #expect(reply.status == 403, "\(source)")
                    #expect(reply.error?.name == "source_not_allowed", "\(source)")
                }
                let redirected = try await server.get("/insecure/w:20/plain/\(base)/ok/hop.jpg")
                #expect(redirected.status == 403)
                #expect(redirected.error?.name == "source_not_allowed")
                // Refused at the redirect: the first hop was fetched, its target never.
                #expect(origin.requestCount("/ok/hop.jpg") == 1)
                #expect(origin.requestCount("/ok-private/photo.jpg") == 0 && origin.requestCount("/private/photo.jpg") == 0)
            }
        }
    }

    /// A source (and its results) cached while the guard was off, or before an allow-list, is not
    /// served once they refuse it.
    @Test func aSourceCachedUnderOtherSettingsIsRefusedOnceTheyChange() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-guard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let source = "http://127.0.0.1:\(origin.port)/photo.jpg"
            let open = loopbackServerConfiguration { $0.cacheDirectory = directory }
            try await withImageServer(open) { server in
                let first = try await server.get("/insecure/w:20/plain/\(source)")
                #expect(first.status == 200)
            }
            var guarded = open
            guarded.allowPrivateSources = false
            try await withImageServer(guarded) { server in
                for path in ["/insecure/w:20/plain/\(source)", "/insecure/w:10/plain/\(source)"] {
                    let reply = try await server.get(path)
                    #expect(reply.status == 403, "\(path)")
                    #expect(reply.error?.name == "source_forbidden")
                }
            }
            var listed = open
            listed.allowedSources = ["http://127.0.0.1:\(origin.port)/only/"]
            try await withImageServer(listed) { server in
                let listedReply = try await server.get("/insecure/w:20/plain/\(source)")
                #expect(listedReply.status == 403)
            }
            try await withImageServer(open) { server in
                let again = try await server.get("/insecure/w:20/plain/\(source)")
                #expect(again.status == 200, "still cached")
            }
            #expect(origin.requestCount("/photo.jpg") == 1)
        }
    }

    @Test func aMalformedAllowedSourceStopsTheServerFromStarting() {
        var configuration = ServerConfiguration()
        configuration.allowedSources = ["http://a.com:99999/"]
        #expect(throws: URLConfigurationError.self) { try ImageServer(configuration: configuration) }
    }
}
