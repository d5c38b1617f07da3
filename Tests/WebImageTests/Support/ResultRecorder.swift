import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Collects every result an ``ImageManager`` load reports, and lets the test await them.
///
/// Use ``completion`` with the public completion API, or ``receiver`` with the manager's event
/// API (what `loadImage`, the prefetcher and the binding are built on), which also reports a load
/// that ends without another result (a `refreshCached` revalidation that found the cached copy current).
/// "Nothing more arrived" is proven with ``settled(_:sourceLocation:)``, never by waiting a while.
final class ResultRecorder: Sendable {
    private struct Log {
        var results: [ImageManagerResult] = []
        /// The load said it is over: its last result, or a silent end.
        var ended = false
        var endedSilently = false
    }

    private let log = Watched(Log())

    /// A completion for `loadImage(with:options:context:progress:completed:)` and the binding.
    var completion: @Sendable (ImageManagerResult) -> Void {
        { result in self.log.update { $0.results.append(result) } }
    }

    /// A receiver for `ImageManager.start(_:options:context:progress:receiver:)`.
    var receiver: ImageManagerOperation.Receiver {
        .events { event in
            self.log.update { log in
                switch event {
                case .result(let result, let isLast):
                    log.results.append(result)
                    if isLast { log.ended = true }
                case .endedSilently:
                    log.ended = true
                    log.endedSilently = true
                }
            }
        }
    }

    var results: [ImageManagerResult] { log.value.results }
    var finals: [ImageManagerResult] { results.filter(\.isFinished) }
    var partials: [ImageManagerResult] { results.filter { !$0.isFinished } }
    /// True once an event receiver heard a silent end.
    var endedSilently: Bool { log.value.endedSilently }

    /// Waits until `count` final results have arrived and returns the finals so far.
    @discardableResult
    func waitForFinals(_ count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> [ImageManagerResult] {
        await log.wait("\(count) final result(s)", sourceLocation: sourceLocation) { log in
            log.results.count(where: \.isFinished) >= count
        }
        return finals
    }

    /// Waits until `count` results of any kind (partial images included) have arrived.
    @discardableResult
    func waitForResults(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> [ImageManagerResult] {
        await log.wait("\(count) result(s)", sourceLocation: sourceLocation) { $0.results.count >= count }
        return results
    }

    /// Waits until the load ended, with its last result or silently (``receiver`` only).
    @discardableResult
    func waitForEnd(sourceLocation: SourceLocation = #_sourceLocation) async -> [ImageManagerResult] {
        await log.wait("the load to end", sourceLocation: sourceLocation) { $0.ended }
        return results
    }

    /// Every result `operation` will ever report: it has finished (so the manager sends it nothing
    /// more) and its callback queue has run everything sent to it before now.
    func settled(_ operation: ImageManagerOperation,
                 sourceLocation: SourceLocation = #_sourceLocation) async -> [ImageManagerResult] {
        #expect(operation.isFinished, "the operation has finished", sourceLocation: sourceLocation)
        await operation.callbackQueue.drained()
        return results
    }
}

extension CallbackQueue {
    /// Waits until every block handed to this queue before the call has run.
    func drained() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            execute { continuation.resume() }
        }
    }
}

/// The error an async load throws, or nil when it succeeds.
func loadError(_ manager: ImageManager, _ url: URL?, options: WebImageOptions = [],
               context: WebImageContext = .none) async -> WebImageError? {
    do {
        _ = try await manager.image(for: url, options: options, context: context)
        return nil
    } catch {
        return error
    }
}
