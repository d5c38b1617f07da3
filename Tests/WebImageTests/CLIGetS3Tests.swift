import Foundation
import Testing
@testable import WebImage
@testable import WebImageLoading

/// `webimage get s3://bucket/key` against a real S3-compatible server on loopback: the credentials
/// come from the AWS variables, the store from `--s3-endpoint`.
@Suite("CLI get: s3:// URLs", .enabled(if: S3TestServer.isInstalled, "python3 with moto[server] is not installed (scripts/install-deps installs it)"))
struct CLIGetS3Tests {
    @Test func getLoadsABucketObjectWithTheEnvironmentsKey() async throws {
        let png = try CLIProcess.pngFixture()
        let s3 = try await S3TestServer.start(objects: ["a.png": Data(png)])
        let dir = try CLIProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let environment: [String: String?] = ["AWS_ACCESS_KEY_ID": s3.credentials.accessKeyID,
                                              "AWS_SECRET_ACCESS_KEY": s3.credentials.secretAccessKey,
                                              "AWS_SESSION_TOKEN": nil, "AWS_REGION": "us-east-1"]
        let arguments = ["--cache-dir", dir.path, "--json", "--s3-endpoint", s3.endpoint.absoluteString, "--retries", "0"]
        let run = try await CLIProcess.run(["get", "s3://images/a.png"] + arguments, environment: environment)
        let missing = try await CLIProcess.run(["get", "s3://images/none.png"] + arguments, environment: environment)
        // Its own cache directory: the image is cached in the first one.
        let empty = dir.appendingPathComponent("empty").path
        let noKey = try await CLIProcess.run(["get", "s3://images/a.png", "--cache-dir", empty, "--json",
                                              "--s3-endpoint", s3.endpoint.absoluteString],
                                             environment: ["AWS_ACCESS_KEY_ID": nil, "AWS_SECRET_ACCESS_KEY": nil])
        await s3.stop()

        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let loaded = try run.object(0)
        #expect(loaded["width"] as? Int == 64 && loaded["height"] as? Int == 48)
        #expect(loaded["bytes"] as? Int == png.count)

        #expect(missing.status == 1)
        let error = try #require(try missing.object(0)["error"] as? [String: Any])
        #expect((error["message"] as? String)?.contains("NoSuchKey") == true, "\(error)")

        #expect(noKey.status == 1)
        let refused = try #require(try noKey.object(0)["error"] as? [String: Any])
        #expect((refused["message"] as? String)?.contains("AWS_ACCESS_KEY_ID") == true, "\(refused)")
    }
}

/// S3 settings the CLI refuses before it starts: no store needed.
@Suite("CLI: S3 settings")
struct CLIS3SettingsTests {
    static let noCredentials: [String: String?] = ["AWS_ACCESS_KEY_ID": nil, "AWS_SECRET_ACCESS_KEY": nil]
    static let credentials: [String: String?] = ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"]

    @Test(arguments: [
        (["serve", "--use-s3"], noCredentials, "AWS_ACCESS_KEY_ID"),
        (["serve", "--s3-endpoint", "http://127.0.0.1:9000"], noCredentials, "AWS_ACCESS_KEY_ID"),
        (["serve", "--s3-endpoint", "ftp://127.0.0.1:9000"], credentials, "--s3-endpoint"),
        (["serve", "--s3-endpoint", "http://127.0.0.1:99999"], credentials, "--s3-endpoint"),
        (["get", "s3://images/a.png", "--s3-endpoint", "http://127.0.0.1:9000?x=1"], credentials, "--s3-endpoint"),
        (["serve", "--local-filesystem-root", "/nonexistent-webimage-root"], [:], "--local-filesystem-root"),
    ])
    func aBadSettingIsAUsageError(arguments: [String], environment: [String: String?], token: String) async throws {
        let run = try await CLIProcess.run(arguments, environment: environment)
        #expect(run.status != 0, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(token), "\(arguments): \(run.stderr)")
    }
}
