import Foundation
import Logging
import Testing
@testable import WebImage
@testable import WebImageServer
@testable import WebImageLoading

/// `s3://bucket/key` sources against a real S3-compatible server (moto) on loopback that checks
/// every signature: served and cached, fetched once for concurrent results, refused with S3's own
/// error code in the log, bounded by the source limits, and behind the private-address guard.
/// One test at a time: each starts a moto server, whose start takes seconds of CPU.
@Suite("Server: s3:// sources", .serialized, .enabled(if: S3TestServer.isInstalled, "python3 with moto[server] is not installed (scripts/install-deps installs it)"))
struct ServerS3SourceTests {
    let photo = try! JPEGFixtures.encode(TestBitmaps.gradient(width: 40, height: 30))

    private func withS3<T: Sendable>(_ body: (S3TestServer) async throws -> T) async throws -> T {
        let s3 = try await S3TestServer.start(objects: ["photos/a.jpg": photo, "photos/with space.jpg": photo])
        do {
            let result = try await body(s3)
            await s3.stop()
            return result
        } catch {
            await s3.stop()
            throw error
        }
    }

    private func configuration(_ s3: S3TestServer, credentials: AWSCredentials? = nil,
                               _ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        loopbackServerConfiguration {
            $0.s3 = s3.configuration(credentials)
            adjust(&$0)
        }
    }

    /// A bucket image is served, and a second result of it is made from the source cache: the
    /// store sees one GET. A key with a space is signed and fetched as S3 spells it. (Not a `+` or
    /// a non-ASCII letter: moto checks signatures against the path as its web framework re-quotes
    /// it, and refuses botocore's own signatures for such keys; ``AWSSignerTests`` covers them.)
    @Test func aBucketImageIsServedAndCached() async throws {
        try await withS3 { s3 in
            try await withImageServer(configuration(s3)) { server in
                let first = try await server.get("/insecure/w:20/plain/s3://images/photos/a.jpg@png")
                #expect(first.status == 200, "\(String(describing: first.error))")
                #expect(try server.decode(first).pixelSize == PixelSize(width: 20, height: 15))
                let second = try await server.get("/insecure/w:10/plain/s3://images/photos/a.jpg")
                #expect(second.status == 200)
                #expect(s3.getCount("photos/a.jpg") == 1)
                let encoded = Base64URL.encode(Array("s3://images/photos/with%20space.jpg".utf8))
                let spaced = try await server.get("/insecure/w:30/\(encoded).jpg")
                #expect(spaced.status == 200, "\(String(describing: spaced.error))")
                #expect(s3.getCount("photos/with%20space.jpg") == 1)
            }
        }
    }

    /// Different results of one new object asked for at once download it once: the store is
    /// paused until every request has joined the one lookup of the new source (which downloads
    /// it, and cannot end before the store answers), then answers it once.
    @Test func concurrentResultsOfOneObjectFetchItOnce() async throws {
        try await withS3 { s3 in
            try await withImageServer(configuration(s3)) { server in
                let joined = Watched(0)
                server.server.pipeline.sourceJobJoined.set { event in joined.update { $0 = max($0, event.waiters) } }
                s3.pause()
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for width in 10..<16 {
                        group.addTask { try await server.get("/insecure/w:\(width)/plain/s3://images/photos/a.jpg").status }
                    }
                    await joined.wait("six requests on one source lookup") { $0 == 6 }
                    s3.resume()
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 6))
                #expect(s3.getCount("photos/a.jpg") == 1)
            }
        }
    }

    /// A wrong secret, an unknown key and a missing object are told apart by status, and the log
    /// line names S3's error code.
    @Test func aWrongKeyOrAMissingObjectIs403Or404WithTheS3CodeInTheLog() async throws {
        try await withS3 { s3 in
            let cases: [(AWSCredentials, String, Int, String, String)] = [
                (AWSCredentials(accessKeyID: s3.credentials.accessKeyID, secretAccessKey: "wrong"), "photos/a.jpg",
                 403, "source_access_denied", "SignatureDoesNotMatch"),
                (AWSCredentials(accessKeyID: "AKIAUNKNOWNKEY000000", secretAccessKey: "x"), "photos/a.jpg",
                 403, "source_access_denied", "InvalidAccessKeyId"),
                (s3.credentials, "photos/none.jpg", 404, "source_not_found", "NoSuchKey"),
            ]
            for (credentials, key, status, name, code) in cases {
                let messages = RecordingLogHandler.Messages()
                try await withImageServer(configuration(s3, credentials: credentials),
                                          logger: RecordingLogHandler.logger(messages)) { server in
                    let reply = try await server.get("/insecure/w:20/plain/s3://images/\(key)")
                    #expect(reply.status == status, "\(code)")
                    #expect(reply.error?.name == name, "\(code)")
                    // The client is told the status; the store's words are for the log.
                    #expect(reply.error?.message.contains(code) == false)
                    #expect(messages.log.value.contains { $0.contains("status=\(status)") && $0.contains(code) },
                            "\(messages.log.value.filter { $0.contains("request") })")
                }
            }
        }
    }

    /// `--max-src-bytes` and `msfs` bound an S3 object as they bound any download.
    @Test func theSourceSizeLimitApplies() async throws {
        try await withS3 { s3 in
            try await withImageServer(configuration(s3) { $0.maxSourceBytes = self.photo.count - 1 }) { server in
                let reply = try await server.get("/insecure/w:20/plain/s3://images/photos/a.jpg")
                #expect(reply.status == 413)
                #expect(reply.error?.name == "source_too_large")
            }
        }
    }

    /// Without `--allow-private-sources` the loopback endpoint is refused before anything is sent.
    @Test func theGuardAppliesToTheEndpoint() async throws {
        try await withS3 { s3 in
            var guarded = configuration(s3)
            guarded.allowPrivateSources = false
            try await withImageServer(guarded) { server in
                let reply = try await server.get("/insecure/w:20/plain/s3://images/photos/a.jpg")
                #expect(reply.status == 403)
                #expect(reply.error?.name == "source_forbidden")
            }
            #expect(s3.getCount("photos/a.jpg") == 0)
        }
    }
}

/// `s3:` sources without S3 settings, and malformed ones: no store needed.
@Suite("Server: s3:// source checks")
struct ServerS3SourceCheckTests {
    @Test func withoutS3SettingsS3SourcesAre403() async throws {
        try await withImageServer(ServerConfiguration()) { server in
            let reply = try await server.get("/insecure/w:20/plain/s3://images/photos/a.jpg")
            #expect(reply.status == 403)
            #expect(reply.error?.name == "source_not_allowed")
            #expect(reply.error?.message.contains("--use-s3") == true)
        }
    }

    @Test func malformedS3SourcesAre400() async throws {
        var configuration = ServerConfiguration()
        configuration.s3 = S3Configuration(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"),
                                           endpoint: URL(string: "http://127.0.0.1:1"))
        try await withImageServer(configuration) { server in
            for source in ["s3://images", "s3://images/", "s3://bad%20bucket/a.jpg", "s3://images:99/a.jpg"] {
                let reply = try await server.get("/insecure/w:20/plain/" + source)
                #expect(reply.status == 400, "\(source)")
                #expect(reply.error?.name == "invalid_source", "\(source)")
            }
        }
    }

    @Test func aBadEndpointIsAStartUpError() {
        var configuration = ServerConfiguration()
        configuration.s3 = S3Configuration(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"),
                                           endpoint: URL(string: "ftp://127.0.0.1:9000"))
        #expect(throws: URLConfigurationError.self) { try ImageServer(configuration: configuration) }
    }
}
