import Foundation
import Testing
@testable import WebImageLoading
#if canImport(Glibc)
import Glibc
#endif

/// A real S3-compatible server for the tests: moto's server (PyPI `moto[server]`, which
/// `scripts/install-deps` installs; run as `python3 -m moto.server`) on a free loopback port, with signature checks on. It is
/// seeded with one bucket and its objects, and an IAM user allowed to read them whose key the
/// tests sign with; any other key or secret is refused as S3 refuses it. Stopped by ``stop()``
/// or when the value goes away.
final class S3TestServer: Sendable {
    /// python3 on the PATH, if any.
    static let python: String? = executableOnPath("python3")

    /// Whether python3 can import moto's server and boto3 (for the seeding script); tests skip without.
    static let isInstalled: Bool = {
        guard let python, let child = try? ChildProcess(python, ["-c", "import moto.server, boto3"]) else { return false }
        return child.wait() == .exited(0)
    }()

    static let bucket = "images"

    let port: Int
    /// The reader's credentials.
    let credentials: AWSCredentials
    /// The lines moto has logged, one per request (`"GET /images/a.jpg HTTP/1.1" 200 -`).
    let requests = Watched([String]())
    private let process: ChildProcess

    /// The endpoint, `http://127.0.0.1:PORT`.
    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The S3 settings of a client of this server: the reader's key, or `credentials` when given.
    func configuration(_ credentials: AWSCredentials? = nil) -> S3Configuration {
        S3Configuration(credentials: credentials ?? self.credentials, region: "us-east-1", endpoint: endpoint)
    }

    /// GET requests moto has answered for `key` in the bucket (the path as sent, percent-encoded).
    func getCount(_ encodedKey: String) -> Int {
        requests.value.filter { $0.contains("\"GET /\(Self.bucket)/\(encodedKey) HTTP") }.count
    }

    private init(port: Int, credentials: AWSCredentials, process: ChildProcess) {
        self.port = port
        self.credentials = credentials
        self.process = process
    }

    /// A server holding `objects` (key → bytes) in ``bucket``.
    static func start(objects: [String: Data]) async throws -> S3TestServer {
        guard let python else { throw S3TestServerError.notInstalled }
        var attempt = 1
        while true {
            let port = try RedisTestServer.freeLoopbackPort()
            // The seeding's own requests: the bucket, each object, then the user, its policy, its key.
            let seedingActions = 1 + objects.count + 3
            var environment = ProcessInfo.processInfo.environment
            environment["INITIAL_NO_AUTH_ACTION_COUNT"] = String(seedingActions)
            // Its log (on standard error) is read from the pipe: "Running on …", then one line per request.
            let child = try ChildProcess("/bin/sh", ["-c", "exec \"$0\" -m moto.server -H 127.0.0.1 -p \(port) 2>&1", python],
                                         environment: environment, stdout: .pipe, stderr: .null)
            guard await ready(child, port: port) else {
                child.send(SIGKILL)
                _ = await offThePool { child.wait() }
                if attempt < 5 { attempt += 1; continue }
                throw S3TestServerError.didNotStart(port)
            }
            let credentials = try await seed(python: python, port: port, objects: objects)
            let server = S3TestServer(port: port, credentials: credentials, process: child)
            let requests = server.requests
            Thread { drain(child, into: requests) }.start()
            return server
        }
    }

    /// SIGSTOP: the server keeps its port and accepts connections, but answers nothing.
    func pause() { process.send(SIGSTOP) }

    /// SIGCONT after ``pause()``.
    func resume() { process.send(SIGCONT) }

    /// A server a failed test left running is killed (its log's reader then ends).
    deinit { process.send(SIGKILL) }

    /// Stops the server (SIGKILL) and waits for it.
    func stop() async {
        resume()
        process.send(SIGKILL)
        _ = await offThePool { [process] in process.wait() }
    }

    /// Whether moto says it listens on `port` before its output ends.
    private static func ready(_ child: ChildProcess, port: Int) async -> Bool {
        await offThePool {
            var seen = ""
            while true {
                let chunk = child.readAvailableStdout()
                if chunk.isEmpty { return false }
                seen += String(decoding: chunk, as: UTF8.self)
                if seen.contains("Running on http://127.0.0.1:\(port)") { return true }
                if seen.count > 100_000 { seen = String(seen.suffix(1000)) }
            }
        }
    }

    /// Keeps reading moto's log until it ends, so its pipe never fills, and keeps its request lines.
    private static func drain(_ process: ChildProcess, into requests: Watched<[String]>) {
        var pending = ""
        while true {
            let chunk = process.readAvailableStdout()
            if chunk.isEmpty { return }
            pending += String(decoding: chunk, as: UTF8.self)
            var lines = pending.split(separator: "\n", omittingEmptySubsequences: false)
            pending = String(lines.removeLast())
            let requestLines = lines.filter { $0.contains("\" ") && $0.contains(" HTTP/1.1\"") }.map(String.init)
            if !requestLines.isEmpty { requests.update { $0 += requestLines } }
        }
    }

    /// Creates the bucket and objects, and a reader with a key, through boto3 (moto's own
    /// dependency) while moto still takes unsigned requests; returns the reader's key.
    private static func seed(python: String, port: Int, objects: [String: Data]) async throws -> AWSCredentials {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("s3-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = ["-c", seedScript, "http://127.0.0.1:\(port)", bucket]
        for (index, (key, data)) in objects.sorted(by: { $0.key < $1.key }).enumerated() {
            let path = directory.appendingPathComponent("object-\(index)").path
            try data.write(to: URL(fileURLWithPath: path))
            arguments += [key, path]
        }
        let output = directory.appendingPathComponent("key").path
        let child = try ChildProcess(python, arguments + ["--out", output], stdout: .null, stderr: .null)
        let termination = await offThePool { child.wait() }
        let words = (try? String(contentsOfFile: output, encoding: .utf8))?.split(separator: " ") ?? []
        guard termination == .exited(0), words.count == 2 else { throw S3TestServerError.seedingFailed }
        return AWSCredentials(accessKeyID: String(words[0]), secretAccessKey: String(words[1]))
    }

    private static let seedScript = """
        import boto3, json, sys
        args = sys.argv[1:]
        out = args[args.index("--out") + 1]
        args = args[:args.index("--out")]
        endpoint, bucket, pairs = args[0], args[1], args[2:]
        kw = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="seed", aws_secret_access_key="seed")
        s3 = boto3.client("s3", **kw)
        s3.create_bucket(Bucket=bucket)
        for key, path in zip(pairs[0::2], pairs[1::2]):
            s3.put_object(Bucket=bucket, Key=key, Body=open(path, "rb").read())
        iam = boto3.client("iam", **kw)
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        open(out, "w").write(key["AccessKeyId"] + " " + key["SecretAccessKey"])
        """

    private static func executableOnPath(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

enum S3TestServerError: Error, CustomStringConvertible {
    case notInstalled, didNotStart(Int), seedingFailed

    var description: String {
        switch self {
        case .notInstalled: "python3 with moto[server] is not installed (scripts/install-deps installs it)"
        case .didNotStart(let port): "moto_server did not start on port \(port)"
        case .seedingFailed: "seeding moto (boto3) failed"
        }
    }
}
