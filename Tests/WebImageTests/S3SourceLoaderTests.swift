import Foundation
import Testing
import WebImageCodecs
@testable import WebImage
@testable import WebImageLoading

/// The S3 loader's requests as an origin on loopback receives them: signed headers, the
/// downloader's retries and no redirects. (Signatures are checked by a real store in
/// ``ServerS3SourceTests``; this origin checks nothing.)
@Suite("Loader: s3:// requests")
struct S3SourceLoaderTests {
    let coder = TestImageCoder()
    /// 2015-08-30T12:36:00Z.
    static let date = Date(timeIntervalSince1970: 1_440_938_160)

    /// Runs `body` with a loader for `origin`, shut down afterwards whatever happens (a downloader
    /// released without a shutdown stops a debug build).
    private func withLoader<T>(_ origin: TestOrigin, retries: Int = 0, token: String? = nil,
                               _ body: (S3SourceLoader) async throws -> T) async throws -> T {
        let s3 = try loader(origin, retries: retries, token: token)
        do {
            let result = try await body(s3)
            try await s3.shutdown()
            return result
        } catch {
            try? await s3.shutdown()
            throw error
        }
    }

    private func loader(_ origin: TestOrigin, retries: Int, token: String?) throws -> S3SourceLoader {
        var config = DownloaderConfig.default
        config.retryStrategy = retries > 0 ? RetryStrategy(maxRetries: retries) : nil
        config.downloadTimeout = TestTimeout.download
        let credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret", sessionToken: token)
        return try S3SourceLoader(configuration: S3Configuration(credentials: credentials, region: "eu-west-1",
                                                                 endpoint: origin.url("/")),
                                  downloaderConfig: config, now: { Self.date })
    }

    @Test func theRequestIsSignedForS3AtItsEndpoint() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/images/photos/a%20b.img", .data(TestImageCoder.encode(width: 3, height: 2)))
            let result = try await withLoader(origin, token: "session") { s3 in
                try await s3.loadImage(URL(string: "s3://images/photos/a%20b.img")!, context: .testing(coder))
            }
            #expect(result.image?.pixelSize == PixelSize(width: 3, height: 2))
            let request = try #require(origin.requests("/images/photos/a%20b.img").first)
            #expect(request.header("Host") == "127.0.0.1:\(origin.port)")
            #expect(request.header("X-Amz-Date") == "20150830T123600Z")
            #expect(request.header("x-amz-content-sha256") == AWSSigner.emptyPayloadHash)
            #expect(request.header("X-Amz-Security-Token") == "session")
            let authorization = try #require(request.header("Authorization"))
            #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-1/s3/aws4_request, "
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="))
        }
    }

    @Test func aFailingStoreIsRetriedAndARedirectIsNotFollowed() async throws {
        try await withTestOrigin { origin in
            origin.setRoutes("/images/a.img", [.status(503), .data(TestImageCoder.encode(width: 2, height: 2))])
            origin.setRoute("/images/moved.img", .redirect(to: "/images/a.img", status: 307))
            try await withLoader(origin, retries: 1) { s3 in
                let retried = try await s3.loadImage(URL(string: "s3://images/a.img")!, context: .testing(coder))
                #expect(retried.image != nil)
                #expect(origin.requestCount("/images/a.img") == 2)
                await #expect(throws: WebImageError.self) {
                    try await s3.loadImage(URL(string: "s3://images/moved.img")!, context: .testing(coder))
                }
            }
            #expect(origin.requestCount("/images/a.img") == 2)
        }
    }

    @Test func aRefusalNamesS3sErrorCode() async throws {
        try await withTestOrigin { origin in
            let body = Array("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>".utf8)
            origin.setRoute("/images/secret.img", TestOriginRoute(status: 403, contentType: "application/xml", body: body))
            let error = try await withLoader(origin) { s3 in
                await #expect(throws: WebImageError.self) {
                    try await s3.loadImage(URL(string: "s3://images/secret.img")!, context: .testing(coder))
                }
            }
            #expect(error?.code == .invalidDownloadStatusCode)
            #expect(error?.httpStatus == 403)
            #expect(error?.url?.absoluteString == "s3://images/secret.img")
            #expect(error?.message.contains("AccessDenied: Access Denied") == true, "\(String(describing: error))")
        }
    }
}
