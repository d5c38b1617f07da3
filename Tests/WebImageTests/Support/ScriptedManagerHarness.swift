import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A ``ScriptedLoader``, a cache in a temp directory and a manager over them: the manager,
/// prefetcher and binding suites' fixture. Nothing touches the network.
struct ScriptedManagerHarness: Sendable {
    let loader: ScriptedLoader
    let caches: ImageCacheHarness
    let manager: ImageManager

    var cache: ImageCache { caches.cache }

    /// A URL on the scripted host.
    func url(_ path: String) -> URL { ScriptedLoader.url(path) }

    /// Scripts `path` and returns its URL.
    @discardableResult
    func serve(_ path: String, _ script: LoadScript) -> URL {
        let url = url(path)
        loader.setScript(script, for: url)
        return url
    }

    /// A second manager over a new cache object on the same directory (a "new process").
    func freshManager() -> (ImageManager, ImageCache) {
        var config = ImageCacheConfig()
        config.disk.automaticTrimDelay = nil
        let cache = ImageCache(namespace: "test", directory: caches.sandbox.root, config: config)
        return (ImageManager(cache: cache, loader: loader), cache)
    }

    /// Waits until the cache's queues have run everything queued so far (stores included).
    func drain() { caches.drain() }
}

/// Runs `body` with a fresh ``ScriptedManagerHarness``; afterwards cancels whatever the test left
/// held or running and removes the cache directory.
func withScriptedManager<T>(_ body: (ScriptedManagerHarness) async throws -> T) async throws -> T {
    let caches = ImageCacheHarness()
    let loader = ScriptedLoader()
    let manager = ImageManager(cache: caches.cache, loader: loader)
    defer {
        manager.cancelAll()
        loader.cancelAll()
        caches.remove()
    }
    return try await body(ScriptedManagerHarness(loader: loader, caches: caches, manager: manager))
}
