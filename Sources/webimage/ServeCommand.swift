import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Logging
import Metrics
import Prometheus
import WebImage
import WebImageServer
import WebImageRedis

/// `webimage serve`: the image server, with imgproxy's URL API. Every option can also come from
/// the environment as `WEBIMAGE_` + its name in capitals with `_` for `-` (`WEBIMAGE_KEY`).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized images with imgproxy's URL API: /SIGNATURE/OPTIONS/plain/SOURCE_URL[@EXT].",
        discussion: """
        Example (no key: any signature segment, e.g. "insecure"):
          webimage serve --port 8080
          curl http://127.0.0.1:8080/insecure/rs:fit:300:300/q:80/plain/https://example.com/a.jpg@webp

        Sources on loopback, private and link-local addresses are refused unless \
        --allow-private-sources is given. Every option also reads WEBIMAGE_<NAME> from the \
        environment (e.g. WEBIMAGE_KEY, WEBIMAGE_SALT, WEBIMAGE_PORT); options on the command line win.
        """)

    @Option(help: "Address to listen on.")
    var host = Env.string("HOST") ?? "127.0.0.1"
    @Option(help: "Port to listen on (0: a free one, printed at start).")
    var port = Env.int("PORT") ?? 8080
    @Option(help: "Hex HMAC key; repeat (or separate with commas) for key rotation, paired with --salt.")
    var key: [String] = Env.list("KEY")
    @Option(help: "Hex salt, one per --key.")
    var salt: [String] = Env.list("SALT")
    @Option(help: "Bytes of the HMAC kept in signatures (1–32).")
    var signatureSize = Env.int("SIGNATURE_SIZE") ?? 32
    @Option(help: "A named option set, NAME=OPTIONS (e.g. thumb=rs:fill:150:150/q:70); 'default' applies to every URL.")
    var preset: [String] = Env.list("PRESET")
    @Flag(help: "Allow sources on loopback, private, link-local and other restricted addresses.")
    var allowPrivateSources = Env.flag("ALLOW_PRIVATE_SOURCES")
    @Option(help: "Only fetch sources under this URL prefix, on the first request and every redirect: scheme, host, port and path are compared, not the text (repeatable).")
    var allowSource: [String] = Env.list("ALLOW_SOURCE")
    @Option(help: "Directory that local:///PATH sources are read from (ROOT/PATH; nothing outside it). Without it, local sources are refused with 403 (env WEBIMAGE_LOCAL_FILESYSTEM_ROOT).")
    var localFilesystemRoot: String?
    @Flag(help: "Read s3://BUCKET/KEY sources, signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) for AWS_REGION (default us-east-1). Without it, s3 sources are refused with 403.")
    var useS3 = Env.flag("USE_S3")
    @Option(help: "An S3-compatible store's URL (MinIO, Ceph, R2), objects at URL/BUCKET/KEY (path-style); implies --use-s3. The private-address guard applies to it (env WEBIMAGE_S3_ENDPOINT).")
    var s3Endpoint: String?
    @Option(help: "Largest source body fetched (or local file read), in bytes.")
    var maxSrcBytes = Env.int("MAX_SRC_BYTES") ?? 50 * 1024 * 1024
    @Option(help: "Largest source image decoded, in megapixels.")
    var maxSrcResolution = Env.double("MAX_SRC_RESOLUTION") ?? 50
    @Option(help: "Frames of an animated source processed (1: the first frame).")
    var maxAnimationFrames = Env.int("MAX_ANIMATION_FRAMES") ?? 1
    @Option(help: "Retries of a failed source download.")
    var retries = Env.int("RETRIES") ?? 1
    @Option(help: "Seconds a source download may stall.")
    var sourceTimeout = Env.double("SOURCE_TIMEOUT") ?? 10
    @Option(help: "Directory for cached sources (default: a temporary directory; env WEBIMAGE_CACHE_DIR).")
    var cacheDir: String?
    @Flag(help: "No caching: every request fetches and processes its source.")
    var noCache = Env.flag("NO_CACHE")
    @Option(help: "Seconds results may be cached by clients (Cache-Control max-age).")
    var ttl = Env.int("TTL") ?? 31_536_000
    @Option(help: "Seconds a cached source is used before it is revalidated with its origin, when the origin sends no Cache-Control max-age or Expires.")
    var sourceTtl = Env.int("SOURCE_TTL") ?? 86_400
    @Option(help: "Shortest freshness given to a source and shortest max-age of a result, in seconds.")
    var freshnessFloor = Env.int("FRESHNESS_FLOOR") ?? 60
    @Option(help: "Longest freshness given to a source, whatever its origin says, and longest max-age of a result, in seconds.")
    var freshnessCeiling = Env.int("FRESHNESS_CEILING") ?? 604_800
    @Option(help: "With --shared-cache: seconds an instance trusts what it knows of a source before checking the shared record again (bounds how long it serves a source purged or changed elsewhere; 0: every request).")
    var sharedSourceCheck = Env.int("SHARED_SOURCE_CHECK") ?? 1
    @Option(help: "Requests decoded, processed and encoded at once (default: the number of cores); downloads take no worker.")
    var workers = Env.int("WORKERS") ?? ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "Requests made at once beyond the workers (fetching or waiting for one); more get 429.")
    var maxQueue = Env.int("MAX_QUEUE") ?? 256
    @Option(help: "Longest request target accepted, in bytes.")
    var maxUrlLength = Env.int("MAX_URL_LENGTH") ?? 8192
    @Option(help: "Plan results at most this many pixels on a side, scaled down as a whole (0: no limit).")
    var maxResultDimension = Env.int("MAX_RESULT_DIMENSION") ?? 8192
    @Flag(help: "Serve WebP when the URL names no format and the client accepts it.")
    var autoWebp = Env.flag("AUTO_WEBP")
    @Flag(help: "Serve AVIF when the URL names no format and the client accepts it (before WebP; an animation kept by --max-animation-frames as an AVIF sequence).")
    var autoAvif = Env.flag("AUTO_AVIF")
    @Option(help: "Quality of lossy results when the URL names none (1–100).")
    var quality = Env.int("QUALITY") ?? 80
    @Flag(inversion: .prefixedNo, help: "Keep the source's EXIF Copyright and Artist in results when the URL has no keep_copyright (kcr) option.")
    var keepCopyright = Env.string("KEEP_COPYRIGHT").map { _ in Env.flag("KEEP_COPYRIGHT") } ?? true
    @Flag(inversion: .prefixedNo, help: "Convert results to sRGB without a colour profile when the URL has no strip_color_profile (scp) option; --no-strip-color-profile keeps the source's profile in JPEG, PNG and WebP results.")
    var stripColorProfile = Env.string("STRIP_COLOR_PROFILE").map { _ in Env.flag("STRIP_COLOR_PROFILE") } ?? true
    @Option(help: "format:best: the SSIM (luma, 11×11 Gaussian windows) the answer must reach against the processed image, above 0 and at most 1 (no lossy candidate reaching it: a lossless answer).")
    var autoqualityTarget = Env.double("AUTOQUALITY_TARGET") ?? 0.98
    @Option(help: "format:best: the lowest quality a lossy candidate is tried at (1–100).")
    var autoqualityMin = Env.int("AUTOQUALITY_MIN") ?? 30
    @Option(help: "format:best: the highest quality a lossy candidate is tried at (1–100); a format missing the target there is out.")
    var autoqualityMax = Env.int("AUTOQUALITY_MAX") ?? 90
    @Option(help: "format:best: the most encodes one result's search makes, over all formats (2–100; one is kept for a lossless answer when no lossy one reaches the target).")
    var bestFormatMaxEncodes = Env.int("BEST_FORMAT_MAX_ENCODES") ?? 16
    @Option(help: "format:best: the largest result searched, in megapixels; a larger one is encoded once (AVIF, else WebP if accepted; 0: never search).")
    var bestFormatMaxResolution = Env.double("BEST_FORMAT_MAX_RESOLUTION") ?? 4
    @Option(help: "The watermark image wm draws, a local file read and decoded at start (env WEBIMAGE_WATERMARK_PATH).")
    var watermarkPath: String?
    @Option(help: "The watermark image wm draws, an http(s) URL fetched once before listening, through the sources' guard and limits (env WEBIMAGE_WATERMARK_URL).")
    var watermarkUrl: String?
    @Option(help: "The watermark image wm draws, as base64 (env WEBIMAGE_WATERMARK_DATA).")
    var watermarkData: String?
    @Option(help: "The watermark's base opacity, above 0 and at most 1; wm's opacity multiplies it.")
    var watermarkOpacity = Env.double("WATERMARK_OPACITY") ?? 1
    @Option(help: "Seconds a request may take before it is answered with 504 (0: no limit).")
    var requestTimeout = Env.double("REQUEST_TIMEOUT") ?? 30
    @Option(help: "Megabytes of encoded results kept in memory.")
    var resultMemorySize = Env.int("RESULT_MEMORY_SIZE") ?? 64
    @Option(help: "Megabytes of encoded results kept on disk under --cache-dir.")
    var resultDiskSize = Env.int("RESULT_DISK_SIZE") ?? 1024
    @Option(name: .customLong("disk-layout"), help: "How cached sources and results are laid out on disk: packed (segment files with an index) or files (one file each). Env WEBIMAGE_DISK_LAYOUT.")
    var diskLayout = Env.string("DISK_LAYOUT").flatMap(DiskCacheLayout.init(rawValue:)) ?? .packed
    @Option(help: "Shared cache tier for sources and results, shared by every instance: redis://[user:password@]host:port/db (env WEBIMAGE_SHARED_CACHE).")
    var sharedCache: String?
    @Option(help: "Seconds an entry lives in the shared cache (0: until Redis evicts it).")
    var sharedCacheTtl = Env.int("SHARED_CACHE_TTL") ?? 7 * 24 * 3600
    @Option(help: "Milliseconds a connection to, or an answer from, the shared cache may take before it counts as down.")
    var sharedCacheTimeout = Env.int("SHARED_CACHE_TIMEOUT") ?? 50
    @Option(help: "Seconds an instance waits for another one making the same new result before making it itself.")
    var sharedCacheLeaseWait = Env.double("SHARED_CACHE_LEASE_WAIT") ?? 5
    @Option(help: "Seconds a shutdown waits for requests in flight.")
    var shutdownTimeout = Env.double("SHUTDOWN_TIMEOUT") ?? 20
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = Env.string("LOG_LEVEL") ?? "info"
    @Option(help: "Log lines as text or json (one object per line), on standard error.")
    var logFormat = Env.string("LOG_FORMAT") ?? "text"
    @Option(help: "Follow Linux memory pressure (PSI and the cgroup's memory.events): shrink the caches and hold back new decode work while it lasts (on or off).")
    var memoryPressure = Env.string("MEMORY_PRESSURE") ?? "on"

    // Connections: how long one may keep the server waiting, how many are held.
    @Option(help: "Seconds a request may take to arrive whole, from its first byte (a new connection: from its opening); the connection is closed beyond.")
    var readTimeout = Env.double("READ_TIMEOUT") ?? 10
    @Option(help: "Seconds an idle kept-alive connection waits for its next request before it is closed.")
    var keepAliveTimeout = Env.double("KEEP_ALIVE_TIMEOUT") ?? 10
    @Option(help: "Connections held at once; more are answered 503 and closed (default: the open-file limit less a reserve; env WEBIMAGE_MAX_CONNECTIONS).")
    var maxConnections: Int?

    func validate() throws {
        try validateConnectionOptions()
        try validateFreshnessOptions()
        try validateBestFormatOptions()
        try validateWatermarkOptions()
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0–65535, got \(port).") }
        guard key.count == salt.count else {
            throw ValidationError("--key and --salt come in pairs: \(key.count) keys, \(salt.count) salts.")
        }
        guard (1...32).contains(signatureSize) else { throw ValidationError("--signature-size takes 1–32.") }
        guard workers > 0, maxQueue >= 0 else { throw ValidationError("--workers must be positive and --max-queue not negative.") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality takes 1–100, got \(quality).") }
        guard maxSrcBytes > 0, maxSrcResolution > 0 else { throw ValidationError("Source limits must be positive.") }
        guard maxSrcResolution <= 1_000_000, (0...65535).contains(maxResultDimension), maxAnimationFrames >= 1,
              resultMemorySize <= 1 << 30, resultDiskSize <= 1 << 30 else {
            throw ValidationError("A limit is out of range: --max-src-resolution up to 1000000, --max-result-dimension 0–65535, --max-animation-frames from 1, cache sizes up to 1073741824 MB.")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("Unknown --log-level '\(logLevel)'.") }
        guard ["on", "off"].contains(memoryPressure) else {
            throw ValidationError("--memory-pressure takes on or off, got '\(memoryPressure)'.")
        }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format takes text or json, got '\(logFormat)'.") }
        guard requestTimeout >= 0 else { throw ValidationError("--request-timeout must not be negative.") }
        guard resultMemorySize >= 0, resultDiskSize >= 0 else { throw ValidationError("Cache sizes must not be negative.") }
        _ = try presets()
        do {
            _ = try SourceAllowList(allowSource)
        } catch {
            throw ValidationError("--allow-source: \(error.message)")
        }
        _ = try sharedCacheConfiguration()
        _ = try s3Configuration()
        guard sharedCacheTtl >= 0, sharedCacheLeaseWait >= 0 else {
            throw ValidationError("--shared-cache-ttl and --shared-cache-lease-wait must not be negative.")
        }
        guard sharedCacheTimeout > 0 else { throw ValidationError("--shared-cache-timeout must be positive.") }
    }

    /// The Redis configuration `--shared-cache` names, if any.
    func sharedCacheConfiguration() throws -> RedisConfiguration? {
        guard let sharedCache = sharedCache ?? Env.string("SHARED_CACHE") else { return nil }
        do {
            var configuration = try RedisConfiguration(url: sharedCache)
            configuration.connectTimeoutMilliseconds = sharedCacheTimeout
            configuration.operationTimeoutMilliseconds = sharedCacheTimeout
            return configuration
        } catch {
            throw ValidationError("--shared-cache: \(error)")
        }
    }

    /// The S3 settings `--use-s3` / `--s3-endpoint` and the AWS environment give, if any.
    func s3Configuration() throws -> S3Configuration? {
        let s3Endpoint = s3Endpoint ?? Env.string("S3_ENDPOINT")
        guard useS3 || s3Endpoint != nil else { return nil }
        var endpoint: URL?
        if let s3Endpoint {
            guard let url = URL(string: s3Endpoint) else { throw ValidationError("--s3-endpoint: '\(s3Endpoint)' is not a URL.") }
            endpoint = url
        }
        guard let configuration = S3Configuration.fromEnvironment(endpoint: endpoint) else {
            throw ValidationError("S3 sources need AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment.")
        }
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("--s3-endpoint: \(error.message)")
        }
        return configuration
    }

    func presets() throws -> [String: String] {
        var presets: [String: String] = [:]
        for entry in preset {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw ValidationError("--preset takes NAME=OPTIONS, got '\(entry)'.")
            }
            presets[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return presets
    }

    func serverConfiguration() throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.encoderProcess = EncoderProcess.ownExecutable
        configuration.host = host
        configuration.port = port
        configuration.keys = key.flatMap { $0.split(separator: ",").map(String.init) }
        configuration.salts = salt.flatMap { $0.split(separator: ",").map(String.init) }
        configuration.signatureSize = signatureSize
        configuration.presets = try presets()
        configuration.allowPrivateSources = allowPrivateSources
        configuration.allowedSources = allowSource
        configuration.localFilesystemRoot = (localFilesystemRoot ?? Env.string("LOCAL_FILESYSTEM_ROOT")).map { URL(fileURLWithPath: $0, isDirectory: true) }
        configuration.s3 = try s3Configuration()
        configuration.maxSourceBytes = maxSrcBytes
        configuration.maxSourceResolution = Int(maxSrcResolution * 1_000_000)
        configuration.maxAnimationFrames = maxAnimationFrames
        configuration.sourceRetries = retries
        configuration.sourceTimeout = sourceTimeout
        configuration.cacheDirectory = (cacheDir ?? Env.string("CACHE_DIR")).map { URL(fileURLWithPath: $0) }
        configuration.noCache = noCache
        configuration.ttl = ttl
        configuration.workers = workers
        configuration.maxQueue = maxQueue
        configuration.maxURLLength = maxUrlLength
        configuration.maxResultDimension = maxResultDimension
        configuration.autoWebP = autoWebp
        configuration.autoAVIF = autoAvif
        configuration.defaultQuality = quality
        configuration.keepCopyright = keepCopyright
        configuration.stripColorProfile = stripColorProfile
        configuration.shutdownTimeout = shutdownTimeout
        configuration.requestTimeout = requestTimeout
        configuration.resultMemoryBytes = resultMemorySize * 1024 * 1024
        configuration.resultDiskBytes = resultDiskSize * 1024 * 1024
        configuration.diskLayout = diskLayout
        configuration.sharedCache = try sharedCacheConfiguration()
        configuration.sharedCacheTTL = sharedCacheTtl
        configuration.sharedCacheLeaseWait = sharedCacheLeaseWait
        configuration.memoryPressure = memoryPressure == "on" ? .shared : nil
        applyConnectionOptions(to: &configuration)
        applyFreshnessOptions(to: &configuration)
        applyBestFormatOptions(to: &configuration)
        try applyWatermarkOptions(to: &configuration)
        return configuration
    }

    func run() async throws {
        // Handlers run on the event loop that owns their connection: a result-cache hit is
        // answered without a hop to another thread. Decoding, resizing and encoding run on worker
        // threads of their own, so the event loops never wait for them.
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "webimage.serve")
        logger.logLevel = level
        // The library's download and cache metrics go to the registry `/metrics` prints.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let server: ImageServer
        do {
            server = try ImageServer(configuration: serverConfiguration(), logger: logger, registry: registry)
        } catch {
            throw ValidationError("\(error)")
        }
        try await server.run(onRunning: { port in
            FileHandle.standardOutput.write(Data("webimage serve: listening on http://\(host):\(port)/\n".utf8))
        }, onStopping: { inFlight in
            FileHandle.standardOutput.write(Data("webimage serve: stopping; \(inFlight) request(s) in flight\n".utf8))
        }, onCutShort: { inFlight in
            FileHandle.standardOutput.write(Data("webimage serve: second signal; stopping now, \(inFlight) request(s) cut short\n".utf8))
        })
    }
}

/// The environment defaults of `webimage serve`'s options (`WEBIMAGE_` + the option's name).
enum Env {
    static func string(_ name: String) -> String? {
        ProcessInfo.processInfo.environment["WEBIMAGE_" + name].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func int(_ name: String) -> Int? { string(name).flatMap { Int($0) } }

    static func double(_ name: String) -> Double? { string(name).flatMap { Double($0) } }

    static func flag(_ name: String) -> Bool { ["1", "true", "yes"].contains(string(name)?.lowercased() ?? "") }

    static func list(_ name: String) -> [String] {
        string(name).map { $0.split(separator: ",").map(String.init) } ?? []
    }
}
