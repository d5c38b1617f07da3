import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `waitStoreCache` covers the validators written beside the bytes: a short-lived process that
/// exits after the load keeps what its next `refreshCached` sends.
@Suite("Image manager: waitStoreCache waits for the validators")
struct ManagerValidatorStoreTests {
    /// An `ImageCache` whose validator writes are held until the test releases them.
    final class HeldValidatorsCache: ForwardingCache {
        let inner: ImageCache
        private let held = Mutex<[@Sendable () -> Void]>([])
        private let arrived = Mutex<CheckedContinuation<Void, Never>?>(nil)
        init(inner: ImageCache) { self.inner = inner }

        /// Returns once a validator write is held.
        func waitForHeldWrite() async {
            await withCheckedContinuation { continuation in
                let already = held.withLock { !$0.isEmpty }
                if already { continuation.resume() } else { arrived.withLock { $0 = continuation } }
            }
        }

        /// Lets the held validator writes go ahead.
        func release() {
            for write in held.withLock({ writes in defer { writes = [] }; return writes }) { write() }
        }

        var heldCount: Int { held.withLock { $0.count } }

        func setValidators(_ validators: HTTPValidators?, forKey key: String, completion: (@Sendable () -> Void)?) {
            let inner = inner
            held.withLock { $0.append { inner.setValidators(validators, forKey: key, completion: completion) } }
            arrived.withLock { waiter in defer { waiter = nil }; return waiter }?.resume()
        }
        func validators(forKey key: String) -> HTTPValidators? { inner.validators(forKey: key) }
    }

    @Test func theLoadCompletesOnlyAfterItsValidatorsAreWritten() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/v.png", LoadScript.png(6, 6).validated(etag: "\"v1\""))
            let cache = HeldValidatorsCache(inner: h.cache)
            let manager = ImageManager(cache: cache, loader: h.loader)
            let load = Task { try await manager.image(for: url, options: .waitStoreCache) }
            await cache.waitForHeldWrite()
            // The validators are not written yet, so the load has not completed.
            #expect(manager.isRunning)
            cache.release()
            let result = try await load.value
            #expect(result.image?.pixelSize == PixelSize(width: 6, height: 6))
            // A new cache object on the same directory (a new process) reads them at once.
            let (_, fresh) = h.freshManager()
            #expect(fresh.validators(forKey: url.absoluteString)?.etag == "\"v1\"")
        }
    }
}
