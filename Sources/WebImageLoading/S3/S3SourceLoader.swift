import WebImageCodecs
import Foundation

/// Loads `s3://bucket/key` URLs: a GET of the object signed with AWS Signature Version 4
/// (``AWSSigner``), sent through an ``ImageDownloader`` of its own, so it has the downloader's
/// retries, size limits, timeouts, safe-fetch guard and one download per object at a time.
///
/// The downloader is the loader's own so that only signed requests share its downloads: a plain
/// http(s) load of the same object URL can never join a signed one. The guard
/// (``DownloaderConfig/addressPolicy``) applies to the endpoint; the allow-list
/// (``DownloaderConfig/sourceAllowList``) does not (the endpoint is the loader's own setting), and
/// redirects are not followed (a signed request must not be sent elsewhere). A failure keeps S3's
/// own words: a 403 or 404 fails with ``WebImageError/Code/invalidDownloadStatusCode``, that
/// status, and a message naming S3's error code (`NoSuchKey`, `SignatureDoesNotMatch`,
/// `InvalidAccessKeyId`, …). Call ``shutdown()`` when done with it.
public final class S3SourceLoader: ImageLoading {
    /// Bytes of an error response's body read for S3's error code.
    static let errorBodyLimit = 4096

    /// Where objects are fetched from and with which credentials.
    public let configuration: S3Configuration
    /// The loader's own downloader.
    public let downloader: ImageDownloader
    private let signer: AWSSigner
    /// The signing time (injectable for tests).
    private let now: @Sendable () -> Date

    /// A loader for `configuration` (``WebImageError/Code/invalidURL`` when its endpoint or region
    /// is not valid) whose downloader has `downloaderConfig`, less its allow-list and redirects.
    public init(configuration: S3Configuration, downloaderConfig: DownloaderConfig = .default,
                now: @escaping @Sendable () -> Date = { Date() }) throws(WebImageError) {
        try configuration.validate()
        self.configuration = configuration
        var config = downloaderConfig
        config.sourceAllowList = nil
        config.maximumRedirects = 0
        downloader = ImageDownloader(config: config)
        signer = AWSSigner(credentials: configuration.credentials, region: configuration.region, service: "s3")
        self.now = now
    }

    /// Cancels its downloads and shuts its downloader down.
    public func shutdown() async throws {
        try await downloader.shutdown()
    }

    /// True for `s3:` URLs.
    public func canRequest(_ url: URL) -> Bool { url.scheme?.lowercased() == "s3" }

    /// The http(s) URL the object at `url` is fetched from, or why `url` names none.
    public func objectURL(for url: URL) throws(WebImageError) -> URL {
        let location = try S3Location(url)
        guard let objectURL = configuration.objectURL(location) else {
            throw WebImageError(.invalidURL, "The object URL for \(url.absoluteString) cannot be formed.", url: url)
        }
        return objectURL
    }

    /// Signs and downloads the object, then decodes it as the downloader does.
    @discardableResult
    public func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                             progress: ImageLoadProgress?,
                             completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        let objectURL: URL
        do {
            objectURL = try self.objectURL(for: url)
        } catch {
            completion(.failure(error))
            return nil
        }
        var context = context
        context.errorBodyLimit = Self.errorBodyLimit
        let (signer, now, original) = (signer, now, context.requestModifier)
        context.requestModifier = DownloadRequestModifier { request in
            guard var request = original.map({ $0.modify(request) }) ?? request else { return nil }
            let signed = signer.signed(
                method: request.method, url: request.url,
                headers: [HTTPHeaderField(name: "x-amz-content-sha256", value: AWSSigner.emptyPayloadHash)],
                date: now())
            for field in signed { request.headers.set(field.name, field.value) }
            return request
        }
        return downloader.requestImage(with: objectURL, options: options, context: context, progress: progress) { result in
            guard result.isFinished, let error = result.error else { return completion(result) }
            var described = result
            described.error = Self.described(error, source: url)
            completion(described)
        }
    }

    /// A download's error told in S3's terms: the status and S3's error code and message from
    /// the body, for the `s3:` URL.
    static func described(_ error: WebImageError, source: URL) -> WebImageError {
        guard error.code == .invalidDownloadStatusCode, let status = error.httpStatus else {
            var error = error
            error.url = source
            return error
        }
        let body = error.responseBody ?? Data()
        let code = S3ErrorBody.element("Code", in: body) ?? "no error code"
        let message = S3ErrorBody.element("Message", in: body).map { ": \($0)" } ?? ""
        var described = WebImageError(.invalidDownloadStatusCode,
                                      "S3 answered HTTP \(status) for \(source.absoluteString): \(code)\(message)",
                                      url: source, httpStatus: status, contentType: error.contentType)
        described.responseBody = error.responseBody
        return described
    }
}

/// The parts of S3's XML error body (`<Error><Code>NoSuchKey</Code><Message>…</Message>…`) a log needs.
enum S3ErrorBody {
    /// The text of the first `<name>` element in `body`, printable ASCII only, at most 256
    /// characters; nil when there is none.
    static func element(_ name: String, in body: Data) -> String? {
        let text = String(decoding: body.prefix(S3SourceLoader.errorBodyLimit), as: UTF8.self)
        guard let open = text.range(of: "<\(name)>"),
              let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        let value = text[open.upperBound..<close.lowerBound]
            .filter { $0.isASCII && ($0 == " " || ($0.isPunctuation || $0.isSymbol || $0.isLetter || $0.isNumber)) }
        return value.isEmpty ? nil : String(value.prefix(256))
    }
}
