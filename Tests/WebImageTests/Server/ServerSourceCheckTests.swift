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
                #expect(reply.error?.message.contains("127.0.0.1:70000") == true, "\(String(describing: reply.error))")
                let health = try await server.get("/health")
                #expect(health.status == 200)
            }
        }
    }
}
