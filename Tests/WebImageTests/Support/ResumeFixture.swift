import Foundation
@testable import WebImage
@testable import WebImageLoading

/// What the resume suites share: a picture served with ranges and a validator, cut short after
/// `cut` bytes, and a downloader that retries on a test clock.
protocol ResumeFixture {
    var picture: [UInt8] { get }
    var cut: Int { get }
}

extension ResumeFixture {
    func config(retries: Int, messages: RecordingLogHandler.Messages? = nil) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.retryStrategy = RetryStrategy(maxRetries: retries)
        config.clock = TestClock()
        if let messages { config.logger = RecordingLogHandler.logger(messages) }
        return config
    }

    /// The picture with ranges and `etag`, its body cut after `cut` bytes (the declared length stays whole).
    func cutRoute(etag: String? = "\"v1\"", lastModified: String? = nil) -> TestOriginRoute {
        var route = TestOriginRoute.data(picture, mode: .closeAfter(cut))
        route.contentLength = picture.count
        route.acceptsRanges = true
        route.etag = etag
        route.lastModified = lastModified
        return route
    }
}
