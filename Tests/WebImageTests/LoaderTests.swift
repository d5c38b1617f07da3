import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Loader: file, data and the loaders manager")
struct LoaderTests {
    let coder = TestImageCoder()

    @Test func dataURLWithBase64Decodes() async throws {
        let bytes = TestImageCoder.encode(width: 3, height: 2)
        let url = URL(string: "data:image/x-test;base64," + Data(bytes).base64EncodedString())!
        let result = try await DataURLImageLoader().loadImage(url, context: .testing(coder))
        #expect(result.image?.pixelSize == PixelSize(width: 3, height: 2))
        #expect(result.data == Data(bytes))
        #expect(result.response?.contentType == "image/x-test")
    }

    @Test func dataURLWithPercentEncodingDecodes() async throws {
        let bytes = TestImageCoder.encode(width: 2, height: 2)
        let escaped = bytes.map { String(format: "%%%02X", $0) }.joined()
        let url = URL(string: "data:," + escaped)!
        let result = try await DataURLImageLoader().loadImage(url, context: .testing(coder))
        #expect(result.image?.pixelSize == PixelSize(width: 2, height: 2))
        #expect(result.response?.contentType == "text/plain;charset=US-ASCII")
    }

    @Test func dataURLParserHandlesMediaTypesAndBadInput() {
        #expect(DataURL.parse("data:text/plain;charset=utf-8,a%20b")?.data == Data("a b".utf8))
        #expect(DataURL.parse("data:text/plain;charset=utf-8,a%20b")?.mediaType == "text/plain;charset=utf-8")
        #expect(DataURL.parse("data:;base64,SGk")?.data == Data("Hi".utf8))
        #expect(DataURL.parse("data:image/png;base64,%%%") == nil)
        #expect(DataURL.parse("data:image/png;base64,A") == nil)
        #expect(DataURL.parse("data:no-comma") == nil)
        #expect(DataURL.parse("http://example.com/,x") == nil)
    }

    @Test func malformedDataURLIsAnInvalidURLAndBlocks() async throws {
        let url = URL(string: "data:image/png;base64")!
        let error = await #expect(throws: WebImageError.self) {
            try await DataURLImageLoader().loadImage(url, context: .testing(coder))
        }
        #expect(error?.code == .invalidURL)
        #expect(DataURLImageLoader().shouldBlockFailedURL(url, error: error!))
    }

    @Test func fileURLDecodesAndReportsProgress() async throws {
        let file = try temporaryFile(TestImageCoder.encode(width: 5, height: 4))
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = LoadRecorder()
        let result = try await FileImageLoader().loadImage(file, context: .testing(coder),
                                                           progress: recorder.progressHandler)
        #expect(result.image?.pixelSize == PixelSize(width: 5, height: 4))
        let size = Int64(TestImageCoder.headerSize + 5 * 4 * 4)
        #expect(recorder.progress.map(\.0) == [0, size])
        #expect(recorder.progress.map(\.1) == [-1, size])
    }

    @Test func emptyFileIsBadDataForEveryCaller() async throws {
        let file = try temporaryFile([])
        defer { try? FileManager.default.removeItem(at: file) }
        let loader = FileImageLoader()
        for _ in 0..<3 {
            let error = await #expect(throws: WebImageError.self) {
                try await loader.loadImage(file, context: .testing(coder))
            }
            #expect(error?.code == .badImageData)
            #expect(loader.shouldBlockFailedURL(file, error: error!))
        }
    }

    @Test func missingFileIsAnInvalidURL() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).img")
        let error = await #expect(throws: WebImageError.self) {
            try await FileImageLoader().loadImage(file, context: .testing(coder))
        }
        #expect(error?.code == .invalidURL)
    }

    @Test func fileLargerThanTheLimitIsRefused() async throws {
        let file = try temporaryFile(TestImageCoder.encode(width: 8, height: 8))
        defer { try? FileManager.default.removeItem(at: file) }
        let error = await #expect(throws: WebImageError.self) {
            try await FileImageLoader(maximumFileSize: 16).loadImage(file, context: .testing(coder))
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func cancellingALocalLoadCompletesOnceWithCancelled() async throws {
        let file = try temporaryFile(TestImageCoder.encode(width: 2, height: 2))
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = LoadRecorder()
        let released = TestGate()
        // Only the background read holds this progress block: its release means the read is over.
        let token = FileImageLoader().requestImage(with: file, options: [], context: .testing(coder),
                                                   progress: { [probe = ReleaseProbe.reporting(to: released)] _, _, _ in
                                                       withExtendedLifetime(probe) {}
                                                   },
                                                   completion: recorder.completion)
        token?.cancel()
        token?.cancel()
        // The cancel reports at once, on the cancelling thread.
        #expect(recorder.finals.count == 1)
        await released.wait("the background read to finish")
        #expect(recorder.finals.count == 1)
        #expect(recorder.results.count == 1 && recorder.finals.first?.error?.code == .cancelled)
    }

    @Test func managerPicksTheLastAddedLoaderThatCanRequest() async throws {
        let manager = LoadersManager(loaders: [FileImageLoader(), DataURLImageLoader()])
        let first = RecordingLoader(scheme: "data", name: "first")
        let second = RecordingLoader(scheme: "data", name: "second")
        manager.addLoader(first)
        manager.addLoader(second)
        let url = URL(string: "data:,x")!
        #expect(manager.canRequest(url))
        #expect((manager.loader(for: url) as? RecordingLoader)?.name == "second")
        manager.removeLoader(second)
        #expect((manager.loader(for: url) as? RecordingLoader) == nil)
        #expect(manager.loader(for: url) is DataURLImageLoader)
        let unknown = URL(string: "ftp://example.com/a.png")!
        #expect(!manager.canRequest(unknown))
        #expect(!manager.shouldBlockFailedURL(unknown, error: WebImageError(.invalidURL, "x")))
        let error = await #expect(throws: WebImageError.self) { try await manager.loadImage(unknown) }
        #expect(error?.code == .invalidURL)
    }

    @Test func managerDefersTheBlockDecisionToTheChosenLoader() {
        let manager = LoadersManager(loaders: [DataURLImageLoader(), RecordingLoader(scheme: "data", name: "x")])
        let url = URL(string: "data:,x")!
        #expect(manager.shouldBlockFailedURL(url, error: WebImageError(.connectionFailed, "x")))
        #expect(!LoadersManager(loaders: [DataURLImageLoader()]).shouldBlockFailedURL(
            url, error: WebImageError(.connectionFailed, "x")))
    }

    /// The documented table: failures that would repeat block (SDWebImage blocks its bad URL and
    /// bad data, and every network error outside its transient list: TLS, redirect loops).
    @Test func defaultBlockRuleFollowsSDWebImage() {
        let blocking: [WebImageError.Code] = [.invalidURL, .badImageData, .unsupportedFormat,
                                              .tooManyRedirects, .tlsFailure]
        for code in WebImageError.Code.allCases {
            #expect(ImageLoadBlockRule.shouldBlock(WebImageError(code, "x")) == blocking.contains(code))
        }
        #expect(!ImageLoadBlockRule.shouldBlock(CancellationError()))
    }

    private func temporaryFile(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loader-\(UUID().uuidString).img")
        try Data(bytes).write(to: url)
        return url
    }
}

/// A loader for one scheme that blocks every failure (to tell it apart from the built-in rule).
struct RecordingLoader: ImageLoading {
    let scheme: String
    let name: String

    func canRequest(_ url: URL) -> Bool { url.scheme == scheme }

    func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                      progress: ImageLoadProgress?,
                      completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        completion(.failure(WebImageError(.badImageData, "\(name) never loads")))
        return nil
    }

    func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool { true }
}
