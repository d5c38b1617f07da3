import ArgumentParser
import Foundation
import WebImage

/// The flags `get` and `prefetch` share: how to load (options, headers, timeouts), what to
/// deliver (thumbnail, transform) and which cache to use.
struct LoadOptions: ParsableArguments {
    @OptionGroup var location: CacheLocation

    @Option(name: .customLong("option"),
            help: "A WebImageOptions name in lowerCamelCase (retryFailed, refreshCached, fromCacheOnly, …); repeatable.")
    var optionNames: [String] = []

    @Option(name: .customLong("transform"),
            help: "resize:WxH[:fill|fit|aspectFill], crop:X,Y,W,H, round:RADIUS[:BORDER[:#RRGGBBAA]], flip:h|v|hv, rotate:DEGREES[:fit], tint:#RRGGBBAA or blur:RADIUS; repeat to chain in order.")
    var transformSpecs: [String] = []

    @Option(name: .customLong("header"), help: "A request header \"Name: value\"; repeatable.")
    var headerSpecs: [String] = []

    @Option(help: "Decode to fit WxH pixels (a thumbnail, cached under its own key), e.g. 256x256.")
    var thumbnail: String?

    @Option(help: "Download timeout in seconds (default 15).")
    var timeout: Double?

    @Option(name: .customLong("max-per-host"),
            help: "At most this many downloads at once to one host (default 6, or --max-concurrent when that is higher).")
    var maxPerHost: Int?

    @Option(name: .customLong("rate-limit"),
            help: "Start at most N requests per second after a burst of 25 (default 80; 0 turns the limit off).")
    var rateLimit: Double = 80

    @Option(help: "Try a download that failed with a connection error, a timeout or HTTP 408, 429, 500, 502, 503 or 504 again up to N times (default 2; 0 never retries).")
    var retries = 2

    @Option(name: .customLong("retry-max-delay"),
            help: "The longest wait before a retry in seconds, Retry-After included (default 30).")
    var retryMaxDelay: Double?

    @Flag(name: .customLong("deny-private-addresses"),
          help: "Refuse to connect to loopback, private, link-local, CGNAT, multicast and other non-public addresses, on the first request and every redirect (the safe-fetch guard, for servers that fetch URLs they are given); a refused URL fails with forbiddenAddress.")
    var denyPrivateAddresses = false

    @Option(name: .customLong("allow-network"),
            help: ArgumentHelp("With --deny-private-addresses: a CIDR block that may be reached anyway, e.g. 10.20.0.0/16; repeatable.",
                               valueName: "cidr"))
    var allowedNetworks: [String] = []

    @Option(name: .customLong("allow-host"),
            help: ArgumentHelp("With --deny-private-addresses: a host name that may be reached whatever it resolves to; repeatable.",
                               valueName: "host"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("s3-endpoint"),
            help: "For s3://BUCKET/KEY URLs: an S3-compatible store's URL, objects at URL/BUCKET/KEY (default: AWS). Credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION.")
    var s3Endpoint: String?

    mutating func validate() throws {
        _ = try addressPolicy()
        _ = try s3Configuration()
        _ = try options()
        _ = try TransformSpec.transformer(for: transformSpecs)
        _ = try headers()
        if let thumbnail, PixelSize(parsing: thumbnail) == nil {
            throw ValidationError("Bad --thumbnail '\(thumbnail)': expected WxH with positive whole numbers.")
        }
        if let timeout, !(timeout.isFinite && timeout > 0) {
            throw ValidationError("Bad --timeout '\(timeout)': expected a positive number of seconds.")
        }
        if let maxPerHost, maxPerHost < 1 {
            throw ValidationError("Bad --max-per-host '\(maxPerHost)': expected a whole number ≥ 1.")
        }
        if !(rateLimit.isFinite && rateLimit >= 0) {
            throw ValidationError("Bad --rate-limit '\(rateLimit)': expected a number of requests per second ≥ 0.")
        }
        if retries < 0 {
            throw ValidationError("Bad --retries '\(retries)': expected a whole number ≥ 0.")
        }
        if let retryMaxDelay, !(retryMaxDelay.isFinite && retryMaxDelay >= 0) {
            throw ValidationError("Bad --retry-max-delay '\(retryMaxDelay)': expected a number of seconds ≥ 0.")
        }
    }

    /// A usage error unless `--max-concurrent` (each command has its own, with its own meaning)
    /// is absent or at least 1.
    static func validate(maxConcurrent: Int?) throws {
        if let maxConcurrent, maxConcurrent < 1 {
            throw ValidationError("Bad --max-concurrent '\(maxConcurrent)': expected a whole number ≥ 1.")
        }
    }

    /// The `--option` names as one option set; a usage error naming the first unknown name.
    func options() throws -> WebImageOptions {
        try optionNames.reduce(into: WebImageOptions()) { set, name in
            guard let option = WebImageOptions(name: name) else {
                let known = WebImageOptions.named.map(\.name).joined(separator: ", ")
                throw ValidationError("Unknown --option '\(name)'. Known options: \(known).")
            }
            set.insert(option)
        }
    }

    /// The `--header` values as name/value pairs; a usage error naming a malformed one.
    func headers() throws -> [HTTPHeaderField] {
        try headerSpecs.map { spec in
            guard let colon = spec.firstIndex(of: ":") else {
                throw ValidationError("Bad --header '\(spec)': expected \"Name: value\".")
            }
            let name = spec[..<colon].trimmingCharacters(in: .whitespaces)
            let value = spec[spec.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let allowed = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }),
                  !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw ValidationError("Bad --header '\(spec)': the name must be an HTTP token and the value one line.")
            }
            return HTTPHeaderField(name: name, value: value)
        }
    }

    /// The safe-fetch guard's policy `--deny-private-addresses`, `--allow-network` and
    /// `--allow-host` ask for (nil: off); a usage error for a malformed block or an allow-list
    /// without the guard.
    func addressPolicy() throws -> AddressPolicy? {
        let networks = try allowedNetworks.map { cidr in
            guard let network = IPNetwork(cidr) else {
                throw ValidationError("Bad --allow-network '\(cidr)': expected an address or a CIDR block such as 10.20.0.0/16.")
            }
            return network
        }
        if let empty = allowedHosts.first(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("Bad --allow-host '\(empty)': expected a host name.")
        }
        guard denyPrivateAddresses else {
            if !networks.isEmpty || !allowedHosts.isEmpty {
                throw ValidationError("--allow-network and --allow-host only apply with --deny-private-addresses.")
            }
            return nil
        }
        return AddressPolicy(allowedNetworks: networks, allowedHosts: Set(allowedHosts))
    }

    /// The retries `--retries` and `--retry-max-delay` ask for (nil: none).
    var retryStrategy: RetryStrategy? {
        guard retries > 0 else { return nil }
        var strategy = RetryStrategy(maxRetries: retries)
        if let retryMaxDelay { strategy.maxDelay = retryMaxDelay }
        return strategy
    }

    /// The S3 settings from the environment and `--s3-endpoint`; nil without credentials.
    func s3Configuration() throws -> S3Configuration? {
        var endpoint: URL?
        if let s3Endpoint {
            guard let url = URL(string: s3Endpoint) else { throw ValidationError("--s3-endpoint: '\(s3Endpoint)' is not a URL.") }
            endpoint = url
        }
        guard let configuration = S3Configuration.fromEnvironment(endpoint: endpoint) else { return nil }
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("--s3-endpoint: \(error.message)")
        }
        return configuration
    }

    /// A downloader with `--timeout`, the retries, the `--header` values and, when given, a cap on
    /// concurrent downloads. The caller must shut it down.
    func makeDownloader(maxConcurrentDownloads: Int?) throws -> ImageDownloader {
        var config = DownloaderConfig.default
        if let timeout { config.downloadTimeout = timeout }
        config.retryStrategy = retryStrategy
        config.rateLimit = rateLimit > 0 ? RequestRateLimit(requestsPerSecond: rateLimit, burst: 25) : nil
        if let maxConcurrentDownloads { config.maxConcurrentDownloads = maxConcurrentDownloads }
        config.maxConcurrentDownloadsPerHost = maxPerHost
            ?? max(config.maxConcurrentDownloadsPerHost, maxConcurrentDownloads ?? 0)
        config.allowInvalidSSLCertificates = try options().contains(.allowInvalidSSLCertificates)
        config.addressPolicy = try addressPolicy()
        let downloader = ImageDownloader(config: config)
        for header in try headers() { downloader.setHeader(header.value, for: header.name) }
        return downloader
    }
}

/// The loading stack a command uses: its own downloader (for `file:` and `data:` URLs too) and
/// an image cache over `--cache-dir`.
struct LoadingStack {
    let downloader: ImageDownloader
    /// The loader of `s3:` URLs, with AWS credentials in the environment.
    let s3: S3SourceLoader?
    let loaders: LoadersManager
    let cache: ImageCache

    /// The stack for `options`; `maxConcurrentDownloads` nil keeps the downloader's default (6).
    init(_ options: LoadOptions, maxConcurrentDownloads: Int? = nil) throws {
        let s3Configuration = try options.s3Configuration()
        downloader = try options.makeDownloader(maxConcurrentDownloads: maxConcurrentDownloads)
        let config = downloader.config
        let s3 = s3Configuration.flatMap { try? S3SourceLoader(configuration: $0, downloaderConfig: config) }
        self.s3 = s3
        loaders = LoadersManager(loaders: [downloader, FileImageLoader(), DataURLImageLoader(),
                                           s3 ?? MissingS3Credentials() as any ImageLoading])
        cache = options.location.makeImageCache()
    }

    /// Closes the downloader's HTTP client and lets the cache finish its queued disk writes
    /// (required before the process ends).
    func shutdown() async {
        try? await downloader.shutdown()
        try? await s3?.shutdown()
        // `waitStoreCache` covers an entry's bytes, not the validators written after them (nor those
        // a 304 refreshes); waiting for the I/O queue keeps them for the next run's revalidation.
        _ = cache.totalDiskCount
    }
}

/// Fails `s3:` URLs when the environment holds no AWS credentials, saying which variables to set.
private struct MissingS3Credentials: ImageLoading {
    func canRequest(_ url: URL) -> Bool { url.scheme?.lowercased() == "s3" }

    func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoadProgress?,
                      completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        completion(.failure(WebImageError(.invalidURL,
            "s3:// URLs need AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment.", url: url)))
        return nil
    }
}
