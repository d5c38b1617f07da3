import Foundation
import WebImage
import WebImageRedis

/// Everything `webimage serve` can be told: where it listens, how URLs are signed, which sources
/// it may fetch, its limits and its caches. The defaults are a safe public server.
public struct ServerConfiguration: Sendable {
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one (see ``ImageServer/port``).
    public var port = 8080
    /// Hex-encoded HMAC keys and salts, pair by pair (several pairs let keys rotate). Without
    /// them, URLs are not signed and any signature segment is accepted.
    public var keys: [String] = []
    public var salts: [String] = []
    /// Bytes of the HMAC kept in a signature (1–32).
    public var signatureSize = 32
    /// Named option sets (`name` → `rs:fit:300:300/q:70`); `default` applies to every request.
    public var presets: [String: String] = [:]

    /// Lets sources resolve to loopback, private, link-local and other restricted addresses.
    /// Off: a server must not be turned against its own network.
    public var allowPrivateSources = false
    /// When not empty, only sources under one of these URL prefixes are fetched, on every
    /// redirect hop too (compared as `SourceAllowList` does, not as text).
    public var allowedSources: [String] = []
    /// The directory `local:///path` sources are read from (`ROOT/path`); nil (the default)
    /// refuses every `local:` source with 403. Nothing outside it is read: see `LocalSourceLoader`.
    public var localFilesystemRoot: URL?
    /// `s3://bucket/key` sources: where they are fetched from and with which credentials
    /// (`S3Configuration/fromEnvironment(endpoint:_:)` reads them the AWS way); nil (the default)
    /// refuses every `s3:` source with 403. The private-address guard applies to the endpoint.
    public var s3: S3Configuration?
    /// The largest source body fetched (or local file read).
    public var maxSourceBytes = 50 * 1024 * 1024
    /// The largest source image decoded, in pixels (50 MP).
    public var maxSourceResolution = 50_000_000
    /// The executable that encodes large AVIF results in a child process, killed when the request
    /// is abandoned (an AVIF encode is one libaom call that cannot be stopped otherwise); nil
    /// encodes them in the server's process. `webimage serve` uses its own executable.
    public var encoderProcess: EncoderProcess?
    /// Frames of an animated source processed; 1 is the first frame only.
    public var maxAnimationFrames = 1
    /// Retries of a failed source download (connection errors, timeouts, 5xx, 429).
    public var sourceRetries = 1
    /// How long a source download may stall.
    public var sourceTimeout: TimeInterval = 10

    /// Where source bytes and results are cached on disk; `nil` caches sources in a temporary
    /// directory and results in memory only.
    public var cacheDirectory: URL?
    /// Bytes of encoded results kept on disk (under ``cacheDirectory``), trimmed least recently used first.
    public var resultDiskBytes = 1024 * 1024 * 1024
    /// How the source and result stores lay entries out on disk: default
    /// `DiskCacheLayout.packed` (segment files with an index, no file created per result).
    public var diskLayout: DiskCacheLayout = .packed
    /// Turns both caches off: every request fetches and processes its source.
    public var noCache = false
    /// Bytes of encoded results kept in memory.
    public var resultMemoryBytes = 64 * 1024 * 1024
    /// The shared cache tier (Redis) under the local caches, for sources and results, so several
    /// instances share work; nil for none. See docs/SCALING.md.
    public var sharedCache: RedisConfiguration?
    /// Seconds an entry lives in the shared cache (0: until Redis evicts it).
    public var sharedCacheTTL = 7 * 24 * 3600
    /// How long an instance waits for another instance making the same result before making it
    /// itself, in seconds; the lease it waits on lives twice as long.
    public var sharedCacheLeaseWait: TimeInterval = 5
    /// The `max-age` of results, in seconds (a year); a result's max-age never passes the
    /// freshness left to its source either (see ``sourceTTL``).
    public var ttl = 31_536_000
    /// Seconds a cached source is used without asking its origin again when the origin sends no
    /// `Cache-Control` max-age or `Expires` (a day). Past it, the source is revalidated with a
    /// conditional request in the background while its results are still served.
    public var sourceTTL = 86_400
    /// The shortest freshness a source is given, and the shortest `max-age` of a result (a minute):
    /// an origin's `max-age=0` or `no-cache` means a revalidation at most this often.
    public var freshnessFloor = 60
    /// The longest freshness a source is given, whatever its origin's `max-age` (a week); a
    /// result's `max-age` never passes it.
    public var freshnessCeiling = 604_800
    /// With the shared tier: seconds an instance uses what it knows of a source before checking
    /// the shared tier's record again, which bounds how long it serves a source another instance
    /// saw change or purged (0: checked on every request).
    public var sharedSourceCheckInterval = 1

    /// CPU-heavy stages (decode, transform, encode) run at once.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Requests made at once beyond `workers` (fetching their source or waiting for a worker); a
    /// request beyond `workers + maxQueue` gets 429.
    public var maxQueue = 256
    /// The longest request target accepted (414 beyond).
    public var maxURLLength = 8192
    /// The longest side a result may have: a request whose result would be larger is planned
    /// smaller as a whole (canvas and padding included), as imgproxy does; 0 is no limit. Every
    /// image made along the way is bounded too (see docs/SERVER.md, "Limits and hostile input").
    public var maxResultDimension = 8192
    /// Encodes WebP when the request's `Accept` names it and the URL names no format.
    public var autoWebP = false
    /// Encodes AVIF when the request's `Accept` names it and the URL names no format (before
    /// WebP); an animation kept whole (``maxAnimationFrames`` above 1) becomes an AVIF sequence.
    public var autoAVIF = false
    /// The quality of lossy results when the URL names none.
    public var defaultQuality = 80
    /// `keep_copyright`'s default, as imgproxy's `IMGPROXY_KEEP_COPYRIGHT` (on): results keep the
    /// source's EXIF Copyright and Artist when their metadata is stripped.
    public var keepCopyright = true
    /// `strip_color_profile`'s default, as imgproxy's `IMGPROXY_STRIP_COLOR_PROFILE` (on): results
    /// are converted to sRGB without a profile; off, they keep the source's colours and profile.
    public var stripColorProfile = true
    /// `format:best`: the SSIM (`StructuralSimilarity`: luma, 11×11 Gaussian windows) the answer
    /// must reach against the processed image before encoding, above 0 and at most 1; when no
    /// lossy candidate reaches it, the answer is lossless. 0.98 keeps photos free of visible
    /// artefacts at a normal viewing size.
    public var autoQualityTarget = 0.98
    /// `format:best`: the lowest quality (1–100) a lossy candidate is tried at.
    public var autoQualityMin = 30
    /// `format:best`: the highest quality (1–100, at least ``autoQualityMin``) a lossy candidate
    /// is tried at; a format that misses the target there is out.
    public var autoQualityMax = 90
    /// `format:best`: the most encodes one result's search makes, over all candidates (2–100; one
    /// is kept for the lossless encoding served when no lossy one reaches the target).
    public var bestFormatMaxEncodes = 16
    /// `format:best`: the largest result (in pixels) the candidates are searched for; a larger
    /// one is encoded once, in the first format of AVIF, WebP the client accepts (else JPEG, or
    /// PNG with alpha), at its default quality. 0 never searches.
    public var bestFormatMaxResolution = 4_000_000
    /// How long a request may take from arrival to its answer (504 beyond; 0 is no limit). A
    /// result another request is still waiting for goes on being made and cached.
    public var requestTimeout: TimeInterval = 30
    /// The monitor whose memory-pressure signals shrink the caches and hold back worker slots
    /// (see `ServerMemoryPressure`); nil (the default) ignores memory pressure. `webimage serve`
    /// uses `MemoryPressureMonitor/shared` unless told `--memory-pressure off`.
    public var memoryPressure: MemoryPressureMonitor?
    /// How long a graceful shutdown waits for requests in flight.
    public var shutdownTimeout: TimeInterval = 20

    // Connections: how long one may keep the server waiting, how many are held (checked by
    // ``checkConnectionSettings()``).
    /// Seconds a request may take to arrive whole, from its first byte (a connection's first
    /// request: from the connection's opening); the connection is closed beyond.
    public var readTimeout: TimeInterval = 10
    /// Seconds a kept-alive connection may wait idle for its next request before it is closed.
    public var keepAliveTimeout: TimeInterval = 10
    /// Connections held at once; one more is answered 503 and closed. nil: the open-file limit
    /// less a reserve for the server's own files and sockets.
    public var maxConnections: Int?

    /// The time in unix seconds, by which `exp` is judged (injectable, so tests need not wait).
    public var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// A configuration with every default.
    /// The image `watermark` / `wm` draws (`--watermark-path`, `--watermark-url`,
    /// `--watermark-data`); nil: `wm` changes nothing, as in imgproxy without one.
    public var watermark: WatermarkSource?
    /// The watermark's base opacity, above 0 and at most 1 (`--watermark-opacity`); a URL's
    /// `wm` opacity multiplies it.
    public var watermarkOpacity = 1.0

    public init() {}
}
